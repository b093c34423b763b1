//! The mpc885 machine: the talitos SEC1 (hash channel 0) over the board's physical map.

use crate::phys::PhysMap;
use crate::power::GateBlock;
use crate::soc::{Machine, Port, Soc};
use crate::talitos::Sec1;
use board::mpc885::SEC;
use cost_ledger::Ledger;
use mmio::{BusFault, RegisterBus};

/// Device index of [`Mpc885`]'s SEC.
pub const DEV_SEC: usize = 0;

/// The SEC1 of an mpc885.
pub struct Mpc885Machine<'a> {
    pub sec: Sec1<'a>,
    mem: &'a PhysMap<'a>,
}

/// The SoC a driver for the mpc885 SEC sees.
pub type Mpc885<'a> = Soc<'a, Mpc885Machine<'a>>;

/// Builds the mpc885 model over `mem`, gated by `gates`, counting into `ledger`.
pub fn mpc885<'a>(mem: &'a PhysMap<'a>, gates: &'a GateBlock, ledger: &'a Ledger) -> Mpc885<'a> {
    let sec = Sec1::new(ledger, gates, SEC.gate.expect("SEC has a gate"));
    Soc::new(Mpc885Machine { sec, mem }, ledger)
}

impl<'a> Soc<'a, Mpc885Machine<'a>> {
    /// The SEC's register bus.
    pub fn sec(&self) -> Port<'_, Mpc885Machine<'a>> {
        self.port(DEV_SEC)
    }
}

impl Machine for Mpc885Machine<'_> {
    fn irqs(&self) -> &'static [u32] {
        SEC.irqs
    }

    fn irq_asserted(&self, irq: u32) -> bool {
        irq == SEC.irqs[0] && self.sec.irq_line()
    }

    fn read(&mut self, _dev: usize, offset: usize) -> Result<u32, BusFault> {
        self.sec.read32(offset)
    }

    fn write(&mut self, _dev: usize, offset: usize, value: u32) -> Result<(), BusFault> {
        self.sec.write32(offset, value)?;
        self.sec.run(self.mem);
        Ok(())
    }
}
