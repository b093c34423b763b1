//! The OMAP AES driver PD: `omap-aes-driver` on am335x AES0 and EDMA, behind
//! `driver-pd`'s Cipher PD. One source for both backends: `soc-access` gives the
//! register windows (MMIO over the `aes` and `edma` regions on seL4, the am335x model on
//! the host), the scratch and the ledger; the engine's interrupts (AES, EDMA completion
//! and error) arrive on the PD's `<irq>` channels.
#![no_std]
