//! The call and notification protocols between threads of one process, with the
//! runner's steps done by hand: a call and its reply, a server dying mid-call, a caller
//! dying mid-call and calling again, two callers at once, notifications kept across a
//! restart.

use super::*;
use std::boxed::Box;
use std::thread;

/// A zeroed page, as a fresh memfd is.
fn zeroed<T: SharedPage>() -> Box<T> {
    // SAFETY: every field of a SharedPage is an atomic integer (or an array or struct of
    // them), for which all-zero bytes are a valid value.
    unsafe { Box::new(core::mem::zeroed()) }
}

/// Two PDs and one channel between them.
struct Pair {
    a: Box<PdPage>,
    b: Box<PdPage>,
    a_end: Box<EndPage>,
    b_end: Box<EndPage>,
}

impl Pair {
    fn new() -> Pair {
        let p = Pair {
            a: zeroed(),
            b: zeroed(),
            a_end: zeroed(),
            b_end: zeroed(),
        };
        p.a.state.store(RUNNING, SeqCst);
        p.b.state.store(RUNNING, SeqCst);
        p
    }

    /// The channel as the caller (a) sees it.
    fn caller(&self) -> Link<'_> {
        Link {
            out: &self.a_end,
            inp: &self.b_end,
            peer: &self.b,
        }
    }

    /// The channel as the server (b) sees it.
    fn server(&self) -> Link<'_> {
        Link {
            out: &self.b_end,
            inp: &self.a_end,
            peer: &self.a,
        }
    }
}

/// Serves one call on one of `links`: answers with label + 1 and each word + 1.
fn serve_one(links: &[Link<'_>]) {
    let mut words = [0u64; MSG_WORDS];
    let (link, (seq, label, count)) = loop {
        if let Some(c) = links
            .iter()
            .find_map(|l| l.take_call(&mut words).map(|c| (l, c)))
        {
            break c;
        }
        thread::yield_now();
    };
    for w in &mut words[..count] {
        *w += 1;
    }
    link.reply(seq, label + 1, &words[..count], false);
}

#[test]
fn a_call_gets_its_reply() {
    let p = Pair::new();
    thread::scope(|s| {
        s.spawn(|| {
            serve_one(&[p.server()]);
            serve_one(&[p.server()]);
        });
        for round in 0..2u64 {
            let mut words = [0u64; MSG_WORDS];
            words[..3].copy_from_slice(&[round, 10, 20]);
            let reply = p.caller().call(&p.a, 100, 7, &mut words, 3);
            assert_eq!(reply, Ok((8, 3)));
            assert_eq!(words[..3], [round + 1, 11, 21]);
        }
    });
    // Answered: nothing pending for the server any more.
    assert_eq!(p.server().take_call(&mut [0; MSG_WORDS]), None);
}

/// A call carries key words and its reply does too (a key store's import and fetch):
/// the request's words leave the caller's page once answered, and the secret reply's
/// leave the server's once the caller has read them, and not before.
#[test]
fn a_secret_reply_is_cleared_once_read_and_the_request_once_answered() {
    let p = Pair::new();
    let key = [0x1111, 0x2222, 0x3333];
    let seq = thread::scope(|s| {
        let server = s.spawn(|| {
            let mut words = [0u64; MSG_WORDS];
            let (seq, _, count) = loop {
                if let Some(c) = p.server().take_call(&mut words) {
                    break c;
                }
                thread::yield_now();
            };
            assert_eq!(words[..count], key, "the request as sent");
            assert!(!p.server().clear_reply(seq), "nothing read before a reply");
            p.server().reply(seq, 1, &key, true);
            seq
        });
        let mut words = [0u64; MSG_WORDS];
        words[..3].copy_from_slice(&key);
        let reply = p.caller().call(&p.a, 100, 7, &mut words, 3);
        assert_eq!(reply, Ok((1, 3)));
        assert_eq!(words[..3], key, "the caller got the reply whole");
        server.join().unwrap()
    });
    let words = |slot: &Slot| {
        slot.words
            .iter()
            .map(|w| w.load(SeqCst))
            .collect::<std::vec::Vec<_>>()
    };
    assert!(
        words(&p.a_end.req).iter().all(|&w| w == 0),
        "request cleared"
    );
    assert_eq!(
        words(&p.b_end.rep)[..3],
        key,
        "the reply waits for the server"
    );
    assert!(p.server().clear_reply(seq), "read: the server may clear it");
    assert!(words(&p.b_end.rep).iter().all(|&w| w == 0));
    // A caller that has called again is not cleared after: the words may hold the
    // reply to its new call (the server clears them when it takes that call).
    p.a_end.call.store(pack(seq + 1, CALL), SeqCst);
    p.b_end.rep.words[0].store(9, SeqCst);
    assert!(!p.server().clear_reply(seq));
    assert_eq!(p.b_end.rep.words[0].load(SeqCst), 9);
}

#[test]
fn a_server_dying_mid_call_fails_the_call_and_later_calls() {
    let p = Pair::new();
    thread::scope(|s| {
        s.spawn(|| {
            // Take the call but never answer: then "die", as the runner reports it.
            let mut words = [0u64; MSG_WORDS];
            while p.server().take_call(&mut words).is_none() {
                thread::yield_now();
            }
            p.b.state.store(DEAD, SeqCst);
            p.server().fail_pending_call();
        });
        let mut words = [0u64; MSG_WORDS];
        assert_eq!(p.caller().call(&p.a, 10, 1, &mut words, 0), Err(ServerDied));
    });
    // Dead and not restarted: a call fails at once instead of waiting.
    let mut words = [0u64; MSG_WORDS];
    assert_eq!(p.caller().call(&p.a, 10, 1, &mut words, 0), Err(ServerDied));
    // Restarted: the failed calls are not served again, a new one is.
    p.b.reset();
    assert_eq!(p.server().take_call(&mut words), None);
    p.b.state.store(RUNNING, SeqCst);
    thread::scope(|s| {
        s.spawn(|| serve_one(&[p.server()]));
        assert_eq!(p.caller().call(&p.a, 10, 5, &mut words, 0), Ok((6, 0)));
    });
}

#[test]
fn a_caller_dying_mid_call_leaves_nothing_behind() {
    let p = Pair::new();
    // The caller's first incarnation publishes call 1 by hand and "dies".
    p.a_end.req.count.store(0, SeqCst);
    p.a_end.req.label.store(100, SeqCst);
    p.a_end.call.store(pack(1, CALL), SeqCst);
    let mut words = [0u64; MSG_WORDS];
    let (seq, label, _) = p.server().take_call(&mut words).expect("the call is there");
    assert_eq!((seq, label), (1, 100));
    // Its next incarnation starts call 2: from the moment it marks its slot, a server
    // still copying call 1 sees the change and drops its copy.
    p.a_end.call.store(pack(2, WRITING), SeqCst);
    assert_eq!(p.server().take_call(&mut words), None);
    p.a_end.call.store(pack(1, CALL), SeqCst);
    thread::scope(|s| {
        s.spawn(|| {
            // The server answers the dead call late, then serves the new one.
            p.server().reply(seq, 0, &[], false);
            serve_one(&[p.server()]);
        });
        // The new incarnation's call: seq 2, its own reply.
        let mut words = [0u64; MSG_WORDS];
        assert_eq!(p.caller().call(&p.a, 10, 41, &mut words, 0), Ok((42, 0)));
    });
}

#[test]
fn two_callers_on_their_own_channels_each_get_their_own_replies() {
    const CALLS: u64 = 2000;
    // One server (one.b), two callers (one.a, two.a): each channel has its own pair of
    // end pages; two.b is not used.
    let one = Pair::new();
    let two = Pair::new();
    thread::scope(|s| {
        s.spawn(|| {
            let links = [one.server(), two.server()];
            for _ in 0..2 * CALLS {
                serve_one(&links);
            }
        });
        for (me, link) in [
            (1u64, one.caller()),
            (
                2,
                Link {
                    peer: &one.b,
                    ..two.caller()
                },
            ),
        ] {
            let page = if me == 1 { &one.a } else { &two.a };
            s.spawn(move || {
                for i in 0..CALLS {
                    let mut words = [0u64; MSG_WORDS];
                    let tag = me << 32 | i;
                    words[0] = tag;
                    let reply = link.call(page, 100, tag, &mut words, 1);
                    assert_eq!(reply, Ok((tag + 1, 1)));
                    assert_eq!(words[0], tag + 1, "caller {me} got another's reply");
                }
            });
        }
    });
}

#[test]
fn notifications_are_counted_and_outlive_a_restart() {
    let p = Pair::new();
    assert!(!p.b.take_notes(3, &p.a_end));
    p.caller().out.notify(&p.b);
    p.caller().out.notify(&p.b);
    // Two notifications before a look are one, as on a seL4 notification object.
    assert!(p.b.take_notes(3, &p.a_end));
    assert!(!p.b.take_notes(3, &p.a_end));
    // Sent while the receiver restarts: delivered to its next incarnation.
    p.caller().out.notify(&p.b);
    p.b.reset();
    assert!(p.b.take_notes(3, &p.a_end));
}

#[test]
fn a_sleeping_receiver_is_woken_by_a_notification() {
    let p = Pair::new();
    thread::scope(|s| {
        s.spawn(|| {
            // Spin 0: straight to sleep on the bell.
            wait(&p.b, 0, &[&p.b.wake, &p.a_end.bell], || {
                p.b.take_notes(0, &p.a_end).then_some(())
            });
        });
        while p.b.sleepers.load(SeqCst) == 0 {
            thread::yield_now();
        }
        p.caller().out.notify(&p.b);
    });
    assert_eq!(p.b.sleepers.load(SeqCst), 0);
}

/// A caller whose next call is always pending the moment its last is answered (a
/// hostile one: it publishes before it reads the reply) does not keep the server from
/// its other callers: calls are taken round-robin.
#[test]
fn a_caller_always_calling_does_not_starve_the_others() {
    let (hog, other) = (Pair::new(), Pair::new());
    let publish = |p: &Pair, seq: u32| {
        p.a_end.req.count.store(0, SeqCst);
        p.a_end.call.store(pack(seq, CALL), SeqCst);
    };
    let servers = [hog.server(), other.server()];
    publish(&hog, 1);
    publish(&other, 1);
    let mut words = [0u64; MSG_WORDS];
    let mut first = 0;
    let mut served = std::vec::Vec::new();
    for _ in 0..4 {
        let Some((i, (seq, label, _))) =
            next_call(servers.len(), first, |i| servers[i].take_call(&mut words))
        else {
            break;
        };
        servers[i].reply(seq, label, &[], false);
        served.push(i);
        first = i + 1;
        if i == 0 {
            publish(&hog, seq + 1);
        }
    }
    // The other caller's one call is served second, not never.
    assert_eq!(served, [0, 1, 0, 0]);
    // Lowest channel first (the old scan), the hog is served every time.
    publish(&other, 2);
    let lowest = (0..4)
        .map(|_| {
            let (i, (seq, label, _)) =
                next_call(servers.len(), 0, |i| servers[i].take_call(&mut words)).unwrap();
            servers[i].reply(seq, label, &[], false);
            if i == 0 {
                let next = unpack(hog.a_end.call.load(SeqCst)).0 + 1;
                publish(&hog, next);
            }
            i
        })
        .collect::<std::vec::Vec<_>>();
    assert_eq!(lowest, [0, 0, 0, 0]);
}
