//! Driver library for the TI OMAP AES engine (omap4 layout, AM335x AES0) with EDMA, as
//! an isolated Cipher driver: the logic of the driver PD, testable on the host against
//! the engine models. The PD entry only wires buses, the ledger and regions into an
//! [`OmapAesDriver`] and serves with `cipher-service`, handing the engine's interrupts
//! (AES, EDMA completion and error) to `CipherEngine::interrupt`.
//!
//! What it does, per the project's source documents (the omap-aes DMA/PIO series, SOURCES.md):
//! * Per request PIO or DMA (`pio_dma_driver::route::choose` over [`route::dma_capable`]): DMA for requests at or above the
//!   calibrated crossover whose segments DMA can take as they lie; everything else PIO.
//!   A session may force `Pio` or `Dma`; a forced `Dma` request that DMA cannot take is
//!   refused with `UnsupportedPath`, never bounced through a copy.
//! * DMA straight from the client's scatter-gather list by physical address (region
//!   address + segment offset), one linked PaRAM set per segment: no CPU copy.
//! * The crossover is measured at init (`pio_dma_driver::calibrate`) per mode and key size by running
//!   both paths on the engine over a scratch buffer the driver owns.
//! * Key, IV and mode are loaded from the session for every request and the IV read
//!   back after it, so sessions of different clients interleave on one engine.
//! * Known-answer self-test on every path before serving (`init`); an
//!   engine that fails is reported and every open and request gets `EngineFault`.
//!
//! Assumptions: the driver owns the engine, the two EDMA channels of its [`Wiring`] and the
//! PaRAM link sets from `tx_links`/`rx_links` (`MAX_JOINED` - 1 each); the power grant
//! is held while sessions are open (a gated engine answers `NoPower`); segments were validated by
//! `cipher-service`; the scratch region is DMA-reachable, word-aligned and at least
//! [`SCRATCH_BYTES`] long. `no_std`, no heap.
#![no_std]
#![forbid(unsafe_code)]

mod hw;
pub mod route;

pub use hw::{AM335X, Engine};
pub use pio_dma_driver::prelude::*;

/// [`Engine`] under the shared self-test, calibration and routing; serves nothing until
/// `init` succeeds.
pub type OmapAesDriver<'a, A, D, M> = pio_dma_driver::Driver<'a, Engine<A, D>, M>;
