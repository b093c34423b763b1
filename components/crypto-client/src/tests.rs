//! The link's bookkeeping against a driver played by hand over one region.

extern crate std;

use super::*;
use pd_idl::digest::{DigestErrorRaw, DigestOp, Request, Response};
use shm_queue::SharedRegion;
use std::vec::Vec;

const CAP: u32 = 64;

#[repr(C, align(64))]
struct Page([u8; 20480]);

fn req(id: u32) -> Request {
    Request::over(id, 0, DigestOp::Update, &[])
}

/// The wire id of `id` sent by the first incarnation of the client (every link in these
/// tests but the restart tests' second).
fn first(id: u32) -> u32 {
    pair::wire_id(1, id)
}

fn resp(id: u32) -> Response {
    let mut r = <Response as zerocopy_free::Zero>::zero();
    r.id = id;
    r.status = DigestErrorRaw::OK;
    r
}

/// An all-zero response without a zerocopy dependency: the generated types are plain
/// integers and arrays, so every field can be named.
mod zerocopy_free {
    use pd_idl::digest::{DigestErrorRaw, Response};
    pub trait Zero {
        fn zero() -> Self;
    }
    impl Zero for Response {
        fn zero() -> Self {
            Response {
                id: 0,
                status: DigestErrorRaw::OK,
                digest_len: 0,
                reserved: [0; 5],
                bytes_done: 0,
            }
        }
    }
}

/// The driver's ends of a pair, played by hand.
type Driver<'a> = (Consumer<'a, Request>, Producer<'a, Response>, Control<'a>);

/// The driver's ends of the pair in `region`: a driver attaching, or its successor.
fn driver(region: SharedRegion<'_>) -> Driver<'_> {
    pair::driver_side::<Request, Response>(region, CAP).unwrap()
}

/// The client's link over the pair in `region`.
fn client(region: SharedRegion<'_>) -> DigestLink<'_> {
    let (tx, rx, control) = pair::client_side::<Request, Response>(region, CAP).unwrap();
    Link::new(tx, rx, control)
}

/// Both ends attached to the pair in `region`. `driver_up_first`: the driver published
/// its epoch before the link was made; otherwise it has yet to.
fn attached(region: SharedRegion<'_>, driver_up_first: bool) -> (DigestLink<'_>, Driver<'_>) {
    let (tx, rx, control) = pair::client_side::<Request, Response>(region, CAP).unwrap();
    let d = driver(region);
    if driver_up_first {
        d.2.publish_next(d.0.head());
    }
    (Link::new(tx, rx, control), d)
}

fn collect(link: &mut DigestLink<'_>) -> Vec<Completion<u32>> {
    let mut out = Vec::new();
    link.poll(|c| {
        out.push(match c {
            Completion::Answered(r) => Completion::Answered(r.id),
            Completion::Restarted(id) => Completion::Restarted(id),
        })
    })
    .unwrap();
    out
}

#[test]
fn a_restart_reports_each_unanswered_request_once_and_drops_late_answers() {
    let mut page = Page([0; 20480]);
    assert!(pair::bytes::<Request, Response>(CAP) <= page.0.len());
    let region = SharedRegion::new(&mut page.0);
    // The driver comes up after the client attached: not a restart.
    let (mut link, (mut d_rx, mut d_tx, d_control)) = attached(region, false);
    assert_eq!(d_control.publish_next(d_rx.head()), Epoch(1));
    for id in 0..5 {
        link.submit(req(id)).unwrap();
    }
    assert_eq!(link.submit(req(3)), Err(SubmitError::DuplicateId));
    // The driver answers 0 and 1, takes 2 and dies; 3 and 4 stay queued.
    for _ in 0..3 {
        let r = d_rx.dequeue().unwrap();
        if r.id < first(2) {
            d_tx.enqueue(resp(r.id)).unwrap();
        }
    }
    assert_eq!(
        collect(&mut link),
        [Completion::Answered(0), Completion::Answered(1)]
    );
    // The next incarnation discards what is queued, then publishes its epoch.
    let (mut d_rx, mut d_tx, d_control) = driver(region);
    while d_rx.dequeue().is_ok() {}
    assert_eq!(d_control.publish_next(d_rx.head()), Epoch(2));
    let got = collect(&mut link);
    assert_eq!(
        got,
        [
            Completion::Restarted(2),
            Completion::Restarted(3),
            Completion::Restarted(4)
        ]
    );
    assert_eq!(link.in_flight(), 0);
    // A late answer for a reported id is stray, not a second completion.
    d_tx.enqueue(resp(first(3))).unwrap();
    assert_eq!(collect(&mut link), []);
    let s = link.stats();
    assert_eq!(
        (s.submitted, s.answered, s.restarted, s.stray),
        (5, 2, 3, 1)
    );
    assert_eq!(s.restarts, 1);
}

/// Ids that share a home slot in the in-flight table (id and id + MAX_IN_FLIGHT): each is
/// tracked, a duplicate is still refused wherever its first copy sits, and every answer
/// completes exactly its own request.
#[test]
fn ids_sharing_a_slot_are_tracked_apart() {
    let mut page = Page([0; 20480]);
    let region = SharedRegion::new(&mut page.0);
    let (mut link, (mut d_rx, mut d_tx, d_control)) = attached(region, false);
    d_control.publish_next(d_rx.head());
    let n = MAX_IN_FLIGHT as u32;
    let ids = [5, 5 + n, 5 + 2 * n, 6];
    for id in ids {
        link.submit(req(id)).unwrap();
    }
    for id in ids {
        assert_eq!(link.submit(req(id)), Err(SubmitError::DuplicateId), "{id}");
    }
    // Answered out of order, the displaced ones first.
    for id in [5 + 2 * n, 6, 5, 5 + n] {
        assert_eq!(d_rx.dequeue().map(|_| ()), Ok(()));
        d_tx.enqueue(resp(first(id))).unwrap();
    }
    assert_eq!(
        collect(&mut link),
        [
            Completion::Answered(5 + 2 * n),
            Completion::Answered(6),
            Completion::Answered(5),
            Completion::Answered(5 + n)
        ]
    );
    assert_eq!(link.in_flight(), 0);
    // A second answer to any of them is stray.
    d_tx.enqueue(resp(first(5 + n))).unwrap();
    assert_eq!(collect(&mut link), []);
    assert_eq!(link.stats().stray, 1);
    // And the table is whole again: the same ids go in afresh.
    for id in ids {
        link.submit(req(id)).unwrap();
    }
    assert_eq!(link.in_flight(), 4);
}

/// A driver that keeps the response queue full of answers nobody asked for cannot hold
/// its client in `poll`: a call takes at most so many answers (`MAX_POLL`, more than an
/// honest driver can give while nothing new is submitted) and returns, counting the
/// overrun; what is left is taken at the next call, and a restart behind it is reported
/// only once every answer before it is read.
#[test]
fn a_driver_flooding_stray_answers_cannot_hold_its_client() {
    let mut page = Page([0; 20480]);
    let region = SharedRegion::new(&mut page.0);
    let (mut link, (mut d_rx, mut d_tx, d_control)) = attached(region, true);
    assert_eq!(collect(&mut link), []);
    link.submit(req(7)).unwrap();
    assert_eq!(d_rx.dequeue().map(|r| r.id), Ok(first(7)));
    // Strays up to the brim, then the driver dies and its successor comes up.
    while d_tx.enqueue(resp(first(999))).is_ok() {}
    d_control.publish_next(d_rx.head());
    let mut got = Vec::new();
    link.poll_at_most(16, |c| got.push(c)).unwrap();
    let s = link.stats();
    assert_eq!((s.stray, s.overruns, s.restarts), (16, 1, 0), "{s:?}");
    assert_eq!(got, [], "the restart waits behind the unread answers");
    link.poll_at_most(100, |c| got.push(c)).unwrap();
    let s = link.stats();
    assert_eq!(
        (s.stray, s.overruns),
        (u64::from(CAP), 1),
        "the rest, then empty: {s:?}"
    );
    assert_eq!(got, [Completion::Restarted(7)]);
}

/// A driver whose first incarnation comes and goes before the client first looks (epoch
/// 0 -> 2) was restarted: what the dead one took, and what its successor discarded, is
/// reported, not waited for for ever.
#[test]
fn a_first_incarnation_gone_before_the_client_looked_is_a_restart() {
    let mut page = Page([0; 20480]);
    let region = SharedRegion::new(&mut page.0);
    let mut link = client(region);
    for id in 0..3 {
        link.submit(req(id)).unwrap();
    }
    let (mut d_rx, _, d_control) = driver(region);
    d_control.publish_next(d_rx.head());
    assert_eq!(d_rx.dequeue().map(|r| r.id), Ok(first(0)));
    // It dies holding 0; the next one discards 1 and 2.
    let (mut d_rx, _, d_control) = driver(region);
    while d_rx.dequeue().is_ok() {}
    assert_eq!(d_control.publish_next(d_rx.head()), Epoch(2));
    assert_eq!(
        collect(&mut link),
        [
            Completion::Restarted(0),
            Completion::Restarted(1),
            Completion::Restarted(2)
        ]
    );
    assert_eq!((link.in_flight(), link.stats().restarts), (0, 1));
}

/// A request queued after a restarted driver settled the queue, but before the client
/// saw the new epoch (a client reopening its session after `ServerRestarted`, say), is
/// the new incarnation's to serve: it is answered, not reported restarted with its
/// answer then dropped as stray (for a cipher, its data was changed in place, and a
/// client that sent it again would encrypt it twice).
#[test]
fn a_request_queued_after_the_restart_is_answered_not_reported() {
    let mut page = Page([0; 20480]);
    let region = SharedRegion::new(&mut page.0);
    let (mut link, (mut d_rx, _, _)) = attached(region, true);
    link.submit(req(1)).unwrap();
    assert_eq!(d_rx.dequeue().map(|r| r.id), Ok(first(1)));
    // The driver dies holding 1; its successor settles the (empty) queue and publishes.
    let (mut d_rx, mut d_tx, d_control) = driver(region);
    while d_rx.dequeue().is_ok() {}
    d_control.publish_next(d_rx.head());
    // Not having polled, the client sends 2, which the new incarnation takes; the client
    // polls before it is answered: 1 is reported, 2 is not.
    link.submit(req(2)).unwrap();
    assert_eq!(d_rx.dequeue().map(|r| r.id), Ok(first(2)));
    assert_eq!(collect(&mut link), [Completion::Restarted(1)]);
    assert_eq!(link.in_flight(), 1);
    d_tx.enqueue(resp(first(2))).unwrap();
    assert_eq!(collect(&mut link), [Completion::Answered(2)]);
    let s = link.stats();
    assert_eq!((s.answered, s.restarted, s.stray, s.restarts), (1, 1, 0, 1));
    // Queued after the boundary but not yet answered, it would stay in flight.
    link.submit(req(3)).unwrap();
    let (_, _, d_control) = driver(region);
    d_control.publish_next(2);
    assert_eq!(collect(&mut link), []);
    assert_eq!(link.in_flight(), 1);
}

/// An answer `ServerRestarted` (a request on a session that died with an earlier
/// incarnation, served by the new one because it was queued past the boundary) is
/// reported as a restart, not as an answer the client would take for its own error.
#[test]
fn an_answer_server_restarted_is_reported_as_a_restart() {
    let mut page = Page([0; 20480]);
    let region = SharedRegion::new(&mut page.0);
    let (mut link, (mut d_rx, mut d_tx, _)) = attached(region, true);
    link.submit(req(4)).unwrap();
    assert_eq!(d_rx.dequeue().map(|r| r.id), Ok(first(4)));
    let mut r = resp(first(4));
    r.status = pd_idl::digest::DigestError::ServerRestarted.into();
    d_tx.enqueue(r).unwrap();
    assert_eq!(collect(&mut link), [Completion::Restarted(4)]);
    let s = link.stats();
    assert_eq!((s.answered, s.restarted, link.in_flight()), (0, 1, 0));
}

/// A client killed mid-stream and started again (a second link over the same pair) is
/// told of its own answers and tells the driver of its requests: the dead incarnation
/// left the response queue's flag spent (the driver notified it of an answer it never
/// read) and the request queue's too (it took the driver's request for a notification
/// and died before sending it). Before the fix neither end heard of the other: the new
/// incarnation's first flush said "no need", and so did the driver's answer.
#[test]
fn a_restarted_client_rearms_and_notifies_whatever_its_predecessor_left() {
    let mut page = Page([0; 20480]);
    let region = SharedRegion::new(&mut page.0);
    let (mut old, (mut d_rx, mut d_tx, _)) = attached(region, true);
    // The driver waits for requests (armed); the client sends one and takes the
    // request for a notification (it dies before sending it).
    assert!(d_rx.arm_signal().unwrap());
    old.queue(req(0)).unwrap();
    assert!(old.flush(), "the driver asked");
    // ... and an answer of the dead incarnation, notified (the flag spent), never read.
    d_tx.enqueue(resp(first(9))).unwrap();
    assert!(d_tx.take_signal_request());
    let _dead = old;
    let mut new = client(region);
    assert_eq!(new.incarnation(), 2);
    assert_eq!(
        new.stats().stale,
        1,
        "the dead one's answer, dropped at attach"
    );
    new.queue(req(0)).unwrap();
    assert!(
        new.flush(),
        "the first flush notifies whatever the flag says"
    );
    new.queue(req(1)).unwrap();
    assert!(!new.flush(), "only the first");
    // The driver, woken, serves; its answer is notified, as the link re-armed.
    while d_rx.dequeue().is_ok() {}
    d_tx.enqueue(resp(pair::wire_id(2, 0))).unwrap();
    assert!(
        d_tx.take_signal_request(),
        "the new incarnation asked to be told"
    );
}

/// A restarted client's ids start again at 0, as its predecessor's did: the answers of
/// the dead incarnation still in the response queue (and any the driver writes before
/// it sees the new one) carry the dead one's tag and are dropped as stale, never taken
/// for the new requests of the same ids; the new one's are delivered with the ids the
/// client chose.
#[test]
fn a_restarted_client_never_takes_its_predecessors_answers() {
    let mut page = Page([0; 20480]);
    let region = SharedRegion::new(&mut page.0);
    let (mut old, (mut d_rx, mut d_tx, d_control)) = attached(region, true);
    for id in 0..4 {
        old.submit(req(id)).unwrap();
    }
    // The driver answers 0 and 1; the client dies before it reads them.
    for _ in 0..2 {
        let r = d_rx.dequeue().unwrap();
        d_tx.enqueue(resp(r.id)).unwrap();
    }
    let _dead = old;
    let mut new = client(region);
    assert_eq!(new.stats().stale, 2);
    assert_eq!(d_control.client(), 2, "announced");
    assert_eq!(
        d_control.client_from(),
        4,
        "from past the dead one's requests, which the driver drops"
    );
    for id in 0..2 {
        new.submit(req(id)).unwrap();
    }
    // Not yet aware of the new incarnation, the driver answers the dead one's 2 and 3,
    // then the new one's 0 and 1.
    for _ in 0..4 {
        let r = d_rx.dequeue().unwrap();
        d_tx.enqueue(resp(r.id)).unwrap();
    }
    assert_eq!(
        collect(&mut new),
        [Completion::Answered(0), Completion::Answered(1)]
    );
    let s = new.stats();
    assert_eq!((s.answered, s.stale, s.stray), (2, 4, 0), "{s:?}");
}

/// Ids are the client's in their low `ID_BITS` bits: two in flight that differ only above
/// them are one id on the wire, refused as a duplicate; an id above them comes back as
/// the client chose it.
#[test]
fn ids_keep_their_high_bits_and_collide_below_them() {
    let mut page = Page([0; 20480]);
    let region = SharedRegion::new(&mut page.0);
    let (mut link, (mut d_rx, mut d_tx, _)) = attached(region, true);
    let big = 0xFF00_0005;
    link.submit(req(big)).unwrap();
    assert_eq!(link.submit(req(5)), Err(SubmitError::DuplicateId));
    let r = d_rx.dequeue().unwrap();
    assert_eq!(r.id, first(5));
    d_tx.enqueue(resp(r.id)).unwrap();
    assert_eq!(collect(&mut link), [Completion::Answered(big)]);
}
