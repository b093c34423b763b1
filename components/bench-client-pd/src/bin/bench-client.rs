#![cfg_attr(target_os = "none", no_std, no_main)]
//! The isolation bench (issue 30): what it costs to put an engine behind a PD boundary,
//! timed from inside a client PD. For AES-128-CBC over 16 B, 1 KiB and 16 KiB it times
//! requests through the CPU engine's Cipher driver PD (channel 0, queues and data by the
//! client conventions) at depth 1 and 32, and the same engine code (`cpu-engine`, a
//! `Job` and its `start`, as the driver runs it) in this PD over the same bytes; then the
//! PPC round trip (`capabilities`, the cheapest call). Each line gives nanoseconds of the
//! clock per request, isolated and in the PD, their difference (what isolation costs a
//! request) and the in-PD share of the isolated throughput:
//!
//! `bench: aes-128-cbc 1024 B depth 32: 5200 ns isolated, 4900 ns in the PD, 300 ns of isolation, 0.94x`
//!
//! then `bench: done` (and the PD exits 0). On seL4 the clock is the generic timer's
//! physical counter (`cntpct_el0`, readable at EL0 in every Microkit config of this
//! board); under QEMU with `-icount shift=0` virtual time advances one nanosecond an
//! instruction, so there the nanoseconds are instructions and a run repeats to the
//! count (`make qemu-bench`). On the host backend it is the host's monotonic clock.
//!
//! The lines go to the console (`console_println!`): on seL4 the serial driver PD's
//! queue, in every Microkit config, written between measurements, never inside one.
//!
//! Unfinished (issue 30): the benchmark kernel's utilisation tracking (the driver's
//! share of the time, as sDDF's benchmark PD reports it), the other engines' drivers,
//! and the PMU cycle counter (under `-icount` the generic timer counts the same virtual
//! time).
use cipher_service::{ClientData, Job, Session, run_polled, validate};
use cpu_engine::CpuEngine;
use crypto_client::pd::{DRIVER, Data, link};
use crypto_client::{CipherLink, Completion};
use pd_idl::cipher::{self, CipherOp, Mode, Path, REQUEST_QUEUE_CAPACITY, Request};
use pd_idl::wire::Caller;
use pd_runtime::ipc::PpcTransport;
use pd_runtime::{ChannelSet, Handler, console_println, exit};
use shared_region::SharedRegion;

const KEY: [u8; 32] = [0x2b; 32];
const SIZES: [u32; 3] = [16, 1024, 16384];
const DEPTHS: [u32; 2] = [1, 32];
/// Bytes each measurement moves, and the fewest requests it makes: enough for the
/// clock's resolution (16 ns on QEMU's counter) to vanish in the mean.
const BYTES: u32 = 256 * 1024;
const MIN_REQUESTS: u32 = 128;
const CALLS: u32 = 512;

#[cfg(target_os = "none")]
mod clock {
    /// The generic timer's physical count (EL0 may read it: `CONFIG_EXPORT_PCNT_USER`
    /// in every Microkit config of qemu_virt_aarch64). The `isb` keeps it from being
    /// read before the work it times.
    pub fn now() -> u64 {
        let t: u64;
        // SAFETY: reads a system register EL0 is allowed; no memory touched.
        unsafe {
            core::arch::asm!("isb", "mrs {}, cntpct_el0", out(reg) t, options(nomem, nostack))
        };
        t
    }

    /// Counts a second.
    pub fn hz() -> u64 {
        let f: u64;
        // SAFETY: as `now`.
        unsafe { core::arch::asm!("mrs {}, cntfrq_el0", out(reg) f, options(nomem, nostack)) };
        f
    }
}

#[cfg(not(target_os = "none"))]
mod clock {
    use std::sync::OnceLock;
    use std::time::Instant;

    static START: OnceLock<Instant> = OnceLock::new();

    pub fn now() -> u64 {
        START.get_or_init(Instant::now).elapsed().as_nanos() as u64
    }

    pub fn hz() -> u64 {
        1_000_000_000
    }
}

/// Nanoseconds per item of `ticks` over `n` items.
fn ns(ticks: u64, n: u32) -> u64 {
    (u128::from(ticks) * 1_000_000_000 / (u128::from(clock::hz()) * u128::from(n.max(1)))) as u64
}

fn requests(size: u32) -> u32 {
    (BYTES / size).max(MIN_REQUESTS)
}

/// The session the driver opens, as this PD's own engine runs it.
fn session() -> Session {
    Session {
        iv: [0; 16],
        key: KEY,
        owner: Caller(0),
        mode: Mode::Cbc,
        path: Path::Adaptive,
        key_len: 16,
        usage: cipher_service::ENCRYPT | cipher_service::DECRYPT,
    }
}

/// Ticks for `n` requests of `size` bytes at the start of `data`, by this PD's engine.
fn in_pd(data: ClientData<'_>, size: u32, n: u32) -> u64 {
    let mut engine = CpuEngine::default();
    let mut s = session();
    let request = Request::over(0, 0, CipherOp::Encrypt, &[(0, size)]);
    let segs = validate(&request, data.len(), Mode::Cbc).expect("a valid request");
    let start = clock::now();
    for _ in 0..n {
        let job = Job::one(s, CipherOp::Encrypt, segs, data);
        let done = run_polled(&mut engine, &job, 1).expect("the CPU engine encrypts");
        s.iv = done.next_iv();
    }
    clock::now() - start
}

struct Bench {
    link: CipherLink<'static>,
    session: u32,
    /// Which (size, depth) runs: `SIZES` by `DEPTHS`, in order.
    at: usize,
    submitted: u32,
    answered: u32,
    start: u64,
    in_pd: [u64; SIZES.len()],
    failed: bool,
}

impl Bench {
    fn now_running(&self) -> (u32, u32) {
        (
            SIZES[self.at / DEPTHS.len()],
            DEPTHS[self.at % DEPTHS.len()],
        )
    }

    /// Keeps `depth` requests in flight while any of the run's are left to send.
    fn fill(&mut self) {
        let (size, depth) = self.now_running();
        let mut queued = false;
        while self.submitted < requests(size) && self.submitted - self.answered < depth {
            let req = Request::over(
                self.submitted,
                self.session,
                CipherOp::Encrypt,
                &[(0, size)],
            );
            if self.link.queue(req).is_err() {
                break;
            }
            self.submitted += 1;
            queued = true;
        }
        if queued && self.link.flush() {
            DRIVER.notify();
        }
    }

    fn begin(&mut self) {
        self.submitted = 0;
        self.answered = 0;
        self.start = clock::now();
        self.fill();
    }

    fn report(&mut self, ticks: u64) {
        let (size, depth) = self.now_running();
        let n = requests(size);
        let isolated = ns(ticks, n);
        let own = ns(self.in_pd[self.at / DEPTHS.len()], n);
        let ratio = own as f64 / isolated.max(1) as f64;
        console_println!(
            "bench: aes-128-cbc {size} B depth {depth}: {isolated} ns isolated, {own} ns in the PD, {} ns of isolation, {ratio:.2}x",
            isolated as i64 - own as i64
        );
    }
}

impl Handler for Bench {
    fn notified(&mut self, _: ChannelSet) {
        let mut answered = 0;
        let mut failed = false;
        let notify = self.link.poll(|c| match c {
            Completion::Answered(r) if r.status.check() == Ok(Ok(())) => answered += 1,
            _ => failed = true,
        });
        match notify {
            Ok(true) => DRIVER.notify(),
            Ok(false) => {}
            Err(e) => {
                console_println!("bench: FAIL: the driver broke the queue: {e:?}");
                exit(1);
            }
        }
        self.failed |= failed;
        self.answered += answered;
        let (size, _) = self.now_running();
        if self.answered < requests(size) {
            self.fill();
            return;
        }
        let ticks = clock::now() - self.start;
        self.report(ticks);
        self.at += 1;
        if self.at < SIZES.len() * DEPTHS.len() {
            self.begin();
            return;
        }
        if self.failed {
            console_println!("bench: FAIL: a request was refused or restarted");
            exit(1);
        }
        console_println!("bench: done");
        exit(0);
    }
}

fn init() -> Bench {
    let data = Data::map().0;
    // SAFETY: the data region, mapped for the life of the PD and shared with the
    // driver, reached only by volatile copies.
    let region = unsafe { SharedRegion::from_raw(data.vaddr, data.size) };
    let data = ClientData { region, phys: None };
    assert!(
        data.len() >= SIZES[SIZES.len() - 1] as usize,
        "the data region holds a request"
    );
    console_println!(
        "bench: clock {} Hz; {BYTES} bytes (at least {MIN_REQUESTS} requests) a measurement",
        clock::hz()
    );
    let mut calls = cipher::Client::new(PpcTransport(DRIVER));
    let start = clock::now();
    for _ in 0..CALLS {
        calls.capabilities().expect("capabilities");
    }
    let call = ns(clock::now() - start, CALLS);
    console_println!("bench: ppc round trip (capabilities): {call} ns");
    let session = calls
        .open_session(Mode::Cbc, Path::Adaptive, 16, KEY, [0; 16])
        .expect("a CBC session");
    let in_pd = SIZES.map(|size| in_pd(data, size, requests(size)));
    let mut bench = Bench {
        link: link(REQUEST_QUEUE_CAPACITY),
        session,
        at: 0,
        submitted: 0,
        answered: 0,
        start: 0,
        in_pd,
        failed: false,
    };
    bench.begin();
    bench
}

pd_runtime::protection_domain!(init);
