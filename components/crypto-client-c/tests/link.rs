//! The C link (crypto_pd/link.h) against the Rust driver's end of a queue pair
//! (`crypto_client::pair::driver_side`): the same layout as the Rust link's; a client
//! incarnation announced with the index it queues from; ids tagged with it, so a dead
//! incarnation's answers are dropped as stale; a spent signal re-armed at attach and the
//! first flush notifying whatever the driver's flag says; a driver restart reporting
//! the requests before its boundary, and only those; `ServerRestarted` answers reported
//! restarted; stray answers and a corrupted index met by their counter or typed error.

mod common;

use std::ffi::c_void;

use common::{Q_CORRUPT, Q_OK, c, shared, word};
use crypto_client::pair::{self, Control};
use pd_idl::cipher::{self, CipherError, CipherErrorRaw, CipherOp, Request, Response};
use shm_queue::{Consumer, Producer};
use zerocopy::FromZeros;

const CAP: u32 = cipher::REQUEST_QUEUE_CAPACITY;

/// The C link's functions.
struct LinkFns {
    size: extern "C" fn() -> u64,
    bytes: extern "C" fn() -> u64,
    attach: extern "C" fn(*mut u8, *mut c_void, u64) -> i32,
    stats: extern "C" fn(*const u8, *mut u64),
    queue: extern "C" fn(*mut u8, *const c_void) -> i32,
    flush: extern "C" fn(*mut u8) -> i32,
    poll: extern "C" fn(*mut u8, Done, *mut c_void, *mut i32) -> i32,
}

type Done = extern "C" fn(*mut c_void, u32, *const c_void);

fn fns() -> LinkFns {
    let lib = &c().lib;
    // SAFETY: each type is the C declaration's (crypto_pd/link.h, tests/c/link_rig.c).
    unsafe {
        LinkFns {
            size: lib.sym("link_rig_size"),
            bytes: lib.sym("link_rig_bytes"),
            attach: lib.sym("link_rig_attach"),
            stats: lib.sym("link_rig_stats"),
            queue: lib.sym("crypto_pd_link_queue"),
            flush: lib.sym("crypto_pd_link_flush"),
            poll: lib.sym("crypto_pd_link_poll"),
        }
    }
}

/// What a poll delivered: (id, Some(bytes_done)) answered, (id, None) restarted.
type Delivered = Vec<(u32, Option<u32>)>;

extern "C" fn record(ctx: *mut c_void, id: u32, response: *const c_void) {
    // SAFETY: the test's vector; a response the link hands over for the call only.
    let (out, resp) = unsafe {
        (
            &mut *ctx.cast::<Delivered>(),
            response.cast::<Response>().as_ref(),
        )
    };
    out.push((id, resp.map(|r| r.bytes_done)));
}

/// One C link (its storage) and the driver's end of its region.
struct Rig {
    fns: LinkFns,
    base: *mut u8,
    len: usize,
    link: Vec<u64>,
}

/// Counters, as link_rig_stats lists them.
#[derive(Debug, Default, PartialEq, Eq)]
struct Stats {
    submitted: u64,
    answered: u64,
    restarted: u64,
    stray: u64,
    stale: u64,
    overruns: u64,
    restarts: u64,
    incarnation: u64,
    in_flight: u64,
}

impl Rig {
    fn new() -> (
        Rig,
        Consumer<'static, Request>,
        Producer<'static, Response>,
        Control<'static>,
    ) {
        let fns = fns();
        let len = pair::bytes::<Request, Response>(CAP);
        assert_eq!(
            (fns.bytes)(),
            len as u64,
            "C and Rust lay the pair out alike"
        );
        let (base, region) = shared(len);
        let (rx, tx, control) = pair::driver_side::<Request, Response>(region, CAP).unwrap();
        let words = ((fns.size)() as usize).div_ceil(8);
        let rig = Rig {
            fns,
            base,
            len,
            link: vec![0; words],
        };
        (rig, rx, tx, control)
    }

    /// A new client incarnation's link on the same region.
    fn attach(&mut self) {
        self.link.fill(0);
        let e = (self.fns.attach)(self.ptr(), self.base.cast(), self.len as u64);
        assert_eq!(e, 0, "the C link attaches");
    }

    fn ptr(&mut self) -> *mut u8 {
        self.link.as_mut_ptr().cast()
    }

    fn queue(&mut self, id: u32) -> i32 {
        let req = Request::over(id, 7, CipherOp::Encrypt, &[(0, 16)]);
        (self.fns.queue)(self.ptr(), (&raw const req).cast())
    }

    fn flush(&mut self) -> bool {
        (self.fns.flush)(self.ptr()) != 0
    }

    /// Polls: the status, what was delivered, and whether to notify.
    fn poll(&mut self) -> (i32, Delivered, bool) {
        let mut out: Delivered = Vec::new();
        let mut notify = 0;
        let q = (self.fns.poll)(self.ptr(), record, (&raw mut out).cast(), &raw mut notify);
        (q, out, notify != 0)
    }

    fn stats(&mut self) -> Stats {
        let mut s = [0u64; 9];
        (self.fns.stats)(self.ptr(), s.as_mut_ptr());
        Stats {
            submitted: s[0],
            answered: s[1],
            restarted: s[2],
            stray: s[3],
            stale: s[4],
            overruns: s[5],
            restarts: s[6],
            incarnation: s[7],
            in_flight: s[8],
        }
    }
}

/// The response queue's offset in the pair (see pair.rs): after the request queue, on
/// a cache line.
fn response_at() -> usize {
    shm_queue::region_size::<Request>(CAP).next_multiple_of(64)
}

fn answer(wire_id: u32, bytes_done: u32) -> Response {
    let mut r = Response::new_zeroed();
    r.id = wire_id;
    r.status = CipherErrorRaw::OK;
    r.bytes_done = bytes_done;
    r
}

#[test]
fn each_incarnation_is_announced_and_tags_its_ids() {
    let (mut rig, mut rx, _tx, control) = Rig::new();
    assert_eq!(control.client(), 0);
    rig.attach();
    assert_eq!((control.client(), control.client_from()), (1, 0));
    for id in [5, 6, 7] {
        assert_eq!(rig.queue(id), 0);
    }
    assert_eq!(rig.queue(6), 2, "an id in flight is refused");
    let wire: Vec<u32> = (0..3).map(|_| rx.dequeue().unwrap().id).collect();
    assert_eq!(
        wire,
        [5, 6, 7].map(|id| pair::wire_id(1, id)),
        "ids carry the incarnation"
    );
    // The client dies with three in flight and a fourth queued; its successor announces
    // itself with the index it queues from, past what its predecessor queued.
    assert_eq!(rig.queue(8), 0);
    rig.attach();
    assert_eq!((control.client(), control.client_from()), (2, 4));
    assert_eq!(rig.stats().incarnation, 2);
    assert_eq!(rig.queue(5), 0, "a dead incarnation's ids are free again");
    assert_eq!(rx.dequeue().unwrap().id, pair::wire_id(1, 8));
    assert_eq!(rx.dequeue().unwrap().id, pair::wire_id(2, 5));
}

#[test]
fn a_dead_incarnations_answers_are_stale_and_never_delivered() {
    let (mut rig, mut rx, mut tx, _control) = Rig::new();
    rig.attach();
    for id in 0..4 {
        assert_eq!(rig.queue(id), 0);
    }
    let old: Vec<u32> = (0..4).map(|_| rx.dequeue().unwrap().id).collect();
    // Two answered before the client dies, read by nobody; its successor attaches.
    tx.enqueue(answer(old[0], 16)).unwrap();
    tx.enqueue(answer(old[1], 16)).unwrap();
    rig.attach();
    assert_eq!(
        rig.stats().stale,
        2,
        "attach's poll drops what it finds as stale"
    );
    for id in 0..2 {
        assert_eq!(rig.queue(id), 0);
    }
    let new: Vec<u32> = (0..2).map(|_| rx.dequeue().unwrap().id).collect();
    // The old incarnation's last two answers, written before the driver saw the new
    // one, arrive among the new one's: only the new one's are delivered.
    tx.enqueue(answer(old[2], 16)).unwrap();
    tx.enqueue(answer(new[0], 32)).unwrap();
    tx.enqueue(answer(old[3], 16)).unwrap();
    tx.enqueue(answer(new[1], 48)).unwrap();
    tx.enqueue(answer(pair::wire_id(2, 9), 16)).unwrap();
    let (q, done, _) = rig.poll();
    assert_eq!(q, Q_OK);
    assert_eq!(done, [(0, Some(32)), (1, Some(48))]);
    let s = rig.stats();
    assert_eq!((s.stale, s.stray, s.answered, s.in_flight), (4, 1, 2, 0));
}

#[test]
fn attach_rearms_a_spent_signal_and_the_first_flush_notifies() {
    let (mut rig, _rx, tx, _control) = Rig::new();
    // A dead incarnation's driver took its request for a notification (the flag says
    // "no need"), and the driver had not asked for one of requests.
    let response_signalled = response_at() + 128;
    word(rig.base, response_signalled).store(1, std::sync::atomic::Ordering::SeqCst);
    assert!(!tx.take_signal_request());
    word(rig.base, response_signalled).store(1, std::sync::atomic::Ordering::SeqCst);
    rig.attach();
    assert!(
        tx.take_signal_request(),
        "the new link asked to be told of answers"
    );
    assert_eq!(rig.queue(1), 0);
    assert!(rig.flush(), "the first flush notifies the driver anyway");
    assert_eq!(rig.queue(2), 0);
    assert!(!rig.flush(), "later ones only when the driver asked");
}

#[test]
fn a_driver_restart_reports_what_was_queued_before_its_boundary() {
    let (mut rig, mut rx, mut tx, control) = Rig::new();
    // The driver's first start (epoch 0 -> 1) is not a restart.
    control.publish_next(rx.head());
    rig.attach();
    for id in 0..4 {
        assert_eq!(rig.queue(id), 0);
    }
    // The driver takes three, answers one and dies; its successor discards what was
    // left queued and serves from the tail.
    let taken: Vec<u32> = (0..3).map(|_| rx.dequeue().unwrap().id).collect();
    tx.enqueue(answer(taken[0], 16)).unwrap();
    let (mut rx, mut tx, control) = {
        // SAFETY: the rig's leaked region, which the dead driver's ends no longer use.
        let region = unsafe { shm_queue::SharedRegion::from_raw(rig.base, rig.len) };
        pair::driver_side::<Request, Response>(region, CAP).unwrap()
    };
    while rx.dequeue().is_ok() {}
    control.publish_next(rx.head());
    // Queued after the restart but before the client saw it: the new incarnation's.
    assert_eq!(rig.queue(9), 0);
    let (q, done, _) = rig.poll();
    assert_eq!(q, Q_OK);
    assert_eq!(
        done,
        [(0, Some(16)), (1, None), (2, None), (3, None)],
        "the old incarnation's answer first, then the restarted"
    );
    let s = rig.stats();
    assert_eq!((s.restarts, s.restarted, s.in_flight), (1, 3, 1));
    let r = rx.dequeue().unwrap();
    let mut restarted = answer(r.id, 0);
    restarted.status = CipherError::ServerRestarted.into();
    tx.enqueue(restarted).unwrap();
    let (_, done, _) = rig.poll();
    assert_eq!(
        done,
        [(9, None)],
        "ServerRestarted (its session died) is a restart"
    );
    assert_eq!(rig.stats().in_flight, 0);
}

#[test]
fn a_corrupted_index_is_a_typed_error() {
    let (mut rig, _rx, _tx, _control) = Rig::new();
    rig.attach();
    word(rig.base, response_at()).store(CAP * 4, std::sync::atomic::Ordering::SeqCst);
    let (q, done, _) = rig.poll();
    assert_eq!((q, done.len()), (Q_CORRUPT, 0));
}
