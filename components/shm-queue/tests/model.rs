//! The queue against a `VecDeque` model, for arbitrary interleavings of one producer and
//! one consumer, including wrap-around of the free-running indices.

mod common;

use std::collections::VecDeque;

use common::{Item, aligned, as_bytes};
use proptest::prelude::*;
use shm_queue::{Consumer, Producer, QueueError, SharedRegion, region_size};

#[derive(Clone, Debug)]
enum Op {
    Enqueue,
    EnqueueMany(usize),
    Dequeue,
    DequeueMany(usize),
    PeekRelease(usize, usize),
    /// A batch refreshed to everything published, then released in part.
    RefreshRelease(usize),
    /// Written but not published.
    Stage,
    Publish,
    /// The producer asks for room for this many (`Producer::room`).
    Room(u32),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        Just(Op::Enqueue),
        (0usize..20).prop_map(Op::EnqueueMany),
        Just(Op::Dequeue),
        (0usize..20).prop_map(Op::DequeueMany),
        (0usize..20, 0usize..20).prop_map(|(a, b)| Op::PeekRelease(a, b)),
        (0usize..20).prop_map(Op::RefreshRelease),
        Just(Op::Stage),
        Just(Op::Publish),
        (0u32..20).prop_map(Op::Room),
    ]
}

proptest! {
    #[test]
    fn behaves_like_a_bounded_fifo(
        log2_cap in 0u32..5,
        start in prop_oneof![Just(0u32), Just(u32::MAX - 7), any::<u32>()],
        ops in prop::collection::vec(op(), 1..200),
    ) {
        let capacity = 1u32 << log2_cap;
        let mut mem = aligned(region_size::<Item>(capacity));
        let bytes = as_bytes(&mut mem);
        // Start both indices near the wrap to exercise free-running arithmetic.
        bytes[0..4].copy_from_slice(&start.to_ne_bytes());
        bytes[64..68].copy_from_slice(&start.to_ne_bytes());
        let region = SharedRegion::new(bytes);
        let mut p = Producer::<Item>::attach(region, capacity).unwrap();
        let mut c = Consumer::<Item>::attach(region, capacity).unwrap();
        let mut model = VecDeque::new();
        // Staged by the producer, not yet published: invisible to the consumer.
        let mut staged = Vec::new();
        let mut next = 0u64;
        // Items the consumer knows are ready (up to the tail it last read): it reads the
        // tail again only once it has taken them all.
        let mut known = 0usize;
        let look = |known: &mut usize, ready: usize| {
            if *known == 0 {
                *known = ready;
            }
            *known
        };
        // The producer's side of the same rule: items taken so far, and how many had
        // been taken when it last read the head (attached: none free until it reads).
        // It reads the head again only when what it last saw leaves too little room.
        let cap = i64::from(capacity);
        let mut taken = 0i64;
        let mut seen = -cap;
        let known_free = |written: u64, seen: i64| cap - (written as i64 - seen);

        for op in ops {
            // A publish makes the staged items visible before what it adds.
            match op {
                // One item, staged or published with what is staged: the same room
                // and the same rule for reading the head.
                Op::Stage | Op::Enqueue => {
                    let publish = matches!(op, Op::Enqueue);
                    if known_free(next, seen) == 0 {
                        seen = taken;
                    }
                    let r = if publish {
                        p.enqueue(Item::new(next))
                    } else {
                        p.stage(Item::new(next))
                    };
                    if model.len() + staged.len() < capacity as usize {
                        prop_assert_eq!(r, Ok(()));
                        if publish {
                            model.extend(staged.drain(..));
                            model.push_back(Item::new(next));
                        } else {
                            staged.push(Item::new(next));
                        }
                        next += 1;
                    } else {
                        prop_assert_eq!(r, Err(QueueError::Full));
                    }
                }
                Op::Publish => {
                    p.publish();
                    model.extend(staged.drain(..));
                }
                Op::EnqueueMany(n) => {
                    seen = taken;
                    let items: Vec<_> = (next..next + n as u64).map(Item::new).collect();
                    let k = p.enqueue_many(&items).unwrap();
                    model.extend(staged.drain(..));
                    prop_assert_eq!(k, n.min(capacity as usize - model.len()));
                    model.extend(&items[..k]);
                    next += k as u64;
                }
                Op::Dequeue => match look(&mut known, model.len()) {
                    0 => prop_assert_eq!(c.dequeue(), Err(QueueError::Empty)),
                    _ => {
                        known -= 1;
                        taken += 1;
                        prop_assert_eq!(c.dequeue(), Ok(model.pop_front().unwrap()));
                    }
                },
                Op::DequeueMany(n) => {
                    let mut out = vec![Item::new(0); n];
                    let k = c.dequeue_many(&mut out).unwrap();
                    prop_assert_eq!(k, n.min(look(&mut known, model.len())));
                    known -= k;
                    taken += k as i64;
                    for got in &out[..k] {
                        prop_assert_eq!(Some(*got), model.pop_front());
                    }
                }
                Op::PeekRelease(seen, release) => {
                    let batch = c.read_batch().unwrap();
                    prop_assert_eq!(batch.len(), look(&mut known, model.len()));
                    prop_assert!(batch.len() <= model.len());
                    for (i, want) in model.iter().enumerate().take(seen.min(batch.len())) {
                        prop_assert_eq!(batch.get(i), *want);
                    }
                    let k = release.min(batch.len());
                    batch.release(release);
                    known -= k;
                    taken += k as i64;
                    model.drain(..k);
                }
                Op::RefreshRelease(release) => {
                    let mut batch = c.read_batch().unwrap();
                    batch.refresh().unwrap();
                    prop_assert_eq!(batch.len(), model.len());
                    for (i, want) in model.iter().enumerate() {
                        prop_assert_eq!(batch.get(i), *want);
                    }
                    let k = release.min(batch.len());
                    batch.release(release);
                    known = model.len() - k;
                    taken += k as i64;
                    model.drain(..k);
                }
                Op::Room(want) => {
                    let want_now = want.min(capacity);
                    if known_free(next, seen) < i64::from(want_now) {
                        seen = taken;
                    }
                    let expect = known_free(next, seen);
                    prop_assert_eq!(p.room(want).map(i64::from), Ok(expect));
                    // Never more than is free, and all of it when asked for that much.
                    let free = i64::from(capacity) - (model.len() + staged.len()) as i64;
                    prop_assert!(expect <= free);
                    if want >= capacity {
                        prop_assert_eq!(expect, free);
                    }
                }
            }
            prop_assert_eq!(c.len().unwrap() as usize, model.len());
            let used = model.len() + staged.len();
            prop_assert_eq!(p.free().unwrap() as usize, capacity as usize - used);
        }
    }
}

#[test]
fn write_batch_is_invisible_until_commit() {
    let mut mem = aligned(region_size::<Item>(8));
    let region = SharedRegion::new(as_bytes(&mut mem));
    let mut p = Producer::<Item>::attach(region, 8).unwrap();
    let mut c = Consumer::<Item>::attach(region, 8).unwrap();
    let mut batch = p.write_batch().unwrap();
    assert_eq!(batch.len(), 8);
    batch.set(0, Item::new(1));
    batch.set(1, Item::new(2));
    assert_eq!(c.len(), Ok(0));
    batch.commit(2);
    assert_eq!(c.dequeue(), Ok(Item::new(1)));
    assert_eq!(c.dequeue(), Ok(Item::new(2)));
    assert_eq!(c.dequeue(), Err(QueueError::Empty));
}

#[test]
fn signal_is_requested_once_per_sleep() {
    let mut mem = aligned(region_size::<Item>(4));
    let region = SharedRegion::new(as_bytes(&mut mem));
    let mut p = Producer::<Item>::attach(region, 4).unwrap();
    let c = Consumer::<Item>::attach(region, 4).unwrap();
    // A fresh region reads as "consumer asked" (0): the first item must wake it.
    p.enqueue(Item::new(0)).unwrap();
    assert!(p.take_signal_request());
    assert!(!p.take_signal_request(), "one wake-up per request");
    // Consumer drains, asks again: still empty? No, one item is there, so it must not sleep.
    assert_eq!(c.arm_signal(), Ok(false));
    assert!(p.take_signal_request());
    c.cancel_signal();
    assert!(
        !p.take_signal_request(),
        "a cancelled request is not a request"
    );
}
