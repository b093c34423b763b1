//! SEC1 channel 0: bring-up, and running one chain of hash descriptors to completion.

use crate::hw::{DmaMemory, Irq};
use crate::layout::{DESC_SLOTS, Scratch};
use mmio::RegisterBus;
use mmio::talitos::{self as t, Desc, cccr, hdr, isr};
use zerocopy::IntoBytes;
use zerocopy::big_endian::U32;

/// Why the engine did not finish a chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// A register access failed (a gated engine, a bad window).
    Bus(mmio::BusFault),
    /// The CPU could not reach the driver's DMA memory.
    Dma,
    /// The channel stopped with these CCPSR error bits.
    Channel(u32),
    /// No interrupt came.
    Stalled,
    /// The interrupt came but the last descriptor was not written back done.
    NotDone,
}

impl From<mmio::BusFault> for Fault {
    fn from(e: mmio::BusFault) -> Self {
        Fault::Bus(e)
    }
}

impl From<crate::hw::DmaFault> for Fault {
    fn from(_: crate::hw::DmaFault) -> Self {
        Fault::Dma
    }
}

/// Channel configuration: done interrupt, done write-back into the descriptor header,
/// and next-descriptor chaining (seed 003's feature).
const CHANNEL_CONFIG: u32 = cccr::CDIE | cccr::CDWE | cccr::NE;

/// Channel 0 and the descriptors waiting to run on it.
pub struct Channel<B, I, M> {
    pub bus: B,
    pub irq: I,
    pub mem: M,
    pub scratch: Scratch,
    pending: [Desc; DESC_SLOTS],
    npending: usize,
}

impl<B: RegisterBus, I: Irq, M: DmaMemory> Channel<B, I, M> {
    pub fn new(bus: B, irq: I, mem: M, scratch: Scratch) -> Self {
        Channel {
            bus,
            irq,
            mem,
            scratch,
            pending: [Desc::default(); DESC_SLOTS],
            npending: 0,
        }
    }

    /// Software reset of the SEC, then channel 0's interrupts unmasked (on SEC1 a set
    /// IMR bit masks) and its configuration.
    pub fn bring_up(&mut self) -> Result<(), Fault> {
        self.bus.write32(t::MCR, t::MCR_SWR)?;
        self.bus.modify32(t::IMR, isr::INIT, 0)?;
        self.bus.write32(t::CCCR_LO, CHANNEL_CONFIG)?;
        Ok(())
    }

    /// Queues a descriptor; runs the chain first if it is full (descriptors save and load
    /// the context, so a chain may end anywhere between blocks).
    pub fn push(&mut self, d: Desc) -> Result<(), Fault> {
        if self.npending == DESC_SLOTS {
            self.flush()?;
        }
        self.pending[self.npending] = d;
        self.npending += 1;
        Ok(())
    }

    /// Runs the queued descriptors as one chain and waits for it. On any fault the
    /// channel is reset and the queue dropped: the caller fails the session.
    pub fn flush(&mut self) -> Result<(), Fault> {
        let n = core::mem::take(&mut self.npending);
        if n == 0 {
            return Ok(());
        }
        let result = self.run(n);
        if result.is_err() {
            // Best effort: a bus that fails here fails again on the next request.
            let _ = self.bus.write32(t::CCCR_LO, cccr::RESET | CHANNEL_CONFIG);
        }
        result
    }

    fn run(&mut self, n: usize) -> Result<(), Fault> {
        for i in 0..n {
            let mut d = self.pending[i];
            let last = i + 1 == n;
            // Only the chain's last descriptor interrupts; the others link on.
            let h = d.hdr.get() & !hdr::DONE_NOTIFY;
            d.hdr = U32::new(if last { h | hdr::DONE_NOTIFY } else { h });
            d.next_desc = U32::new(if last { 0 } else { self.scratch.desc(i + 1) });
            self.mem.write(self.scratch.desc(i), d.as_bytes())?;
        }
        self.bus.write32(t::FF_LO, self.scratch.desc(0))?;
        if !self.irq.wait() {
            return Err(Fault::Stalled);
        }
        let status = self.bus.read32(t::ISR)?;
        self.bus.write32(t::ICR, status)?;
        self.irq.ack();
        if status & isr::CH0_ERR != 0 {
            return Err(Fault::Channel(self.bus.read32(t::CCPSR_LO)?));
        }
        // Completion is read from the last descriptor's header (DONE written back).
        let mut word = [0u8; 4];
        self.mem.read(self.scratch.desc(n - 1), &mut word)?;
        if status & isr::CH0_DONE == 0 || u32::from_be_bytes(word) & hdr::DONE != hdr::DONE {
            return Err(Fault::NotDone);
        }
        Ok(())
    }
}
