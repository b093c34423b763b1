//! The am335x machine: OMAP AES0 with its two EDMA request lines, and the EDMA
//! controller, over the board's physical map.

use crate::edma::{DmaSpace, Edma};
use crate::omap_aes::OmapAes;
use crate::phys::{DmaFault, PhysMap};
use crate::power::GateBlock;
use crate::soc::{Machine, Port, Soc};
use boards::am335x::{AES0, EDMA, EDMA_IRQ_COMPLETION, EDMA_IRQ_ERROR};
use cost_ledger::Ledger;
use mmio::omap_aes as aes_regs;
use mmio::{BusFault, RegisterBus};

/// Device indices of [`Am335x`].
pub const DEV_AES: usize = 0;
pub const DEV_EDMA: usize = 1;

/// AES0 and EDMA of an am335x.
pub struct Am335xMachine<'a> {
    pub aes: OmapAes<'a>,
    pub edma: Edma<'a>,
    mem: &'a PhysMap<'a>,
}

/// The SoC a driver for the am335x AES engine sees.
pub type Am335x<'a> = Soc<'a, Am335xMachine<'a>>;

/// Builds the am335x model over `mem`, gated by `gates`, counting into `ledger`.
pub fn am335x<'a>(mem: &'a PhysMap<'a>, gates: &'a GateBlock, ledger: &'a Ledger) -> Am335x<'a> {
    let aes = OmapAes::new(ledger, gates, AES0.gate.expect("AES0 has a gate"));
    let edma = Edma::new(ledger, gates, EDMA.gate.expect("EDMA has a gate"));
    Soc::new(Am335xMachine { aes, edma, mem }, ledger)
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

/// What EDMA reaches: AES0's data port by physical address, and the memory windows.
struct Space<'m, 'a> {
    aes: &'m mut OmapAes<'a>,
    mem: &'a PhysMap<'a>,
}

impl Space<'_, '_> {
    /// The data-port word index for a physical address inside AES0's DATA_N registers.
    fn data_port(addr: u32, len: usize) -> Option<usize> {
        let off = u64::from(addr).checked_sub(AES0.phys)? as usize;
        let first = aes_regs::data(0);
        let last = aes_regs::data(aes_regs::BLOCK_WORDS - 1) + 4;
        (off >= first && off + len <= last && len.is_multiple_of(4)).then_some(len / 4)
    }
}

impl DmaSpace for Space<'_, '_> {
    fn read(&mut self, addr: u32, buf: &mut [u8]) -> Result<(), DmaFault> {
        let fault = DmaFault {
            addr: addr.into(),
            len: buf.len(),
        };
        if Self::data_port(addr, buf.len()).is_some() {
            for chunk in buf.chunks_exact_mut(4) {
                let w = self.aes.pop_word().map_err(|_| fault)?;
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
        if Self::data_port(addr, data.len()).is_some() {
            for chunk in data.chunks_exact(4) {
                let w = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
                self.aes.push_word(w).map_err(|_| fault)?;
            }
            return Ok(());
        }
        self.mem.write(addr.into(), data)
    }
}

impl Am335xMachine<'_> {
    /// Serves DMA requests until none can make progress.
    fn settle(&mut self) {
        let (tx, rx) = AES0.dma.expect("AES0 has DMA lines");
        loop {
            let mut moved = false;
            if self.aes.dma_in_request() {
                let mut space = Space {
                    aes: &mut self.aes,
                    mem: self.mem,
                };
                moved |= self.edma.event(tx, &mut space);
            }
            if self.aes.dma_out_request() {
                let mut space = Space {
                    aes: &mut self.aes,
                    mem: self.mem,
                };
                moved |= self.edma.event(rx, &mut space);
            }
            if !moved {
                return;
            }
        }
    }
}

impl Machine for Am335xMachine<'_> {
    fn irqs(&self) -> &'static [u32] {
        const IRQS: [u32; 3] = [AES0.irqs[0], EDMA_IRQ_COMPLETION, EDMA_IRQ_ERROR];
        &IRQS
    }

    fn irq_asserted(&self, irq: u32) -> bool {
        match irq {
            i if i == AES0.irqs[0] => self.aes.irq_line(),
            EDMA_IRQ_COMPLETION => self.edma.completion_line(),
            EDMA_IRQ_ERROR => self.edma.error_line(),
            _ => false,
        }
    }

    fn read(&mut self, dev: usize, offset: usize) -> Result<u32, BusFault> {
        let v = match dev {
            DEV_AES => self.aes.read32(offset),
            _ => self.edma.read32(offset),
        };
        // A data-port read frees the output buffer: DMA may continue.
        self.settle();
        v
    }

    fn write(&mut self, dev: usize, offset: usize, value: u32) -> Result<(), BusFault> {
        match dev {
            DEV_AES => self.aes.write32(offset, value)?,
            _ => self.edma.write32(offset, value)?,
        }
        self.settle();
        Ok(())
    }
}
