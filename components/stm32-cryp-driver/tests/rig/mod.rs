//! An in-process client, queues, cipher service and the STM32 CRYP driver on the
//! stm32mp1 model. Everything the model borrows is leaked: a test is short and this keeps the
//! driver's buses `'static`.
#![allow(dead_code, unused_imports)]

use board::stm32mp1;
use cipher_service::{CipherEngine, ClientData};
use cost_ledger::{Event, Ledger};
use engine_models::phys::PhysMap;
use engine_models::power::{ClockController, GateBlock};
use engine_models::soc::Port;
use engine_models::stm32mp1::{Stm32mp1, Stm32mp1Machine};
use mmio::RegisterBus;
use mmio::clkctrl::{self, MODULEMODE, MODULEMODE_ENABLE};
use shm_queue::SharedRegion;
use stm32_cryp_driver::{Config, LedgerMeter, SCRATCH_BYTES, Stm32CrypDriver};

/// Where the client's data region and the driver's scratch sit in DDR.
pub const CLIENT_PHYS: u64 = stm32mp1::DDR.phys + 0x10_0000;
pub const SCRATCH_PHYS: u64 = stm32mp1::DDR.phys + 0x20_0000;

pub type Bus = Port<'static, Stm32mp1Machine<'static>>;
pub type Driver<A = Bus, D = Bus> = Stm32CrypDriver<'static, A, D, LedgerMeter<'static>>;

/// The modelled board: ledger, gates, physical map, the SoC.
pub struct Board {
    pub ledger: &'static Ledger,
    pub gates: &'static GateBlock,
    pub mem: &'static PhysMap<'static>,
    pub soc: &'static Stm32mp1<'static>,
}

fn leak_bytes(n: usize) -> &'static mut [u8] {
    Box::leak(vec![0u8; n].into_boxed_slice())
}

impl Board {
    /// stm32mp1 with CRYP1 and its DMA clocked, and DDR windows for the scratch buffer (the
    /// client's region is added by the rig).
    pub fn new() -> Self {
        let ledger: &'static Ledger = Box::leak(Box::new(Ledger::new()));
        let gates: &'static GateBlock = Box::leak(Box::new(GateBlock::new()));
        for dev in [stm32mp1::CRYP1, stm32mp1::DMA] {
            ClockController::new(gates, ledger)
                .write32(
                    clkctrl::clkctrl(dev.gate.unwrap()),
                    MODULEMODE.val(MODULEMODE_ENABLE),
                )
                .unwrap();
        }
        let mem: &'static PhysMap<'static> = Box::leak(Box::new(PhysMap::new()));
        let soc = Box::leak(Box::new(engine_models::stm32mp1::stm32mp1(
            mem, gates, ledger,
        )));
        Board {
            ledger,
            gates,
            mem,
            soc,
        }
    }

    /// A driver over `cryp` (the model's port, or a wrapper around it), not yet `init`ed.
    pub fn driver_with<A: RegisterBus>(&self, cryp: A) -> Driver<A> {
        self.driver_with_buses(cryp, self.soc.dma())
    }

    /// A driver over the given engine and DMA buses, not yet `init`ed.
    pub fn driver_with_buses<A: RegisterBus, D: RegisterBus>(
        &self,
        cryp: A,
        dma: D,
    ) -> Driver<A, D> {
        let scratch = leak_bytes(SCRATCH_BYTES);
        // SAFETY: leaked, so it stays mapped for 'static; the driver touches it only
        // while EDMA is idle.
        unsafe {
            self.mem
                .add_raw(SCRATCH_PHYS, scratch.as_mut_ptr(), scratch.len())
        };
        let meter = LedgerMeter {
            ledger: self.ledger,
            costs: &stm32mp1::COSTS,
        };
        stm32_cryp_driver::new(
            stm32_cryp_driver::STM32MP1,
            cryp,
            dma,
            meter,
            ClientData {
                region: SharedRegion::new(scratch),
                phys: Some(SCRATCH_PHYS),
            },
        )
    }

    /// A self-tested, calibrated driver.
    pub fn driver(&self) -> Driver {
        let mut d = self.driver_with(self.soc.cryp());
        d.init().expect("self-test and calibration pass");
        d
    }
}

pub use cipher_service::testkit::{CLIENT, DATA, Layout, Rig, hex, request, status};

/// The shared testkit's rig around `engine`, its data region placed in DDR at
/// [`CLIENT_PHYS`] where the board's DMA reaches it.
pub fn rig<E: CipherEngine>(board: &Board, engine: E) -> Rig<E> {
    let mut rig = Rig::new(engine);
    // SAFETY: the testkit leaks the region, so it stays mapped for 'static; the model and
    // the test reach it only one at a time (work completes inside the driver's calls).
    unsafe { board.mem.add_raw(CLIENT_PHYS, rig.data_ptr(), DATA) };
    rig.phys = Some(CLIENT_PHYS);
    rig
}

/// Ledger counts of what `f` did.
pub fn counted<R>(ledger: &Ledger, f: impl FnOnce() -> R) -> (R, cost_ledger::Counts) {
    let before = ledger.snapshot();
    let r = f();
    (r, ledger.snapshot().since(&before))
}

/// CPU-copied client bytes in a count.
pub fn copied(c: &cost_ledger::Counts) -> u64 {
    c.get(Event::CpuCopyByte)
}
