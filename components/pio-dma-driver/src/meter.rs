//! What the driver needs from its surroundings besides registers: interrupts, a clock
//! for calibration, and a place to count the events only the driver knows about.

use cost_ledger::{CostTable, Event, Ledger};

/// Interrupt delivery, as the PD runtime provides it.
pub trait IrqSource {
    /// Waits until interrupt `irq` is delivered; `false` if it is not coming (on seL4 a
    /// timeout; on the host models, a line that is not asserted, since work completes
    /// synchronously there).
    fn wait(&mut self, irq: u32) -> bool;
    /// Ends service of `irq` (Microkit's `irq_ack`).
    fn ack(&mut self, irq: u32);
}

/// Driver-reported events and the clock that calibration reads.
pub trait Meter {
    /// Counts `n` driver-reported events (requests begun, bytes copied by the CPU).
    fn count(&self, event: Event, n: u64);
    /// Time now in picoseconds. On the host models this is the ledger's modelled time;
    /// on silicon it would be a hardware timer. Only differences are used.
    fn now_ps(&self) -> u64;
}

/// A [`Meter`] over a cost ledger: the models count hardware events into the same
/// ledger, and the board's cost table turns the counts into time.
#[derive(Clone, Copy)]
pub struct LedgerMeter<'a> {
    pub ledger: &'a Ledger,
    pub costs: &'a CostTable,
}

impl Meter for LedgerMeter<'_> {
    fn count(&self, event: Event, n: u64) {
        self.ledger.add(event, n);
    }

    fn now_ps(&self) -> u64 {
        self.ledger.snapshot().modelled_ps(self.costs)
    }
}
