//! The power/clock controller model and the gate word it shares with the engine models.
//!
//! On the host the power-manager PD owns the controller ([`ClockController`], behind the
//! register interface) while each engine model lives in its driver's PD; both reach the
//! same [`GateBlock`] in a small shared-memory region. An engine model checks its gate on
//! every access and answers [`BusFault::Gated`] while gated, as unclocked silicon faults
//! the toucher.

use core::sync::atomic::{AtomicU32, Ordering};
use cost_ledger::{Event, Ledger};
use mmio::clkctrl::{self, GATES};
use mmio::{BusFault, RegisterBus, check_offset};

/// One bit per gate, set while the engine is clocked. `#[repr(C)]`, atomics only, all-zero
/// (everything gated) is the reset state: a zero-filled shared page is a valid block.
#[repr(C, align(64))]
#[derive(Debug, Default)]
pub struct GateBlock {
    clocked: AtomicU32,
}

const _: () = assert!(GATES <= 32);

impl GateBlock {
    /// Everything gated.
    pub const fn new() -> Self {
        Self {
            clocked: AtomicU32::new(0),
        }
    }

    /// Whether gate `g` is clocked. Acquire: pairs with the controller's Release, so a
    /// model that sees its clock on also sees what the power manager did before.
    pub fn is_clocked(&self, g: usize) -> bool {
        g < GATES && self.clocked.load(Ordering::Acquire) & (1 << g) != 0
    }

    /// `Err(BusFault::Gated)` unless gate `g` is clocked.
    pub fn check(&self, g: usize) -> Result<(), BusFault> {
        if self.is_clocked(g) {
            Ok(())
        } else {
            Err(BusFault::Gated)
        }
    }

    /// Admits a register access to block `g` at `offset`: a bus fault outside `window`,
    /// checked before the clock as the interconnect does, then the gate's fault.
    pub fn admit(&self, g: usize, offset: usize, window: usize) -> Result<(), BusFault> {
        check_offset(offset, window)?;
        self.check(g)
    }

    /// Sets gate `g`; returns whether it changed.
    fn set(&self, g: usize, on: bool) -> bool {
        let bit = 1 << g;
        let old = if on {
            self.clocked.fetch_or(bit, Ordering::AcqRel)
        } else {
            self.clocked.fetch_and(!bit, Ordering::AcqRel)
        };
        (old & bit != 0) != on
    }
}

/// The clock controller, as the power manager's register bus: one CLKCTRL per gate.
///
/// Ungating counts [`Event::PowerOn`] (the board table charges the resume latency) and
/// gating counts [`Event::PowerOff`], each only when the gate actually changes, so a
/// redundant enable costs nothing. IDLEST reads functional at once: time is the ledger's
/// business, not the model's.
pub struct ClockController<'a> {
    gates: &'a GateBlock,
    ledger: &'a Ledger,
}

impl<'a> ClockController<'a> {
    pub fn new(gates: &'a GateBlock, ledger: &'a Ledger) -> Self {
        Self { gates, ledger }
    }
}

impl RegisterBus for ClockController<'_> {
    fn read32(&mut self, offset: usize) -> Result<u32, BusFault> {
        check_offset(offset, clkctrl::WINDOW)?;
        self.ledger.add(Event::RegRead, 1);
        let g = offset / 4;
        Ok(if self.gates.is_clocked(g) {
            clkctrl::MODULEMODE.val(clkctrl::MODULEMODE_ENABLE)
                | clkctrl::IDLEST.val(clkctrl::IDLEST_FUNCTIONAL)
        } else {
            clkctrl::MODULEMODE.val(clkctrl::MODULEMODE_DISABLED)
                | clkctrl::IDLEST.val(clkctrl::IDLEST_DISABLED)
        })
    }

    fn write32(&mut self, offset: usize, value: u32) -> Result<(), BusFault> {
        check_offset(offset, clkctrl::WINDOW)?;
        self.ledger.add(Event::RegWrite, 1);
        let g = offset / 4;
        let on = clkctrl::MODULEMODE.get(value) == clkctrl::MODULEMODE_ENABLE;
        if self.gates.set(g, on) {
            self.ledger
                .add(if on { Event::PowerOn } else { Event::PowerOff }, 1);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mmio::clkctrl::*;

    #[test]
    fn gates_follow_modulemode_and_count_transitions_once() {
        let gates = GateBlock::new();
        let ledger = Ledger::new();
        let mut cc = ClockController::new(&gates, &ledger);
        assert_eq!(gates.check(3), Err(BusFault::Gated));
        cc.write32(clkctrl(3), MODULEMODE.val(MODULEMODE_ENABLE))
            .unwrap();
        cc.write32(clkctrl(3), MODULEMODE.val(MODULEMODE_ENABLE))
            .unwrap();
        assert_eq!(gates.check(3), Ok(()));
        assert_eq!(
            IDLEST.get(cc.read32(clkctrl(3)).unwrap()),
            IDLEST_FUNCTIONAL
        );
        assert_eq!(ledger.get(Event::PowerOn), 1);
        cc.write32(clkctrl(3), 0).unwrap();
        assert!(!gates.is_clocked(3));
        assert_eq!(IDLEST.get(cc.read32(clkctrl(3)).unwrap()), IDLEST_DISABLED);
        assert_eq!(ledger.get(Event::PowerOff), 1);
        assert!(!gates.is_clocked(40));
    }
}
