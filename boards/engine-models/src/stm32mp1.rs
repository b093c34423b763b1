//! The stm32mp1 machine: CRYP1 with two DMA request lines served by the EDMA-like
//! controller, over the board's physical map.

use crate::edma::{DmaSpace, Edma};
use crate::phys::{DmaFault, PhysMap};
use crate::power::GateBlock;
use crate::soc::{Machine, Port, Soc};
use crate::stm32_cryp::Stm32Cryp;
use boards::stm32mp1::{CRYP1, DMA, DMA_IRQ_COMPLETION, DMA_IRQ_ERROR};
use cost_ledger::Ledger;
use mmio::stm32_cryp as cryp_regs;
use mmio::{BusFault, RegisterBus};

/// Device indices of [`Stm32mp1`].
pub const DEV_CRYP: usize = 0;
pub const DEV_DMA: usize = 1;

/// CRYP1 and the DMA controller of an stm32mp1.
pub struct Stm32mp1Machine<'a> {
    pub cryp: Stm32Cryp<'a>,
    pub dma: Edma<'a>,
    mem: &'a PhysMap<'a>,
}

/// The SoC a driver for the stm32mp1 CRYP engine sees.
pub type Stm32mp1<'a> = Soc<'a, Stm32mp1Machine<'a>>;

/// Builds the stm32mp1 model over `mem`, gated by `gates`, counting into `ledger`.
pub fn stm32mp1<'a>(
    mem: &'a PhysMap<'a>,
    gates: &'a GateBlock,
    ledger: &'a Ledger,
) -> Stm32mp1<'a> {
    let cryp = Stm32Cryp::new(ledger, gates, CRYP1.gate.expect("CRYP1 has a gate"));
    let dma = Edma::new(ledger, gates, DMA.gate.expect("DMA has a gate"));
    Soc::new(Stm32mp1Machine { cryp, dma, mem }, ledger)
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

/// What the DMA reaches: CRYP1's DIN/DOUT by physical address, and the memory windows.
struct Space<'m, 'a> {
    cryp: &'m mut Stm32Cryp<'a>,
    mem: &'a PhysMap<'a>,
}

impl DmaSpace for Space<'_, '_> {
    fn read(&mut self, addr: u32, buf: &mut [u8]) -> Result<(), DmaFault> {
        let fault = DmaFault {
            addr: addr.into(),
            len: buf.len(),
        };
        if u64::from(addr) == CRYP1.phys + cryp_regs::DOUT as u64 && buf.len().is_multiple_of(4) {
            for chunk in buf.chunks_exact_mut(4) {
                let w = self.cryp.pop_word().map_err(|_| fault)?;
                chunk.copy_from_slice(&w.to_le_bytes());
            }
            return Ok(());
        }
        self.mem.read(addr.into(), buf)
    }

    fn write(&mut self, addr: u32, data: &[u8]) -> Result<(), DmaFault> {
        let fault = DmaFault {
            addr: addr.into(),
            len: data.len(),
        };
        if u64::from(addr) == CRYP1.phys + cryp_regs::DIN as u64 && data.len().is_multiple_of(4) {
            for chunk in data.chunks_exact(4) {
                let w = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
                self.cryp.push_word(w).map_err(|_| fault)?;
            }
            return Ok(());
        }
        self.mem.write(addr.into(), data)
    }
}

impl Stm32mp1Machine<'_> {
    /// Serves DMA requests until none can make progress.
    fn settle(&mut self) {
        let (tx, rx) = CRYP1.dma.expect("CRYP1 has DMA lines");
        loop {
            let mut moved = false;
            if self.cryp.dma_in_request() {
                let mut space = Space {
                    cryp: &mut self.cryp,
                    mem: self.mem,
                };
                moved |= self.dma.event(tx, &mut space);
            }
            if self.cryp.dma_out_request() {
                let mut space = Space {
                    cryp: &mut self.cryp,
                    mem: self.mem,
                };
                moved |= self.dma.event(rx, &mut space);
            }
            if !moved {
                return;
            }
        }
    }
}

impl Machine for Stm32mp1Machine<'_> {
    fn irqs(&self) -> &'static [u32] {
        const IRQS: [u32; 3] = [CRYP1.irqs[0], DMA_IRQ_COMPLETION, DMA_IRQ_ERROR];
        &IRQS
    }

    fn irq_asserted(&self, irq: u32) -> bool {
        match irq {
            i if i == CRYP1.irqs[0] => self.cryp.irq_line(),
            DMA_IRQ_COMPLETION => self.dma.completion_line(),
            DMA_IRQ_ERROR => self.dma.error_line(),
            _ => false,
        }
    }

    fn read(&mut self, dev: usize, offset: usize) -> Result<u32, BusFault> {
        let v = match dev {
            DEV_CRYP => self.cryp.read32(offset),
            _ => self.dma.read32(offset),
        };
        self.settle();
        v
    }

    fn write(&mut self, dev: usize, offset: usize, value: u32) -> Result<(), BusFault> {
        match dev {
            DEV_CRYP => self.cryp.write32(offset, value)?,
            _ => self.dma.write32(offset, value)?,
        }
        self.settle();
        Ok(())
    }
}
