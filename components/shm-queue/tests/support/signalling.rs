//! The signalling protocol's shared state for shuttle models: a seL4 notification and
//! one queue's words, with the steps `Producer::take_signal_request` and
//! `Consumer::arm_signal` take on them. Shared by shm-queue's signal model and
//! crypto-client's restart model (which includes this file by path), so that both check
//! the protocol as the queues have it.

#![allow(dead_code)]

use shuttle::sync::atomic::{AtomicU32, Ordering, fence};
use shuttle::sync::{Condvar, Mutex};

/// A seL4 notification: a pending bit, signalled and consumed.
#[derive(Default)]
pub struct Notification {
    pending: Mutex<bool>,
    wake: Condvar,
}

impl Notification {
    pub fn signal(&self) {
        *self.pending.lock().unwrap() = true;
        self.wake.notify_one();
    }

    pub fn wait(&self) {
        let mut p = self.pending.lock().unwrap();
        while !*p {
            p = self.wake.wait(p).unwrap();
        }
        *p = false;
    }
}

/// One queue's shared words: tail (producer), head (consumer), and the consumer's
/// signal request (0: "notify me").
#[derive(Default)]
pub struct Words {
    pub tail: AtomicU32,
    pub head: AtomicU32,
    pub signalled: AtomicU32,
}

impl Words {
    /// `Producer::take_signal_request`.
    pub fn take_signal_request(&self) -> bool {
        fence(Ordering::SeqCst);
        if self.signalled.load(Ordering::Relaxed) == 0 {
            self.signalled.store(1, Ordering::Relaxed);
            true
        } else {
            false
        }
    }

    /// `Consumer::arm_signal`: whether the queue is still empty after asking.
    pub fn arm_signal(&self, head: u32) -> bool {
        self.ask_for_signal();
        self.tail.load(Ordering::Acquire) == head
    }

    /// `arm_signal` without its re-check: the request, then the fence before any read.
    pub fn ask_for_signal(&self) {
        self.signalled.store(0, Ordering::Relaxed);
        fence(Ordering::SeqCst);
    }

    /// The consumer takes every item ready: moves `head` to the tail and publishes it.
    /// Whether there were any.
    pub fn take_all(&self, head: &mut u32) -> bool {
        let tail = self.tail.load(Ordering::Acquire);
        if tail == *head {
            return false;
        }
        *head = tail;
        self.head.store(tail, Ordering::Release);
        true
    }
}
