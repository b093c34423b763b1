//! Test support shared by the PIO/DMA engines' tests (feature `testkit`, host only):
//! the modelled boards both engines' tests run on ([`Am335x`], [`Stm32mp1`], as a
//! [`Board`]), the client rig ([`rig`]), and the checks OMAP AES and STM32 CRYP must both
//! pass, written once over the shared driver half and run as one test a file
//! ([`vector_suite`], [`hostile_suite`], [`calibration_matches`]). Each engine's tests
//! give only their [`Soc`] (the engine and the model it sits on), the figures SOURCES.md
//! publishes for it, and the checks that are that engine's alone.

use std::boxed::Box;
use std::ops::RangeInclusive;
use std::panic::catch_unwind;
use std::vec;

use std::vec::Vec;

use cipher_service::testkit::suite;
use cipher_service::testkit::{CLIENT, DATA, Layout, Rig, hex, request, status};
use cipher_service::{BLOCK, CipherEngine, ClientData, Segments, validate};
use cost_ledger::{CostTable, Counts, Event, Ledger};
use engine_models::phys::PhysMap;
use engine_models::power::{ClockController, GateBlock};
use engine_models::soc::Port;
use engine_models::{am335x, stm32mp1};
use kat_vectors::{CBC_IV, CipherVector, K256, PLAIN, SP800_38A, sp800_38a};
use mmio::clkctrl::{self, MODULEMODE, MODULEMODE_ENABLE};
use mmio::{BusFault, RegisterBus};
use pd_idl::cipher::{CipherError, CipherOp, Mode, Path, Request};
use pd_idl::wire::Caller;
use shared_region::SharedRegion;

use crate::calibrate::{KEY_LENS, MODES};
use crate::{
    Driver, Health, InitError, LedgerMeter, Meter, PioDmaEngine, Route, SCRATCH_BYTES, polls_for,
};

/// An SoC model an engine sits on: the model, its register ports, the engine's and its
/// DMA controller's devices, where DDR starts and what its events cost.
pub trait SocModel: 'static {
    /// The model (`engine_models::am335x::Am335x`, ...).
    type Soc: 'static;
    /// The model's register port: the buses a driver gets unless a test wraps them.
    type Bus: RegisterBus;
    /// The engine's device and its DMA controller's, clocked on a new board.
    const ENGINE: board::Device;
    const DMA: board::Device;
    /// Where DDR starts: the client's region and the driver's scratch sit above it.
    const DDR: u64;
    const COSTS: &'static CostTable;

    fn soc(
        mem: &'static PhysMap<'static>,
        gates: &'static GateBlock,
        ledger: &'static Ledger,
    ) -> Self::Soc;
    fn engine_bus(soc: &'static Self::Soc) -> Self::Bus;
    fn dma_bus(soc: &'static Self::Soc) -> Self::Bus;
    /// Whether the engine's key registers (or the schedule made from them) hold key
    /// material: what the model knows and no register read shows.
    fn holds_key(soc: &Self::Soc) -> bool;
}

/// AES0 and EDMA on the am335x model.
pub struct Am335x;

impl SocModel for Am335x {
    type Soc = am335x::Am335x<'static>;
    type Bus = Port<'static, am335x::Am335xMachine<'static>>;
    const ENGINE: board::Device = board::am335x::AES0;
    const DMA: board::Device = board::am335x::EDMA;
    const DDR: u64 = board::am335x::DDR.phys;
    const COSTS: &'static CostTable = &board::am335x::COSTS;

    fn soc(
        mem: &'static PhysMap<'static>,
        gates: &'static GateBlock,
        ledger: &'static Ledger,
    ) -> Self::Soc {
        am335x::am335x(mem, gates, ledger)
    }
    fn engine_bus(soc: &'static Self::Soc) -> Self::Bus {
        soc.aes()
    }
    fn dma_bus(soc: &'static Self::Soc) -> Self::Bus {
        soc.edma()
    }
    fn holds_key(soc: &Self::Soc) -> bool {
        soc.with(|m| m.engine.holds_key())
    }
}

/// CRYP1 and its DMA controller on the stm32mp1 model.
pub struct Stm32mp1;

impl SocModel for Stm32mp1 {
    type Soc = stm32mp1::Stm32mp1<'static>;
    type Bus = Port<'static, stm32mp1::Stm32mp1Machine<'static>>;
    const ENGINE: board::Device = board::stm32mp1::CRYP1;
    const DMA: board::Device = board::stm32mp1::DMA;
    const DDR: u64 = board::stm32mp1::DDR.phys;
    const COSTS: &'static CostTable = &board::stm32mp1::COSTS;

    fn soc(
        mem: &'static PhysMap<'static>,
        gates: &'static GateBlock,
        ledger: &'static Ledger,
    ) -> Self::Soc {
        stm32mp1::stm32mp1(mem, gates, ledger)
    }
    fn engine_bus(soc: &'static Self::Soc) -> Self::Bus {
        soc.cryp()
    }
    fn dma_bus(soc: &'static Self::Soc) -> Self::Bus {
        soc.dma()
    }
    fn holds_key(soc: &Self::Soc) -> bool {
        soc.with(|m| m.engine.holds_key())
    }
}

/// What one engine's tests give the kit: the engine, the SoC model it sits on, and the
/// one step this crate cannot take; [`Board`] does the rest.
pub trait Soc: 'static {
    type Model: SocModel;
    /// The engine over an engine bus `A` and a DMA controller bus `D`.
    type Engine<A: RegisterBus, D: RegisterBus>: PioDmaEngine;

    fn engine<A: RegisterBus, D: RegisterBus>(engine: A, dma: D) -> Self::Engine<A, D>;
    /// Adds `memory` to the DMA map at `phys` (`PhysMap::add_raw`, which this crate, being
    /// `forbid(unsafe_code)`, leaves to the engine's tests; [`Leaked`] is what makes it
    /// sound).
    fn map(mem: &PhysMap<'static>, phys: u64, memory: Leaked);
}

/// `S`'s model's register port.
pub type Bus<S> = <<S as Soc>::Model as SocModel>::Bus;
type Model<S> = <S as Soc>::Model;

/// Memory that stays allocated for the rest of the process, so a model may keep its
/// address; made only here, from leaked allocations or the rig's (leaked) data region.
#[derive(Clone, Copy, Debug)]
pub struct Leaked {
    ptr: *mut u8,
    len: usize,
}

impl Leaked {
    pub fn ptr(&self) -> *mut u8 {
        self.ptr
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Where the client's data region and the driver's scratch sit above DDR's start.
pub const CLIENT_AT: u64 = 0x10_0000;
pub const SCRATCH_AT: u64 = 0x20_0000;

/// A driver on `S`'s board over engine bus `A` and DMA bus `D`.
pub type BoardDriver<S, A = Bus<S>, D = Bus<S>> =
    Driver<'static, <S as Soc>::Engine<A, D>, LedgerMeter<'static>>;

/// The modelled board: ledger, gates, physical map, the SoC. Everything the model
/// borrows is leaked: a test is short and this keeps the driver's buses `'static`.
pub struct Board<S: Soc> {
    pub ledger: &'static Ledger,
    pub gates: &'static GateBlock,
    pub mem: &'static PhysMap<'static>,
    pub soc: &'static <Model<S> as SocModel>::Soc,
}

impl<S: Soc> Default for Board<S> {
    fn default() -> Self {
        Self::new()
    }
}

impl<S: Soc> Board<S> {
    /// The SoC with the engine and its DMA controller clocked; the scratch and the
    /// client's region get their DMA windows as drivers and rigs are made.
    pub fn new() -> Self {
        let ledger: &'static Ledger = Box::leak(Box::new(Ledger::new()));
        let gates: &'static GateBlock = Box::leak(Box::new(GateBlock::new()));
        let mut clocks = ClockController::new(gates, ledger);
        for dev in [Model::<S>::ENGINE, Model::<S>::DMA] {
            let gate = dev.gate.expect("the device has a clock gate");
            let enable = MODULEMODE.val(MODULEMODE_ENABLE);
            clocks.write32(clkctrl::clkctrl(gate), enable).unwrap();
        }
        let mem: &'static PhysMap<'static> = Box::leak(Box::new(PhysMap::new()));
        let soc = Box::leak(Box::new(Model::<S>::soc(mem, gates, ledger)));
        Board {
            ledger,
            gates,
            mem,
            soc,
        }
    }

    /// A self-tested, calibrated driver.
    pub fn driver(&self) -> BoardDriver<S> {
        let mut d = self.driver_with(Model::<S>::engine_bus(self.soc));
        d.init().expect("self-test and calibration pass");
        d
    }

    /// A self-tested, calibrated driver in the client rig.
    pub fn rig(&self) -> Rig<BoardDriver<S>> {
        rig(self, self.driver())
    }

    /// A driver over `engine` (the model's port, or a wrapper around it), not yet
    /// `init`ed.
    pub fn driver_with<A: RegisterBus>(&self, engine: A) -> BoardDriver<S, A> {
        self.driver_with_buses(engine, Model::<S>::dma_bus(self.soc))
    }

    /// A driver over the given engine and DMA buses, not yet `init`ed.
    pub fn driver_with_buses<A: RegisterBus, D: RegisterBus>(
        &self,
        engine: A,
        dma: D,
    ) -> BoardDriver<S, A, D> {
        self.driver_with_scratch_at(engine, dma, Model::<S>::DDR + SCRATCH_AT)
    }

    /// As [`driver_with_buses`](Self::driver_with_buses), the scratch at `phys`.
    pub fn driver_with_scratch_at<A: RegisterBus, D: RegisterBus>(
        &self,
        engine: A,
        dma: D,
        phys: u64,
    ) -> BoardDriver<S, A, D> {
        let scratch: &'static mut [u8] = Box::leak(vec![0u8; SCRATCH_BYTES].into_boxed_slice());
        let window = Leaked {
            ptr: scratch.as_mut_ptr(),
            len: scratch.len(),
        };
        S::map(self.mem, phys, window);
        let meter = LedgerMeter {
            ledger: self.ledger,
            costs: Model::<S>::COSTS,
        };
        let scratch = ClientData {
            region: SharedRegion::new(scratch),
            phys: Some(phys),
        };
        Driver::new(S::engine(engine, dma), meter, scratch)
    }
}

/// The shared client rig around `engine`, its data region placed in DDR where the
/// board's DMA reaches it.
pub fn rig<S: Soc, E: CipherEngine>(board: &Board<S>, engine: E) -> Rig<E> {
    let mut rig = Rig::new(engine);
    let phys = Model::<S>::DDR + CLIENT_AT;
    let region = Leaked {
        ptr: rig.data_ptr(),
        len: DATA,
    };
    S::map(board.mem, phys, region);
    rig.phys = Some(phys);
    rig
}

/// `list` of (offset, length) as checked segments of a 64 KiB region (CTR: any length).
pub fn segs(list: &[(u32, u32)]) -> Segments {
    let request = Request::over(0, 0, CipherOp::Encrypt, list);
    validate(&request, 1 << 16, Mode::Ctr).unwrap()
}

/// The route the driver takes for `segs` of a region at `phys` on `path`, with an
/// engine's DMA rule and DMA from `from` bytes: `route::choose` as `Driver` calls it.
pub fn route_under(
    dma_capable: impl Fn(&Segments, Option<u64>) -> bool,
    path: Path,
    segs: &Segments,
    phys: Option<u64>,
    from: u32,
) -> Result<Route, CipherError> {
    crate::route::choose(path, segs, dma_capable(segs, phys), from)
}

/// SP 800-38A's AES-128 key.
const KEY: [u8; 16] = [
    0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6, 0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c,
];

/// A check one engine's tests run on a board of their own.
pub type Check<S> = (&'static str, fn(&Board<S>));

/// Runs each check on a fresh board, every one even after another failed (as tests of
/// their own would), and fails naming those that did; each failure's panic is printed
/// as it happens.
pub fn run_each<S: Soc>(checks: &[Check<S>]) {
    let failed: Vec<&str> = checks
        .iter()
        .filter(|(_, check)| catch_unwind(|| check(&Board::new())).is_err())
        .map(|(name, _)| *name)
        .collect();
    assert!(failed.is_empty(), "failed: {failed:?}");
}

/// Bytes in the shortest request `S`'s engine DMAs (upstream STM32 DMAs nothing of 16
/// bytes or fewer): the size of the DMA requests the checks make.
fn dma_bytes<S: Soc>() -> u32 {
    <S::Engine<Bus<S>, Bus<S>> as PioDmaEngine>::MIN_DMA_BLOCKS * BLOCK
}

/// Published vectors through the whole service path on every route, and the routes
/// agreeing with each other: the checks both engines' `tests/vectors.rs` run.
pub fn vector_suite<S: Soc>() {
    run_each::<S>(&[
        ("FIPS-197 Appendix C", fips_197_appendix_c),
        ("SP 800-38A on DMA", sp800_38a_dma_split_at_every_block),
        ("SP 800-38A on PIO", sp800_38a_pio_split_at_every_offset),
        ("IV carried over", iv_carries_over_between_requests),
        ("pieces", a_large_request_goes_in_pieces),
        ("joins bounded", a_lone_clients_joins_stop_at_park_from),
        ("queued requests", queued_requests_run_as_one_transfer),
        ("joins", joins_on_every_path),
        (
            "held context",
            a_held_context_is_reused_only_when_it_matches,
        ),
        ("paths agree", adaptive_and_forced_paths_agree),
    ]);
}

/// A hostile or careless client, two clients interleaved, a broken engine or scratch:
/// the checks both engines' `tests/hostile.rs` run.
pub fn hostile_suite<S: Soc>() {
    run_each::<S>(&[
        ("bad requests", |b| {
            suite::bad_requests_get_their_own_errors(&mut b.rig(), true)
        }),
        ("DMA fault", |b| {
            suite::dma_fault_is_typed_and_recovers(&mut b.rig())
        }),
        ("untested driver", an_untested_driver_serves_nobody),
        ("gated engine", a_gated_engine_says_no_power),
        ("self-test on DMA", the_self_test_covers_the_dma_path),
        ("scratch above 4 GiB", a_scratch_above_4_gib_is_refused),
        ("two clients", two_clients_interleave),
        (
            "keys leave the engine",
            a_closed_sessions_key_leaves_the_engine,
        ),
    ]);
}

/// Ledger counts of what `f` did.
pub fn counted<R>(ledger: &Ledger, f: impl FnOnce() -> R) -> (R, Counts) {
    let before = ledger.snapshot();
    let r = f();
    (r, ledger.snapshot().since(&before))
}

/// CPU-copied client bytes in a count.
pub fn copied(c: &Counts) -> u64 {
    c.get(Event::CpuCopyByte)
}

/// The crossover `S`'s driver calibrates at init lies in `bytes` (SOURCES.md's figure for
/// the engine) for every mode and key size, and requests either side of it agree.
pub fn calibration_matches<S: Soc>(bytes: RangeInclusive<u32>) {
    crossover_in(&Board::<S>::new().driver(), bytes);
    calibration_agrees_with_requests(&Board::<S>::new());
}

/// The crossover calibrated at init lies in `bytes` for every mode and key size, with DMA
/// faster there than PIO. `-- --nocapture` prints the table.
pub fn crossover_in<E: PioDmaEngine, M: Meter>(
    driver: &Driver<'_, E, M>,
    bytes: RangeInclusive<u32>,
) {
    let cal = driver.calibration();
    std::println!("mode key  DMA from  PIO us  DMA us (at that size)");
    for &mode in &MODES {
        for &key in &KEY_LENS {
            let c = cal.get(mode, key);
            std::println!(
                "{mode:?} {:3}  {:5} B  {:6.1}  {:6.1}",
                u32::from(key) * 8,
                c.dma_from_bytes,
                c.pio_ps as f64 / 1e6,
                c.dma_ps as f64 / 1e6
            );
            assert!(
                bytes.contains(&c.dma_from_bytes),
                "{mode:?}/{key}: DMA from {} B, not in {bytes:?}",
                c.dma_from_bytes
            );
            assert!(c.dma_ps < c.pio_ps);
        }
    }
}

/// Where DMA starts to be cheaper for `mode` and `key_len`, as calibrated at init.
pub fn dma_from<E: PioDmaEngine, M: Meter>(
    rig: &Rig<Driver<'static, E, M>>,
    mode: Mode,
    key_len: u8,
) -> u32 {
    rig.service
        .engine
        .calibration()
        .get(mode, key_len)
        .dma_from_bytes
}

/// One block below the crossover PIO is faster, at it DMA is: measured through the
/// service as clients see it (with the per-request cost on both), in the board's time.
pub fn calibration_agrees_with_requests<S: Soc>(board: &Board<S>) {
    let mut rig = board.rig();
    let from = dma_from(&rig, Mode::Cbc, 16);
    let key = [7u8; 16];
    let mut time = |path, n: u32| {
        let s = rig.open(Mode::Cbc, path, &key, &[0; 16]).unwrap();
        let data = vec![0u8; n as usize];
        let (_, c) = counted(board.ledger, || {
            rig.crypt(s, CipherOp::Encrypt, &data, &[n], Layout::Aligned)
                .unwrap()
        });
        assert_eq!(c.get(Event::Request), 1);
        c.modelled_us(Model::<S>::COSTS)
    };
    let below = from - 16;
    assert!(time(Path::Pio, below) < time(Path::Dma, below));
    assert!(time(Path::Dma, from) < time(Path::Pio, from));
}

/// A driver whose `init` never ran serves nobody.
pub fn an_untested_driver_serves_nobody<S: Soc>(board: &Board<S>) {
    let mut rig = rig(board, board.driver_with(Model::<S>::engine_bus(board.soc)));
    assert_eq!(rig.service.engine.health(), Health::Untested);
    assert_eq!(
        rig.open(Mode::Ecb, Path::Pio, &KEY, &[0; 16]),
        Err(CipherError::EngineFault)
    );
}

/// A ready driver whose engine loses its clock (its grant revoked: the gate is turned
/// off in the board's clock controller) answers `NoPower`.
pub fn a_gated_engine_says_no_power<S: Soc>(board: &Board<S>) {
    let mut rig = board.rig();
    let s = rig.open(Mode::Ecb, Path::Pio, &KEY, &[0; 16]).unwrap();
    let gate = Model::<S>::ENGINE
        .gate
        .expect("the engine has a clock gate");
    ClockController::new(board.gates, board.ledger)
        .write32(
            mmio::clkctrl::clkctrl(gate),
            mmio::clkctrl::MODULEMODE.val(mmio::clkctrl::MODULEMODE_DISABLED),
        )
        .unwrap();
    assert_eq!(
        rig.crypt(s, CipherOp::Encrypt, &[0; 16], &[16], Layout::Aligned),
        Err(CipherError::NoPower)
    );
}

/// A scratch the engine's 32-bit DMA addresses cannot reach whole is refused at init:
/// the self-test and calibration run DMA on it without the per-request check, and would
/// have written to its address modulo 4 GiB.
pub fn a_scratch_above_4_gib_is_refused<S: Soc>(board: &Board<S>) {
    let straddling = (1 << 32) - SCRATCH_BYTES as u64 + 16;
    // A board each: the two scratch windows overlap.
    for (board, phys) in [(board, 1 << 32), (&Board::new(), straddling)] {
        let (engine, dma) = (
            Model::<S>::engine_bus(board.soc),
            Model::<S>::dma_bus(board.soc),
        );
        let mut driver = board.driver_with_scratch_at(engine, dma, phys);
        assert!(
            matches!(driver.init(), Err(InitError::Scratch)),
            "scratch at {phys:#x}"
        );
    }
}

/// A DMA bus on which the out channel (`.1`) never starts: the DMA path stalls.
pub struct DeadRxChannel<B>(pub B, pub usize);

impl<B: RegisterBus> RegisterBus for DeadRxChannel<B> {
    fn read32(&mut self, offset: usize) -> Result<u32, BusFault> {
        self.0.read32(offset)
    }
    fn write32(&mut self, offset: usize, value: u32) -> Result<(), BusFault> {
        let value = if offset == mmio::edma::EESR {
            value & !(1 << self.1)
        } else {
            value
        };
        self.0.write32(offset, value)
    }
}

/// An engine bus whose register at offset `.1` loses a bit on the way in (a stuck
/// register line, as a key register's would make every vector wrong).
pub struct StuckBit<B>(pub B, pub usize);

impl<B: RegisterBus> RegisterBus for StuckBit<B> {
    fn read32(&mut self, offset: usize) -> Result<u32, BusFault> {
        self.0.read32(offset)
    }
    fn write32(&mut self, offset: usize, value: u32) -> Result<(), BusFault> {
        let stuck = if offset == self.1 { 1 } else { 0 };
        self.0.write32(offset, value ^ stuck)
    }
}

/// The self-test of a driver whose DMA stalls (a [`DeadRxChannel`]) refuses it, though
/// PIO alone would work: DMA is a path it would use.
pub fn the_self_test_covers_the_dma_path<S: Soc>(board: &Board<S>) {
    let rx = Model::<S>::ENGINE.dma.expect("the engine has DMA lines").1;
    let dead = DeadRxChannel(Model::<S>::dma_bus(board.soc), rx);
    let mut driver = board.driver_with_buses(Model::<S>::engine_bus(board.soc), dead);
    let Err(InitError::SelfTest(failure)) = driver.init() else {
        panic!("a dead DMA channel fails the self-test")
    };
    assert_eq!(failure.route, Route::Dma);
    assert!(
        failure.engine_error.is_some(),
        "the engine stalled: {failure:?}"
    );
    let mut rig = rig(board, driver);
    assert_eq!(
        rig.open(Mode::Ctr, Path::Pio, &KEY, &[0; 16]),
        Err(CipherError::EngineFault),
        "not even PIO is served by a driver that failed its self-test"
    );
}

/// A driver on `board` whose self-test failed on `route` for `op` (the engine answered,
/// wrongly) reports it and opens no session.
pub fn a_wrong_answer_refuses_service<S: Soc, E: PioDmaEngine, M: Meter>(
    board: &Board<S>,
    mut driver: Driver<'static, E, M>,
    route: Route,
    op: CipherOp,
) {
    let err = driver.init().unwrap_err();
    let InitError::SelfTest(failure) = err else {
        panic!("expected a self-test failure, got {err:?}")
    };
    assert_eq!((failure.route, failure.op), (route, op), "{failure:?}");
    assert_eq!(failure.engine_error, None, "the engine answered, wrongly");
    assert_eq!(driver.health(), Health::Failed(failure));
    let mut rig = rig(board, driver);
    assert_eq!(
        rig.open(Mode::Cbc, Path::Adaptive, &KEY, &[0; 16]),
        Err(CipherError::EngineFault),
        "a failed engine opens no session"
    );
}

/// Encrypts and decrypts `vector` on `path` with each split (the vector's first bytes,
/// as many as the split covers), a session each; checks the path the driver reports
/// (`Adaptive` takes PIO at these sizes).
pub fn both_ways<E: CipherEngine>(
    rig: &mut Rig<E>,
    vector: CipherVector,
    path: Path,
    splits: &[Vec<u32>],
    layout: Layout,
) {
    let (name, mode, key, iv, ct) = vector;
    let (plain, ct, key, iv) = (hex(PLAIN), hex(ct), hex(key), hex(iv));
    let want_path = if path == Path::Adaptive {
        Path::Pio
    } else {
        path
    };
    for split in splits {
        let n: u32 = split.iter().sum();
        let (plain, ct) = (&plain[..n as usize], &ct[..n as usize]);
        for (op, input, want) in [
            (CipherOp::Encrypt, plain, ct),
            (CipherOp::Decrypt, ct, plain),
        ] {
            let s = rig.open(mode, path, &key, &iv).unwrap();
            let got = rig.crypt(s, op, input, split, layout);
            assert_eq!(got.as_deref(), Ok(want), "{name} {op:?} {path:?} {split:?}");
            assert_eq!(rig.last_path, Some(want_path), "{name} {split:?}");
            rig.service.close(CLIENT, s).unwrap();
        }
    }
}

/// Every SP 800-38A vector on PIO, split at every byte offset (and once in four odd
/// pieces), scattered: the PIO path gathers blocks across segments.
pub fn sp800_38a_pio_split_at_every_offset<S: Soc>(board: &Board<S>) {
    let mut rig = board.rig();
    let mut splits: Vec<Vec<u32>> = vec![vec![64]];
    splits.extend((1..64).map(|k| vec![k, 64 - k]));
    splits.push(vec![5, 27, 1, 31]);
    for &v in SP800_38A {
        both_ways(&mut rig, v, Path::Pio, &splits, Layout::Scattered);
    }
}

/// Two clients with different keys and modes interleave on one engine: client A
/// CBC-AES128 (SP 800-38A F.2.1) forced DMA in the engine's shortest DMA requests,
/// client B CTR-AES256 (F.5.5) on PIO a block at a time through its own channel between
/// A's; both get the published ciphertext.
pub fn two_clients_interleave<S: Soc>(board: &Board<S>) {
    let mut rig = board.rig();
    let a_bytes = dma_bytes::<S>();
    let plain = hex(PLAIN);
    let (cbc, ctr) = (sp800_38a("F.2.1 CBC-AES128"), sp800_38a("F.5.5 CTR-AES256"));
    let a = rig
        .open_as(CLIENT, cbc.1, Path::Dma, &hex(cbc.2), &hex(cbc.3))
        .unwrap();
    let b = rig
        .open_as(Caller(9), ctr.1, Path::Pio, &hex(ctr.2), &hex(ctr.3))
        .unwrap();
    let (mut out_a, mut out_b) = (Vec::new(), Vec::new());
    let mut id = 100;
    for chunk in plain.chunks(a_bytes as usize) {
        out_a.extend(
            rig.crypt(a, CipherOp::Encrypt, chunk, &[a_bytes], Layout::Aligned)
                .unwrap(),
        );
        for block in chunk.chunks(16) {
            let at = 2048usize;
            rig.bytes()[at..at + 16].copy_from_slice(block);
            let answer = rig.exchange(Caller(9), &[request(id, b, &[(at as u32, 16)])]);
            id += 1;
            assert_eq!(status(&answer[0]), Ok(()));
            out_b.extend_from_slice(&rig.bytes()[at..at + 16]);
        }
    }
    assert_eq!(out_a, hex(cbc.4));
    assert_eq!(out_b, hex(ctr.4));
}

/// What SP 800-38A vector `name`'s key and IV make of `plain` encrypted as one request
/// on `path`, on a session of its own: the bytes a request served in pieces, or joined,
/// must give.
fn one_job<E: CipherEngine>(rig: &mut Rig<E>, name: &str, path: Path, plain: &[u8]) -> Vec<u8> {
    let (_, mode, key, iv, _) = sp800_38a(name);
    let s = rig.open(mode, path, &hex(key), &hex(iv)).unwrap();
    let out = rig.crypt(
        s,
        CipherOp::Encrypt,
        plain,
        &[plain.len() as u32],
        Layout::Aligned,
    );
    rig.service.sessions.close(CLIENT, s).unwrap();
    out.unwrap()
}

/// A request larger than its client's share, served as a driver does while another
/// client is served too (a grant of 1 KiB a pass): parked, and its pieces run as jobs
/// of their own with the IV carried between them, another client's request answered
/// between every two; one answer for the whole request, every byte what one job gives
/// (CBC, and CTR with a partial last block). A session closed between two pieces is
/// answered `UnknownSession`.
pub fn a_large_request_goes_in_pieces<S: Soc>(board: &Board<S>) {
    let mut rig = board.rig();
    let light_at = 3584u32;
    for (name, len) in [("F.2.1 CBC-AES128", 3072usize), ("F.5.1 CTR-AES128", 3080)] {
        let (_, mode, key, iv, _) = sp800_38a(name);
        let plain: Vec<u8> = (0..len).map(|i| (i * 7 + 1) as u8).collect();
        let want = one_job(&mut rig, name, Path::Pio, &plain);
        let s = rig.open(mode, Path::Pio, &hex(key), &hex(iv)).unwrap();
        let light = rig
            .open_as(Caller(9), Mode::Ecb, Path::Pio, &[7; 16], &[0; 16])
            .unwrap();
        rig.bytes()[..len].copy_from_slice(&plain);
        let mut between = 0u32;
        let (answers, passes) =
            rig.exchange_within(CLIENT, &[request(1, s, &[(0, len as u32)])], 1024, |r| {
                let a = r.exchange(
                    Caller(9),
                    &[request(50 + between, light, &[(light_at, 16)])],
                );
                assert_eq!(a.len(), 1);
                assert_eq!(status(&a[0]), Ok(()));
                between += 1;
            });
        assert_eq!(answers.len(), 1, "{name}: one answer for the whole request");
        assert_eq!(status(&answers[0]), Ok(()), "{name}");
        assert_eq!(answers[0].bytes_done as usize, len, "{name}");
        assert_eq!(passes, 3, "{name}: three pieces, a pass each");
        assert_eq!(between, 3, "{name}: the light client served after each");
        assert_eq!(&rig.bytes()[..len], &want[..], "{name}: as one job");
    }
    let (_, mode, key, iv, _) = sp800_38a("F.2.1 CBC-AES128");
    let s = rig.open(mode, Path::Pio, &hex(key), &hex(iv)).unwrap();
    let (answers, passes) =
        rig.exchange_within(CLIENT, &[request(2, s, &[(0, 3072)])], 1024, |r| {
            let _ = r.service.close(CLIENT, s);
        });
    assert_eq!(passes, 2, "closed after the first piece");
    assert_eq!(status(&answers[0]), Err(CipherError::UnknownSession));
}

/// A lone client (its budget unbounded) queues three 1 KiB CBC requests on DMA: joined,
/// they stop at `PARK_FROM` (2 KiB), a transfer of two and one of one, since a joined
/// job cannot be cut and the next client to arrive would wait for all of it; the bytes
/// are one job's, the IV carried across the joins.
pub fn a_lone_clients_joins_stop_at_park_from<S: Soc>(board: &Board<S>) {
    const PER: u32 = 1024;
    assert_eq!(
        2 * PER,
        cipher_service::PARK_FROM,
        "two requests reach the bound"
    );
    let mut rig = board.rig();
    let (_, mode, key, iv, _) = sp800_38a("F.2.1 CBC-AES128");
    let plain: Vec<u8> = (0..3 * PER).map(|i| (i * 5 + 3) as u8).collect();
    let want = one_job(&mut rig, "F.2.1 CBC-AES128", Path::Dma, &plain);
    let s = rig.open(mode, Path::Dma, &hex(key), &hex(iv)).unwrap();
    rig.bytes()[..plain.len()].copy_from_slice(&plain);
    let reqs: Vec<_> = (0..3)
        .map(|i| request(700 + i, s, &[(i * PER, PER)]))
        .collect();
    let starts = || board.ledger.get(Event::DmaStart);
    let before = starts();
    let got = rig.exchange(CLIENT, &reqs);
    assert_eq!(got.len(), 3, "one answer per request");
    assert!(got.iter().all(|a| status(a).is_ok()), "{got:?}");
    assert_eq!(starts() - before, 4, "two transfers, two channels each");
    assert_eq!(&rig.bytes()[..plain.len()], &want[..], "as one job");
}

/// FIPS-197 Appendix C on every path, ECB both ways; on DMA as many copies of the block,
/// in as many segments, as the engine's shortest DMA request holds.
pub fn fips_197_appendix_c<S: Soc>(board: &Board<S>) {
    let mut rig = board.rig();
    let dma_copies = (dma_bytes::<S>() / BLOCK) as usize;
    let pt = hex(kat_vectors::FIPS197_PT);
    for &(_, key, ct) in kat_vectors::FIPS197_C {
        for path in [Path::Pio, Path::Dma, Path::Adaptive] {
            let copies = if path == Path::Dma { dma_copies } else { 1 };
            let (input, want) = (pt.repeat(copies), hex(ct).repeat(copies));
            let split = vec![16; copies];
            let s = rig.open(Mode::Ecb, path, &hex(key), &[0; 16]).unwrap();
            let enc = rig.crypt(s, CipherOp::Encrypt, &input, &split, Layout::Aligned);
            assert_eq!(enc.as_ref(), Ok(&want), "{key} {path:?}");
            let dec = rig.crypt(s, CipherOp::Decrypt, &want, &split, Layout::Aligned);
            assert_eq!(dec.as_ref(), Ok(&input), "{key} {path:?}");
        }
    }
}

/// Every SP 800-38A vector on DMA split at every block boundary (and with empty
/// segments), block- and word-aligned: every byte in and out by DMA, none copied or
/// moved through the data port by the CPU.
pub fn sp800_38a_dma_split_at_every_block<S: Soc>(board: &Board<S>) {
    let mut rig = board.rig();
    let splits = vec![
        vec![64],
        vec![16, 48],
        vec![32, 32],
        vec![48, 16],
        vec![16, 16, 16, 16],
        vec![0, 32, 0, 32],
    ];
    for &v in SP800_38A {
        for layout in [Layout::Aligned, Layout::Words] {
            let ((), c) = counted(board.ledger, || {
                both_ways(&mut rig, v, Path::Dma, &splits, layout);
            });
            assert_eq!(copied(&c), 0, "{}: DMA copies no client byte", v.0);
            let requests = 2 * splits.len() as u64;
            assert_eq!(c.get(Event::Request), requests);
            assert_eq!(c.get(Event::DmaByte), requests * 2 * 64, "{}", v.0);
            assert_eq!(c.get(Event::PioWord), 0, "{}", v.0);
        }
    }
}

/// Every SP 800-38A vector in requests of a block on PIO and of the engine's shortest
/// DMA request on DMA, a session each: the IV each request leaves carries over to the
/// next.
pub fn iv_carries_over_between_requests<S: Soc>(board: &Board<S>) {
    let mut rig = board.rig();
    for (path, chunk) in [(Path::Pio, BLOCK), (Path::Dma, dma_bytes::<S>())] {
        for &(name, mode, key, iv, ct) in SP800_38A {
            let s = rig.open(mode, path, &hex(key), &hex(iv)).unwrap();
            let mut out = Vec::new();
            for part in hex(PLAIN).chunks(chunk as usize) {
                out.extend(
                    rig.crypt(s, CipherOp::Encrypt, part, &[chunk], Layout::Aligned)
                        .unwrap(),
                );
            }
            assert_eq!(out, hex(ct), "{name} {path:?}");
        }
    }
}

/// Requests of one session queued together run as one transfer (one context load) and
/// give the vectors' bytes as one at a time does, on every path (DMA in the engine's
/// shortest DMA requests: one DMA refuses alone never joins; PIO and adaptive a block
/// each); then one vector's 64 bytes as queued DMA requests: two channel starts for all
/// of them, each request still counted.
pub fn queued_requests_run_as_one_transfer<S: Soc>(board: &Board<S>) {
    let mut rig = board.rig();
    let dma_bytes = dma_bytes::<S>();
    for (path, per) in [
        (Path::Dma, dma_bytes),
        (Path::Pio, BLOCK),
        (Path::Adaptive, BLOCK),
    ] {
        suite::queued_requests_match_one_at_a_time(&mut rig, SP800_38A, PLAIN, path, per);
    }
    let (_, mode, key, iv, ct) = SP800_38A[0];
    let s = rig.open(mode, Path::Dma, &hex(key), &hex(iv)).unwrap();
    let plain = hex(PLAIN);
    let (n, per) = (64 / dma_bytes, dma_bytes as usize);
    let reqs: Vec<_> = (0..n)
        .map(|i| {
            let at = 256 * i as usize;
            rig.bytes()[at..at + per].copy_from_slice(&plain[per * i as usize..][..per]);
            request(i + 1, s, &[(256 * i, dma_bytes)])
        })
        .collect();
    let (got, c) = counted(board.ledger, || rig.exchange(CLIENT, &reqs));
    assert!(got.iter().all(|a| status(a).is_ok()), "{got:?}");
    assert_eq!(
        c.get(Event::DmaStart),
        2,
        "one transfer: tx and rx started once"
    );
    assert_eq!(
        c.get(Event::Request),
        u64::from(n),
        "each request still costs its own"
    );
    assert_eq!(c.get(Event::DmaByte), 2 * 64);
    let out: Vec<u8> = (0..n as usize)
        .flat_map(|i| rig.bytes()[256 * i..][..per].to_vec())
        .collect();
    assert_eq!(out, hex(ct));
}

/// How the driver joins queued requests, on every path (DMA in the engine's shortest
/// DMA requests): the longest join it makes (`MAX_JOINED` requests, its link sets all
/// used) and one more, two transfers on DMA; runs split where another session's request
/// or a bad one comes between, and a failed transfer fails only its own requests; always
/// each session's bytes as one at a time.
pub fn joins_on_every_path<S: Soc>(board: &Board<S>) {
    let mut rig = board.rig();
    let starts = || board.ledger.get(Event::DmaStart);
    suite::joins_on_every_path(&mut rig, dma_bytes::<S>(), &starts);
}

/// The engine keeps a session's key (prepared, where decryption needs it) and IV
/// between its jobs and reloads them whenever anything else ran, the direction changed
/// or power was lost (`ContextKept` in the ledger): the SP 800-38A CBC and CTR vectors a
/// block per request, on PIO and, where the engine DMAs a single block, on DMA (an
/// engine that does not keeps its DMA route's context by the same `Context` comparison
/// in this crate).
pub fn a_held_context_is_reused_only_when_it_matches<S: Soc>(board: &Board<S>) {
    let mut rig = board.rig();
    let paths: &[Path] = match dma_bytes::<S>() {
        BLOCK => &[Path::Pio, Path::Dma],
        _ => &[Path::Pio],
    };
    for v in SP800_38A.iter().filter(|v| v.1 != Mode::Ecb) {
        for &path in paths {
            let kept = || board.ledger.get(Event::ContextKept);
            suite::held_context_only_when_it_matches(&mut rig, *v, PLAIN, path, &kept);
        }
    }
}

/// 40 blocks (above any crossover) chained over three requests per path, each in two
/// segments: the same ciphertext whichever way the bytes moved, and the IV carries over.
pub fn adaptive_and_forced_paths_agree<S: Soc>(board: &Board<S>) {
    let mut rig = board.rig();
    let plain: Vec<u8> = (0..640u32).map(|i| (i * 7) as u8).collect();
    let mut outs = Vec::new();
    for path in [Path::Pio, Path::Dma, Path::Adaptive] {
        let s = rig.open(Mode::Cbc, path, &hex(K256), &hex(CBC_IV)).unwrap();
        let mut out = Vec::new();
        for chunk in [&plain[..64], &plain[64..320], &plain[320..]] {
            let half = chunk.len() as u32 / 2;
            out.extend(
                rig.crypt(s, CipherOp::Encrypt, chunk, &[half, half], Layout::Aligned)
                    .unwrap(),
            );
        }
        outs.push(out);
    }
    assert_eq!(outs[0], outs[1]);
    assert_eq!(outs[0], outs[2]);
}

/// A key leaves the engine with its session: closing a session clears the key
/// registers (the model says they hold nothing, and counts `KeyCleared` once), and the
/// other session, whose key was cleared with them, still gets the right answer (its
/// next job loads its key again). Closed while its job is on the engine, the session's
/// key is cleared when the job ends, not under it: the job's answer is still right.
pub fn a_closed_sessions_key_leaves_the_engine<S: Soc>(board: &Board<S>) {
    let holds = || Model::<S>::holds_key(board.soc);
    let cleared = || board.ledger.get(Event::KeyCleared);
    let mut rig = board.rig();
    let v = SP800_38A
        .iter()
        .find(|v| v.1 == Mode::Cbc)
        .expect("a CBC vector");
    let (key, iv, want) = (hex(v.2), hex(v.3), hex(v.4));
    let plain = hex(PLAIN);
    assert!(!holds(), "init leaves no key in the engine");

    let a = rig.open(Mode::Cbc, Path::Pio, &key, &iv).unwrap();
    let b = rig.open(Mode::Cbc, Path::Pio, &key, &iv).unwrap();
    let out = rig.crypt(a, CipherOp::Encrypt, &plain[..16], &[16], Layout::Aligned);
    assert_eq!(out.unwrap(), want[..16]);
    assert!(holds(), "the engine holds the key it ran");
    let before = cleared();
    rig.service.close(CLIENT, a).unwrap();
    assert!(!holds(), "closing its session clears the key");
    assert_eq!(cleared() - before, 1, "counted once");
    let out = rig.crypt(b, CipherOp::Encrypt, &plain[..16], &[16], Layout::Aligned);
    assert_eq!(
        out.unwrap(),
        want[..16],
        "the other session loads its key again"
    );
    rig.service.close(CLIENT, b).unwrap();
    assert!(!holds());
    assert_eq!(cleared() - before, 2);
    let (refused, touched) = counted(board.ledger, || rig.service.close(CLIENT, b));
    refused.unwrap_err();
    assert_eq!(
        touched.get(Event::RegWrite),
        0,
        "a close that fails touches no register"
    );

    let c = rig.open(Mode::Cbc, Path::Pio, &key, &iv).unwrap();
    let n = plain.len() as u32;
    rig.bytes()[..plain.len()].copy_from_slice(&plain);
    let started = rig.serve_once(CLIENT, &[request(0, c, &[(0, n)])]);
    assert!(
        started.is_empty() && rig.service.busy(),
        "the job is on the engine"
    );
    rig.service.close(CLIENT, c).unwrap();
    assert!(holds(), "not cleared under a running job");
    let mut answers = Vec::new();
    for _ in 0..polls_for(&segs(&[(0, n)])) {
        answers.extend(rig.interrupt().1);
        if !rig.service.busy() {
            break;
        }
    }
    assert_eq!(answers.len(), 1, "the job was answered");
    status(&answers[0].1).unwrap();
    assert_eq!(rig.bytes()[..plain.len()], want[..], "and right");
    assert!(!holds(), "cleared once the job ended");
    assert_eq!(cleared() - before, 3);
    let loaded = board.ledger.get(Event::KeyLoaded);
    assert_eq!(
        loaded,
        cleared(),
        "every key that entered the engine left it"
    );
}
