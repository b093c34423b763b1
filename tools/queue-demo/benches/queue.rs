//! Queue throughput and round trip between two processes sharing a memfd, both spinning:
//! items/s at batch 1 and batch 32, and the one-item ping-pong round trip, measured side
//! by side in one run so the ratios mean something on a noisy shared machine.
//!
//! `cargo bench -p queue-demo --bench queue` (or `make bench`).

use std::hint::black_box;
use std::time::{Duration, Instant};

use pd_idl::cipher::Request;
use queue_demo::{Shared, two_queues};
use shm_queue::{Consumer, Producer, SharedRegion, region_size};
use zerocopy::FromZeros;

const CAP: u32 = 64;
const ITEMS: u64 = 4_000_000;
const PINGS: u64 = 200_000;

fn layout() -> (usize, usize, usize) {
    let q = region_size::<Request>(CAP);
    two_queues(q, q)
}

fn queues(region: SharedRegion<'_>) -> (SharedRegion<'_>, SharedRegion<'_>) {
    let (a, b, _) = layout();
    let q = region_size::<Request>(CAP);
    (region.slice(a, q).unwrap(), region.slice(b, q).unwrap())
}

fn item(seq: u64) -> Request {
    let mut r = Request::new_zeroed();
    r.id = seq as u32;
    r
}

/// Child: produce ITEMS in batches of `batch`, spinning when full.
fn produce(region: SharedRegion<'_>, batch: usize) {
    let (q, _) = queues(region);
    let mut p = Producer::<Request>::attach(q, CAP).unwrap();
    let items: Vec<_> = (0..batch as u64).map(item).collect();
    let mut sent = 0;
    while sent < ITEMS {
        let want = (ITEMS - sent).min(batch as u64) as usize;
        sent += p.enqueue_many(&items[..want]).unwrap() as u64;
    }
}

/// Child: echo every ping back.
fn pong(region: SharedRegion<'_>) {
    let (ping, pong) = queues(region);
    let mut rx = Consumer::<Request>::attach(ping, CAP).unwrap();
    let mut tx = Producer::<Request>::attach(pong, CAP).unwrap();
    let mut n = 0;
    while n < PINGS {
        if let Ok(r) = rx.dequeue() {
            tx.enqueue(r).unwrap();
            n += 1;
        }
    }
}

fn throughput(batch: usize) -> f64 {
    let shared = Shared::create("queue-bench", layout().2).unwrap();
    let (q, _) = queues(shared.region);
    let mut c = Consumer::<Request>::attach(q, CAP).unwrap();
    let mut child = shared
        .spawn_peer(&["--peer", &format!("produce{batch}")])
        .unwrap();
    let mut out = vec![Request::new_zeroed(); batch];
    let mut got = 0u64;
    // Time from the first item, so process start-up is not counted.
    while c.is_empty().unwrap() {
        std::hint::spin_loop();
    }
    let start = Instant::now();
    while got < ITEMS {
        let n = c.dequeue_many(&mut out).unwrap();
        for r in &out[..n] {
            black_box(r.id);
        }
        got += n as u64;
    }
    let secs = start.elapsed().as_secs_f64();
    assert!(child.wait().unwrap().success());
    ITEMS as f64 / secs
}

fn round_trip() -> Duration {
    let shared = Shared::create("queue-bench", layout().2).unwrap();
    let (ping, pong) = queues(shared.region);
    let mut tx = Producer::<Request>::attach(ping, CAP).unwrap();
    let mut rx = Consumer::<Request>::attach(pong, CAP).unwrap();
    let mut child = shared.spawn_peer(&["--peer", "pong"]).unwrap();
    // One warm-up exchange, so the child's start-up is outside the timing.
    tx.enqueue(item(0)).unwrap();
    while rx.dequeue().is_err() {}
    let start = Instant::now();
    for i in 1..PINGS {
        tx.enqueue(item(i)).unwrap();
        loop {
            if let Ok(r) = rx.dequeue() {
                assert_eq!(u64::from(r.id), i);
                break;
            }
        }
    }
    let elapsed = start.elapsed();
    assert!(child.wait().unwrap().success());
    elapsed / (PINGS - 1) as u32
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--peer") {
        let fd: i32 = args[args.iter().position(|a| a == "--fd").unwrap() + 1]
            .parse()
            .unwrap();
        // SAFETY: the parent passed this inherited descriptor; nothing else owns it.
        let shared = unsafe { Shared::inherit(fd, layout().2) }.unwrap();
        match args[i + 1].as_str() {
            "pong" => pong(shared.region),
            p => produce(
                shared.region,
                p.trim_start_matches("produce").parse().unwrap(),
            ),
        }
        return;
    }
    println!(
        "shm-queue between two processes, {}-byte Cipher requests, capacity {CAP}, spinning",
        size_of::<Request>()
    );
    println!("{}", bench_stats::context());
    let rt = bench_stats::repeat(|| round_trip().as_secs_f64() * 1e6);
    let b1 = bench_stats::repeat(|| throughput(1) / 1e6);
    let b32 = bench_stats::repeat(|| throughput(32) / 1e6);
    println!("{:<34} {:>14} {:>12}", "measure", "median", "spread");
    let row = |what: &str, s: &bench_stats::Stats, unit: &str| {
        println!(
            "{what:<34} {:>10.3} {unit:<3} {:>12}",
            s.median,
            s.spread_cell()
        )
    };
    row("round trip, 1 item each way", &rt, "us");
    row("throughput, batch 1", &b1, "M/s");
    row("throughput, batch 32", &b32, "M/s");
    println!(
        "{:<34} {:>13.1}x  (of the medians)",
        "batch 32 / batch 1",
        b32.median / b1.median
    );
    println!(
        "{:<34} {:>10.3} us  (round trip / items per second at batch 1: {:.1} items per round trip)",
        "time per item, batch 1",
        1.0 / b1.median,
        b1.median * rt.median
    );
    if let Some(w) = bench_stats::warning(&[rt, b1, b32]) {
        println!("{w}");
    }
}
