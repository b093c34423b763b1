//! Two threads, millions of items through a small queue: FIFO order, none lost, none
//! duplicated, none torn, with the consumer sleeping through the signalling protocol.

mod common;

use std::sync::atomic::{AtomicU32, Ordering};
use std::thread;

use common::{Item, aligned, as_bytes};
use shm_queue::{Consumer, Producer, QueueError, SharedRegion, region_size};

const CAP: u32 = 64;
const ITEMS: u64 = 2_000_000;

/// A stand-in for a notification: a counter the consumer parks on.
struct Doorbell(AtomicU32, std::sync::Mutex<()>, std::sync::Condvar);

impl Doorbell {
    fn ring(&self) {
        let _g = self.1.lock().unwrap();
        self.0.fetch_add(1, Ordering::SeqCst);
        self.2.notify_one();
    }
    fn wait(&self, seen: u32) -> u32 {
        let mut g = self.1.lock().unwrap();
        while self.0.load(Ordering::SeqCst) == seen {
            g = self.2.wait(g).unwrap();
        }
        self.0.load(Ordering::SeqCst)
    }
}

fn run(batch: usize) {
    let mut mem = aligned(region_size::<Item>(CAP));
    let region = SharedRegion::new(as_bytes(&mut mem));
    let bell = Doorbell(AtomicU32::new(0), Default::default(), Default::default());
    let (mut wakeups, mut sleeps) = (0u64, 0u64);
    thread::scope(|s| {
        s.spawn(|| {
            let mut p = Producer::<Item>::attach(region, CAP).unwrap();
            let mut next = 0u64;
            let mut buf = Vec::with_capacity(batch);
            while next < ITEMS {
                buf.clear();
                buf.extend((next..(next + batch as u64).min(ITEMS)).map(Item::new));
                let mut sent = 0;
                while sent < buf.len() {
                    match p.enqueue_many(&buf[sent..]) {
                        Ok(n) => sent += n,
                        Err(e) => panic!("producer: {e}"),
                    }
                    if p.take_signal_request() {
                        bell.ring();
                    }
                    if sent < buf.len() {
                        thread::yield_now();
                    }
                }
                next += buf.len() as u64;
            }
        });
        let mut c = Consumer::<Item>::attach(region, CAP).unwrap();
        let mut expect = 0u64;
        let mut out = vec![Item::new(0); batch];
        let mut seen = 0;
        while expect < ITEMS {
            match c.dequeue_many(&mut out) {
                Ok(0) => {
                    if c.arm_signal().unwrap() {
                        sleeps += 1;
                        seen = bell.wait(seen);
                        wakeups += 1;
                    }
                }
                Ok(n) => {
                    for item in &out[..n] {
                        assert!(item.is_intact(), "torn item {item:?}");
                        assert_eq!(item.seq, expect, "out of order or lost");
                        expect += 1;
                    }
                }
                Err(e) => panic!("consumer: {e}"),
            }
        }
        assert_eq!(c.dequeue(), Err(QueueError::Empty), "nothing duplicated");
    });
    assert_eq!(sleeps, wakeups, "every sleep ended in a wake-up");
}

#[test]
fn two_threads_batch_1() {
    run(1);
}

#[test]
fn two_threads_batch_32() {
    run(32);
}
