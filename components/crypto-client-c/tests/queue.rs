//! The C queue (crypto_pd/queue.h) against the Rust shm-queue, both ways: Rust producer
//! and C consumer, C producer and Rust consumer, in one thread and across two; the same
//! layout numbers; the signalling handshake; and a hostile peer's corrupted indices met
//! by the typed error on the C side.

mod common;

use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};

use common::{CQueue, Q_CORRUPT, Q_EMPTY, Q_FULL, Q_OK, c, shared, word};
use pd_idl::{cipher, digest};
use shm_queue::{Consumer, Producer, QueueError, region_size, slot_size};
use zerocopy::FromZeros;

const CAP: u32 = 8;

fn producer_c<T>(base: *mut u8, len: usize, cap: u32) -> CQueue {
    let mut q = CQueue::new();
    let e = (c().producer_attach)(
        &mut q,
        base.cast(),
        len as u64,
        cap,
        size_of::<T>() as u32,
        align_of::<T>() as u32,
    );
    assert_eq!(e, 0, "C producer attaches");
    q
}

fn consumer_c<T>(base: *mut u8, len: usize, cap: u32) -> CQueue {
    let mut q = CQueue::new();
    let e = (c().consumer_attach)(
        &mut q,
        base.cast(),
        len as u64,
        cap,
        size_of::<T>() as u32,
        align_of::<T>() as u32,
    );
    assert_eq!(e, 0, "C consumer attaches");
    q
}

fn request(i: u32) -> cipher::Request {
    cipher::Request::over(
        i,
        i.wrapping_mul(7),
        cipher::CipherOp::Encrypt,
        &[(i, 16), (i + 64, 32)],
    )
}

fn response(i: u32) -> digest::Response {
    let mut r = digest::Response::new_zeroed();
    r.id = i;
    r.status = digest::DigestErrorRaw(u16::try_from(i % 13).unwrap());
    r.digest_len = 32;
    r.reserved = [i as u8; 5];
    r.bytes_done = i.wrapping_mul(31);
    r
}

#[test]
fn slot_and_queue_sizes_are_shm_queues() {
    macro_rules! same {
        ($($t:ty),*) => {$(
            assert_eq!((c().slot_bytes)(size_of::<$t>() as u32) as usize, slot_size::<$t>());
            assert_eq!((c().queue_bytes)(size_of::<$t>() as u32, 64) as usize, region_size::<$t>(64));
        )*};
    }
    same!(
        [u8; 1],
        [u8; 3],
        [u8; 12],
        [u8; 16],
        [u8; 33],
        [u8; 64],
        [u8; 76],
        [u8; 130],
        cipher::Request,
        cipher::Response,
        digest::Request,
        digest::Response
    );
}

#[test]
fn rust_producer_to_c_consumer() {
    let len = region_size::<cipher::Request>(CAP);
    let (base, region) = shared(len);
    let mut tx = Producer::<cipher::Request>::attach(region, CAP).unwrap();
    let mut rx = consumer_c::<cipher::Request>(base, len, CAP);
    let mut out = cipher::Request::new_zeroed();
    let mut next = 0;
    // Several laps of the ring, in batches up to full.
    for round in 0..40u32 {
        let batch = round % (CAP + 1);
        for k in 0..batch {
            tx.enqueue(request(round * 100 + k)).unwrap();
        }
        if batch == CAP {
            assert_eq!(tx.enqueue(request(0)), Err(QueueError::Full));
        }
        for k in 0..batch {
            let got = (c().dequeue)(&mut rx, (&raw mut out).cast());
            assert_eq!(got, Q_OK);
            assert_eq!(out, request(round * 100 + k), "item {next}");
            next += 1;
        }
        assert_eq!((c().dequeue)(&mut rx, (&raw mut out).cast()), Q_EMPTY);
    }
    assert!(next > 100);
}

#[test]
fn c_producer_to_rust_consumer() {
    let len = region_size::<digest::Response>(CAP);
    let (base, region) = shared(len);
    let mut tx = producer_c::<digest::Response>(base, len, CAP);
    let mut rx = Consumer::<digest::Response>::attach(region, CAP).unwrap();
    for round in 0..40u32 {
        let batch = round % (CAP + 1);
        // Staged, then published once: the Rust side sees none before.
        for k in 0..batch {
            let item = response(round * 100 + k);
            assert_eq!((c().stage)(&mut tx, (&raw const item).cast()), Q_OK);
        }
        if batch == CAP {
            let item = response(0);
            assert_eq!((c().enqueue)(&mut tx, (&raw const item).cast()), Q_FULL);
        }
        assert_eq!(rx.len(), Ok(0));
        (c().publish)(&mut tx);
        for k in 0..batch {
            assert_eq!(rx.dequeue(), Ok(response(round * 100 + k)));
        }
        assert_eq!(rx.dequeue(), Err(QueueError::Empty));
        let mut free = 0;
        assert_eq!((c().free)(&mut tx, &mut free), Q_OK);
        assert_eq!(free, CAP);
    }
}

/// The handshake across the languages: a C consumer that arms is notified by the Rust
/// producer's next publish, once; a Rust consumer that arms is told by the C producer.
#[test]
fn signalling_is_the_same_protocol() {
    let len = region_size::<cipher::Request>(CAP);
    let (base, region) = shared(len);
    let mut tx = Producer::<cipher::Request>::attach(region, CAP).unwrap();
    let mut rx = consumer_c::<cipher::Request>(base, len, CAP);
    let mut sleep = -1;
    assert_eq!((c().arm_signal)(&mut rx, &mut sleep), Q_OK);
    assert_eq!(sleep, 1, "empty: may sleep");
    tx.enqueue(request(1)).unwrap();
    assert!(tx.take_signal_request(), "the C consumer asked");
    tx.enqueue(request(2)).unwrap();
    assert!(!tx.take_signal_request(), "one notification per request");
    assert_eq!((c().arm_signal)(&mut rx, &mut sleep), Q_OK);
    assert_eq!(sleep, 0, "items arrived: keep working");
    (c().cancel_signal)(&mut rx);
    tx.enqueue(request(3)).unwrap();
    assert!(!tx.take_signal_request(), "cancelled");

    let len = region_size::<digest::Response>(CAP);
    let (base, region) = shared(len);
    let mut tx = producer_c::<digest::Response>(base, len, CAP);
    let rx = Consumer::<digest::Response>::attach(region, CAP).unwrap();
    assert_eq!(rx.arm_signal(), Ok(true));
    let item = response(1);
    assert_eq!((c().enqueue)(&mut tx, (&raw const item).cast()), Q_OK);
    assert_eq!(
        (c().take_signal_request)(&mut tx),
        1,
        "the Rust consumer asked"
    );
    assert_eq!((c().take_signal_request)(&mut tx), 0);
}

/// A hostile producer's tail more than a capacity past the head, and a hostile
/// consumer's head past the tail: each C end answers CORRUPT with the indices seen, and
/// never reads or writes a slot for them.
#[test]
fn corrupted_indices_are_the_typed_error() {
    let len = region_size::<cipher::Request>(CAP);
    let (base, _) = shared(len);
    let mut rx = consumer_c::<cipher::Request>(base, len, CAP);
    let mut out = cipher::Request::new_zeroed();
    for tail in [CAP + 1, u32::MAX, 1 << 31] {
        word(base, 0).store(tail, Ordering::Release);
        assert_eq!((c().dequeue)(&mut rx, (&raw mut out).cast()), Q_CORRUPT);
        assert_eq!((rx.bad_head, rx.bad_tail), (0, tail));
        let mut n = 0;
        assert_eq!((c().len)(&mut rx, &mut n), Q_CORRUPT);
        let mut sleep = 0;
        assert_eq!((c().arm_signal)(&mut rx, &mut sleep), Q_CORRUPT);
    }
    assert_eq!(out, cipher::Request::new_zeroed(), "nothing was read");

    let len = region_size::<digest::Response>(CAP);
    let (base, region) = shared(len);
    let mut tx = producer_c::<digest::Response>(base, len, CAP);
    for i in 0..CAP {
        let item = response(i);
        assert_eq!((c().enqueue)(&mut tx, (&raw const item).cast()), Q_OK);
    }
    // Full: the next stage must read the head, which a hostile consumer moved past the
    // tail (it claims to have taken items never written).
    word(base, 64).store(CAP + 5, Ordering::Release);
    let item = response(99);
    assert_eq!((c().enqueue)(&mut tx, (&raw const item).cast()), Q_CORRUPT);
    assert_eq!((tx.bad_head, tx.bad_tail), (CAP + 5, CAP));
    let mut free = 0;
    assert_eq!((c().free)(&mut tx, &mut free), Q_CORRUPT);
    // The Rust consumer's own view of the same words: also Corrupt, not a slot.
    let rx = Consumer::<digest::Response>::attach(region, CAP).unwrap();
    assert_eq!(
        rx.len(),
        Err(QueueError::Corrupt {
            head: CAP + 5,
            tail: CAP
        })
    );
}

/// A region the queue does not fit, a capacity that is not a power of two and a
/// misaligned base are refused at attach.
#[test]
fn bad_layouts_are_refused() {
    let len = region_size::<cipher::Request>(CAP);
    let (base, _) = shared(len + 64);
    let mut q = CQueue::new();
    let req = size_of::<cipher::Request>() as u32;
    let attach = c().producer_attach;
    assert_eq!(attach(&mut q, base.cast(), len as u64 - 1, CAP, req, 16), 3);
    assert_eq!(attach(&mut q, base.cast(), len as u64, 6, req, 16), 1);
    let off: *mut c_void = base.wrapping_add(16).cast();
    assert_eq!(attach(&mut q, off, len as u64, CAP, req, 16), 2);
    assert_eq!(attach(&mut q, base.cast(), len as u64, CAP, req, 128), 4);
    assert_eq!(attach(&mut q, base.cast(), len as u64, CAP, req, 16), 0);
}

/// Two threads, one language each way, with the signalling protocol deciding who sleeps:
/// every item arrives in order and no wake-up is lost (a lost one hangs the test).
#[test]
fn threads_stream_both_ways_with_signals() {
    const N: u32 = 200_000;
    const SCAP: u32 = 64;
    // Rust producer, C consumer.
    let len = region_size::<cipher::Request>(SCAP);
    let (base, region) = shared(len);
    let base = base as usize;
    let bell = &*Box::leak(Box::new(AtomicBool::new(false)));
    let consumer = std::thread::spawn(move || {
        let mut rx = consumer_c::<cipher::Request>(base as *mut u8, len, SCAP);
        let mut out = cipher::Request::new_zeroed();
        let mut next = 0;
        while next < N {
            match (c().dequeue)(&mut rx, (&raw mut out).cast()) {
                Q_OK => {
                    assert_eq!(out, request(next));
                    next += 1;
                }
                Q_EMPTY => {
                    let mut sleep = 0;
                    assert_eq!((c().arm_signal)(&mut rx, &mut sleep), Q_OK);
                    if sleep == 1 {
                        while !bell.swap(false, Ordering::Acquire) {
                            std::thread::yield_now();
                        }
                    }
                }
                e => panic!("C consumer: {e}"),
            }
        }
    });
    let mut tx = Producer::<cipher::Request>::attach(region, SCAP).unwrap();
    let mut i = 0;
    while i < N {
        match tx.enqueue(request(i)) {
            Ok(()) => i += 1,
            Err(QueueError::Full) => std::thread::yield_now(),
            Err(e) => panic!("{e}"),
        }
        if tx.take_signal_request() {
            bell.store(true, Ordering::Release);
        }
    }
    consumer.join().unwrap();

    // C producer, Rust consumer.
    let len = region_size::<digest::Response>(SCAP);
    let (base, region) = shared(len);
    let base = base as usize;
    let bell = &*Box::leak(Box::new(AtomicBool::new(false)));
    let producer = std::thread::spawn(move || {
        let mut tx = producer_c::<digest::Response>(base as *mut u8, len, SCAP);
        let mut i = 0;
        while i < N {
            let item = response(i);
            match (c().enqueue)(&mut tx, (&raw const item).cast()) {
                Q_OK => i += 1,
                Q_FULL => std::thread::yield_now(),
                e => panic!("C producer: {e}"),
            }
            if (c().take_signal_request)(&mut tx) == 1 {
                bell.store(true, Ordering::Release);
            }
        }
    });
    let mut rx = Consumer::<digest::Response>::attach(region, SCAP).unwrap();
    let mut next = 0;
    while next < N {
        match rx.dequeue() {
            Ok(r) => {
                assert_eq!(r, response(next));
                next += 1;
            }
            Err(QueueError::Empty) => {
                if rx.arm_signal().unwrap() {
                    while !bell.swap(false, Ordering::Acquire) {
                        std::thread::yield_now();
                    }
                }
            }
            Err(e) => panic!("{e}"),
        }
    }
    producer.join().unwrap();
}
