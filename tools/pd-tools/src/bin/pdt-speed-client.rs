//! The client PD `speed` boots: times requests of each size through its driver, keeping
//! up to `PDT_DEPTH` requests in flight (1: one at a time, as `openssl speed`
//! through AF_ALG and tcrypt's sync tests do; more: submitted as a batch behind one
//! notification, answers drained in batches), and reads what they cost from the shared
//! ledger.
//!
//! Parameters (host-only, environment): `PDT_KIND` cipher|digest|aead|mac|stream, `PDT_ALG`,
//! `PDT_PATH`, `PDT_SIZES` (comma list), `PDT_SECONDS` per size, `PDT_MIN_OPS`,
//! `PDT_MAX_OPS`, `PDT_DEPTH` (ciphers and digests; a stream keeps one in flight); each
//! also as `PDT_<NAME>_<pd name>` for one client of several (`speed --flood`);
//! stream: `PDT_TOTAL` bytes hashed in one session in updates of each size.
//! `PDT_WINDOWS=EPOCH,PERIOD` (ns of CLOCK_MONOTONIC, optional; ciphers and digests):
//! size i is measured in the window from EPOCH + i x PERIOD for `PDT_SECONDS`, and
//! only answers inside it count, so that several clients of one driver (`speed
//! --clients`) are measured over the same time; `late_ns` says how far past the start
//! of its window a client began.
//! * cipher: one session per size (power is taken at open, outside the timed window);
//!   an op is one request of `size` bytes at offset 0, enciphered in place.
//! * digest: one session per size; an op is a whole digest of `size` bytes: one final
//!   request (the session then starts the next message), no call per message, its
//!   digest written to the region's last [`OUT_LEN`] bytes (a client's own place; the
//!   data at offset 0 may not reach them).
//! * aead: one session per size (key, nonce and tag in the region's last [`TAIL`]
//!   bytes); an op seals one message of `size` bytes in place, no AAD, under the same
//!   nonce every time: a measurement, not a use (a real client must never repeat a
//!   GCM nonce under one key).
//! * mac: one session per size (its key in the region's tail); an op is one message's
//!   tag: one final request (the session then starts the next message), the tag
//!   written in the tail, as a digest.
//! * stream: one session, updates of `size` bytes until `PDT_TOTAL`, then a final; an op
//!   is an update. The ledger is read after each half of the updates so the tool can
//!   check that every update costs the same.
//!
//! Prints per size: `result size=S ops=K host_ns=T pio=a dma=b cpu=c counts=c0,..,c14
//! slices=k1:t1/k2:t2/..`, the slices being the run cut into `bench_stats::RUNS` equal
//! windows of time (k ops in t ns each), so the tool reports a median and a spread
//! from one run's time (a stream run, and a run with no time budget, has one slice);
//! with one request in flight also
//! `lat_p50=`/`lat_p99=`, the idle-to-reply time of a request in ns
//! (stream: first `first counts=...` after the first update, `half counts=...` after half the updates and `updates counts=...` after
//! the last update, before the final), then exits 0.
use std::time::Instant;

use cost_ledger::Counts;
use crypto_client::{Completion, Link, Tagged};
use pd_idl::aead::{self, AeadOp};
use pd_idl::cipher::{self, CipherOp, Path};
use pd_idl::digest::{self, DigestOp};
use pd_idl::mac::{self, MacOp};
use pd_runtime::ipc::PpcTransport;
use pd_runtime::{ChannelSet, Handler, debug_println, exit};
use pd_tools::algs::{AeadAlg, CipherAlg, DataPath, digest_alg, mac_alg};
use pd_tools::pd::{Data, fail, param, param_opt, status_words};
use pd_tools::speed::monotonic_ns;
use system_tests::client::{DRIVER, Meter, link};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Cipher,
    Digest,
    Aead,
    Mac,
    Stream,
    /// Opens a cipher session and then does nothing (the tool measures what an idle
    /// system costs).
    Idle,
}

enum Calls {
    Cipher {
        calls: cipher::Client<PpcTransport>,
        link: Link<'static, cipher::Request, cipher::Response>,
        alg: CipherAlg,
        path: Path,
    },
    Digest {
        calls: digest::Client<PpcTransport>,
        link: Link<'static, digest::Request, digest::Response>,
        alg: digest::Algorithm,
        path: digest::HashPath,
    },
    Aead {
        calls: aead::Client<PpcTransport>,
        link: Link<'static, aead::Request, aead::Response>,
        alg: AeadAlg,
    },
    Mac {
        calls: mac::Client<PpcTransport>,
        link: Link<'static, mac::Request, mac::Response>,
        alg: mac::MacAlgorithm,
    },
}

/// Runs `$e` with `$field` (`link` or `calls`) bound to that field, whatever the
/// interface.
macro_rules! each {
    ($calls:expr, $field:ident => $e:expr) => {
        match $calls {
            Calls::Cipher { $field, .. } => $e,
            Calls::Digest { $field, .. } => $e,
            Calls::Aead { $field, .. } => $e,
            Calls::Mac { $field, .. } => $e,
        }
    };
}

/// Where a final's digest goes: the data region's last bytes (the longest digest's).
const OUT_LEN: usize = 64;
/// The region's last bytes that an Aead or Mac op does not work on: the key at the
/// tail's start, then the nonce, then the output (tag) place of [`OUT_LEN`].
const TAIL: usize = 128;
const KEY: [u8; 32] = [0x5a; 32];
const NONCE_AT: usize = TAIL - 48;
const NONCE_LEN: u8 = 12;
const TAG_LEN: u8 = 16;

struct Run {
    size: usize,
    /// One request in flight: when it was submitted, and each request's idle-to-reply
    /// time (ns) so far.
    sent_at: Option<Instant>,
    latencies: Vec<u64>,
    /// Windowed runs: ns past its window's start this client began.
    late_ns: u64,
    ops: u64,
    start: Instant,
    /// Closed windows of the run: (ops, ns); the open one began at `slice_start`
    /// after `slice_ops` ops.
    slices: Vec<(u64, u128)>,
    slice_start: Instant,
    slice_ops: u64,
    before: Counts,
    half: Option<Counts>,
    /// Stream: the ledger after the first update (which has no buffered block before it).
    first: Option<Counts>,
    /// Stream: the ledger after the last update (before the final).
    updates: Option<Counts>,
    taken: [u64; 5],
    session: u32,
    /// Stream: bytes hashed so far; the final is in flight once `finishing`.
    done: u64,
    finishing: bool,
    /// Requests submitted and not yet answered.
    in_flight: u32,
    /// Cipher requests take turns over `places` buffers of the data region; the next
    /// one's place (counted, not divided: two divisions per request were a tenth of a
    /// 16-byte request's time through the CPU driver).
    places: usize,
    place: usize,
    /// New requests are still being submitted (the budget is not spent).
    submitting: bool,
    /// The driver refused this size on the forced path.
    unsupported: bool,
}

struct Speed {
    kind: Kind,
    calls: Calls,
    meter: Meter,
    sizes: Vec<usize>,
    next: usize,
    seconds: f64,
    min_ops: u64,
    max_ops: u64,
    total: u64,
    run: Option<Run>,
    next_id: u32,
    /// Cipher requests kept in flight.
    depth: u32,
    /// Bytes of the data region.
    data_size: usize,
    /// Bytes of it from offset 0 that requests work on (the rest: an output place, a
    /// key, a nonce).
    room: usize,
    /// `PDT_WINDOWS`: (epoch, period) in ns of CLOCK_MONOTONIC.
    windows: Option<(u64, u64)>,
}

/// Queues `req` (the batch's flushes notify the driver).
fn submit<Req: Tagged, Resp: Tagged>(link: &mut Link<'static, Req, Resp>, req: Req) {
    link.queue(req)
        .unwrap_or_else(|e| fail(format!("submit: {e:?}")))
}

impl Speed {
    /// Starts the next size, or exits after the last.
    fn start_size(&mut self) {
        let Some(&size) = self.sizes.get(self.next) else {
            exit(0)
        };
        let index = self.next as u64;
        self.next += 1;
        let session = match &mut self.calls {
            Calls::Cipher {
                calls, alg, path, ..
            } => {
                let key = [0x5a; 32];
                calls
                    .open_session(alg.mode, *path, alg.key_len as u8, key, [0xa5; 16])
                    .unwrap_or_else(|e| fail(format!("open_session: {e:?}")))
            }
            // One session per size: a stream's updates go to it, and a digest op is one
            // final on it (a whole message; the session then starts the next).
            Calls::Digest {
                calls, alg, path, ..
            } => calls
                .open_session(*alg, *path)
                .unwrap_or_else(|e| fail(format!("open_session: {e:?}"))),
            // The key in the region's tail, copied out at open.
            Calls::Aead { calls, alg, .. } => {
                let key_at = (self.data_size - TAIL) as u32;
                calls
                    .open_session(
                        alg.algorithm,
                        key_at,
                        alg.key_len as u32,
                        NONCE_LEN,
                        TAG_LEN,
                    )
                    .unwrap_or_else(|e| fail(format!("open_session: {e:?}")))
            }
            Calls::Mac { calls, alg, .. } => {
                let key_at = (self.data_size - TAIL) as u32;
                calls
                    .open_session(*alg, key_at, KEY.len() as u32)
                    .unwrap_or_else(|e| fail(format!("open_session: {e:?}")))
            }
        };
        // Windowed: wait for this size's window (outside it the other clients may still
        // be opening their sessions or finishing the last size).
        let late_ns = self.windows.map_or(0, |(epoch, period)| {
            let start = epoch + index * period;
            let now = monotonic_ns();
            if now < start {
                std::thread::sleep(std::time::Duration::from_nanos(start - now));
            }
            now.saturating_sub(start)
        });
        self.run = Some(Run {
            size,
            sent_at: None,
            latencies: Vec::new(),
            late_ns,
            ops: 0,
            start: Instant::now(),
            slices: Vec::new(),
            slice_start: Instant::now(),
            slice_ops: 0,
            before: self.meter.now(),
            half: None,
            first: None,
            updates: None,
            taken: [0; 5],
            session,
            done: 0,
            finishing: false,
            in_flight: 0,
            // Each request in flight on its own bytes when they fit, as a caller with a
            // batch of buffers would; else all on the first (the engine is not
            // data-dependent).
            places: (self.room / size).clamp(1, self.depth() as usize),
            place: 0,
            submitting: true,
            unsupported: false,
        });
        self.fill();
    }

    /// Requests this kind keeps in flight (a stream's updates one at a time: each
    /// waits for the last).
    fn depth(&self) -> u32 {
        if self.kind == Kind::Stream {
            1
        } else {
            self.depth
        }
    }

    /// Submits ops until `depth` are in flight or the budget is spent, as one batch
    /// behind at most one notification: the driver is asked about after the first (a
    /// waiting driver starts on it while the rest are written) and after the last.
    fn fill(&mut self) {
        let mut queued = 0;
        while let Some(r) = &self.run {
            let submitted = r.ops + u64::from(r.in_flight);
            if !r.submitting || r.in_flight >= self.depth() || submitted >= self.max_ops {
                break;
            }
            self.op();
            queued += 1;
            if queued == 1 {
                self.flush();
            }
        }
        if queued > 1 {
            self.flush();
        }
    }

    /// Notifies the driver if it asked.
    fn flush(&mut self) {
        let asked = each!(&mut self.calls, link => link.flush());
        if asked {
            DRIVER.notify();
        }
    }

    /// Queues one op of the current size.
    fn op(&mut self) {
        let depth = self.depth();
        let r = self.run.as_mut().expect("a size is running");
        self.next_id += 1;
        let id = self.next_id;
        r.in_flight += 1;
        if depth == 1 {
            r.sent_at = Some(Instant::now());
        }
        // Each request in flight on its own bytes where they fit.
        let at = (r.place * r.size) as u32;
        r.place += 1;
        if r.place == r.places {
            r.place = 0;
        }
        let out = ((self.data_size - OUT_LEN) as u32, OUT_LEN as u32);
        match &mut self.calls {
            Calls::Cipher { link, .. } => {
                let req =
                    cipher::Request::over(id, r.session, CipherOp::Encrypt, &[(at, r.size as u32)]);
                submit(link, req)
            }
            Calls::Aead { link, .. } => {
                let nonce = ((self.data_size - NONCE_AT) as u32, u32::from(NONCE_LEN));
                let tag = (out.0, u32::from(TAG_LEN));
                let payload = [(at, r.size as u32)];
                let req = aead::Request::message(
                    id,
                    r.session,
                    AeadOp::Encrypt,
                    nonce,
                    &[],
                    &payload,
                    tag,
                );
                submit(link, req)
            }
            Calls::Mac { link, .. } => {
                let req =
                    mac::Request::over(id, r.session, MacOp::Final, &[(at, r.size as u32), out]);
                submit(link, req)
            }
            Calls::Digest { link, .. } => {
                let (op, len) = if self.kind == Kind::Stream {
                    let left = self.total - r.done;
                    if left == 0 {
                        r.finishing = true;
                        r.submitting = false;
                        (DigestOp::Final, 0)
                    } else {
                        (DigestOp::Update, left.min(r.size as u64) as usize)
                    }
                } else {
                    (DigestOp::Final, r.size)
                };
                let all = [(0, len as u32), out];
                let segs: &[_] = match (op, len > 0) {
                    (DigestOp::Update, _) => &all[..1],
                    (DigestOp::Final, true) => &all,
                    (DigestOp::Final, false) => &all[1..],
                };
                let req = digest::Request::over(id, r.session, op, segs);
                submit(link, req)
            }
        }
    }

    /// Counts one answer of the current size, drained `secs` into the size's run (read
    /// once per drained batch: a clock read per answer cost a tenth of a 16-byte
    /// request).
    fn answered(&mut self, ok: Result<(), String>, taken: Option<Path>, secs: f64) {
        let r = self.run.as_mut().expect("a size is running");
        r.in_flight -= 1;
        if let Some(t) = r.sent_at.take() {
            r.latencies.push(t.elapsed().as_nanos() as u64);
        }
        if r.unsupported {
            return;
        }
        if let Err(e) = ok {
            // A forced path that cannot take this size (STM32 DMA takes more than one
            // block) is a fact to report, not a failure of the run.
            if e.contains("UnsupportedPath") && r.ops == 0 {
                r.unsupported = true;
                r.submitting = false;
                return;
            }
            fail(e);
        }
        if let Some(p) = taken {
            r.taken[p as usize] += 1;
        }
        match self.kind {
            Kind::Stream => {
                if !r.finishing || r.in_flight > 0 {
                    r.ops += 1;
                    r.done += (r.size as u64).min(self.total - r.done);
                    if r.first.is_none() {
                        r.first = Some(self.meter.now());
                    }
                    if r.half.is_none() && r.done * 2 >= self.total {
                        r.half = Some(self.meter.now());
                    }
                    if r.done == self.total {
                        r.updates = Some(self.meter.now());
                    }
                }
            }
            _ => {
                if self.windows.is_some() && secs >= self.seconds {
                    // Past the shared window: not counted, and no more submitted.
                    r.submitting = false;
                    return;
                }
                r.ops += 1;
                let window = self.seconds / bench_stats::RUNS as f64;
                // The last slice takes whatever is left. A zero budget (a modelled run
                // counted in ops) has no windows, so it is one slice: with windows of
                // zero, every answer of the first drained batch closed a slice of one op
                // in a few ns, and their median was reported as the host's time.
                if window > 0.0
                    && r.slices.len() + 1 < bench_stats::RUNS
                    && secs >= window * (r.slices.len() + 1) as f64
                {
                    r.slices
                        .push((r.ops - r.slice_ops, r.slice_start.elapsed().as_nanos()));
                    r.slice_start = Instant::now();
                    r.slice_ops = r.ops;
                }
                let submitted = r.ops + u64::from(r.in_flight);
                if !(submitted < self.max_ops && (secs < self.seconds || submitted < self.min_ops))
                {
                    r.submitting = false;
                }
            }
        }
    }

    /// After a batch of answers: more ops, or the size's report once all are back.
    fn settle(&mut self) {
        let Some(r) = &self.run else { return };
        if r.submitting || r.in_flight > 0 {
            return self.fill();
        }
        if r.unsupported {
            debug_println!("unsupported size={}", r.size);
            let session = r.session;
            if let Calls::Cipher { calls, .. } = &mut self.calls
                && let Err(e) = calls.close_session(session)
            {
                fail(format!("close_session: {e:?}"));
            }
            return self.start_size();
        }
        self.finish_size();
    }

    fn finish_size(&mut self) {
        let r = self.run.as_mut().expect("a size is running");
        let host_ns = match self.windows {
            // The window, not the drain after it.
            Some(_) => (self.seconds * 1e9) as u128,
            None => r.start.elapsed().as_nanos(),
        };
        if r.ops > r.slice_ops {
            r.slices
                .push((r.ops - r.slice_ops, r.slice_start.elapsed().as_nanos()));
        }
        let slices: Vec<String> = r.slices.iter().map(|(k, t)| format!("{k}:{t}")).collect();
        // Idle-to-reply percentiles, one request in flight (none deeper: there a
        // request's time includes its wait behind the others).
        r.latencies.sort_unstable();
        let pct = |p: usize| {
            let n = r.latencies.len();
            (n > 0).then(|| r.latencies[(n * p / 100).min(n - 1)])
        };
        let latency = match (pct(50), pct(99)) {
            (Some(p50), Some(p99)) => format!(" lat_p50={p50} lat_p99={p99}"),
            _ => String::new(),
        };
        // An answer the link dropped as stray is a request answered twice, or an id
        // never sent: the run's count would be wrong, and the driver broken.
        let stats = each!(&self.calls, link => link.stats());
        if stats.stray > 0 || stats.restarts > 0 {
            fail(format!(
                "size {}: {} stray answer(s), {} driver restart(s)",
                r.size, stats.stray, stats.restarts
            ));
        }
        let after = self.meter.now();
        let counts = |c: &Counts| c.0.map(|v| v.to_string()).join(",");
        if let (Some(f), Some(h), Some(u)) = (r.first, r.half, r.updates) {
            debug_println!("first counts={}", counts(&f.since(&r.before)));
            debug_println!("half counts={}", counts(&h.since(&r.before)));
            debug_println!("updates counts={}", counts(&u.since(&r.before)));
        }
        debug_println!(
            "result size={} ops={} host_ns={host_ns} late_ns={} pio={} dma={} cpu={} counts={} slices={}{latency}",
            r.size,
            r.ops,
            r.late_ns,
            r.taken[Path::Pio as usize],
            r.taken[Path::Dma as usize],
            r.taken[Path::Cpu as usize],
            counts(&after.since(&r.before)),
            slices.join("/")
        );
        let session = r.session;
        let closed = each!(&mut self.calls, calls => {
            calls.close_session(session).map_err(|e| format!("{e:?}"))
        });
        if let Err(e) = closed {
            fail(format!("close_session: {e}"));
        }
        self.start_size();
    }
}

impl Handler for Speed {
    fn notified(&mut self, _: ChannelSet) {
        if self.kind == Kind::Idle {
            return;
        }
        let mut got: Vec<(Result<(), String>, Option<Path>)> = Vec::new();
        let notify = match &mut self.calls {
            Calls::Cipher { link, .. } => link.poll(|c| match c {
                Completion::Answered(r) => {
                    got.push((status_words(r.status.check()), r.path.get().ok()))
                }
                Completion::Restarted(id) => fail(format!("driver restarted (request {id})")),
            }),
            Calls::Digest { link, .. } => link.poll(|c| match c {
                Completion::Answered(r) => got.push((status_words(r.status.check()), None)),
                Completion::Restarted(id) => fail(format!("driver restarted (request {id})")),
            }),
            Calls::Aead { link, .. } => link.poll(|c| match c {
                Completion::Answered(r) => got.push((status_words(r.status.check()), None)),
                Completion::Restarted(id) => fail(format!("driver restarted (request {id})")),
            }),
            Calls::Mac { link, .. } => link.poll(|c| match c {
                Completion::Answered(r) => got.push((status_words(r.status.check()), None)),
                Completion::Restarted(id) => fail(format!("driver restarted (request {id})")),
            }),
        }
        .unwrap_or_else(|e| fail(format!("response queue: {e:?}")));
        if notify {
            DRIVER.notify();
        }
        let secs = self
            .run
            .as_ref()
            .map_or(0.0, |r| r.start.elapsed().as_secs_f64());
        for (ok, taken) in got {
            self.answered(ok, taken, secs);
        }
        self.settle();
    }
}

fn init() -> Speed {
    let kind = match param("KIND").as_str() {
        "cipher" => Kind::Cipher,
        "digest" => Kind::Digest,
        "aead" => Kind::Aead,
        "mac" => Kind::Mac,
        "stream" => Kind::Stream,
        "idle" => Kind::Idle,
        k => fail(format!("PDT_KIND {k:?}")),
    };
    let path = DataPath::parse(&param("PATH")).unwrap_or_else(|| fail("PDT_PATH"));
    let calls = match kind {
        Kind::Cipher | Kind::Idle => Calls::Cipher {
            calls: cipher::Client::new(PpcTransport(DRIVER)),
            link: link(cipher::REQUEST_QUEUE_CAPACITY),
            alg: CipherAlg::parse(&param("ALG")).unwrap_or_else(|e| fail(e)),
            path: path.cipher().unwrap_or_else(|| fail("not a cipher path")),
        },
        Kind::Digest | Kind::Stream => Calls::Digest {
            calls: digest::Client::new(PpcTransport(DRIVER)),
            link: link(digest::REQUEST_QUEUE_CAPACITY),
            alg: digest_alg(&param("ALG")).unwrap_or_else(|e| fail(e)),
            path: path.hash().unwrap_or_else(|| fail("not a hash path")),
        },
        Kind::Aead => Calls::Aead {
            calls: aead::Client::new(PpcTransport(DRIVER)),
            link: link(aead::REQUEST_QUEUE_CAPACITY),
            alg: AeadAlg::parse(&param("ALG")).unwrap_or_else(|e| fail(e)),
        },
        Kind::Mac => Calls::Mac {
            calls: mac::Client::new(PpcTransport(DRIVER)),
            link: link(mac::REQUEST_QUEUE_CAPACITY),
            alg: mac_alg(&param("ALG")).unwrap_or_else(|e| fail(e)),
        },
    };
    let num = |name: &str| -> f64 {
        param(name)
            .parse()
            .unwrap_or_else(|_| fail(format!("PDT_{name} is not a number")))
    };
    let sizes: Vec<usize> = param("SIZES")
        .split(',')
        .map(|s| s.parse().unwrap_or_else(|_| fail(format!("size {s:?}"))))
        .collect();
    // Data to work on: anything but zeros (engines are not data-dependent, but a
    // reader of a dump should not wonder).
    let data = Data::map();
    let fill: Vec<u8> = (0..data.size()).map(|i| (i * 131 % 251) as u8).collect();
    data.write(0, &fill);
    // A digest's place is past the data.
    let room = match kind {
        Kind::Digest | Kind::Stream => data.size() - OUT_LEN,
        Kind::Aead | Kind::Mac => data.size() - TAIL,
        Kind::Cipher | Kind::Idle => data.size(),
    };
    data.write(data.size() - TAIL, &KEY);
    if let Some(&big) = sizes.iter().find(|&&s| s > room) {
        fail(format!(
            "size {big} is larger than the data region ({room})"
        ));
    }
    let mut s = Speed {
        kind,
        calls,
        meter: Meter::map(),
        sizes,
        next: 0,
        seconds: num("SECONDS"),
        min_ops: num("MIN_OPS") as u64,
        max_ops: num("MAX_OPS") as u64,
        total: std::env::var("PDT_TOTAL")
            .ok()
            .and_then(|t| t.parse().ok())
            .unwrap_or(0),
        run: None,
        next_id: 0,
        depth: param_opt("DEPTH")
            .and_then(|d| d.parse().ok())
            .unwrap_or(1u32)
            .clamp(1, cipher::REQUEST_QUEUE_CAPACITY),
        data_size: data.size(),
        room,
        windows: std::env::var("PDT_WINDOWS").ok().map(|w| {
            let mut it = w.split(',').map(|v| {
                v.parse::<u64>()
                    .unwrap_or_else(|_| fail(format!("PDT_WINDOWS {w:?}")))
            });
            match (it.next(), it.next()) {
                (Some(epoch), Some(period)) => (epoch, period),
                _ => fail(format!("PDT_WINDOWS {w:?}: EPOCH,PERIOD")),
            }
        }),
    };
    if kind == Kind::Idle {
        // A session open (the engine powered, as between a user's requests), nothing
        // asked.
        if let Calls::Cipher {
            calls, alg, path, ..
        } = &mut s.calls
        {
            calls
                .open_session(alg.mode, *path, alg.key_len as u8, [0x5a; 32], [0; 16])
                .unwrap_or_else(|e| fail(format!("open_session: {e:?}")));
        }
        debug_println!("idle ready");
        return s;
    }
    s.start_size();
    s
}

pd_runtime::protection_domain!(init);
