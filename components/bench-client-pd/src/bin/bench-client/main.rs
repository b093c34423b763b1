#![cfg_attr(target_os = "none", no_std, no_main)]
//! The isolation bench (issue 30): what it costs to put an engine behind a PD boundary,
//! measured from inside a client PD. For each driver PD the system gives it (each this
//! PD's child, so that the kernel's utilisation of its thread is ours to read), over
//! 16 B, 1 KiB and 16 KiB, it runs requests through the driver at depth 1 and 32
//! (AES-128-CBC encryption for a Cipher driver, a SHA-256 final for a Digest one,
//! `queues`), and the same engine code in this PD over the same bytes, a job at a time
//! through the engine's `start` and, for a device, its interrupt, as the driver runs it
//! (`own`):
//! * `cpu-engine`: the CPU engine's Cipher driver (channel 0, child 1; queues and data
//!   by the client conventions), and `cpu-engine` here;
//! * `virtio-crypto` (where the system maps `virtio_queues`: seL4 under QEMU): the
//!   virtio-crypto driver (channel 1, child 2) over the first virtio-crypto device, and
//!   `virtio-crypto-driver` here over the second (`mmio`, `dma`, its interrupt on
//!   channel 21). The device's own work is QEMU's, outside the guest's instructions;
//! * `omap-aes`, `stm32-cryp` (where the system maps `omap_queues`, `stm32_queues`: one
//!   board an image, on seL4): the board stand-in's driver PD (channels 2, 3; children
//!   3, 4) over its device PD, and the same `pio-dma-driver` code here over a second
//!   device PD (the `device` channel, whose notifications are its interrupts; the
//!   `scratch` and `ledger` regions), powered by a power manager of its own (channel
//!   10), self-tested and calibrated as the driver PD's init does. Every register
//!   access, the driver's and this PD's alike, is a call to the model's PD;
//! * `sec1` (where the system maps `sec1_queues`): the talitos SEC1's Digest driver PD
//!   (channel 4, child 5) and `sec1-hash-driver` here, as the boards' above.
//!
//! Then, with the CPU driver, the PPC round trip (`capabilities`, the cheapest call). Each
//! line gives the cost per request isolated and in the PD, their difference (what
//! isolation costs a request) and the in-PD share of the isolated throughput:
//!
//! `bench: cpu-engine aes-128-cbc 1024 B depth 32: 5200 cycles isolated, 4900 in the PD, 300 of isolation, 0.94x; instructions 5200 isolated, 4900 in the PD; driver 12.5% of the core (kernel 8.0%)`
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
//! The in-PD engine is this binary's own build of the same source: whole-program
//! optimisation for size lays hot code out per binary, and here the soft AES rounds
//! came out an instruction or two longer than in the CPU driver's image (`sub_bytes`,
//! `aes128_encrypt`), ~20 instructions a block: at 16 KiB the in-PD figure is ~0.4%
//! above the isolated one, so isolation reads negative. At 16 B it is the per-request
//! path that counts.
//!
//! The lines go to the console (`console_println!`): on seL4 the serial driver PD's
//! queue, in every Microkit config, written between measurements, never inside one.
mod own;
mod queues;

use core::fmt;

use board::{am335x, stm32mp1};
use cipher_service::ClientData;
use cost_ledger::CostTable;
use cpu_engine::CpuEngine;
use crypto_client::pd::{Data, link, link_over};
use driver_pd::PowerHold;
use omap_aes_driver::{AM335X, Engine};
use pd_idl::cipher::{self, Mode, Path};
use pd_idl::digest::{self, Algorithm, HashPath};
use pd_idl::power;
use pd_runtime::bench::{self, Thread};
use pd_runtime::ipc::PpcTransport;
use pd_runtime::{
    Channel, ChannelSet, Handler, MemoryRegion, console_println, exit, maybe_memory_region,
};
use pio_dma_driver::PioDmaEngine;
use sec1_hash_driver::Sec1Hash;
use sec1_hash_pd::Mem;
use shared_region::SharedRegion;
use soc_access::{Am335x, Common, Mpc885, Stm32mp1};
use stm32_cryp_driver::STM32MP1;
use virtio_crypto_driver::{DmaArea, VirtioCrypto};

use own::{CipherOwn, Own, PioDma};
use queues::Queues;

const KEY: [u8; 32] = [0x2b; 32];
const SIZES: [u32; 3] = [16, 1024, 16384];
const DEPTHS: [u32; 2] = [1, 32];
/// Bytes each measurement moves, and the fewest requests it makes: enough for the
/// clock's resolution (16 ns on QEMU's counter) to vanish in the mean.
const BYTES: u32 = 256 * 1024;
const MIN_REQUESTS: u32 = 128;
const CALLS: u32 = 512;
/// The interrupt of this PD's own virtio-crypto device.
const VIRTIO_IRQ: Channel = Channel::new(21);

/// The Cipher drivers' algorithm, as the report names it.
const CBC: &str = "aes-128-cbc";

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

/// A driver the bench measures: its PD (channel, child id, queues), what it is asked
/// to do, and its engine here.
struct Target {
    name: &'static str,
    /// The algorithm, as the report names it.
    alg: &'static str,
    driver: Channel,
    child: u8,
    queues: Queues,
    session: u32,
    own: Own,
    /// Where the own engine's interrupts arrive.
    own_irq: Channel,
    /// Each size's in-PD measurement, as it is taken.
    in_pd: [Option<Reading>; SIZES.len()],
}

/// Where the bench is: a target's in-PD run of a size, or its run through the driver
/// of a size at a depth.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Run {
    InPd { size: usize },
    Isolated { size: usize, depth: usize },
}

impl Run {
    const FIRST: Run = Run::InPd { size: 0 };

    /// The run after this one of a target; None after its last.
    fn next(self) -> Option<Run> {
        match self {
            Run::InPd { size } if size + 1 < SIZES.len() => Some(Run::InPd { size: size + 1 }),
            Run::InPd { .. } => Some(Run::Isolated { size: 0, depth: 0 }),
            Run::Isolated { size, depth } if depth + 1 < DEPTHS.len() => Some(Run::Isolated {
                size,
                depth: depth + 1,
            }),
            Run::Isolated { size, .. } if size + 1 < SIZES.len() => Some(Run::Isolated {
                size: size + 1,
                depth: 0,
            }),
            Run::Isolated { .. } => None,
        }
    }

    fn size(self) -> u32 {
        match self {
            Run::InPd { size } | Run::Isolated { size, .. } => SIZES[size],
        }
    }
}

struct Bench {
    targets: [Option<Target>; 5],
    data: ClientData<'static>,
    /// The target running and its run.
    at: usize,
    run: Run,
    /// Requests sent (through a driver) or started (in the PD), and answered.
    submitted: u32,
    answered: u32,
    start: Reading,
    failed: bool,
}

impl Bench {
    fn target(&mut self) -> &mut Target {
        self.targets[self.at]
            .as_mut()
            .expect("runs only a present target")
    }

    /// Starts the current run; runs that finish at once (the CPU engine in the PD) are
    /// reported and the next begun, until one waits for a notification or all are done.
    fn begin(&mut self) {
        loop {
            self.submitted = 0;
            self.answered = 0;
            if let Run::Isolated { .. } = self.run {
                let child = self.target().child;
                bench::start_period(&[Thread::Own, Thread::Child(child)]);
            }
            self.start = Reading::now();
            let waits = match self.run {
                Run::InPd { size } => {
                    let data = self.data;
                    self.target().own.begin(data, SIZES[size]);
                    self.own_next()
                }
                Run::Isolated { .. } => {
                    self.fill();
                    true
                }
            };
            if waits {
                return;
            }
            self.end_run();
        }
    }

    /// The run is over: reported, and the next one chosen; after the last, the verdict
    /// and the PD's exit.
    fn end_run(&mut self) {
        let took = Reading::now().since(self.start);
        match self.run {
            Run::InPd { size } => self.target().in_pd[size] = Some(took),
            Run::Isolated { .. } => {
                bench::end_period();
                self.report(took);
            }
        }
        if let Some(next) = self.run.next() {
            self.run = next;
            return;
        }
        self.run = Run::FIRST;
        self.at += 1;
        while self.at < self.targets.len() {
            if self.targets[self.at].is_some() {
                return;
            }
            self.at += 1;
        }
        if self.failed {
            console_println!("bench: FAIL: a request was refused, restarted or failed");
            exit(1);
        }
        console_println!("bench: done");
        exit(0);
    }

    /// The own engine's requests, started one after another while each finishes at
    /// once; true if one waits for the engine's interrupt, false when all are done.
    fn own_next(&mut self) -> bool {
        let n = requests(self.run.size());
        let Some(t) = self.targets[self.at].as_mut() else {
            return false;
        };
        while self.submitted < n {
            self.submitted += 1;
            match t.own.start(self.data) {
                None => return true,
                Some(ok) => {
                    self.failed |= !ok;
                    self.answered += 1;
                }
            }
        }
        false
    }

    /// Keeps `depth` requests in flight while any of the run's are left to send. Each
    /// request has bytes of its own, the next `size` of the data region round and round,
    /// as a client's stream has: a driver may join queued requests into one job (the
    /// PIO/DMA engines do), which it must not where they overlap. (The in-PD runs use
    /// the region's start: an engine's work does not depend on where its bytes lie.) A
    /// final's digest goes to the region's last line.
    fn fill(&mut self) {
        let Run::Isolated { size, depth } = self.run else {
            return;
        };
        let (size, depth) = (SIZES[size], DEPTHS[depth]);
        let (submitted, answered) = (self.submitted, self.answered);
        let places = own::data_places(self.data.len(), size);
        let out = own::output_place(self.data.len());
        let t = self.target();
        let mut sent = 0;
        while submitted + sent < requests(size) && submitted + sent - answered < depth {
            let k = submitted + sent;
            if !t.queues.queue(k, t.session, (k % places * size, size), out) {
                break;
            }
            sent += 1;
        }
        if sent > 0 && t.queues.flush() {
            t.driver.notify();
        }
        self.submitted += sent;
    }

    fn report(&mut self, took: Reading) {
        let Run::Isolated { size: i, depth } = self.run else {
            return;
        };
        let (size, depth) = (SIZES[i], DEPTHS[depth]);
        let n = requests(size);
        let t = self.target();
        let (name, alg, child) = (t.name, t.alg, t.child);
        let own = t.in_pd[i].expect("in-PD runs come first");
        let (isolated, alone) = (took.time_per(n), own.time_per(n));
        let ratio = alone as f64 / isolated.max(1) as f64;
        let instructions = took.instructions_per(n).zip(own.instructions_per(n));
        console_println!(
            "bench: {name} {alg} {size} B depth {depth}: {isolated} {} isolated, {alone} in the PD, {} of isolation, {ratio:.2}x{}{}",
            took.unit(),
            isolated as i64 - alone as i64,
            Instructions(instructions),
            DriverShare(bench::utilisation(Thread::Child(child)))
        );
    }

    /// A run through the driver: its answers taken, more sent, the run ended when all
    /// are answered.
    fn isolated(&mut self) {
        let t = self.target();
        let polled = match t.queues.poll() {
            Ok(p) => p,
            Err(e) => {
                console_println!("bench: FAIL: {} broke the queue: {e:?}", t.name);
                exit(1);
            }
        };
        if polled.notify {
            t.driver.notify();
        }
        self.failed |= polled.failed > 0;
        self.answered += polled.answered + polled.failed;
        if self.answered < requests(self.run.size()) {
            self.fill();
        } else {
            self.end_run();
            self.begin();
        }
    }

    /// The own engine's interrupt during an in-PD run.
    fn own_interrupt(&mut self) {
        let Some(t) = self.targets[self.at].as_mut() else {
            return;
        };
        let done = t.own.interrupt();
        t.own_irq.irq_ack();
        if let Some(ok) = done {
            self.failed |= !ok;
            self.answered += 1;
            if !self.own_next() {
                self.end_run();
                self.begin();
            }
        }
    }
}

impl Handler for Bench {
    fn notified(&mut self, channels: ChannelSet) {
        let (driver, own_irq) = (self.target().driver, self.target().own_irq);
        match self.run {
            Run::InPd { .. } if channels.contains(own_irq) => self.own_interrupt(),
            Run::Isolated { .. } if channels.contains(driver) => self.isolated(),
            _ => {}
        }
    }
}

/// The virtio-crypto target, where the system maps its driver's queues: the driver
/// PD's link and session, and the second virtio-crypto device, driven here.
fn virtio(data: ClientData<'static>) -> Option<Target> {
    let queues = maybe_memory_region!(virtio_queues)?;
    let driver = Channel::new(1);
    let session = open_cipher(driver, "virtio-crypto");
    let area = pd_runtime::memory_region!(dma);
    let bus = virtio_crypto_pd::find_device(pd_runtime::memory_region!(mmio), 1)
        .unwrap_or_else(|e| panic!("bench: no second virtio-crypto device: {e:?}"));
    // SAFETY: `dma` is mapped read-write for the PD's life, used by nothing but this
    // PD's device, and the tool placed it at `dma_paddr` (region_paddr).
    let area = unsafe { DmaArea::new(area.vaddr, area.paddr, area.size) };
    let own = VirtioCrypto::new(bus, area)
        .unwrap_or_else(|e| panic!("bench: virtio-crypto device init: {e:?}"));
    assert!(
        data.phys.is_some(),
        "the data region has data_paddr: the device reaches it"
    );
    Some(target(
        ("virtio-crypto", CBC),
        (driver, 2),
        Queues::Cipher(link_over(queues, cipher::REQUEST_QUEUE_CAPACITY)),
        session,
        (Own::cipher(CipherOwn::Virtio(own), data), VIRTIO_IRQ),
    ))
}

/// A target: its names, its driver PD's channel and child id, its queues (their first
/// poll arms the answers' signal, see `Link::new`) and session, and its engine here
/// with the channel its interrupts arrive on.
fn target(
    (name, alg): (&'static str, &'static str),
    (driver, child): (Channel, u8),
    mut queues: Queues,
    session: u32,
    (own, own_irq): (Own, Channel),
) -> Target {
    let _ = queues.poll();
    Target {
        name,
        alg,
        driver,
        child,
        queues,
        session,
        own,
        own_irq,
        in_pd: [None; SIZES.len()],
    }
}

/// A board stand-in's target, where the system maps `queues` (its driver PD's queues
/// here): the driver PD's link and session, and `own`, the same driver code built here
/// over this PD's own device PD once its power manager (on a driver's power channel,
/// `driver_pd::POWER`) has powered the engine.
fn board(
    (name, alg): (&'static str, &'static str),
    queues: Option<Queues>,
    (channel, child): (u8, u8),
    engine: power::Engine,
    own: impl FnOnce() -> Own,
) -> Option<Target> {
    let queues = queues?;
    let driver = Channel::new(channel);
    let session = match queues {
        Queues::Cipher(_) => open_cipher(driver, name),
        Queues::Digest(_) => digest::Client::new(PpcTransport(driver))
            .open_session(Algorithm::Sha256, HashPath::Auto)
            .unwrap_or_else(|e| panic!("bench: {name} opens no SHA-256 session: {e:?}")),
    };
    // The grant is held for the PD's life (a hold releases only when told).
    if let Err(e) = PowerHold::new(engine).ensure_awake() {
        panic!("bench: no power for this PD's own {name}: {e:?}");
    }
    let irq = pd_runtime::device_channel().expect("the system gives a device channel");
    Some(target(
        (name, alg),
        (driver, child),
        queues,
        session,
        (own(), irq),
    ))
}

/// A board's PIO/DMA driver over `engine`, as its driver PD starts it
/// (`pio_dma_driver::pd::on_board`), self-tested and calibrated in this PD's scratch.
fn pio_dma<E: PioDmaEngine>(engine: E, board: Common, costs: &'static CostTable) -> PioDma<E> {
    let mut driver = pio_dma_driver::pd::on_board(engine, board, costs);
    if let Err(e) = driver.init() {
        panic!("bench: the own engine's self-test or calibration failed: {e:?}");
    }
    driver
}

/// A CBC session of the Cipher driver on `channel`.
fn open_cipher(channel: Channel, name: &str) -> u32 {
    cipher::Client::new(PpcTransport(channel))
        .open_session(Mode::Cbc, Path::Adaptive, 16, KEY, [0; 16])
        .unwrap_or_else(|e| panic!("bench: {name} opens no CBC session: {e:?}"))
}

/// The CPU engine's target, where the system maps its driver's `queues`, after the PPC
/// round trip through that driver.
fn cpu(data: ClientData<'static>) -> Option<Target> {
    maybe_memory_region!(queues)?;
    let driver = Channel::new(0);
    let mut calls = cipher::Client::new(PpcTransport(driver));
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
    let session = open_cipher(driver, "cpu-engine");
    let own = Own::cipher(CipherOwn::Cpu(CpuEngine::default()), data);
    // Never interrupted: it finishes in `start`.
    let queues = Queues::Cipher(link(cipher::REQUEST_QUEUE_CAPACITY));
    Some(target(
        ("cpu-engine", CBC),
        (driver, 1),
        queues,
        session,
        (own, driver),
    ))
}

fn init() -> Bench {
    let data = Data::map().0;
    // SAFETY: the data region, mapped for the life of the PD and shared with the
    // drivers, reached only by volatile copies (and the devices' DMA).
    let region = unsafe { SharedRegion::from_raw(data.vaddr, data.size) };
    let data = ClientData {
        region,
        phys: (data.paddr != 0).then_some(data.paddr),
    };
    assert!(
        data.len() >= SIZES[SIZES.len() - 1] as usize + 64,
        "the data region holds a request and a digest"
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
    let cipher_queues = |r: Option<MemoryRegion>| {
        r.map(|q| Queues::Cipher(link_over(q, cipher::REQUEST_QUEUE_CAPACITY)))
    };
    let omap = board(
        ("omap-aes", CBC),
        cipher_queues(maybe_memory_region!(omap_queues)),
        (2, 3),
        power::Engine::OmapAes,
        || {
            let Am335x { aes, edma, common } = Am335x::take();
            let engine = pio_dma(Engine::new(AM335X, aes, edma), common, &am335x::COSTS);
            Own::cipher(CipherOwn::Omap(engine), data)
        },
    );
    let stm32 = board(
        ("stm32-cryp", CBC),
        cipher_queues(maybe_memory_region!(stm32_queues)),
        (3, 4),
        power::Engine::Stm32Cryp,
        || {
            let Stm32mp1 { cryp, dma, common } = Stm32mp1::take();
            let engine = stm32_cryp_driver::Engine::new(STM32MP1, cryp, dma);
            let engine = pio_dma(engine, common, &stm32mp1::COSTS);
            Own::cipher(CipherOwn::Stm32(engine), data)
        },
    );
    let sec1 = board(
        ("sec1", "sha-256"),
        maybe_memory_region!(sec1_queues)
            .map(|q| Queues::Digest(link_over(q, digest::REQUEST_QUEUE_CAPACITY))),
        (4, 5),
        power::Engine::Sec1,
        || {
            let soc = Mpc885::take();
            let scratch = u32::try_from(soc.common.scratch.phys).expect("scratch below 4 GiB");
            let len = soc.common.scratch.region.len();
            let mut engine = Sec1Hash::new(soc.sec, Mem(soc.dma), scratch, len, soc.common.ledger);
            if let Err(e) = engine.init() {
                panic!("bench: the own SEC1's self-test failed: {e:?}");
            }
            Own::digest(engine, data)
        },
    );
    let mut bench = Bench {
        targets: [cpu(data), virtio(data), omap, stm32, sec1],
        data,
        at: 0,
        run: Run::FIRST,
        submitted: 0,
        answered: 0,
        start: Reading::now(),
        failed: false,
    };
    // The first target present.
    while bench.at < bench.targets.len() && bench.targets[bench.at].is_none() {
        bench.at += 1;
    }
    assert!(
        bench.at < bench.targets.len(),
        "the system gives the bench a driver"
    );
    bench.begin();
    bench
}

pd_runtime::protection_domain!(init);
