//! A client that floods its Digest driver with requests of random fields (session, op,
//! segment count and segments; ids its own, so every answer is counted once), keeping 32
//! in flight for `GARBAGE_SECONDS` (1 s by default), and prints how many were answered:
//! `garbage: N answered in T ms (R/s)`. It checks nothing of the answers but that each
//! comes back once; the rate is what a driver spends refusing what it cannot serve
//! (issue 32, item 10: the SEC1 driver's rate against the CPU engine's). Exits 0.
//! `GARBAGE_VALID` narrows the garbage, to bisect: `1` valid 64-byte updates, `op` a
//! random op on a valid update, `segs` one random segment on a valid update.
//! `GARBAGE_CALLS=1` floods protected calls instead, one at a time for the same time:
//! random labels (the Digest ops and past them) with random words, a session a garbage
//! `open_session` opened closed again so the table does not fill; it prints
//! `garbage: N calls answered in T ms (R/s): K ok, E refused, M malformed`.
//! A random session id that names another driver incarnation is answered
//! `ServerRestarted`, which the link reports as restarted: counted as answered too (a
//! first version counted only `Answered`, kept 32 "in flight" for ever and slept).
//!
//! Measured (`host-runner -q --bin-dir target/release system/garbage-sec1.system`, and
//! `garbage-cpu.system`; release, two runs each): SEC1 984,690 and 937,023 answers/s,
//! the CPU engine's Digest driver 1,251,843 and 1,210,638. Issue 32's 247-289/s for
//! SEC1 (against 4,965/s a turn before) does not reproduce with queued garbage, nor
//! with calls (see ARCHITECTURE, "Garbage floods", for the call figures).
use std::time::Instant;

use crypto_client::{Completion, Link};
use pd_idl::digest::{self, Algorithm, HashPath, REQUEST_QUEUE_CAPACITY, Request, Response};
use pd_idl::wire::Message;
use pd_runtime::ipc::{self, PpcTransport};
use pd_runtime::{ChannelSet, Handler, debug_println, exit};
use system_tests::client::{DRIVER, link};

const DEPTH: u32 = 32;

/// `GARBAGE_VALID`'s narrowing: only this much of a valid 64-byte update is random.
#[derive(Clone, Copy)]
enum Valid {
    /// Nothing: a valid update.
    All,
    /// Its op.
    Op,
    /// Its one segment.
    Segs,
}

struct Flood {
    link: Link<'static, Request, Response>,
    session: u32,
    /// Read once at init: a look at the environment per request was part of the rate.
    valid: Option<Valid>,
    rng: u64,
    next_id: u32,
    in_flight: u32,
    answered: u64,
    start: Instant,
    seconds: f64,
}

impl Flood {
    fn random(&mut self) -> u64 {
        // xorshift64: garbage, not secrets.
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng
    }

    fn garbage(&mut self) -> Request {
        let r = self.random();
        self.next_id = (self.next_id + 1) & 0xFF_FFFF;
        let mut req = Request::over(self.next_id, 0, digest::DigestOp::Update, &[]);
        if let Some(valid) = self.valid {
            let mut q = Request::over(
                self.next_id,
                self.session,
                digest::DigestOp::Update,
                &[(0, 64)],
            );
            match valid {
                Valid::All => {}
                Valid::Op => q.op = digest::DigestOpRaw((r >> 40) as u8 % 4),
                Valid::Segs => {
                    q.segs[0].offset = (r as u32) % 0x2000;
                    q.segs[0].len = ((r >> 32) as u32) % 0x2000;
                }
            }
            return q;
        }
        // Half the requests name the open session, so some pass the session check and
        // fail later (segments, op), as a fuzzer's would.
        req.session = if r & 1 == 0 {
            self.session
        } else {
            (r >> 8) as u32
        };
        req.op = digest::DigestOpRaw((r >> 40) as u8 % 4);
        req.nsegs = (r >> 48) as u8 % 8;
        for s in req.segs.iter_mut() {
            let x = self.random();
            s.offset = (x as u32) % 0x2000;
            s.len = ((x >> 32) as u32) % 0x2000;
        }
        req
    }

    fn fill(&mut self) {
        while self.in_flight < DEPTH && self.start.elapsed().as_secs_f64() < self.seconds {
            let req = self.garbage();
            if self.link.queue(req).is_err() {
                break;
            }
            self.in_flight += 1;
        }
        // Always told: a flood wants the driver awake, and a first batch may be queued
        // before the driver ever asked.
        let _ = self.link.flush();
        DRIVER.notify();
    }
}

impl Handler for Flood {
    fn notified(&mut self, _: ChannelSet) {
        let mut got = 0;
        let notify = self
            .link
            .poll(|c| match c {
                // A session id of another driver incarnation is answered as restarted.
                Completion::Answered(_) | Completion::Restarted(_) => got += 1,
            })
            .unwrap_or_else(|e| panic!("response queue: {e:?}"));
        if notify {
            DRIVER.notify();
        }
        self.in_flight -= got;
        self.answered += u64::from(got);
        self.fill();
        if self.in_flight == 0 && self.start.elapsed().as_secs_f64() >= self.seconds {
            let ms = self.start.elapsed().as_secs_f64() * 1e3;
            debug_println!(
                "garbage: {} answered in {ms:.0} ms ({:.0}/s)",
                self.answered,
                self.answered as f64 * 1e3 / ms
            );
            exit(0);
        }
    }
}

/// Random protected calls for `seconds`, one at a time; exits with the count.
fn flood_calls(seconds: f64) -> ! {
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    let mut random = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut calls = digest::Client::new(PpcTransport(DRIVER));
    let (start, mut answered) = (Instant::now(), 0u64);
    // Replies by kind: OK, the interface's error, a protocol error.
    let mut kinds = [0u64; 3];
    while start.elapsed().as_secs_f64() < seconds {
        let r = random();
        let mut msg = Message::empty(r % 8);
        msg.words = (r >> 8) as usize % 9;
        for w in &mut msg.mrs[..msg.words] {
            *w = random();
        }
        let reply = DRIVER
            .pp_call(ipc::load(&msg))
            .map(ipc::store)
            .unwrap_or_else(|_| panic!("the driver died under garbage calls"));
        answered += 1;
        kinds[match reply.label {
            0 => 0,
            1..=0xFFFF => 1,
            _ => 2,
        }] += 1;
        if msg.label == 1 && reply.label == 0 && reply.words == 1 {
            // A garbage open_session that opened one.
            let _ = calls.close_session(reply.mrs[0] as u32);
        }
    }
    let ms = start.elapsed().as_secs_f64() * 1e3;
    debug_println!(
        "garbage: {answered} calls answered in {ms:.0} ms ({:.0}/s): {} ok, {} refused, {} malformed",
        answered as f64 * 1e3 / ms,
        kinds[0],
        kinds[1],
        kinds[2]
    );
    exit(0)
}

fn init() -> Flood {
    let seconds = std::env::var("GARBAGE_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0);
    if std::env::var_os("GARBAGE_CALLS").is_some() {
        flood_calls(seconds);
    }
    let mut calls = digest::Client::new(PpcTransport(DRIVER));
    let session = calls
        .open_session(Algorithm::Sha256, HashPath::Auto)
        .expect("a SHA-256 session");
    let valid = std::env::var("GARBAGE_VALID")
        .ok()
        .map(|v| match v.as_str() {
            "op" => Valid::Op,
            "segs" => Valid::Segs,
            _ => Valid::All,
        });
    let mut f = Flood {
        link: link(REQUEST_QUEUE_CAPACITY),
        session,
        valid,
        rng: 0x9E37_79B9_7F4A_7C15,
        next_id: 0,
        in_flight: 0,
        answered: 0,
        start: Instant::now(),
        seconds,
    };
    f.fill();
    debug_println!("garbage: {} queued", f.in_flight);
    f
}

pd_runtime::protection_domain!(init);
