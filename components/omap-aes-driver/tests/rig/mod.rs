//! The OMAP AES driver on the am335x model, for the shared testkit's board and rig
//! (`pio_dma_driver::testkit::Board`): only what is this SoC's.
#![allow(dead_code, unused_imports)]

use board::am335x;
use cost_ledger::{CostTable, Ledger};
use engine_models::am335x::{Am335x, Am335xMachine};
use engine_models::phys::PhysMap;
use engine_models::power::GateBlock;
use engine_models::soc::Port;
use mmio::RegisterBus;
use pio_dma_driver::testkit::{self as kit, Leaked, Soc};

pub use cipher_service::testkit::{CLIENT, DATA, Layout, Rig, hex, request, status};
pub use kit::{copied, counted, rig};

/// AES0 and EDMA on the am335x model.
pub struct Omap;

impl Soc for Omap {
    type Model = Am335x<'static>;
    type Bus = Port<'static, Am335xMachine<'static>>;
    type Engine<A: RegisterBus, D: RegisterBus> = omap_aes_driver::Engine<A, D>;
    const ENGINE: board::Device = am335x::AES0;
    const DMA: board::Device = am335x::EDMA;
    const DDR: u64 = am335x::DDR.phys;
    const COSTS: &'static CostTable = &am335x::COSTS;

    fn model(
        mem: &'static PhysMap,
        gates: &'static GateBlock,
        ledger: &'static Ledger,
    ) -> Am335x<'static> {
        engine_models::am335x::am335x(mem, gates, ledger)
    }
    fn engine_bus(soc: &'static Am335x<'static>) -> Self::Bus {
        soc.aes()
    }
    fn dma_bus(soc: &'static Am335x<'static>) -> Self::Bus {
        soc.edma()
    }
    fn engine<A: RegisterBus, D: RegisterBus>(aes: A, edma: D) -> Self::Engine<A, D> {
        omap_aes_driver::Engine::new(omap_aes_driver::AM335X, aes, edma)
    }
    fn map(mem: &PhysMap<'static>, phys: u64, memory: Leaked) {
        // SAFETY: `Leaked` memory stays allocated for the rest of the process; the model,
        // the driver and the test reach it one at a time (work completes inside the
        // driver's calls).
        unsafe { mem.add_raw(phys, memory.ptr(), memory.len()) }
    }
}

pub type Board = kit::Board<Omap>;
pub type Bus = <Omap as Soc>::Bus;
pub type Driver<A = Bus, D = Bus> = kit::BoardDriver<Omap, A, D>;
