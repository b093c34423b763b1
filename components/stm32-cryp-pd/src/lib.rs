//! The STM32 CRYP driver PD: `stm32-cryp-driver` on stm32mp1 CRYP1 and its DMA, behind
//! `driver-pd`'s Cipher PD. One source for both backends: `soc-access` gives the
//! register windows (MMIO over the `cryp` and `dma` regions on seL4, the stm32mp1 model
//! on the host), the scratch and the ledger; the engine's interrupts (CRYP, DMA
//! completion and error) arrive on the PD's `<irq>` channels.
#![no_std]
