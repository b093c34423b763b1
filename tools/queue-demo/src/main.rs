//! `queue-demo`: a client process sends Cipher request descriptors to a server process
//! over an shm-queue in a shared memfd; the server answers each on a response queue with
//! the byte count its segments add up to; the client checks every answer and prints what
//! crossed. The server sleeps when idle and is woken through the signalling protocol
//! (a futex on the host stands in for a seL4 notification).
//!
//! It is the queues, the IDL's descriptor types and the signalling protocol between two
//! address spaces and nothing else: no PD runtime, no driver (the first thing built, kept
//! as the smallest demonstration of the queues; the PDs use them the same way).

use std::process::ExitCode;
use std::sync::atomic::AtomicU32;
use std::time::Instant;

use clap::Parser;
use pd_idl::cipher::{self, CipherOp, Request, Response, Segment};
use queue_demo::{Shared, two_queues};
use rustix::thread::futex;
use shm_queue::{Consumer, Producer, SharedRegion};
use zerocopy::FromZeros;

#[derive(Parser)]
#[command(
    version,
    about = "Cipher descriptors between two processes over shared-memory queues"
)]
struct Args {
    /// Requests to send.
    #[arg(long, default_value_t = 100_000)]
    requests: u32,
    /// Internal: run as the server on this inherited memfd.
    #[arg(long, hide = true)]
    fd: Option<i32>,
}

const REQ_CAP: u32 = cipher::REQUEST_QUEUE_CAPACITY;
const RESP_CAP: u32 = cipher::RESPONSE_QUEUE_CAPACITY;

/// Layout: request queue, response queue, then two doorbell words (one line each).
fn layout() -> (usize, usize, usize, usize) {
    let (req, resp, end) = two_queues(cipher::REQUEST_QUEUE_BYTES, cipher::RESPONSE_QUEUE_BYTES);
    let server_bell = end.next_multiple_of(64);
    let client_bell = server_bell + 64;
    (req, resp, server_bell, client_bell + 64)
}

fn bell(region: SharedRegion<'_>, offset: usize) -> &AtomicU32 {
    // SAFETY: offset is a line-aligned word inside the region, used only atomically.
    unsafe { &*(region.as_ptr().add(offset) as *const AtomicU32) }
}

fn ring(word: &AtomicU32) {
    word.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    // Both processes map the same memfd, so a shared (not private) futex.
    let _ = futex::wake(word, futex::Flags::empty(), 1);
}

fn sleep_on(word: &AtomicU32, seen: u32) {
    let _ = futex::wait(word, futex::Flags::empty(), seen, None);
}

fn queues(region: SharedRegion<'_>) -> (SharedRegion<'_>, SharedRegion<'_>) {
    let (req, resp, _, _) = layout();
    (
        region
            .slice(req, cipher::REQUEST_QUEUE_BYTES)
            .expect("layout"),
        region
            .slice(resp, cipher::RESPONSE_QUEUE_BYTES)
            .expect("layout"),
    )
}

/// Answers requests until it sees one with id u32::MAX.
fn serve(region: SharedRegion<'_>) -> Result<u64, String> {
    let (reqs, resps) = queues(region);
    let (_, _, server_bell, _) = layout();
    let client_bell = server_bell + 64;
    let mut rx = Consumer::<Request>::attach(reqs, REQ_CAP).map_err(|e| format!("{e:?}"))?;
    let mut tx = Producer::<Response>::attach(resps, RESP_CAP).map_err(|e| format!("{e:?}"))?;
    let (mut served, mut sleeps) = (0u64, 0u64);
    loop {
        let seen = bell(region, server_bell).load(std::sync::atomic::Ordering::SeqCst);
        // Take only as many requests as there is room to answer: backpressure, never a
        // dropped answer.
        let room = tx.free().map_err(|e| e.to_string())? as usize;
        let batch = rx.read_batch().map_err(|e| e.to_string())?;
        let n = batch.len().min(room);
        let mut answers = Vec::with_capacity(n);
        let mut done = false;
        for i in 0..n {
            let req = batch.get(i);
            if req.id == u32::MAX {
                done = true;
                break;
            }
            let nsegs = usize::from(req.nsegs).min(req.segs.len());
            let bytes: u32 = req.segs[..nsegs].iter().map(|s| s.len).sum();
            let status = match (req.op.get(), nsegs == usize::from(req.nsegs)) {
                (Ok(_), true) => cipher::CipherErrorRaw::OK,
                (Ok(_), false) => cipher::CipherError::TooManySegments.into(),
                (Err(_), _) => cipher::CipherError::BadRequest.into(),
            };
            answers.push(Response {
                id: req.id,
                status,
                path: cipher::Path::Cpu.into(),
                reserved: 0,
                bytes_done: bytes,
            });
        }
        batch.release(answers.len() + usize::from(done));
        served += answers.len() as u64;
        let sent = tx.enqueue_many(&answers).map_err(|e| e.to_string())?;
        assert_eq!(sent, answers.len(), "room was reserved");
        if tx.take_signal_request() {
            ring(bell(region, client_bell));
        }
        if done {
            eprintln!("server: answered {served} requests, slept {sleeps} times");
            return Ok(served);
        }
        if n == 0 && rx.arm_signal().map_err(|e| e.to_string())? {
            sleeps += 1;
            sleep_on(bell(region, server_bell), seen);
        }
    }
}

fn run_client(requests: u32) -> Result<(), String> {
    let (_, _, server_bell, len) = layout();
    let client_bell = server_bell + 64;
    let shared = Shared::create("queue-demo", len).map_err(|e| e.to_string())?;
    let region = shared.region;
    let (reqs, resps) = queues(region);
    let mut tx = Producer::<Request>::attach(reqs, REQ_CAP).map_err(|e| format!("{e:?}"))?;
    let mut rx = Consumer::<Response>::attach(resps, RESP_CAP).map_err(|e| format!("{e:?}"))?;
    let mut server = shared.spawn_peer(&[]).map_err(|e| e.to_string())?;
    println!(
        "client: pid {}, server: pid {}, region {} bytes (memfd), {} requests",
        std::process::id(),
        server.id(),
        len,
        requests
    );

    let request = |id: u32| {
        let mut r = Request::new_zeroed();
        r.id = id;
        r.session = 1;
        r.op = if id.is_multiple_of(2) {
            CipherOp::Encrypt
        } else {
            CipherOp::Decrypt
        }
        .into();
        r.nsegs = (id % 8 + 1) as u8;
        for (k, seg) in r.segs[..usize::from(r.nsegs)].iter_mut().enumerate() {
            *seg = Segment {
                offset: (k as u32) * 4096,
                len: 16 * (id % 64 + 1),
            };
        }
        r
    };
    let start = Instant::now();
    let (mut next, mut answered, mut bytes, mut errors) = (0u32, 0u32, 0u64, 0u32);
    let mut first = None;
    let mut out = vec![Response::new_zeroed(); 64];
    while answered < requests {
        let seen = bell(region, client_bell).load(std::sync::atomic::Ordering::SeqCst);
        let batch: Vec<_> = (next..requests.min(next + 32)).map(request).collect();
        let sent = tx.enqueue_many(&batch).map_err(|e| e.to_string())?;
        next += sent as u32;
        if sent > 0 && tx.take_signal_request() {
            ring(bell(region, server_bell));
        }
        let got = rx.dequeue_many(&mut out).map_err(|e| e.to_string())?;
        for resp in &out[..got] {
            if resp.id != answered {
                return Err(format!(
                    "answer {} arrived where {answered} was due",
                    resp.id
                ));
            }
            let want = request(resp.id);
            let want_bytes: u32 = want.segs[..usize::from(want.nsegs)]
                .iter()
                .map(|s| s.len)
                .sum();
            if resp.bytes_done != want_bytes || resp.status.check() != Ok(Ok(())) {
                errors += 1;
            }
            first.get_or_insert((want, *resp));
            bytes += u64::from(resp.bytes_done);
            answered += 1;
        }
        if got == 0 && sent == 0 && rx.arm_signal().map_err(|e| e.to_string())? {
            sleep_on(bell(region, client_bell), seen);
        }
    }
    let mut stop = Request::new_zeroed();
    stop.id = u32::MAX;
    while tx.enqueue(stop).is_err() {
        std::thread::yield_now();
    }
    ring(bell(region, server_bell));
    let elapsed = start.elapsed();
    let status = server.wait().map_err(|e| e.to_string())?;
    if let Some((req, resp)) = first {
        println!(
            "first request: id {} op {:?} {} segments {:?}",
            req.id,
            req.op.get(),
            req.nsegs,
            &req.segs[..usize::from(req.nsegs)]
        );
        println!(
            "first answer:  id {} status {:?} bytes_done {}",
            resp.id,
            resp.status.check(),
            resp.bytes_done
        );
    }
    println!(
        "{answered} requests answered in order, {errors} wrong, {bytes} segment bytes described, \
         {:.0} round trips/s ({:.2} us each, batched up to 32)",
        f64::from(answered) / elapsed.as_secs_f64(),
        elapsed.as_secs_f64() * 1e6 / f64::from(answered)
    );
    if !status.success() {
        return Err(format!("server exited with {status}"));
    }
    if errors > 0 {
        return Err(format!("{errors} answers were wrong"));
    }
    Ok(())
}

fn main() -> ExitCode {
    let args = Args::parse();
    let result = match args.fd {
        Some(fd) => {
            // SAFETY: the client passed us this inherited descriptor; nothing else owns it.
            match unsafe { Shared::inherit(fd, layout().3) } {
                Ok(shared) => serve(shared.region).map(|_| ()),
                Err(e) => Err(e.to_string()),
            }
        }
        None => run_client(args.requests),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("queue-demo: {e}");
            ExitCode::FAILURE
        }
    }
}
