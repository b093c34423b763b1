//! The call protocol between threads of one process, with the runner's steps done by
//! hand: a call and its reply, a server dying mid-call, a caller dying mid-call.

use super::*;
use std::boxed::Box;
use std::sync::Barrier;
use std::thread;

/// A zeroed page, as a fresh memfd is.
fn page() -> Box<PdPage> {
    // SAFETY: every field of PdPage is an atomic integer (or an array or struct of
    // them), for which all-zero bytes are a valid value.
    unsafe { Box::new(core::mem::zeroed()) }
}

/// Serves one call on `page`: answers with label + 1 and each word + 1.
fn serve_one(page: &PdPage) {
    let mut words = [0u64; MSG_WORDS];
    let (seq, _, label, count) = loop {
        if let Some(c) = page.take_call(&mut words) {
            break c;
        }
        thread::yield_now();
    };
    for w in &mut words[..count] {
        *w += 1;
    }
    page.reply(seq, label + 1, &words[..count]);
}

#[test]
fn a_call_gets_its_reply_and_releases_the_lock() {
    let p = page();
    p.state.store(RUNNING, SeqCst);
    thread::scope(|s| {
        s.spawn(|| {
            serve_one(&p);
            serve_one(&p);
        });
        for round in 0..2u64 {
            let mut words = [0u64; MSG_WORDS];
            words[..3].copy_from_slice(&[round, 10, 20]);
            let reply = p.call(1, 5, 100, 7, &mut words, 3);
            assert_eq!(reply, Ok((8, 3)));
            assert_eq!(words[..3], [round + 1, 11, 21]);
        }
    });
    assert_eq!(p.call_lock.word.load(SeqCst), 0);
    assert_eq!(p.caller.load(SeqCst), 5);
}

#[test]
fn a_server_dying_mid_call_fails_the_call_and_later_calls() {
    let p = page();
    p.state.store(RUNNING, SeqCst);
    thread::scope(|s| {
        s.spawn(|| {
            // Take the call but never answer: then "die", as the runner reports it.
            let mut words = [0u64; MSG_WORDS];
            while p.take_call(&mut words).is_none() {
                thread::yield_now();
            }
            p.server_died();
        });
        let mut words = [0u64; MSG_WORDS];
        assert_eq!(p.call(1, 0, 10, 1, &mut words, 0), Err(ServerDied));
    });
    // Dead and not restarted: a call fails at once instead of waiting.
    let mut words = [0u64; MSG_WORDS];
    assert_eq!(p.call(2, 0, 10, 1, &mut words, 0), Err(ServerDied));
    assert_eq!(p.call_lock.word.load(SeqCst), 0);
}

#[test]
fn a_caller_dying_mid_call_frees_the_server_after_its_reply() {
    let p = page();
    p.state.store(RUNNING, SeqCst);
    // Caller 1 publishes a call by hand and "dies" holding the lock.
    p.call_lock.word.store(1, SeqCst);
    p.req.count.store(0, SeqCst);
    p.call.word.store(pack(1, CALL), SeqCst);
    let mut words = [0u64; MSG_WORDS];
    let (seq, ..) = p.take_call(&mut words).expect("the call is there");
    p.caller_died(1);
    assert_eq!(
        p.call_lock.word.load(SeqCst),
        1,
        "held until the server answers"
    );
    let started = Barrier::new(2);
    thread::scope(|s| {
        s.spawn(|| {
            started.wait();
            // The server finishes the orphaned call; that frees the lock for caller 2.
            p.reply(seq, 0, &[]);
            serve_one(&p);
        });
        started.wait();
        let mut words = [0u64; MSG_WORDS];
        assert_eq!(p.call(2, 0, 10, 41, &mut words, 0), Ok((42, 0)));
    });
    assert_eq!(p.call_lock.word.load(SeqCst), 0);
}

#[test]
fn concurrent_callers_are_serialised_and_each_gets_its_own_reply() {
    const CALLS: u64 = 2000;
    let p = page();
    p.state.store(RUNNING, SeqCst);
    thread::scope(|s| {
        s.spawn(|| {
            for _ in 0..2 * CALLS {
                serve_one(&p);
            }
        });
        for me in 1..=2u32 {
            let p = &p;
            s.spawn(move || {
                for i in 0..CALLS {
                    let mut words = [0u64; MSG_WORDS];
                    let tag = u64::from(me) << 32 | i;
                    words[0] = tag;
                    let reply = p.call(me, me as u8, 100, tag, &mut words, 1);
                    assert_eq!(reply, Ok((tag + 1, 1)));
                    assert_eq!(words[0], tag + 1, "caller {me} got another's reply");
                }
            });
        }
    });
    assert_eq!(p.call_lock.word.load(SeqCst), 0);
}
