//! Driver library for the ST STM32 CRYP engine (stm32mp1 CRYP1) with DMA, as an
//! isolated Cipher driver: the logic of the driver PD, testable on the host against the
//! engine models. The PD entry (someone else's) only wires buses, interrupts, the ledger
//! and regions into [`new`] and serves with `cipher-service`.
//!
//! What it does, per the stm32-cryp DMA change and upstream `stm32-cryp.c` (SOURCES.md):
//! * Upstream's DMA eligibility ([`route::dma_capable`], with `pio_dma_driver::route::choose`): more than 16 bytes, every
//!   segment 4-byte aligned, every segment but the last whole blocks. Eligible requests
//!   at or above the calibrated crossover go DMA straight from the client's segments; a
//!   last segment that is not block-aligned (CTR) goes DMA for its aligned part and CPU
//!   for the tail. Short or misaligned requests go CPU ("IT") mode, reported as
//!   `Path::Pio`. A forced `Dma` session whose request is not eligible gets
//!   `UnsupportedPath`.
//! * No CPU copy of client data on DMA, except the partial tail block (under 16 bytes,
//!   counted as `CpuCopyByte`, as upstream's tail is).
//! * The crossover is measured at init (`pio_dma_driver::calibrate`) per mode and key size by running
//!   both paths on the engine over a scratch buffer the driver owns.
//! * Key, IV and mode loaded from the session for every request (with the key
//!   preparation ECB/CBC decryption needs), IV read back after it: sessions interleave.
//! * Known-answer self-test on CPU mode, DMA and DMA with a CPU tail before serving
//!   (`init`); an engine that fails gets `EngineFault` on everything.
//!
//! Assumptions: the driver owns CRYP1, the two DMA channels of [`Config`] and the link
//! PaRAM sets `tx_links + 1` up to `tx_links + MAX_JOINED - 1`, and the same above
//! `rx_links`; the power grant is held while sessions are open (a gated engine answers
//! `NoPower`); segments were validated by `cipher-service`; the scratch region is
//! DMA-reachable, word-aligned and at least [`SCRATCH_BYTES`] long. `no_std`, no heap.
#![no_std]
#![forbid(unsafe_code)]

mod hw;
pub mod route;

pub use hw::{Config, Engine, HwError, STM32MP1};
pub use pio_dma_driver::{
    Calibration, Crossover, HwStep, LedgerMeter, Meter, Route, SCRATCH_BYTES, calibrate, kat,
};

use cipher_service::{ClientData, Job, Segments};
use mmio::RegisterBus;
use pio_dma_driver::{Driver, PioDmaEngine};

/// The driver: this crate's engine under the shared self-test, calibration and routing.
pub type Stm32CrypDriver<'a, A, D, M> = Driver<'a, Engine<A, D>, M>;
pub type Health = pio_dma_driver::Health<HwError>;
pub type InitError = pio_dma_driver::InitError<HwError>;
pub type SelfTestFailure = pio_dma_driver::SelfTestFailure<HwError>;

/// A driver that serves nothing until `init` (self-test, then calibration) succeeds.
pub fn new<'a, A, D, M>(
    cfg: Config,
    cryp: A,
    dma: D,
    meter: M,
    scratch: ClientData<'a>,
) -> Stm32CrypDriver<'a, A, D, M>
where
    A: RegisterBus,
    D: RegisterBus,
    M: Meter,
{
    Driver::new(Engine::new(cfg, cryp, dma), meter, scratch)
}

impl<A: RegisterBus, D: RegisterBus> PioDmaEngine for Engine<A, D> {
    type Error = HwError;
    const STALLED: HwError = HwError::Stalled;
    const MIN_DMA_BLOCKS: u32 = 2;
    const DMA_ALIGN: u64 = route::DMA_WORD;
    const KATS: &'static [&'static kat::Kat] = &kat::ALL_WITH_CTR_TAIL;

    fn dma_capable(&self, segs: &Segments, phys: Option<u64>) -> bool {
        route::dma_capable(segs, phys)
    }

    fn start(
        &mut self,
        route: Route,
        job: &Job<'_>,
        kept: bool,
        meter: &impl Meter,
    ) -> HwStep<HwError> {
        Engine::start(self, route, job, kept, meter)
    }

    fn interrupt(&mut self, job: &Job<'_>, meter: &impl Meter) -> HwStep<HwError> {
        Engine::interrupt(self, job, meter)
    }

    fn cancel(&mut self) {
        let _ = self.fail(HwError::Stalled);
    }
}
