#![cfg_attr(target_os = "none", no_std, no_main)]
//! The isolation bench (issue 30): what it costs to put an engine behind a PD boundary,
//! measured from inside a client PD. For AES-128-CBC over 16 B, 1 KiB and 16 KiB it runs
//! requests through the CPU engine's Cipher driver PD (channel 0, queues and data by the
//! client conventions; the driver is this PD's child 1, so that the kernel's
//! utilisation of its thread is ours to read) at depth 1 and 32, and the same engine
//! code (`cpu-engine`, a `Job` and its `start`, as the driver runs it) in this PD over
//! the same bytes; then the PPC round trip (`capabilities`, the cheapest call). Each
//! line gives the cost per request isolated and in the PD, their difference (what
//! isolation costs a request) and the in-PD share of the isolated throughput:
//!
//! `bench: aes-128-cbc 1024 B depth 32: 5200 cycles isolated, 4900 in the PD, 300 of isolation, 0.94x; instructions 5200 isolated, 4900 in the PD; driver 12.5% of the core (kernel 8.0%)`
//!
//! then `bench: done` (and the PD exits 0). What is counted depends on the kernel:
//! * Microkit's `benchmark` config exports the PMU to EL0: cycles are the PMU's cycle
//!   counter and instructions its instructions-retired counter, at every exception
//!   level (`pd_runtime::bench`), and the driver's share of the core is the kernel's
//!   utilisation tracking (its thread's cycles over the core's, as sDDF's benchmark PD
//!   reports them);
//! * elsewhere (`debug`, `release`, the host) the unit is nanoseconds of the generic
//!   timer (`cntpct_el0`) or the host's monotonic clock, and the rest is absent.
//!
//! Under QEMU with `-icount shift=0` (`make qemu-bench`) virtual time advances a
//! nanosecond an instruction and the PMU's cycle counter a cycle a nanosecond, so every
//! figure is an instruction count and a run repeats to the count.
//!
//! The lines go to the console (`console_println!`): on seL4 the serial driver PD's
//! queue, in every Microkit config, written between measurements, never inside one.
//!
//! Unfinished (issue 30): the other engines' drivers.
use core::fmt;

use cipher_service::{ClientData, Job, Session, run_polled, validate};
use cpu_engine::CpuEngine;
use crypto_client::pd::{DRIVER, Data, link};
use crypto_client::{CipherLink, Completion};
use pd_idl::cipher::{self, CipherOp, Mode, Path, REQUEST_QUEUE_CAPACITY, Request};
use pd_idl::wire::Caller;
use pd_runtime::bench::{self, Thread};
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

/// The driver's child id in the bench system (the parent reads its utilisation).
const DRIVER_CHILD: u8 = 1;

/// A reading: the PMU's counts where the kernel exports them, else the clock's ticks.
#[derive(Clone, Copy)]
enum Reading {
    Pmu(bench::Counts),
    Clock(u64),
}

impl Reading {
    fn now() -> Reading {
        bench::pmu_read().map_or_else(|| Reading::Clock(clock::now()), Reading::Pmu)
    }

    /// From `start` to `self` (both taken the same way: the PMU is there or not for
    /// the PD's life).
    fn since(self, start: Reading) -> Reading {
        match (self, start) {
            (Reading::Pmu(now), Reading::Pmu(then)) => Reading::Pmu(now.since(then)),
            (Reading::Clock(now), Reading::Clock(then)) => Reading::Clock(now - then),
            _ => unreachable!("one PD reads one way"),
        }
    }

    /// Time per item over `n` items, in [`unit`](Self::unit)s.
    fn time_per(self, n: u32) -> u64 {
        let n = u64::from(n.max(1));
        match self {
            Reading::Pmu(c) => c.cycles / n,
            Reading::Clock(ticks) => {
                (u128::from(ticks) * 1_000_000_000 / (u128::from(clock::hz()) * u128::from(n)))
                    as u64
            }
        }
    }

    /// Instructions retired per item over `n` items, where the PMU counted them.
    fn instructions_per(self, n: u32) -> Option<u64> {
        match self {
            Reading::Pmu(c) => Some(c.instructions / u64::from(n.max(1))),
            Reading::Clock(_) => None,
        }
    }

    fn unit(self) -> &'static str {
        match self {
            Reading::Pmu(_) => "cycles",
            Reading::Clock(_) => "ns",
        }
    }
}

/// A report line's `; instructions ...` part, where the PMU counted them.
struct Instructions(Option<(u64, u64)>);

impl fmt::Display for Instructions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some((isolated, own)) => {
                write!(f, "; instructions {isolated} isolated, {own} in the PD")
            }
            None => Ok(()),
        }
    }
}

/// A report line's `; driver ...` part, where the kernel tracks utilisation.
struct DriverShare(Option<bench::Utilisation>);

impl fmt::Display for DriverShare {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(d) = self.0 else {
            return Ok(());
        };
        let share = |v: u64| 100.0 * v as f64 / d.total.max(1) as f64;
        write!(
            f,
            "; driver {:.1}% of the core (kernel {:.1}%)",
            share(d.thread),
            share(d.thread_kernel)
        )
    }
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

/// `n` requests of `size` bytes at the start of `data`, by this PD's engine.
fn in_pd(data: ClientData<'_>, size: u32, n: u32) -> Reading {
    let mut engine = CpuEngine::default();
    let mut s = session();
    let request = Request::over(0, 0, CipherOp::Encrypt, &[(0, size)]);
    let segs = validate(&request, data.len(), Mode::Cbc).expect("a valid request");
    let start = Reading::now();
    for _ in 0..n {
        let job = Job::one(s, CipherOp::Encrypt, segs, data);
        let done = run_polled(&mut engine, &job, 1).expect("the CPU engine encrypts");
        s.iv = done.next_iv();
    }
    Reading::now().since(start)
}

struct Bench {
    link: CipherLink<'static>,
    session: u32,
    /// Which (size, depth) runs: `SIZES` by `DEPTHS`, in order.
    at: usize,
    submitted: u32,
    answered: u32,
    start: Reading,
    in_pd: [Reading; SIZES.len()],
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
        bench::start_period(&[Thread::Own, Thread::Child(DRIVER_CHILD)]);
        self.start = Reading::now();
        self.fill();
    }

    fn report(&mut self, took: Reading) {
        let (size, depth) = self.now_running();
        let n = requests(size);
        let own = self.in_pd[self.at / DEPTHS.len()];
        let (isolated, alone) = (took.time_per(n), own.time_per(n));
        let ratio = alone as f64 / isolated.max(1) as f64;
        let instructions = took.instructions_per(n).zip(own.instructions_per(n));
        console_println!(
            "bench: aes-128-cbc {size} B depth {depth}: {isolated} {} isolated, {alone} in the PD, {} of isolation, {ratio:.2}x{}{}",
            took.unit(),
            isolated as i64 - alone as i64,
            Instructions(instructions),
            DriverShare(bench::utilisation(Thread::Child(DRIVER_CHILD)))
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
        let took = Reading::now().since(self.start);
        bench::end_period();
        self.report(took);
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
    let pmu = bench::pmu_start();
    console_println!(
        "bench: counting {} ({}); {BYTES} bytes (at least {MIN_REQUESTS} requests) a measurement",
        Reading::now().unit(),
        if pmu {
            "the PMU, at every exception level"
        } else {
            "the clock"
        }
    );
    let mut calls = cipher::Client::new(PpcTransport(DRIVER));
    let start = Reading::now();
    for _ in 0..CALLS {
        calls.capabilities().expect("capabilities");
    }
    let call = Reading::now().since(start);
    let (time, unit) = (call.time_per(CALLS), call.unit());
    match call.instructions_per(CALLS) {
        Some(i) => console_println!(
            "bench: ppc round trip (capabilities): {time} {unit}, {i} instructions"
        ),
        None => console_println!("bench: ppc round trip (capabilities): {time} {unit}"),
    }
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
        start: Reading::now(),
        in_pd,
        failed: false,
    };
    bench.begin();
    bench
}

pd_runtime::protection_domain!(init);
