//! A model check of the client- and driver-restart protocol (`crypto_client::pair`,
//! `Link`, `driver_pd::clients`) under sequential consistency, with shuttle exploring
//! the interleavings of one client and one driver over a request queue, a response queue,
//! the control line and two coalescing notifications (seL4's: a pending bit).
//!
//! The client's first incarnation sends requests, polls, and dies at a random step (any
//! step: after the driver took its request for a notification and before it sent it,
//! after the driver notified it of an answer and before it asked again...); its second
//! attaches over the same queues, sends requests with the same ids, and must see every
//! one completed, answered or reported restarted. The driver may die at a random step
//! too and be restarted (its successor discards what is queued, re-arms, publishes the
//! next epoch with its boundary and notifies the client). Checked: no lost wake-up (both
//! asleep with work pending is a deadlock shuttle reports) and no answer taken by an
//! incarnation that did not send its request (each slot carries its sender, hidden from
//! the protocol, asserted on).
//!
//! The steps are those of `Link::new` / `queue` / `flush` / `poll_at_most` and the
//! driver's `Clients::came_back` / `from_system` / `one_batch`, over the wire ids of
//! `crypto_client::pair` itself. Each part of the protocol has a switch; the model
//! without it must fail, so the check can: without the re-arm at attach (issue 32's
//! hang), without the first flush's notification, and without the incarnation's tag on
//! ids (issue 32's answers taken by the wrong incarnation).

#[path = "../../shm-queue/tests/support/signalling.rs"]
mod signalling;

use std::ops::Deref;

use crypto_client::pair::{ID_MASK, of_incarnation, wire_id};
use shuttle::rand::{RngCore, thread_rng};
use shuttle::sync::Arc;
use shuttle::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use shuttle::thread;
use signalling::{Notification, Words};

/// The protocol's parts, each switchable off to show the check catches its absence.
#[derive(Clone, Copy)]
struct Protocol {
    /// `Link::new` polls once (re-arming the response queue's signal).
    rearm: bool,
    /// A new link's first flush notifies the driver whatever its flag says.
    first_notify: bool,
    /// Ids carry the client's incarnation; the link drops another's answers.
    tags: bool,
    /// The driver drops a dead client incarnation's queued requests.
    discards: bool,
    /// The driver may die (once) and be restarted.
    driver_dies: bool,
}

const WHOLE: Protocol = Protocol {
    rearm: true,
    first_notify: true,
    tags: true,
    discards: true,
    driver_dies: true,
};

const CAP: u32 = 4;

/// One queue's shared words (which it derefs to) and slots: each slot a wire id and,
/// hidden from the protocol, the incarnation of the client that sent the request it is
/// or answers.
#[derive(Default)]
struct Queue {
    words: Words,
    ids: [AtomicU32; CAP as usize],
    senders: [AtomicU32; CAP as usize],
}

impl Deref for Queue {
    type Target = Words;
    fn deref(&self) -> &Words {
        &self.words
    }
}

impl Queue {
    /// `Producer::enqueue`: whether there was room.
    fn push(&self, tail: &mut u32, id: u32, sender: u32) -> bool {
        if tail.wrapping_sub(self.head.load(Ordering::Acquire)) >= CAP {
            return false;
        }
        let slot = (*tail % CAP) as usize;
        self.ids[slot].store(id, Ordering::Relaxed);
        self.senders[slot].store(sender, Ordering::Relaxed);
        *tail = tail.wrapping_add(1);
        self.tail.store(*tail, Ordering::Release);
        true
    }

    /// The item at `head`, if one is ready (not taken).
    fn peek(&self, head: u32) -> Option<(u32, u32)> {
        if self.tail.load(Ordering::Acquire) == head {
            return None;
        }
        let slot = (head % CAP) as usize;
        Some((
            self.ids[slot].load(Ordering::Relaxed),
            self.senders[slot].load(Ordering::Relaxed),
        ))
    }

    /// `Consumer::dequeue`.
    fn pop(&self, head: &mut u32) -> Option<(u32, u32)> {
        let item = self.peek(*head)?;
        *head = head.wrapping_add(1);
        self.head.store(*head, Ordering::Release);
        Some(item)
    }
}

#[derive(Default)]
struct Pair {
    requests: Queue,
    answers: Queue,
    /// The control line: the driver's epoch and boundary, the client's incarnation.
    epoch: AtomicU32,
    boundary: AtomicU32,
    client_word: AtomicU32,
    /// The request index the client's incarnation queues from.
    client_from: AtomicU32,
    driver: Notification,
    client: Notification,
    /// The client's last incarnation is done: the driver may stop.
    finished: AtomicBool,
}

/// Whether to die at this step (the client's first incarnation; a driver allowed to).
fn dies() -> bool {
    thread_rng().next_u64().is_multiple_of(4)
}

/// The client side of the pair for one incarnation (`Link`).
struct Link {
    proto: Protocol,
    incarnation: u32,
    tail: u32,
    head: u32,
    epoch: u32,
    fresh: bool,
    /// (id, request queue index it was queued at).
    in_flight: Vec<(u32, u32)>,
    completed: u32,
}

impl Link {
    /// `Link::new`: attach, announce, poll once (the re-arm).
    fn new(p: &Pair, proto: Protocol) -> Link {
        let incarnation = p.client_word.load(Ordering::Relaxed) + 1;
        let mut link = Link {
            proto,
            incarnation,
            tail: p.requests.tail.load(Ordering::Acquire),
            head: p.answers.head.load(Ordering::Acquire),
            epoch: p.epoch.load(Ordering::Acquire),
            fresh: false,
            in_flight: Vec::new(),
            completed: 0,
        };
        p.client_from.store(link.tail, Ordering::Release);
        p.client_word.store(incarnation, Ordering::Release);
        if proto.rearm {
            link.poll(p, &mut || false);
        }
        link.fresh = proto.first_notify;
        link
    }

    fn wire(&self, id: u32) -> u32 {
        if self.proto.tags {
            wire_id(self.incarnation, id)
        } else {
            id
        }
    }

    /// `Link::queue`.
    fn queue(&mut self, p: &Pair, id: u32) -> bool {
        let at = self.tail;
        let wire = self.wire(id);
        let sent = p.requests.push(&mut self.tail, wire, self.incarnation);
        if sent {
            self.in_flight.push((id, at));
        }
        sent
    }

    /// `Link::flush`.
    fn flush(&mut self, p: &Pair) -> bool {
        p.requests.take_signal_request() | std::mem::take(&mut self.fresh)
    }

    /// `Link::poll_at_most`; `die` is asked after each answer taken (a client killed
    /// mid-poll). Returns whether to notify the driver, `None` if it died.
    fn poll(&mut self, p: &Pair, die: &mut dyn FnMut() -> bool) -> Option<bool> {
        let epoch = p.epoch.load(Ordering::Acquire);
        let boundary = p.boundary.load(Ordering::Acquire);
        loop {
            match p.answers.pop(&mut self.head) {
                Some((wire, sender)) => {
                    if self.proto.tags && !of_incarnation(wire, self.incarnation) {
                        continue; // stale
                    }
                    let low = if self.proto.tags {
                        wire & ID_MASK
                    } else {
                        wire
                    };
                    if let Some(i) = self.in_flight.iter().position(|(id, _)| *id == low) {
                        assert_eq!(
                            sender, self.incarnation,
                            "incarnation {} took an answer to incarnation {sender}'s request {low}",
                            self.incarnation
                        );
                        self.in_flight.swap_remove(i);
                        self.completed += 1;
                    }
                    if die() {
                        return None;
                    }
                }
                None => {
                    if p.answers.arm_signal(self.head) {
                        break;
                    }
                }
            }
        }
        if epoch != self.epoch {
            // Queued before the new incarnation's boundary: reported restarted.
            let before = |at: u32| {
                let ahead = boundary.wrapping_sub(at);
                ahead != 0 && ahead <= u32::MAX / 2
            };
            let n = self.in_flight.len();
            self.in_flight.retain(|(_, at)| !before(*at));
            self.completed += (n - self.in_flight.len()) as u32;
            self.epoch = epoch;
        }
        let waiting = p.requests.head.load(Ordering::Acquire) != self.tail;
        Some(waiting && (p.requests.take_signal_request() | std::mem::take(&mut self.fresh)))
    }
}

/// Requests each incarnation of the client sends (ids 0.., the same in both).
const REQUESTS: u32 = 2;

/// The client's first incarnation: sends, polls and dies at a random step (at the
/// latest once its requests are completed, as nothing else would end it).
fn first_incarnation(p: &Pair, proto: Protocol) {
    let mut link = Link::new(p, proto);
    let mut sent = 0;
    loop {
        while sent < REQUESTS {
            if dies() || !link.queue(p, sent) {
                return;
            }
            sent += 1;
            let notify = link.flush(p);
            if dies() {
                return;
            }
            if notify {
                p.driver.signal();
            }
        }
        if link.in_flight.is_empty() || dies() {
            return;
        }
        p.client.wait();
        if dies() {
            return;
        }
        match link.poll(p, &mut dies) {
            Some(true) => p.driver.signal(),
            Some(false) => {}
            None => return,
        }
    }
}

/// The client's next incarnation: sends its requests and sees each completed.
fn second_incarnation(p: &Pair, proto: Protocol) {
    let mut link = Link::new(p, proto);
    let mut sent = 0;
    loop {
        let mut notify = false;
        while sent < REQUESTS && link.queue(p, sent) {
            sent += 1;
            notify |= link.flush(p);
        }
        if notify {
            p.driver.signal();
        }
        if link.completed == REQUESTS {
            break;
        }
        p.client.wait();
        if link.poll(p, &mut || false) == Some(true) {
            p.driver.signal();
        }
    }
    p.finished.store(true, Ordering::Release);
    p.driver.signal();
}

/// One incarnation of the driver: its consumer's head, its producer's tail, and the
/// client incarnation it last saw.
struct Driver {
    head: u32,
    tail: u32,
    client: u32,
}

impl Driver {
    /// `Clients::from_system`: a restarted driver discards what is queued (at most a
    /// queue's worth) and arms, then publishes the next epoch with its boundary and, if
    /// restarted, notifies the client.
    fn start(p: &Pair) -> Driver {
        let mut d = Driver {
            head: p.requests.head.load(Ordering::Acquire),
            tail: p.answers.tail.load(Ordering::Acquire),
            client: p.client_word.load(Ordering::Acquire),
        };
        let restarted = p.epoch.load(Ordering::Relaxed) != 0;
        let mut left = 0;
        loop {
            while restarted && left < CAP && p.requests.pop(&mut d.head).is_some() {
                left += 1;
            }
            if p.requests.arm_signal(d.head) || !restarted || left >= CAP {
                break;
            }
        }
        p.boundary.store(d.head, Ordering::Release);
        let next = p.epoch.load(Ordering::Relaxed) + 1;
        p.epoch.store(next, Ordering::Release);
        if next > 1 {
            p.client.signal();
        }
        d
    }

    /// `Clients::came_back`: a new client incarnation's predecessor's requests, those
    /// before the index it queues from, are dropped (if `discards`: the code before did
    /// not).
    fn check_client(&mut self, p: &Pair, proto: Protocol) {
        let now = p.client_word.load(Ordering::Acquire);
        if now == self.client {
            return;
        }
        let first = self.client == 0;
        self.client = now;
        let from = p.client_from.load(Ordering::Acquire);
        let stale = from.wrapping_sub(self.head);
        if proto.discards && !first && stale <= CAP {
            for _ in 0..stale {
                p.requests.pop(&mut self.head);
            }
        }
    }

    /// Serves until the request queue is empty and armed (`one_batch`, a batch of one).
    /// Returns false if the driver died meanwhile.
    fn serve(&mut self, p: &Pair, may_die: &mut bool) -> bool {
        loop {
            while let Some((wire, sender)) = p.requests.pop(&mut self.head) {
                if *may_die && dies() {
                    *may_die = false;
                    return false;
                }
                // Room was checked before the request was taken (at most CAP in flight
                // over both queues: the client sends at most 2 * REQUESTS).
                assert!(p.answers.push(&mut self.tail, wire, sender));
                let notify = p.answers.take_signal_request();
                if *may_die && dies() {
                    *may_die = false;
                    return false;
                }
                if notify {
                    p.client.signal();
                }
            }
            if p.requests.arm_signal(self.head) {
                return true;
            }
        }
    }
}

fn driver(p: &Pair, proto: Protocol) {
    let mut d = Driver {
        head: 0,
        tail: 0,
        client: p.client_word.load(Ordering::Acquire),
    };
    let mut may_die = proto.driver_dies;
    loop {
        p.driver.wait();
        if p.finished.load(Ordering::Acquire) {
            return;
        }
        d.check_client(p, proto);
        if !d.serve(p, &mut may_die) {
            // Killed; its parent restarts it.
            d = Driver::start(p);
            d.check_client(p, proto);
            if !d.serve(p, &mut may_die) {
                unreachable!("dies once");
            }
        }
    }
}

fn run(proto: Protocol) {
    let p = Arc::new(Pair::default());
    // The driver's first start, before the client's: epoch 1, armed.
    Driver::start(&p);
    let d = {
        let p = p.clone();
        thread::spawn(move || driver(&p, proto))
    };
    first_incarnation(&p, proto);
    second_incarnation(&p, proto);
    d.join().unwrap();
}

/// Fails unless `check`, run on a broken variant, finds a schedule that fails with a
/// panic saying `how` (shuttle's "deadlock!", or the model's own assertion): the check
/// can fail, and for the reason it is meant to, so its passing means something.
fn assert_caught(check: impl FnOnce() + std::panic::UnwindSafe, how: &str, why: &str) {
    let Err(payload) = std::panic::catch_unwind(check) else {
        panic!("not caught: {why}");
    };
    let said = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    assert!(
        said.contains(how),
        "caught, but as {said:?}, not {how:?}: {why}"
    );
}

#[test]
fn no_lost_wake_up_and_no_stale_answer_taken_across_client_and_driver_restarts() {
    shuttle::check_random(|| run(WHOLE), 10_000);
    shuttle::check_pct(|| run(WHOLE), 10_000, 3);
}

#[test]
fn the_checker_catches_a_link_that_does_not_rearm_at_attach() {
    let proto = Protocol {
        rearm: false,
        driver_dies: false,
        ..WHOLE
    };
    assert_caught(
        move || shuttle::check_random(move || run(proto), 30_000),
        "deadlock",
        "a new link that neither re-arms nor polls must hang in some schedule",
    );
}

#[test]
fn the_checker_catches_a_link_whose_first_flush_trusts_the_drivers_flag() {
    let proto = Protocol {
        first_notify: false,
        driver_dies: false,
        ..WHOLE
    };
    assert_caught(
        move || shuttle::check_random(move || run(proto), 30_000),
        "deadlock",
        "a flag spent by the dead incarnation must hang the new one in some schedule",
    );
}

#[test]
fn the_checker_catches_ids_that_do_not_carry_the_incarnation() {
    let proto = Protocol {
        tags: false,
        driver_dies: false,
        ..WHOLE
    };
    assert_caught(
        move || shuttle::check_random(move || run(proto), 30_000),
        "took an answer",
        "untagged ids must let the new incarnation take a dead one's answer",
    );
}
