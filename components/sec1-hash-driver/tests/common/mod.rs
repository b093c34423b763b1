//! The host stand-in for the driver's PD on an mpc885: the SEC1 model over a physical map
//! holding the driver's scratch and the client's data region, the engine's clock on (the
//! power manager's grant), and the digest-service rig in front.
#![allow(dead_code)]

use board::mpc885::SEC;
use cost_ledger::{Event, Ledger};
use digest_service::testkit::Region;
use engine_models::phys::PhysMap;
use engine_models::power::{ClockController, GateBlock};
use mmio::RegisterBus;
use mmio::clkctrl::{self, MODULEMODE, MODULEMODE_ENABLE};
use sec1_hash_driver::hw::{DmaFault, DmaMemory};

/// Where the board puts the driver's scratch and the client's region (SDRAM).
pub const SCRATCH_PHYS: u32 = 0x0080_0000;
pub const DATA_PHYS: u64 = 0x0100_0000;
/// A client region big enough for the suite's 100 KB messages with gaps.
pub const DATA: usize = 128 << 10;

/// The driver's DMA memory through the board's physical map.
pub struct ModelMem<'a>(pub &'a PhysMap<'a>);

impl DmaMemory for ModelMem<'_> {
    fn read(&self, phys: u32, buf: &mut [u8]) -> Result<(), DmaFault> {
        self.0.read(phys.into(), buf).map_err(|_| DmaFault)
    }
    fn write(&self, phys: u32, data: &[u8]) -> Result<(), DmaFault> {
        self.0.write(phys.into(), data).map_err(|_| DmaFault)
    }
}

/// Ungates the SEC, as the power manager does for the driver's grant.
pub fn clock(gates: &GateBlock, ledger: &Ledger, on: bool) {
    let mode = if on {
        MODULEMODE_ENABLE
    } else {
        clkctrl::MODULEMODE_DISABLED
    };
    ClockController::new(gates, ledger)
        .write32(clkctrl::clkctrl(SEC.gate.unwrap()), MODULEMODE.val(mode))
        .unwrap();
}

/// Maps scratch and data where the driver is told they are.
pub fn map(mem: &PhysMap, scratch: &Region, data: &Region) {
    // SAFETY: both regions outlive the map's use in the test (declared before it) and are
    // reached only by copies.
    unsafe {
        mem.add_raw(SCRATCH_PHYS.into(), scratch.as_ptr(), scratch.len());
        mem.add_raw(DATA_PHYS, data.as_ptr(), data.len());
    }
}

/// CPU-copied bytes counted so far.
pub fn copied(ledger: &Ledger) -> u64 {
    ledger.snapshot().get(Event::CpuCopyByte)
}

/// A SEC1 driver, initialised, behind a digest-service rig: `sec1!(rig, ledger)` declares
/// both in the caller's scope; `sec1!(rig, ledger, init, wrap)` wraps the register bus
/// first and leaves `init`'s result to the caller; a fifth argument is the scratch length
/// the driver is told.
#[macro_export]
macro_rules! sec1 {
    ($rig:ident, $ledger:ident) => {
        sec1!($rig, $ledger, init, |bus| bus);
        init.expect("self-tests pass");
    };
    ($rig:ident, $ledger:ident, $init:ident, $wrap:expr) => {
        sec1!($rig, $ledger, $init, $wrap, sec1_hash_driver::SCRATCH_BYTES);
    };
    // The driver told its scratch is `$len` bytes (the region is mapped whole).
    ($rig:ident, $ledger:ident, $init:ident, $wrap:expr, $len:expr) => {
        let gates = engine_models::power::GateBlock::new();
        let $ledger = cost_ledger::Ledger::new();
        common::clock(&gates, &$ledger, true);
        let scratch = digest_service::testkit::Region::new(sec1_hash_driver::SCRATCH_BYTES);
        let data = digest_service::testkit::Region::new(common::DATA);
        let mem = engine_models::phys::PhysMap::new();
        common::map(&mem, &scratch, &data);
        let soc = engine_models::mpc885::mpc885(&mem, &gates, &$ledger);
        let mut driver = sec1_hash_driver::Sec1Hash::new(
            $wrap(soc.sec()),
            common::ModelMem(&mem),
            common::SCRATCH_PHYS,
            $len,
            &$ledger,
        );
        let $init = driver.init();
        #[allow(unused_mut)]
        let mut $rig = digest_service::testkit::Rig::new(driver, data, Some(common::DATA_PHYS));
    };
}
