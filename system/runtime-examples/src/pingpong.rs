//! Ping and pong over two shm-queues in the region `ring`, with notifications only when
//! the other side asked for one (the queue's signalling protocol).
//!
//! Ping sends a number; pong answers with the number plus one; ping checks it and sends
//! the next. Pong notifies ping on a second channel, `hello`, whenever it (re)starts:
//! if ping's request was taken by a pong that died before answering, ping sends it
//! again. A duplicate answer (the old pong answered after all) is counted and ignored.

use pd_runtime::{Channel, ChannelSet, Handler, debug_println, memory_region, pd_name};
use shm_queue::{Consumer, Producer, QueueError};

use crate::queues::{self, CAPACITY};

/// Ping's channels.
pub const TO_PONG: Channel = Channel::new(0);
pub const PONG_HELLO: Channel = Channel::new(1);
/// Pong's channels.
pub const TO_PING: Channel = Channel::new(0);
pub const HELLO: Channel = Channel::new(1);

pub struct Ping {
    tx: Producer<'static, u64>,
    rx: Consumer<'static, u64>,
    /// The number in flight.
    next: u64,
    limit: Option<u64>,
    report_every: u64,
    stale: u64,
}

impl Ping {
    /// Exits with status 0 after `limit` rounds; prints every `report_every` rounds.
    pub fn init(limit: Option<u64>, report_every: u64) -> Ping {
        let (tx, rx) = queues::side_a(queues::shared(memory_region!(ring)));
        let mut ping = Ping {
            tx,
            rx,
            next: 0,
            limit,
            report_every,
            stale: 0,
        };
        ping.send();
        ping
    }

    fn send(&mut self) {
        self.tx
            .enqueue(self.next)
            .expect("ping keeps at most a few in flight");
        if self.tx.take_signal_request() {
            TO_PONG.notify();
        }
    }

    /// Takes every answer; sends the next number after each right one.
    fn drain(&mut self) {
        loop {
            match self.rx.dequeue() {
                Ok(v) if v == self.next + 1 => {
                    self.next = v;
                    if self.next.is_multiple_of(self.report_every) {
                        debug_println!("{}: {} rounds ({} stale)", pd_name(), v, self.stale);
                    }
                    if self.limit == Some(v) {
                        debug_println!("{}: done, {v} rounds, all answers right", pd_name());
                        pd_runtime::exit(0);
                    }
                    self.send();
                }
                Ok(v) if v <= self.next => self.stale += 1,
                Ok(v) => panic!("pong answered {v} to {}", self.next),
                Err(QueueError::Empty) => {
                    if self.rx.arm_signal().expect("response queue") {
                        return;
                    }
                }
                Err(e) => panic!("response queue: {e}"),
            }
        }
    }
}

impl Handler for Ping {
    fn notified(&mut self, channels: ChannelSet) {
        self.drain();
        // Pong restarted: if it took our request and no answer came, ask again.
        if channels.contains(PONG_HELLO) && self.tx.free() == Ok(CAPACITY) {
            debug_println!("{}: pong (re)started; resending {}", pd_name(), self.next);
            self.send();
        }
    }
}

pub struct Pong {
    rx: Consumer<'static, u64>,
    tx: Producer<'static, u64>,
    /// Ping corrupted the queues: they are served no more.
    cut_off: bool,
}

impl Pong {
    pub fn init() -> Pong {
        let (rx, tx) = queues::side_b(queues::shared(memory_region!(ring)));
        let mut pong = Pong {
            rx,
            tx,
            cut_off: false,
        };
        HELLO.notify();
        pong.drain();
        pong
    }

    fn drain(&mut self) {
        if self.cut_off {
            return;
        }
        // Wrapping: the value is the client's, and an overflow must not end the server.
        let served = queues::serve(
            &mut self.rx,
            &mut self.tx,
            |v| v.wrapping_add(1),
            || TO_PING.notify(),
        );
        if let Err(e) = served {
            debug_println!("{}: ping's queues are corrupt ({e}): cut off", pd_name());
            self.cut_off = true;
        }
    }
}

impl Handler for Pong {
    fn notified(&mut self, _: ChannelSet) {
        self.drain();
    }
}
