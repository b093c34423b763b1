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
//! service, after which a line still asserted is delivered again. Tests that drive a
//! model by hand poll these.
//!
//! A driver PD does not poll: it is notified. [`Soc::set_irq_sink`] names a function
//! the SoC calls with the interrupt number whenever an access leaves a line asserted
//! that was not before (the host PD passes the runtime's `raise_irq`, so the interrupt
//! arrives as the IRQ channel's notification, as on seL4), and [`Soc::irq_asserted`]
//! gives the line's level, which the runtime checks when the driver acknowledges the
//! interrupt (a level-triggered line still asserted then is delivered again). The
//! driver's handler reads and clears the engine's status, and counts the interrupt it
//! serviced.

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
    lines: Lines,
    ledger: &'a Ledger,
}

/// Where raised interrupts go, and each line's level as last seen.
#[derive(Default)]
struct Lines {
    level: [Cell<bool>; MAX_IRQS],
    sink: Cell<Option<fn(u32)>>,
}

impl Lines {
    /// After an access: tells the sink of every line that rose.
    fn update<M: Machine>(&self, machine: &M) {
        let Some(sink) = self.sink.get() else {
            return;
        };
        for (level, &irq) in self.level.iter().zip(machine.irqs()) {
            let now = machine.irq_asserted(irq);
            if now && !level.get() {
                sink(irq);
            }
            level.set(now);
        }
    }
}

impl<'a, M: Machine> Soc<'a, M> {
    pub fn new(machine: M, ledger: &'a Ledger) -> Self {
        assert!(machine.irqs().len() <= MAX_IRQS);
        Self {
            machine: RefCell::new(machine),
            in_service: [const { Cell::new(false) }; MAX_IRQS],
            lines: Lines::default(),
            ledger,
        }
    }

    /// The register bus of device `dev` (board-specific wrappers name the indices).
    pub fn port(&self, dev: usize) -> Port<'_, M> {
        Port {
            machine: &self.machine,
            lines: &self.lines,
            dev,
        }
    }

    /// From now on, `sink(irq)` is called whenever interrupt `irq` rises (see the
    /// module docs). Lines already asserted are raised at once.
    pub fn set_irq_sink(&self, sink: fn(u32)) {
        self.lines.sink.set(Some(sink));
        for level in &self.lines.level {
            level.set(false);
        }
        self.lines.update(&*self.machine.borrow());
    }

    fn slot(&self, irq: u32) -> Option<usize> {
        self.machine.borrow().irqs().iter().position(|&i| i == irq)
    }

    /// Whether line `irq` is asserted now (for a runtime that re-delivers a
    /// level-triggered interrupt still asserted at its acknowledgement).
    pub fn irq_asserted(&self, irq: u32) -> bool {
        self.machine.borrow().irq_asserted(irq)
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
    lines: &'s Lines,
    dev: usize,
}

impl<M: Machine> RegisterBus for Port<'_, M> {
    fn read32(&mut self, offset: usize) -> Result<u32, BusFault> {
        let mut machine = self.machine.borrow_mut();
        // Reads have effects too (popping an output FIFO).
        let value = machine.read(self.dev, offset);
        self.lines.update(&*machine);
        value
    }

    fn write32(&mut self, offset: usize, value: u32) -> Result<(), BusFault> {
        let mut machine = self.machine.borrow_mut();
        let result = machine.write(self.dev, offset, value);
        self.lines.update(&*machine);
        result
    }
}
