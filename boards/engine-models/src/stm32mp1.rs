//! The stm32mp1 machine: CRYP1 with two DMA request lines served by the EDMA-like
//! controller, over the board's physical map ([`PortMachine`]).

use crate::dma_port::{self, PortMachine};
use crate::phys::PhysMap;
use crate::power::GateBlock;
use crate::soc::{Port, Soc};
use crate::stm32_cryp::Stm32Cryp;
use board::stm32mp1::{CRYP1, DMA, DMA_IRQ_COMPLETION, DMA_IRQ_ERROR};
use cost_ledger::Ledger;

/// Device indices of [`Stm32mp1`].
pub const DEV_CRYP: usize = dma_port::DEV_ENGINE;
pub const DEV_DMA: usize = dma_port::DEV_DMA;

/// CRYP1 and the DMA controller of an stm32mp1.
pub type Stm32mp1Machine<'a> = PortMachine<'a, Stm32Cryp<'a>>;

/// The SoC a driver for the stm32mp1 CRYP engine sees.
pub type Stm32mp1<'a> = Soc<'a, Stm32mp1Machine<'a>>;

/// Builds the stm32mp1 model over `mem`, gated by `gates`, counting into `ledger`.
pub fn stm32mp1<'a>(
    mem: &'a PhysMap<'a>,
    gates: &'a GateBlock,
    ledger: &'a Ledger,
) -> Stm32mp1<'a> {
    let cryp = Stm32Cryp::new(ledger, gates, CRYP1.gate.expect("CRYP1 has a gate"));
    const IRQS: [u32; 3] = [CRYP1.irqs[0], DMA_IRQ_COMPLETION, DMA_IRQ_ERROR];
    dma_port::soc(cryp, CRYP1, DMA, &IRQS, mem, gates, ledger)
}

impl<'a> Soc<'a, Stm32mp1Machine<'a>> {
    /// CRYP1's register bus.
    pub fn cryp(&self) -> Port<'_, Stm32mp1Machine<'a>> {
        self.port(DEV_CRYP)
    }
    /// The DMA controller's register bus.
    pub fn dma(&self) -> Port<'_, Stm32mp1Machine<'a>> {
        self.port(DEV_DMA)
    }
}
