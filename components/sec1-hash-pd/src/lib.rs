//! The talitos SEC1 hash driver PD: `sec1-hash-driver` on the mpc885's SEC 1.2, behind
//! `driver-pd`'s Digest PD. One source for both backends: `soc-access` gives the
//! register window (MMIO over the `sec` region on seL4, the mpc885 model on the host),
//! the scratch where descriptors and contexts live, and the ledger; the channel's done
//! interrupt arrives on the PD's `<irq>` channel.
#![no_std]

use sec1_hash_driver::hw::{DmaFault, DmaMemory};
use soc_access::DmaView;

/// The CPU's view of the driver's DMA memory, as the SEC1 driver reads and writes it.
pub struct Mem(pub DmaView);

impl DmaMemory for Mem {
    fn read(&self, phys: u32, buf: &mut [u8]) -> Result<(), DmaFault> {
        self.0.read(phys.into(), buf).then_some(()).ok_or(DmaFault)
    }

    fn write(&self, phys: u32, data: &[u8]) -> Result<(), DmaFault> {
        self.0
            .write(phys.into(), data)
            .then_some(())
            .ok_or(DmaFault)
    }
}
