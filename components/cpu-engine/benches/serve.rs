//! The CPU driver's own work per request, on one core: `Service::serve_batch` of the
//! Cipher and Digest services over the CPU engine, timed over batches of requests a
//! client wrote into queues in this process's memory. No second core, no notification,
//! no cache line crossing between cores: what is left is the driver's per-request code
//! (copy out of the slot, validation, session, engine, answer), the part that bounds the
//! isolated driver's throughput at small sizes (`speed --host-limit`). Each figure is
//! the median of `bench_stats::RUNS` runs with its spread.

use std::time::Instant;

use cpu_engine::CpuEngine;
use cpu_engine::hash::CpuDigest;
use pd_idl::wire::Caller;
use pd_idl::{cipher, digest};
use shm_queue::{Consumer, Descriptor, Producer, SharedRegion};

/// Requests per batch: the driver's batch (`driver_pd::clients::BATCH`).
const BATCH: usize = 16;
/// Batches per run.
const BATCHES: usize = 20_000;
const CALLER: Caller = Caller(4);
/// No engine-work budget: one client, nobody to share with.
const UNBOUNDED: i64 = i64::MAX;

#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct Line([u8; 64]);

/// Memory for one queue, line-aligned as a mapped region is.
fn lines(bytes: usize) -> &'static mut [Line] {
    Box::leak(vec![Line([0; 64]); bytes.div_ceil(64)].into_boxed_slice())
}

fn region(lines: &'static mut [Line]) -> SharedRegion<'static> {
    let len = lines.len() * 64;
    // SAFETY: leaked, so valid for the rest of the process, and reached only through the
    // queue handles made from it.
    unsafe { SharedRegion::from_raw(lines.as_mut_ptr().cast(), len) }
}

/// A request queue and a response queue, with both ends of each.
struct Queues<Req: Descriptor, Resp: Descriptor> {
    tx: Producer<'static, Req>,
    rx: Consumer<'static, Req>,
    out: Producer<'static, Resp>,
    back: Consumer<'static, Resp>,
}

impl<Req: Descriptor, Resp: Descriptor> Queues<Req, Resp> {
    fn new(req_bytes: usize, req_cap: u32, resp_bytes: usize, resp_cap: u32) -> Self {
        let reqs = region(lines(req_bytes));
        let resps = region(lines(resp_bytes));
        Queues {
            tx: Producer::attach(reqs, req_cap).expect("layout"),
            rx: Consumer::attach(reqs, req_cap).expect("layout"),
            out: Producer::attach(resps, resp_cap).expect("layout"),
            back: Consumer::attach(resps, resp_cap).expect("layout"),
        }
    }

    /// Runs `serve` over `BATCHES` batches of `request(k)`, checking each answer with
    /// `ok`; ns per request spent in `serve`.
    fn per_request(
        &mut self,
        mut request: impl FnMut(usize) -> Req,
        mut serve: impl FnMut(&mut Consumer<'static, Req>, &mut Producer<'static, Resp>) -> usize,
        ok: impl Fn(&Resp) -> bool,
    ) -> f64 {
        let mut got = vec![Resp::new_zeroed(); BATCH];
        let mut ns = 0u128;
        for _ in 0..BATCHES {
            for k in 0..BATCH {
                self.tx.enqueue(request(k)).expect("room");
            }
            let start = Instant::now();
            let answered = serve(&mut self.rx, &mut self.out);
            ns += start.elapsed().as_nanos();
            assert_eq!(answered, BATCH, "every request answered");
            assert_eq!(self.back.dequeue_many(&mut got).expect("queue"), BATCH);
            assert!(got.iter().all(&ok), "every answer a success");
        }
        ns as f64 / (BATCHES * BATCH) as f64
    }
}

/// A data region of 64 KiB, as the speed client's.
fn data() -> cipher_service::ClientData<'static> {
    let bytes = Box::leak(vec![0u8; 1 << 16].into_boxed_slice());
    // SAFETY: leaked, so valid for the rest of the process; only the engine reaches it.
    let region = unsafe { SharedRegion::from_raw(bytes.as_mut_ptr(), bytes.len()) };
    cipher_service::ClientData { region, phys: None }
}

/// Request `k`'s one segment: `size` bytes, each request at its own offset.
fn one_segment(k: usize, size: usize) -> [(u32, u32); 1] {
    [(((k * size) % (1 << 15)) as u32, size as u32)]
}

/// AES-128-CBC encryption of `size` bytes per request on one session.
fn cipher_ns(size: usize) -> f64 {
    let mut q = Queues::<cipher::Request, cipher::Response>::new(
        cipher::REQUEST_QUEUE_BYTES,
        cipher::REQUEST_QUEUE_CAPACITY,
        cipher::RESPONSE_QUEUE_BYTES,
        cipher::RESPONSE_QUEUE_CAPACITY,
    );
    let data = data();
    let mut service =
        cipher_service::Service::new(CpuEngine::default(), cipher_service::Sessions::default());
    let session = cipher_service::Session {
        iv: [1; 16],
        key: [7; 32],
        owner: CALLER,
        mode: cipher::Mode::Cbc,
        path: cipher::Path::Cpu,
        key_len: 16,
        usage: cipher_service::ENCRYPT | cipher_service::DECRYPT,
    };
    let sid = service.open(CALLER, session.open_args()).expect("open");
    // A PD without a trace region records nothing: the serve alone is measured.
    let untraced = pd_trace::Trace::new(None);
    let mut id = 0;
    q.per_request(
        |k| {
            id += 1;
            cipher::Request::over(id, sid, cipher::CipherOp::Encrypt, &one_segment(k, size))
        },
        |rx, out| {
            let (n, _) = service
                .serve_within(CALLER, rx, out, data, BATCH, &mut { UNBOUNDED }, &untraced)
                .expect("sound queues");
            n
        },
        |r| r.status.check() == Ok(Ok(())),
    )
}

/// SHA-256 of `size` bytes per request, one final each on a reused session.
fn digest_ns(size: usize) -> f64 {
    let mut q = Queues::<digest::Request, digest::Response>::new(
        digest::REQUEST_QUEUE_BYTES,
        digest::REQUEST_QUEUE_CAPACITY,
        digest::RESPONSE_QUEUE_BYTES,
        digest::RESPONSE_QUEUE_CAPACITY,
    );
    let data = data();
    let mut service =
        digest_service::Service::new(CpuDigest::default(), digest_service::Sessions::default());
    let args = digest::OpenSessionArgs {
        algorithm: digest::Algorithm::Sha256,
        path: digest::HashPath::Auto,
    };
    let sid = service.open(CALLER, args).expect("open");
    // A PD without a trace region records nothing: the serve alone is measured.
    let untraced = pd_trace::Trace::new(None);
    let mut id = 0;
    q.per_request(
        |k| {
            id += 1;
            // Each final's digest goes to its own place, past the data (the upper 32 KiB).
            let [seg] = one_segment(k, size);
            let out = ((1 << 15) + k * 64) as u32;
            digest::Request::over(id, sid, digest::DigestOp::Final, &[seg, (out, 32)])
        },
        |rx, out| {
            let (n, _) = service
                .serve_within(CALLER, rx, out, data, BATCH, &mut { UNBOUNDED }, &untraced)
                .expect("sound queues");
            n
        },
        |r| r.status.check() == Ok(Ok(())) && r.digest_len == 32,
    )
}

fn main() {
    println!(
        "the CPU driver's serve, one core, ns per request in batches of {BATCH} ({})",
        bench_stats::context()
    );
    println!(
        "{:>7} {:>14} {:>8} {:>14} {:>8}",
        "size", "aes-128-cbc", "spread", "sha256", "spread"
    );
    for size in [16, 1024] {
        let runs = |f: fn(usize) -> f64| {
            let v: Vec<f64> = (0..bench_stats::RUNS).map(|_| f(size)).collect();
            bench_stats::Stats::of(&v)
        };
        let (c, d) = (runs(cipher_ns), runs(digest_ns));
        println!(
            "{size:>7} {:>14.1} {:>8} {:>14.1} {:>8}",
            c.median,
            c.spread_cell(),
            d.median,
            d.spread_cell()
        );
    }
}
