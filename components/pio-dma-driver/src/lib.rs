//! The engine-independent half of a Cipher driver whose engine has two ways to move data:
//! PIO (the CPU feeds the engine a block per interrupt) and DMA (straight from the
//! client's segments). OMAP AES and STM32 CRYP are such engines; each crate provides the
//! register-level half as a [`PioDmaEngine`], and this crate makes it a driver:
//!
//! * like Linux's testmgr, known-answer vectors on every route, both directions, checking
//!   output and the IV left for the next request, before anyone is served; an engine that
//!   fails is reported ([`Health::Failed`]) and every open and request gets `EngineFault`;
//! * the PIO/DMA crossover calibrated at init per mode and key size by running both
//!   routes on the engine and reading the [`Meter`]'s clock ([`calibrate`]), not only a
//!   constant (the omap-aes DMA/PIO series's "future work: switch PIO/DMA by block size");
//! * per request, the route from the session's path, the calibration and whether DMA can
//!   take the segments as they lie ([`route::choose`]);
//! * event-driven requests: [`PioDmaEngine::start`] programs the engine and returns,
//!   and each interrupt advances the request ([`PioDmaEngine::interrupt`]: the next PIO
//!   block, the end of a DMA transfer). Only init (self-test, calibration) polls for the
//!   interrupts, bounded by [`polls_for`], since a Microkit PD's `init` receives no
//!   notifications;
//! * what the two register halves do alike, written once for both: transfers on their
//!   EDMA-style controller ([`edma`]), a PIO job's block-by-block progress ([`pio`]),
//!   bytes through register words in the engine's byte order ([`regs`]).
//!
//! Assumes the driver owns a scratch buffer in a DMA-reachable region (self-test and
//! calibration run there, never in client memory). `no_std`, no heap.
#![no_std]
#![forbid(unsafe_code)]

pub mod calibrate;
pub mod edma;
pub mod kat;
mod meter;
#[cfg(feature = "pd")]
pub mod pd;
pub mod pio;
pub mod regs;
pub mod route;
#[cfg(feature = "testkit")]
extern crate std;
#[cfg(feature = "testkit")]
pub mod testkit;

pub use calibrate::{Calibration, Crossover};
pub use meter::{LedgerMeter, Meter};
pub use route::Route;

/// What an engine's crate re-exports beside its engine, so that its users find the
/// driver it makes in one place.
pub mod prelude {
    pub use crate::edma::Wiring;
    pub use crate::{
        Calibration, Crossover, Health, HwError, InitError, LedgerMeter, Meter, Route,
        SCRATCH_BYTES, SelfTestFailure, calibrate, kat,
    };
}

use cipher_service::{
    BLOCK, CipherEngine, ClientData, Finished, Job, Segments, Session, Step, validate,
};
use cost_ledger::Event;
use mmio::BusFault;
use pd_idl::cipher::{CipherError, CipherOp, Mode, Path, Request};
use pd_idl::wire::Caller;

/// What went wrong on the engine side of a request, for both engines' register halves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HwError {
    Bus(BusFault),
    /// An interrupt or status bit that should have come did not (timeout).
    Stalled,
    /// The engine refused its configuration (STM32: CRYPEN did not stick).
    Refused,
    /// The DMA controller reported a bus error at this address (a segment it cannot
    /// reach).
    DmaBus(u32),
}

impl From<BusFault> for HwError {
    fn from(f: BusFault) -> Self {
        HwError::Bus(f)
    }
}

impl From<HwError> for CipherError {
    fn from(e: HwError) -> Self {
        match e {
            // An unclocked engine: the driver lost its power grant.
            HwError::Bus(BusFault::Gated) => CipherError::NoPower,
            _ => CipherError::EngineFault,
        }
    }
}

/// Scratch bytes a driver needs for self-test and calibration.
pub const SCRATCH_BYTES: usize = calibrate::MAX_BLOCKS as usize * BLOCK as usize;

/// The register-level half of a driver. Its DMA goes through [`edma`], so the
/// controller's rules ([`edma::reaches`]) bound what [`dma_capable`](Self::dma_capable)
/// may accept; its errors are [`HwError`]s.
pub trait PioDmaEngine {
    /// Smallest request, in blocks, DMA may take (calibration starts there).
    const MIN_DMA_BLOCKS: u32;
    /// The vectors the self-test runs: every route this engine uses must be exercised.
    const KATS: &'static [&'static kat::Kat];

    /// Whether DMA can take `segs` of a region at physical address `phys` as they lie.
    fn dma_capable(&self, segs: &Segments, phys: Option<u64>) -> bool;

    /// Readies the engine for `job`, loading its key, IV and mode unless `kept`: the
    /// engine still holds exactly this job's context (the driver saw its last job end
    /// with this key, IV and direction; see [`Context`]). The job has bytes: the driver
    /// finishes an empty one itself, touching no register.
    fn load(&mut self, job: &Job<'_>, kept: bool) -> Result<(), HwError>;

    /// After `load`: starts `job` on `route` without waiting; its interrupts do the rest.
    fn start(&mut self, route: Route, job: &Job<'_>, meter: &impl Meter) -> Result<(), HwError>;

    /// Advances the job in flight on one of the engine's interrupts: reads and clears
    /// the status, moves the next block or ends the transfer; `Ok(true)` once the job's
    /// last byte is back. With nothing pending it returns `Ok(false)` and changes
    /// nothing. Counts each interrupt it services as `Event::Interrupt`.
    fn interrupt(&mut self, job: &Job<'_>, meter: &impl Meter) -> Result<bool, HwError>;

    /// After `interrupt`'s `Ok(true)`: ends the job on the engine and returns the IV it
    /// left for the session's next request.
    fn finish(&mut self, job: &Job<'_>) -> Result<[u8; 16], HwError>;

    /// Abandons whatever the engine was doing and resets it for the next job: after any
    /// error of the calls above, and when a job's interrupts stopped coming.
    fn reset(&mut self);

    /// Overwrites every key register with zeros: a key leaves the engine when its
    /// session ends. Called with no job in flight.
    fn clear_key(&mut self) -> Result<(), HwError>;
}

/// A job's context as an engine loads it: what must match for the engine to run the
/// next job without loading anything (the session's key, mode and IV, and the
/// direction). The driver keeps the one its engine holds after a job that succeeded
/// (the IV the engine's registers hold then), and forgets it while a job runs, after
/// any failure or cancel, and when power may have been lost.
// No `PartialEq`: it holds a key; compare with `is`, in constant time.
#[derive(Clone, Copy, Debug)]
pub struct Context {
    pub op: CipherOp,
    pub mode: Mode,
    pub key_len: u8,
    pub key: [u8; 32],
    pub iv: [u8; 16],
}

impl Context {
    /// Whether this is `other`, key and IV compared in constant time (as
    /// `Session::has_key`): the held context is another client's key, and a compare
    /// that stopped at the first differing byte would time how much of it a client's
    /// own key shares.
    pub fn is(&self, other: &Context) -> bool {
        let differ = |a: &[u8], b: &[u8]| a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y));
        let diff = differ(&self.key, &other.key) | differ(&self.iv, &other.iv);
        diff == 0 && (self.op, self.mode, self.key_len) == (other.op, other.mode, other.key_len)
    }

    /// The context `job` needs.
    pub fn of(job: &Job<'_>) -> Context {
        Context {
            op: job.op,
            mode: job.session.mode,
            key_len: job.session.key_len,
            key: job.session.key,
            iv: job.session.iv,
        }
    }
}

/// Where a job stands on the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HwStep {
    Pending,
    /// Finished, with the IV the engine left for the session's next request.
    Done(Result<[u8; 16], HwError>),
}

/// Interrupt polls init allows a job before calling the engine stalled: PIO takes two
/// interrupts a block, a DMA transfer one (and a partial tail block two more).
pub fn polls_for(segs: &Segments) -> u32 {
    4 * segs.total().div_ceil(BLOCK) + 16
}

/// Which known-answer test failed, on which route, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SelfTestFailure {
    pub vector: &'static str,
    pub route: Route,
    pub op: CipherOp,
    /// `None`: the engine answered, wrongly; `Some`: it failed to answer.
    pub engine_error: Option<HwError>,
}

/// Whether the driver may serve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Health {
    /// `init` has not run (or not finished): nothing is served.
    Untested,
    Ready,
    /// The self-test failed: nothing is served.
    Failed(SelfTestFailure),
}

/// Why `init` did not make the driver ready.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitError {
    /// The scratch region is too small, unaligned or not DMA-reachable.
    Scratch,
    SelfTest(SelfTestFailure),
    /// The engine failed while calibrating.
    Calibration(HwError),
}

/// A driver: engine `E`, meter `M`, and its scratch buffer.
pub struct Driver<'a, E: PioDmaEngine, M> {
    engine: E,
    meter: M,
    scratch: ClientData<'a>,
    health: Health,
    calibration: Calibration,
    /// The route of the job in flight.
    route: Route,
    /// The context the engine holds, if known (see [`Context`]).
    held: Option<Context>,
    /// A job is on the engine.
    busy: bool,
    /// A session closed whose key the engine may hold: clear it once no job runs.
    clear: bool,
    /// A session closed since the PD last asked ([`CipherEngine::touched_keys`]): the
    /// copies of its key that loading it made on the stack (a compared `Context`, the
    /// words written to the registers) are scrubbed with the stack.
    scrub: bool,
}

/// A one-segment request over `len` bytes at the start of a region of `region` bytes.
fn whole(len: usize, region: usize, mode: Mode) -> Result<Segments, CipherError> {
    let request = Request::over(0, 0, CipherOp::Encrypt, &[(0, len as u32)]);
    validate(&request, region, mode)
}

fn test_session(mode: Mode, key: &[u8], iv: [u8; 16]) -> Session {
    let mut k = [0u8; 32];
    k[..key.len()].copy_from_slice(key);
    Session {
        owner: Caller(0),
        mode,
        path: Path::Adaptive,
        key_len: key.len() as u8,
        key: k,
        iv,
        usage: cipher_service::ENCRYPT | cipher_service::DECRYPT,
    }
}

impl<'a, E: PioDmaEngine, M: Meter> Driver<'a, E, M> {
    /// A driver that serves nothing until [`init`](Self::init) succeeds.
    pub fn new(engine: E, meter: M, scratch: ClientData<'a>) -> Self {
        Driver {
            engine,
            meter,
            scratch,
            health: Health::Untested,
            calibration: Calibration::UNCALIBRATED,
            route: Route::Pio,
            held: None,
            busy: false,
            clear: false,
            scrub: false,
        }
    }

    /// Self-test on every route, then calibration; on success the driver serves.
    pub fn init(&mut self) -> Result<&Calibration, InitError> {
        // The self-test and calibration run DMA on the scratch without `dma_capable`:
        // it must be aligned and below 4 GiB (the engines' DMA addresses are 32-bit).
        let usable = self.scratch.phys.is_some_and(|p| {
            p % edma::WORD == 0
                && p.checked_add(SCRATCH_BYTES as u64)
                    .is_some_and(|end| end <= 1 << 32)
        });
        if !usable || self.scratch.len() < SCRATCH_BYTES {
            return Err(InitError::Scratch);
        }
        self.self_test().map_err(InitError::SelfTest)?;
        self.calibration = self.calibrate()?;
        // The vectors' keys are published, but the engine starts serving holding none.
        self.clear = true;
        self.clear_if_idle();
        self.health = Health::Ready;
        Ok(&self.calibration)
    }

    pub fn health(&self) -> Health {
        self.health
    }

    /// The calibrated crossovers (all `NEVER` before `init`).
    pub fn calibration(&self) -> &Calibration {
        &self.calibration
    }

    pub fn engine(&mut self) -> &mut E {
        &mut self.engine
    }

    /// Runs every known-answer vector on both routes, both directions. A failure marks
    /// the driver failed, whenever it runs; only an `init` that passes makes it serve
    /// again.
    pub fn self_test(&mut self) -> Result<(), SelfTestFailure> {
        let result = self.run_kats();
        if let Err(f) = result {
            self.health = Health::Failed(f);
        }
        result
    }

    fn run_kats(&mut self) -> Result<(), SelfTestFailure> {
        for kat in E::KATS {
            for route in [Route::Pio, Route::Dma] {
                for op in [CipherOp::Encrypt, CipherOp::Decrypt] {
                    let fail = |engine_error| SelfTestFailure {
                        vector: kat.name,
                        route,
                        op,
                        engine_error,
                    };
                    let (input, want) = match op {
                        CipherOp::Encrypt | CipherOp::EncryptNewIv => (kat.plain, kat.cipher),
                        CipherOp::Decrypt => (kat.cipher, kat.plain),
                    };
                    let n = input.len();
                    let segs = whole(n, self.scratch.len(), kat.mode).map_err(|_| fail(None))?;
                    self.scratch.region.write_bytes(0, input);
                    let job = Job::one(
                        test_session(kat.mode, kat.key, kat.iv),
                        op,
                        segs,
                        self.scratch,
                    );
                    let iv = self.run_polled(route, &job).map_err(|e| fail(Some(e)))?;
                    let mut out = [0u8; SCRATCH_BYTES];
                    self.scratch.region.read_bytes(0, &mut out[..n]);
                    if out[..n] != *want || iv != kat::iv_after(kat) {
                        return Err(fail(None));
                    }
                }
            }
        }
        Ok(())
    }

    fn calibrate(&mut self) -> Result<Calibration, InitError> {
        let mut cal = Calibration::UNCALIBRATED;
        for (m, &mode) in calibrate::MODES.iter().enumerate() {
            for (k, &key_len) in calibrate::KEY_LENS.iter().enumerate() {
                cal.table[m][k] = calibrate::find(E::MIN_DMA_BLOCKS, |blocks| {
                    self.measure(mode, key_len, blocks)
                })?;
            }
        }
        Ok(cal)
    }

    /// Modelled (or timed) picoseconds of one request of `blocks` blocks on each route.
    fn measure(&mut self, mode: Mode, key_len: u8, blocks: u32) -> Result<(u64, u64), InitError> {
        let n = blocks as usize * BLOCK as usize;
        let segs = whole(n, self.scratch.len(), mode).map_err(|_| InitError::Scratch)?;
        let mut took = [0u64; 2];
        for (i, route) in [Route::Pio, Route::Dma].into_iter().enumerate() {
            let job = Job::one(
                test_session(mode, &[0x5a; 32][..usize::from(key_len)], [0; 16]),
                CipherOp::Encrypt,
                segs,
                self.scratch,
            );
            let t0 = self.meter.now_ps();
            self.run_polled(route, &job)
                .map_err(InitError::Calibration)?;
            took[i] = self.meter.now_ps().saturating_sub(t0);
        }
        Ok((took[0], took[1]))
    }

    /// Init only: runs `job` on `route` polling for its interrupts, bounded;
    /// `Stalled` if it never finished.
    fn run_polled(&mut self, route: Route, job: &Job<'_>) -> Result<[u8; 16], HwError> {
        let mut step = self.begin(route, job);
        // BOUNDED POLL (init: self-test and calibration; a Microkit init gets no
        // notifications).
        for _ in 0..polls_for(&job.segs) {
            if !matches!(step, HwStep::Pending) {
                break;
            }
            step = self.advance(job);
        }
        match step {
            HwStep::Done(result) => result,
            HwStep::Pending => {
                self.engine.reset();
                self.busy = false;
                Err(HwError::Stalled)
            }
        }
    }

    /// Starts `job` on `route`, telling the engine whether it still holds the job's
    /// context (counted as `ContextKept`). A job of no bytes touches no register, so
    /// what the engine holds stays known.
    fn begin(&mut self, route: Route, job: &Job<'_>) -> HwStep {
        if job.segs.total() == 0 {
            return HwStep::Done(Ok(job.session.iv));
        }
        let kept = self.held.as_ref().is_some_and(|h| h.is(&Context::of(job)));
        if kept {
            self.meter.count(Event::ContextKept, 1);
        }
        // Unknown while the job runs, and after it unless it succeeds.
        self.forget_held();
        self.busy = true;
        let engine = &mut self.engine;
        let started = engine
            .load(job, kept)
            .and_then(|()| engine.start(route, job, &self.meter));
        match started {
            Ok(()) => HwStep::Pending,
            Err(e) => self.failed(e),
        }
    }

    /// Clears the engine's key registers, and the driver's copy of the context, if a
    /// closed session asked for it and no job runs. The registers of an engine whose
    /// clock was taken cannot be written: the clear stays asked for, and is tried again
    /// when a job ends and when power comes back (`context_lost`).
    fn clear_if_idle(&mut self) {
        if !self.clear || self.busy {
            return;
        }
        self.forget_held();
        self.clear = self.engine.clear_key().is_err();
    }

    /// Forgets the held context, its key and IV overwritten: writing `None` over it
    /// would leave their bytes where they were.
    #[inline(never)]
    fn forget_held(&mut self) {
        if let Some(held) = self.held.as_mut() {
            zeroize::Zeroize::zeroize(&mut held.key);
            zeroize::Zeroize::zeroize(&mut held.iv);
        }
        self.held = None;
    }

    /// The job in flight on one of the engine's interrupts. After a success the engine
    /// holds the job's context, with the IV it left.
    fn advance(&mut self, job: &Job<'_>) -> HwStep {
        let ended = self
            .engine
            .interrupt(job, &self.meter)
            .and_then(|done| done.then(|| self.engine.finish(job)).transpose());
        let step = match ended {
            Ok(None) => return HwStep::Pending,
            Ok(Some(iv)) => {
                self.held = Some(Context {
                    iv,
                    ..Context::of(job)
                });
                self.busy = false;
                HwStep::Done(Ok(iv))
            }
            Err(e) => self.failed(e),
        };
        self.clear_if_idle();
        step
    }

    /// Ends the job with `e`, the engine reset so the next job starts clean.
    fn failed(&mut self, e: HwError) -> HwStep {
        self.engine.reset();
        self.busy = false;
        HwStep::Done(Err(e))
    }

    fn ready(&self) -> Result<(), CipherError> {
        match self.health {
            Health::Ready => Ok(()),
            _ => Err(CipherError::EngineFault),
        }
    }
}

impl<E: PioDmaEngine, M: Meter> CipherEngine for Driver<'_, E, M> {
    fn supports(&self, session: &Session) -> Result<(), CipherError> {
        self.ready()?;
        match session.path {
            Path::Cpu => Err(CipherError::UnsupportedPath),
            Path::Adaptive | Path::Pio | Path::Dma => Ok(()),
        }
    }

    /// Consecutive requests of a session run as one transfer (one context load, one
    /// DMA start for all: the DMA controller links the descriptors of all their
    /// segments; Linux's drivers start one transfer per request). On a forced DMA path
    /// only requests DMA takes alone join, so joining never changes what a request
    /// gets; on the adaptive path the route is chosen for the joined bytes.
    fn coalesces(&self, job: &Job<'_>) -> bool {
        match job.session.path {
            Path::Dma => self.engine.dma_capable(&job.segs, job.data.phys),
            Path::Pio | Path::Adaptive => true,
            Path::Cpu => false,
        }
    }

    /// A job runs on the engine's interrupts (a PIO block, a DMA completion), so a
    /// large one may go in pieces between other clients' jobs.
    fn splits(&self) -> bool {
        true
    }

    fn start(&mut self, job: &Job<'_>) -> Step {
        if let Err(e) = self.ready() {
            return Step::Done(Err(e));
        }
        // Each client request carries the per-request software cost, joined or not.
        self.meter.count(Event::Request, u64::from(job.requests));
        let session = &job.session;
        let crossover = self.calibration.get(session.mode, session.key_len);
        let dma_capable = self.engine.dma_capable(&job.segs, job.data.phys);
        let route = match route::choose(
            session.path,
            &job.segs,
            dma_capable,
            crossover.dma_from_bytes,
        ) {
            Ok(route) => route,
            Err(e) => return Step::Done(Err(e)),
        };
        self.route = route;
        let step = self.begin(route, job);
        self.step(step)
    }

    fn interrupt(&mut self, job: &Job<'_>) -> Step {
        let step = self.advance(job);
        self.step(step)
    }

    fn cancel(&mut self, _: &Job<'_>) {
        self.forget_held();
        self.engine.reset();
        self.busy = false;
        self.clear_if_idle();
    }

    fn context_lost(&mut self) {
        self.forget_held();
        self.clear_if_idle();
    }

    /// The engine may hold the closed session's key (it holds the last job's): its
    /// registers are cleared, at once or when the job on the engine ends. Not asked
    /// whose key they hold, which a key compare would have to answer in constant time:
    /// when another session's is there, its next job loads it again (one load per
    /// close).
    fn closed(&mut self, _: &Session) {
        (self.clear, self.scrub) = (true, true);
        self.clear_if_idle();
    }

    fn touched_keys(&mut self) -> bool {
        core::mem::take(&mut self.scrub)
    }
}

impl<E: PioDmaEngine, M: Meter> Driver<'_, E, M> {
    fn step(&self, step: HwStep) -> Step {
        match step {
            HwStep::Pending => Step::Pending,
            HwStep::Done(result) => Step::Done(
                result
                    .map(|next_iv| Finished::new(self.route.into(), next_iv))
                    .map_err(Into::into),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_context_is_only_itself() {
        let held = Context {
            op: CipherOp::Encrypt,
            mode: Mode::Cbc,
            key_len: 16,
            key: [7; 32],
            iv: [9; 16],
        };
        assert!(held.is(&held));
        let mut key = held;
        key.key[15] ^= 1;
        let mut iv = held;
        iv.iv[15] ^= 1;
        let op = Context {
            op: CipherOp::Decrypt,
            ..held
        };
        let len = Context {
            key_len: 24,
            ..held
        };
        for other in [key, iv, op, len] {
            assert!(!held.is(&other) && !other.is(&held), "{other:?}");
        }
    }
}
