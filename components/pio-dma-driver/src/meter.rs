//! What the driver needs from its surroundings besides registers: a clock for
//! calibration, and a place to count the events only the driver knows about.

use cost_ledger::{CostTable, Event, Ledger};

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
        // Counter by counter: no copy of the whole ledger (a PD's flash pays for it).
        Event::ALL
            .iter()
            .map(|&e| self.ledger.get(e) * self.costs.ps(e))
            .sum()
    }
}
