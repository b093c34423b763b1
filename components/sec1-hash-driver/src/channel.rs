//! SEC1 channel 0: bring-up, and chains of hash descriptors, each submitted at once and
//! finished by the channel's done interrupt ([`Channel::complete`]).
//!
//! A request may need several chains (a chain holds [`DESC_SLOTS`] descriptors; some
//! steps must wait for the descriptors before them). The engine walks the request's plan
//! again after each chain finishes, the channel skipping (`replay`) the chains already
//! run: [`Channel::flush`] submits the next chain and stops the walk with
//! [`Stop::Submitted`]; the done interrupt resumes it. The plan is deterministic in the
//! request and the session's state at its start, so every walk sees the same chains.

use crate::hw::DmaMemory;
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

/// Why a walk of a request's plan stopped before its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// A chain is on the channel: its done interrupt resumes the walk.
    Submitted,
    Fault(Fault),
}

impl From<Fault> for Stop {
    fn from(f: Fault) -> Self {
        Stop::Fault(f)
    }
}

impl From<mmio::BusFault> for Stop {
    fn from(e: mmio::BusFault) -> Self {
        Stop::Fault(e.into())
    }
}

impl From<crate::hw::DmaFault> for Stop {
    fn from(e: crate::hw::DmaFault) -> Self {
        Stop::Fault(e.into())
    }
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
/// and next-descriptor chaining (the talitos chaining change's feature).
const CHANNEL_CONFIG: u32 = cccr::CDIE | cccr::CDWE | cccr::NE;

/// Channel 0 and the descriptors waiting to run on it.
pub struct Channel<B, M> {
    pub bus: B,
    pub mem: M,
    pub scratch: Scratch,
    pending: [Desc; DESC_SLOTS],
    npending: usize,
    /// Chains of this walk that already ran: flushes skip them.
    pub replay: u32,
    /// Descriptors in the chain on the channel (0: none).
    submitted: usize,
}

impl<B: RegisterBus, M: DmaMemory> Channel<B, M> {
    pub fn new(bus: B, mem: M, scratch: Scratch) -> Self {
        Channel {
            bus,
            mem,
            scratch,
            pending: [Desc::default(); DESC_SLOTS],
            npending: 0,
            replay: 0,
            submitted: 0,
        }
    }

    /// Whether this walk is past the chains already run: only then are its copies into
    /// DMA memory made (a replayed step's copy was made when it first ran).
    pub fn live(&self) -> bool {
        self.replay == 0
    }

    /// Software reset of the SEC, then channel 0's interrupts unmasked (on SEC1 a set
    /// IMR bit masks) and its configuration.
    pub fn bring_up(&mut self) -> Result<(), Fault> {
        self.bus.write32(t::MCR, t::MCR_SWR)?;
        self.bus.modify32(t::IMR, isr::INIT, 0)?;
        self.bus.write32(t::CCCR_LO, CHANNEL_CONFIG)?;
        Ok(())
    }

    /// Queues a descriptor; submits the chain first if it is full (descriptors save and
    /// load the context, so a chain may end anywhere between blocks).
    pub fn push(&mut self, d: Desc) -> Result<(), Stop> {
        if self.npending == DESC_SLOTS {
            self.flush()?;
        }
        self.pending[self.npending] = d;
        self.npending += 1;
        Ok(())
    }

    /// Ends the chain being built: skipped if it already ran in an earlier walk,
    /// otherwise submitted (`Stop::Submitted`). An empty chain is nothing.
    pub fn flush(&mut self) -> Result<(), Stop> {
        let n = core::mem::take(&mut self.npending);
        if n == 0 {
            return Ok(());
        }
        if self.replay > 0 {
            self.replay -= 1;
            return Ok(());
        }
        match self.submit(n) {
            Ok(()) => Err(Stop::Submitted),
            Err(f) => {
                self.reset();
                Err(Stop::Fault(f))
            }
        }
    }

    /// After a fault: the channel reset, nothing queued or submitted.
    pub fn reset(&mut self) {
        self.npending = 0;
        self.submitted = 0;
        self.replay = 0;
        // Best effort: a bus that fails here fails again on the next request.
        let _ = self.bus.write32(t::CCCR_LO, cccr::RESET | CHANNEL_CONFIG);
    }

    fn submit(&mut self, n: usize) -> Result<(), Fault> {
        for i in 0..n {
            let mut d = self.pending[i];
            let last = i + 1 == n;
            // Only the chain's last descriptor interrupts; the others link on.
            let h = d.hdr.get() & !hdr::DONE_NOTIFY;
            d.hdr = U32::new(if last { h | hdr::DONE_NOTIFY } else { h });
            d.next_desc = U32::new(if last { 0 } else { self.scratch.desc(i + 1) });
            self.mem.write(self.scratch.desc(i), d.as_bytes())?;
        }
        self.submitted = n;
        self.bus.write32(t::FF_LO, self.scratch.desc(0))?;
        Ok(())
    }

    /// The channel's interrupt: `Ok(true)` if the submitted chain finished, `Ok(false)`
    /// if nothing happened (spurious, or no chain on the channel). On a fault the
    /// channel is reset.
    pub fn complete(&mut self) -> Result<bool, Fault> {
        if self.submitted == 0 {
            return Ok(false);
        }
        let result = self.check();
        match result {
            Ok(false) => {}
            Ok(true) => self.submitted = 0,
            Err(_) => self.reset(),
        }
        result
    }

    fn check(&mut self) -> Result<bool, Fault> {
        let status = self.bus.read32(t::ISR)?;
        if status & (isr::CH0_DONE | isr::CH0_ERR) == 0 {
            return Ok(false);
        }
        self.bus.write32(t::ICR, status)?;
        if status & isr::CH0_ERR != 0 {
            return Err(Fault::Channel(self.bus.read32(t::CCPSR_LO)?));
        }
        // Completion is read from the last descriptor's header (DONE written back).
        let mut word = [0u8; 4];
        self.mem
            .read(self.scratch.desc(self.submitted - 1), &mut word)?;
        if u32::from_be_bytes(word) & hdr::DONE != hdr::DONE {
            return Err(Fault::NotDone);
        }
        Ok(true)
    }
}
