//! A model check of the queues' signalling protocol (the crate docs' Dekker handshake)
//! under sequential consistency, with shuttle exploring the interleavings of a producer
//! and a consumer: the consumer never sleeps while work is pending and no item is lost
//! (a lost wake-up leaves the consumer waiting forever, which shuttle reports as a
//! deadlock). The model takes the protocol's steps as `Producer::take_signal_request`
//! and `Consumer::arm_signal` take them; the notification is a seL4 notification (a
//! binary semaphore: signals coalesce). A variant without the consumer's re-check must
//! be caught, so the check can fail.

use shuttle::sync::atomic::{AtomicU32, Ordering, fence};
use shuttle::sync::{Arc, Condvar, Mutex};
use shuttle::thread;

/// A seL4 notification: a pending bit, signalled and consumed.
#[derive(Default)]
struct Notification {
    pending: Mutex<bool>,
    wake: Condvar,
}

impl Notification {
    fn signal(&self) {
        *self.pending.lock().unwrap() = true;
        self.wake.notify_one();
    }

    fn wait(&self) {
        let mut p = self.pending.lock().unwrap();
        while !*p {
            p = self.wake.wait(p).unwrap();
        }
        *p = false;
    }
}

/// The shared words of one queue: the producer's tail, the consumer's head, and the
/// consumer's signal request (0: "notify me").
#[derive(Default)]
struct Shared {
    tail: AtomicU32,
    head: AtomicU32,
    signalled: AtomicU32,
    consumer: Notification,
}

const ITEMS: u32 = 4;
/// Items the producer publishes per batch before it looks at the signal request.
const BATCH: u32 = 2;

fn producer(q: &Shared) {
    let mut tail = 0;
    while tail < ITEMS {
        // A batch: slots written, then the tail published.
        tail = (tail + BATCH).min(ITEMS);
        q.tail.store(tail, Ordering::Release);
        // take_signal_request: the Dekker half of the producer.
        fence(Ordering::SeqCst);
        if q.signalled.load(Ordering::Relaxed) == 0 {
            q.signalled.store(1, Ordering::Relaxed);
            q.consumer.signal();
        }
    }
}

/// The consumer's loop: drain, ask to be signalled, re-check (unless `recheck` is off:
/// the broken variant), sleep. Returns the items it took.
fn consumer(q: &Shared, recheck: bool) -> u32 {
    let mut head = 0;
    loop {
        let tail = q.tail.load(Ordering::Acquire);
        if tail != head {
            head = tail;
            q.head.store(head, Ordering::Release);
            continue;
        }
        if head == ITEMS {
            return head;
        }
        // arm_signal: the Dekker half of the consumer.
        q.signalled.store(0, Ordering::Relaxed);
        fence(Ordering::SeqCst);
        if recheck && q.tail.load(Ordering::Acquire) != head {
            continue;
        }
        q.consumer.wait();
    }
}

fn run(recheck: bool) {
    let q = Arc::new(Shared::default());
    let p = {
        let q = q.clone();
        thread::spawn(move || producer(&q))
    };
    let taken = consumer(&q, recheck);
    p.join().unwrap();
    assert_eq!(taken, ITEMS, "every item reached the consumer");
}

#[test]
fn no_lost_wake_up_and_no_sleep_with_work_pending() {
    // Random schedules and PCT (which finds depth-bounded orderings with a guarantee).
    shuttle::check_random(|| run(true), 20_000);
    shuttle::check_pct(|| run(true), 20_000, 3);
}

#[test]
fn the_checker_catches_a_consumer_that_skips_its_recheck() {
    let found = std::panic::catch_unwind(|| shuttle::check_random(|| run(false), 20_000));
    assert!(
        found.is_err(),
        "sleeping without the re-check must deadlock in some schedule"
    );
}
