//! The machine of one engine whose data port the EDMA model serves over two request
//! lines (OMAP AES on am335x, CRYP1 on stm32mp1): what the DMA reaches (the engine's
//! data port by physical address, else the board's memory windows), the settling that
//! lets DMA run until nothing can move, and the CPU's bus to the two devices.

use crate::edma::{DmaSpace, Edma};
use crate::phys::{DmaFault, PhysMap};
use crate::power::GateBlock;
use crate::soc::{Machine, Soc};
use board::Device;
use cost_ledger::Ledger;
use mmio::{BusFault, RegisterBus};

/// Device index of the engine in a [`PortMachine`].
pub const DEV_ENGINE: usize = 0;
/// Device index of its DMA controller.
pub const DEV_DMA: usize = 1;

/// An engine with a data port that DMA request lines feed and drain.
pub trait DmaPort: RegisterBus {
    /// Whether a DMA access of `len` bytes at `offset` from the engine's base is its data
    /// port: the input when `write`, else the output.
    fn is_port(offset: u64, len: usize, write: bool) -> bool;
    /// A word into the data port, from the CPU or a DMA channel.
    fn push_word(&mut self, w: u32) -> Result<(), BusFault>;
    /// A word out of the data port (0 when none waits).
    fn pop_word(&mut self) -> Result<u32, BusFault>;
    /// Whether the engine requests DMA for input (a gated engine requests nothing).
    fn dma_in_request(&self) -> bool;
    /// Whether it requests DMA for output.
    fn dma_out_request(&self) -> bool;
    /// Whether its interrupt line is asserted.
    fn irq_line(&self) -> bool;
}

/// Most rounds of DMA events one register access runs ([`PortMachine`]'s settling):
/// 256 Ki, four times the events of a 1 MiB request in 16-byte bursts each way, far
/// past any a driver's job makes.
pub const SETTLE_EVENTS: u32 = 1 << 18;

/// An engine, its DMA controller and the memory the DMA reaches.
pub struct PortMachine<'a, E> {
    pub engine: E,
    pub dma: Edma<'a>,
    mem: &'a PhysMap<'a>,
    /// The engine as the board places it (base, DMA request lines).
    device: Device,
    /// The engine's interrupt, then the DMA controller's completion and error lines.
    irqs: &'static [u32; 3],
}

/// The SoC of `engine`, placed at `device` on its board, beside the DMA controller the
/// board places at `dma`; `irqs` are the engine's line, then the controller's completion
/// and error lines.
pub fn soc<'a, E: DmaPort>(
    engine: E,
    device: Device,
    dma: Device,
    irqs: &'static [u32; 3],
    mem: &'a PhysMap<'a>,
    gates: &'a GateBlock,
    ledger: &'a Ledger,
) -> Soc<'a, PortMachine<'a, E>> {
    let gate = dma.gate.expect("the DMA controller has a gate");
    let dma = Edma::new(ledger, gates, gate);
    Soc::new(PortMachine::new(engine, device, dma, irqs, mem), ledger)
}

impl<'a, E: DmaPort> PortMachine<'a, E> {
    /// `engine` at `device` on its board, `dma` with its completion and error lines.
    pub fn new(
        engine: E,
        device: Device,
        dma: Edma<'a>,
        irqs: &'static [u32; 3],
        mem: &'a PhysMap<'a>,
    ) -> Self {
        PortMachine {
            engine,
            dma,
            mem,
            device,
            irqs,
        }
    }

    /// Serves DMA requests until none can make progress: input first, then output (an
    /// input burst may fill the output); at most [`SETTLE_EVENTS`] rounds per register
    /// access. Real EDMA runs a transfer beside the CPU; the model runs it inside the
    /// access, so a driver's link loop (a set that links to a set that links to itself)
    /// would otherwise hold the access, and on seL4 the device PD at its priority, for
    /// ever. What is left goes on at the next access.
    fn settle(&mut self) {
        let (tx, rx) = self.device.dma.expect("a DMA port engine has DMA lines");
        for _ in 0..SETTLE_EVENTS {
            let mut moved = false;
            if self.engine.dma_in_request() {
                moved |= self.serve(tx);
            }
            if self.engine.dma_out_request() {
                moved |= self.serve(rx);
            }
            if !moved {
                return;
            }
        }
    }

    /// One event on DMA request `line`; whether it moved anything.
    fn serve(&mut self, line: usize) -> bool {
        let mut space = Space {
            engine: &mut self.engine,
            base: self.device.phys,
            mem: self.mem,
        };
        self.dma.event(line, &mut space)
    }
}

/// What the DMA reaches: the engine's data port by physical address, and the memory
/// windows.
struct Space<'m, 'a, E> {
    engine: &'m mut E,
    base: u64,
    mem: &'a PhysMap<'a>,
}

impl<E: DmaPort> Space<'_, '_, E> {
    /// If `len` bytes at `addr` are the engine's data port (the input when `write`): the
    /// fault to report should the engine refuse a word. `None` sends the access to memory.
    fn port(&self, addr: u32, len: usize, write: bool) -> Option<DmaFault> {
        let off = u64::from(addr).checked_sub(self.base)?;
        (len.is_multiple_of(4) && E::is_port(off, len, write)).then_some(DmaFault {
            addr: addr.into(),
            len,
        })
    }
}

impl<E: DmaPort> DmaSpace for Space<'_, '_, E> {
    fn read(&mut self, addr: u32, buf: &mut [u8]) -> Result<(), DmaFault> {
        let Some(fault) = self.port(addr, buf.len(), false) else {
            return self.mem.read(addr.into(), buf);
        };
        for chunk in buf.chunks_exact_mut(4) {
            let w = self.engine.pop_word().map_err(|_| fault)?;
            chunk.copy_from_slice(&w.to_le_bytes());
        }
        Ok(())
    }

    fn write(&mut self, addr: u32, data: &[u8]) -> Result<(), DmaFault> {
        let Some(fault) = self.port(addr, data.len(), true) else {
            return self.mem.write(addr.into(), data);
        };
        for chunk in data.chunks_exact(4) {
            let w = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
            self.engine.push_word(w).map_err(|_| fault)?;
        }
        Ok(())
    }
}

impl<E: DmaPort> Machine for PortMachine<'_, E> {
    fn irqs(&self) -> &'static [u32] {
        self.irqs
    }

    fn irq_asserted(&self, irq: u32) -> bool {
        match self.irqs.iter().position(|&i| i == irq) {
            Some(0) => self.engine.irq_line(),
            Some(1) => self.dma.completion_line(),
            Some(2) => self.dma.error_line(),
            _ => false,
        }
    }

    fn read(&mut self, dev: usize, offset: usize) -> Result<u32, BusFault> {
        let v = match dev {
            DEV_ENGINE => self.engine.read32(offset),
            _ => self.dma.read32(offset),
        };
        // A data-port read frees the output buffer: DMA may continue.
        self.settle();
        v
    }

    fn write(&mut self, dev: usize, offset: usize, value: u32) -> Result<(), BusFault> {
        match dev {
            DEV_ENGINE => self.engine.write32(offset, value)?,
            _ => self.dma.write32(offset, value)?,
        }
        self.settle();
        Ok(())
    }
}
