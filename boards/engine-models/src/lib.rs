//! Device models of the crypto engines, DMA and power/clock controllers, for the host.
//!
//! When there is no silicon, a driver's register bus is a model from this crate: the same
//! [`mmio::RegisterBus`] the driver uses for volatile MMIO on seL4, backed by state that
//! computes real results (RustCrypto) and counts every hardware-visible event in a
//! [`cost_ledger::Ledger`]. A board's cost table (crate `boards`) turns the counts into
//! modelled time.
//!
//! - Engines: [`omap_aes::OmapAes`], [`stm32_cryp::Stm32Cryp`], [`talitos::Sec1`] (with the
//!   [`mdeu`] hash unit); DMA: [`edma::Edma`]; power: [`power::ClockController`] and the
//!   shared [`power::GateBlock`].
//! - Machines, one per board, wire engines, DMA and the [`phys::PhysMap`] of DMA-reachable
//!   memory into a [`soc::Soc`]: [`am335x::am335x`], [`stm32mp1::stm32mp1`],
//!   [`mpc885::mpc885`] (the first two are one [`dma_port::PortMachine`]: an engine
//!   whose data port the EDMA model serves). A driver gets register ports, interrupt
//!   lines to poll and acknowledge, and nothing else of the model.
//!
//! Assumptions: work completes synchronously when the driver's access makes it possible
//! (time lives in the ledger, not in the model); one SoC model serves one driver thread;
//! DMA reaches memory only through the physical map (anything else is the hardware's bus
//! error, reported in the device's status registers); a gated engine answers
//! [`mmio::BusFault::Gated`]. `no_std`, no heap.
#![no_std]
#![deny(unsafe_op_in_unsafe_fn)]

pub mod aes_core;
pub mod am335x;
pub mod dma_port;
pub mod edma;
pub mod mdeu;
pub mod mpc885;
pub mod noise_control;
pub mod omap_aes;
pub mod phys;
pub mod power;
pub mod soc;
pub mod stm32_cryp;
pub mod stm32_rng;
pub mod stm32mp1;
pub mod talitos;
