//! A modelled SoC as its driver sees it: register ports (one [`RegisterBus`] per device),
//! interrupt lines to poll and acknowledge, and the CPU's view of physical memory.
//!
//! The devices of one SoC share state (an engine's DMA requests are served by the DMA
//! controller, which reaches memory through the physical map), so they live together in a
//! [`Machine`] inside a `RefCell`, and each port borrows it for one access. After every
//! write the machine runs to quiescence (DMA requests served, descriptor chains executed):
//! time is not simulated, so the driver finds finished work and the ledger says what it
//! cost. One SoC belongs to one driver thread (`!Sync`).
//!
//! Interrupts are level-triggered with GIC-like delivery: [`Soc::irq_pending`] delivers
//! (and counts) an asserted line that is not already in service; [`Soc::irq_ack`] ends
//! service, after which a line still asserted is delivered again. The host runtime calls
//! these where seL4 would signal the IRQ notification and where the driver calls
//! `irq_ack`.

use core::cell::{Cell, RefCell};
use cost_ledger::{Event, Ledger};
use mmio::{BusFault, RegisterBus};

/// The devices of one SoC, addressed by index.
pub trait Machine {
    /// Interrupt numbers this machine drives, in a fixed order (at most [`MAX_IRQS`]).
    fn irqs(&self) -> &'static [u32];
    /// Whether interrupt `irq` is asserted.
    fn irq_asserted(&self, irq: u32) -> bool;
    /// A CPU read of device `dev`'s register at `offset`.
    fn read(&mut self, dev: usize, offset: usize) -> Result<u32, BusFault>;
    /// A CPU write; the machine then runs until nothing more happens by itself.
    fn write(&mut self, dev: usize, offset: usize, value: u32) -> Result<(), BusFault>;
}

/// Most interrupt lines one SoC model drives.
pub const MAX_IRQS: usize = 8;

/// A machine with its interrupt delivery state.
pub struct Soc<'a, M> {
    machine: RefCell<M>,
    in_service: [Cell<bool>; MAX_IRQS],
    ledger: &'a Ledger,
}

impl<'a, M: Machine> Soc<'a, M> {
    pub fn new(machine: M, ledger: &'a Ledger) -> Self {
        assert!(machine.irqs().len() <= MAX_IRQS);
        Self {
            machine: RefCell::new(machine),
            in_service: [const { Cell::new(false) }; MAX_IRQS],
            ledger,
        }
    }

    /// The register bus of device `dev` (board-specific wrappers name the indices).
    pub fn port(&self, dev: usize) -> Port<'_, M> {
        Port {
            machine: &self.machine,
            dev,
        }
    }

    fn slot(&self, irq: u32) -> Option<usize> {
        self.machine.borrow().irqs().iter().position(|&i| i == irq)
    }

    /// Delivers interrupt `irq` if it is asserted and not in service; counts it.
    pub fn irq_pending(&self, irq: u32) -> bool {
        let Some(s) = self.slot(irq) else {
            return false;
        };
        if self.in_service[s].get() || !self.machine.borrow().irq_asserted(irq) {
            return false;
        }
        self.in_service[s].set(true);
        self.ledger.add(Event::Interrupt, 1);
        true
    }

    /// Ends service of `irq` (the driver's `irq_ack`).
    pub fn irq_ack(&self, irq: u32) {
        if let Some(s) = self.slot(irq) {
            self.in_service[s].set(false);
        }
    }

    /// The first deliverable interrupt, delivered (for runtimes that poll every line).
    pub fn next_irq(&self) -> Option<u32> {
        let irqs = self.machine.borrow().irqs();
        irqs.iter().copied().find(|&i| self.irq_pending(i))
    }

    /// Direct access to the machine, for tests that inspect model state.
    pub fn with<R>(&self, f: impl FnOnce(&mut M) -> R) -> R {
        f(&mut self.machine.borrow_mut())
    }
}

/// One device's register bus on a modelled SoC.
pub struct Port<'s, M> {
    machine: &'s RefCell<M>,
    dev: usize,
}

impl<M: Machine> RegisterBus for Port<'_, M> {
    fn read32(&mut self, offset: usize) -> Result<u32, BusFault> {
        self.machine.borrow_mut().read(self.dev, offset)
    }

    fn write32(&mut self, offset: usize, value: u32) -> Result<(), BusFault> {
        self.machine.borrow_mut().write(self.dev, offset, value)
    }
}
