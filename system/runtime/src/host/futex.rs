//! A futex word with a sleeper count: wait by spinning briefly, then sleeping; wake only
//! when someone sleeps, so a notification to a spinning PD costs no system call.
//!
//! Protocol (a Dekker handshake, like shm-queue's `consumer_signalled`):
//!
//! ```text
//! waker                              waiter
//!   make the condition true (SeqCst)   s := word            (SeqCst)
//!   change word (SeqCst)               sleepers += 1        (SeqCst)
//!   if sleepers != 0: FUTEX_WAKE       if condition: return
//!                                      FUTEX_WAIT(word, s)
//! ```
//!
//! In the single total order of SeqCst operations, either the waiter's re-check comes
//! after the waker made the condition true (it sees it), or the waker's load of
//! `sleepers` comes after the increment (it wakes). A wake between the waiter's load of
//! `s` and its FUTEX_WAIT changed `word`, so the kernel refuses to sleep on `s`.
//! Words live in shared memfd pages, so the futexes are shared (not `PRIVATE`).

use core::sync::atomic::{AtomicU32, Ordering::SeqCst};
use std::time::Duration;

use rustix::thread::futex;

/// A 32-bit futex word and the count of those sleeping on it.
#[repr(C)]
pub struct Futex {
    pub word: AtomicU32,
    sleepers: AtomicU32,
}

impl Futex {
    /// Bumps the word and wakes every sleeper: for words used as event counters.
    pub fn signal(&self) {
        self.word.fetch_add(1, SeqCst);
        self.wake();
    }

    /// Wakes every sleeper, if any; call after changing the word.
    pub fn wake(&self) {
        if self.sleepers.load(SeqCst) != 0 {
            // FUTEX_WAKE takes an int count: i32::MAX means all.
            let _ = futex::wake(&self.word, futex::Flags::empty(), i32::MAX as u32);
        }
    }

    /// Waits until `ready` returns `Some`, spinning `spin` times before each sleep.
    /// `ready` must only return `Some` after a change to the condition that its
    /// waker follows with [`Futex::signal`] or a word change and [`Futex::wake`].
    pub fn wait<T>(&self, spin: u32, mut ready: impl FnMut() -> Option<T>) -> T {
        loop {
            for _ in 0..spin {
                if let Some(v) = ready() {
                    return v;
                }
                core::hint::spin_loop();
            }
            if let Some(v) = self.sleep_once(&mut ready, None) {
                return v;
            }
        }
    }

    /// One check-then-sleep of the protocol, with an optional timeout.
    pub fn sleep_once<T>(
        &self,
        ready: &mut impl FnMut() -> Option<T>,
        timeout: Option<Duration>,
    ) -> Option<T> {
        let seen = self.word.load(SeqCst);
        self.sleepers.fetch_add(1, SeqCst);
        let got = ready();
        if got.is_none() {
            let ts = timeout.map(|t| rustix::time::Timespec {
                tv_sec: t.as_secs() as i64,
                tv_nsec: i64::from(t.subsec_nanos()),
            });
            // EAGAIN (word moved), EINTR and ETIMEDOUT all mean: look again.
            let _ = futex::wait(&self.word, futex::Flags::empty(), seen, ts.as_ref());
        }
        self.sleepers.fetch_sub(1, SeqCst);
        got
    }
}
