//! Driver library for the ST STM32 CRYP engine (stm32mp1 CRYP1) with DMA, as an
//! isolated Cipher driver: the logic of the driver PD, testable on the host against the
//! engine models. The PD entry only wires buses, interrupts, the ledger and regions into
//! a [`Stm32CrypDriver`] and serves with `cipher-service`.
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
//! Assumptions: the driver owns CRYP1, the two DMA channels of its [`Wiring`] and the
//! PaRAM link sets from `tx_links`/`rx_links` (`MAX_JOINED` - 1 each); the power grant is held while sessions are open (a gated engine answers
//! `NoPower`); segments were validated by `cipher-service`; the scratch region is
//! DMA-reachable, word-aligned and at least [`SCRATCH_BYTES`] long. `no_std`, no heap.
#![no_std]
#![forbid(unsafe_code)]

mod hw;
pub mod route;

pub use hw::{Engine, STM32MP1};
pub use pio_dma_driver::prelude::*;

/// [`Engine`] under the shared self-test, calibration and routing; serves nothing until
/// `init` succeeds.
pub type Stm32CrypDriver<'a, A, D, M> = pio_dma_driver::Driver<'a, Engine<A, D>, M>;
