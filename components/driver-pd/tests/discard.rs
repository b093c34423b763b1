//! A restarted driver drops what its predecessor left queued, but no more than a queue's
//! worth: a client refilling as fast as the driver drains cannot keep it discarding
//! forever (the bound that issue 14 found missing: 202,632 discarded in one start-up).

use driver_pd::clients::discard;
use pd_idl::cipher::{REQUEST_QUEUE_CAPACITY, Request};
use shm_queue::{Consumer, Producer, SharedRegion};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use zerocopy::FromZeros;

#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct Line([u8; 64]);

#[test]
fn discarding_stops_at_a_queues_worth_while_the_client_keeps_refilling() {
    let need = shm_queue::region_size::<Request>(REQUEST_QUEUE_CAPACITY);
    let lines: &'static mut [Line] = Vec::leak(vec![Line([0; 64]); need.div_ceil(64)]);
    let (base, len) = (lines.as_mut_ptr() as usize, lines.len() * 64);
    // SAFETY (both): leaked memory, reached only through the queue handles, which use
    // atomics and volatile copies: one producer thread, one consumer.
    let region = move || unsafe { SharedRegion::from_raw(base as *mut u8, len) };
    let cap = REQUEST_QUEUE_CAPACITY;
    let mut rx = Consumer::<Request>::attach(region(), cap).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let refilling = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut tx = Producer::<Request>::attach(region(), cap).unwrap();
            let mut sent = 0u64;
            while !stop.load(Ordering::Relaxed) {
                if tx.enqueue(Request::new_zeroed()).is_ok() {
                    sent += 1;
                }
            }
            sent
        })
    };
    // Let the client get ahead, then discard as a restarting driver does.
    while rx.len().unwrap() < cap / 2 {
        std::hint::spin_loop();
    }
    let dropped = discard(&mut rx, cap).unwrap();
    stop.store(true, Ordering::Relaxed);
    let sent = refilling.join().unwrap();
    assert!(dropped <= cap, "{dropped} discarded");
    assert!(dropped >= cap / 2, "at least what was there: {dropped}");
    assert!(sent > 0);
}
