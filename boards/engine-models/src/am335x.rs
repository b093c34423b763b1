//! The am335x machine: OMAP AES0 with its two EDMA request lines, and the EDMA
//! controller, over the board's physical map ([`PortMachine`]).

use crate::dma_port::{self, PortMachine};
use crate::omap_aes::OmapAes;
use crate::phys::PhysMap;
use crate::power::GateBlock;
use crate::soc::{Port, Soc};
use board::am335x::{AES0, EDMA, EDMA_IRQ_COMPLETION, EDMA_IRQ_ERROR};
use cost_ledger::Ledger;

/// Device indices of [`Am335x`].
pub const DEV_AES: usize = dma_port::DEV_ENGINE;
pub const DEV_EDMA: usize = dma_port::DEV_DMA;

/// AES0 and EDMA of an am335x.
pub type Am335xMachine<'a> = PortMachine<'a, OmapAes<'a>>;

/// The SoC a driver for the am335x AES engine sees.
pub type Am335x<'a> = Soc<'a, Am335xMachine<'a>>;

/// Builds the am335x model over `mem`, gated by `gates`, counting into `ledger`.
pub fn am335x<'a>(mem: &'a PhysMap<'a>, gates: &'a GateBlock, ledger: &'a Ledger) -> Am335x<'a> {
    let aes = OmapAes::new(ledger, gates, AES0.gate.expect("AES0 has a gate"));
    const IRQS: [u32; 3] = [AES0.irqs[0], EDMA_IRQ_COMPLETION, EDMA_IRQ_ERROR];
    dma_port::soc(aes, AES0, EDMA, &IRQS, mem, gates, ledger)
}

impl<'a> Soc<'a, Am335xMachine<'a>> {
    /// AES0's register bus.
    pub fn aes(&self) -> Port<'_, Am335xMachine<'a>> {
        self.port(DEV_AES)
    }
    /// The EDMA controller's register bus.
    pub fn edma(&self) -> Port<'_, Am335xMachine<'a>> {
        self.port(DEV_EDMA)
    }
}
