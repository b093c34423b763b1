//! A model check of the queues' signalling protocol (the crate docs' Dekker handshake)
//! under sequential consistency, with shuttle exploring the interleavings of a producer
//! and a consumer: the consumer never sleeps while work is pending and no item is lost
//! (a lost wake-up leaves the consumer waiting forever, which shuttle reports as a
//! deadlock). The model takes the protocol's steps as `Producer::take_signal_request`
//! and `Consumer::arm_signal` take them; the notification is a seL4 notification (a
//! binary semaphore: signals coalesce). A variant without the consumer's re-check must
//! be caught, so the check can fail. The same for a driver that pauses with requests
//! queued (below).

#[path = "support/signalling.rs"]
mod signalling;

use shuttle::sync::Arc;
use shuttle::sync::atomic::Ordering;
use shuttle::thread;
use signalling::{Notification, Words};

/// One queue and its consumer's notification.
#[derive(Default)]
struct Shared {
    queue: Words,
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
        q.queue.tail.store(tail, Ordering::Release);
        // The Dekker half of the producer.
        if q.queue.take_signal_request() {
            q.consumer.signal();
        }
    }
}

/// The consumer's loop: drain, ask to be signalled, re-check (unless `recheck` is off:
/// the broken variant), sleep. Returns the items it took.
fn consumer(q: &Shared, recheck: bool) -> u32 {
    let mut head = 0;
    loop {
        if q.queue.take_all(&mut head) {
            continue;
        }
        if head == ITEMS {
            return head;
        }
        // The Dekker half of the consumer: arm_signal, its re-check only if `recheck`.
        q.queue.ask_for_signal();
        if recheck && q.queue.tail.load(Ordering::Acquire) != head {
            continue;
        }
        q.consumer.wait();
    }
}

/// Runs `model` as the protocol has it (`true`) under shuttle: random schedules and PCT
/// (which finds depth-bounded orderings with a guarantee), `iterations` of each.
fn holds_in_every_schedule_tried(model: fn(bool), iterations: usize) {
    shuttle::check_random(move || model(true), iterations);
    shuttle::check_pct(move || model(true), iterations, 3);
}

/// Fails unless `check`, run on a broken variant, finds a schedule that fails: the
/// check can fail, so its passing means something.
fn assert_caught(check: impl FnOnce() + std::panic::UnwindSafe, why: &str) {
    assert!(std::panic::catch_unwind(check).is_err(), "{why}");
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
    holds_in_every_schedule_tried(run, 20_000);
}

#[test]
fn the_checker_catches_a_consumer_that_skips_its_recheck() {
    assert_caught(
        || shuttle::check_random(|| run(false), 20_000),
        "sleeping without the re-check must deadlock in some schedule",
    );
}

// A driver that pauses with requests queued (`driver_pd::clients::serve` stops after its
// rounds so that calls are answered while a client floods): one client and one driver
// over a request queue and an answer queue. The pause is the hard case: the driver asks
// to be notified and finds requests queued, but the client may already have drained
// every answer and gone to sleep, so no event of either would come. The driver's way out
// is to notify the client, whose link then sees requests waiting and the driver asking,
// and notifies back. A driver that pauses without telling the client must be caught (it
// was a real lost wake-up: the speed tool's two PDs slept with 64 requests queued). The
// steps are those of `crypto_client::Link::poll`, `Link::submit` and
// `driver_pd::clients::one_batch`.

#[derive(Default)]
struct Pair {
    requests: Words,
    answers: Words,
    driver: Notification,
    client: Notification,
}

const REQUESTS: u32 = 4;
/// Requests the client keeps in flight.
const DEPTH: u32 = 2;
/// The driver's rounds and batch per notification (`ROUNDS`, `BATCH` there), made tiny so
/// that it pauses after every request.
const ROUNDS: u32 = 1;
const DRIVER_BATCH: u32 = 1;

fn client(p: &Pair) {
    let (mut sent, mut got) = (0u32, 0u32);
    loop {
        // Link::poll: drain, arm, re-check.
        loop {
            if p.answers.take_all(&mut got) {
                continue;
            }
            if p.answers.arm_signal(got) {
                break;
            }
        }
        if got == REQUESTS {
            return;
        }
        // ... and the driver is told if requests wait and it asked.
        let waiting = p.requests.head.load(Ordering::Acquire) != sent;
        if waiting && p.requests.take_signal_request() {
            p.driver.signal();
        }
        // Refill (Link::submit each, notifying when the driver asked).
        while sent - got < DEPTH && sent < REQUESTS {
            sent += 1;
            p.requests.tail.store(sent, Ordering::Release);
            if p.requests.take_signal_request() {
                p.driver.signal();
            }
        }
        p.client.wait();
    }
}

fn driver(p: &Pair, tells_the_client: bool) {
    let mut head = 0u32;
    while head < REQUESTS {
        p.driver.wait();
        let mut busy = true;
        for round in 0..ROUNDS {
            if !busy {
                break;
            }
            let mut answered = 0;
            while answered < DRIVER_BATCH && p.requests.tail.load(Ordering::Acquire) != head {
                head += 1;
                p.requests.head.store(head, Ordering::Release);
                answered += 1;
                p.answers.tail.store(head, Ordering::Release);
            }
            if answered > 0 && p.answers.take_signal_request() {
                p.client.signal();
            }
            if answered == DRIVER_BATCH && round + 1 < ROUNDS {
                continue;
            }
            busy = !p.requests.arm_signal(head);
        }
        if busy && tells_the_client {
            p.client.signal();
        }
    }
}

fn run_pair(tells_the_client: bool) {
    let p = Arc::new(Pair::default());
    let d = {
        let p = p.clone();
        thread::spawn(move || driver(&p, tells_the_client))
    };
    client(&p);
    d.join().unwrap();
}

#[test]
fn a_paused_driver_is_always_woken_and_every_request_answered() {
    holds_in_every_schedule_tried(run_pair, 5_000);
}

#[test]
fn the_checker_catches_a_driver_that_pauses_without_telling_the_client() {
    assert_caught(
        || shuttle::check_pct(|| run_pair(false), 20_000, 3),
        "pausing silently must deadlock in some schedule",
    );
}
