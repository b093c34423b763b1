//! The STM32 CRYP driver on the stm32mp1 model, for the shared testkit's board and rig
//! (`pio_dma_driver::testkit::Board`): only what is this SoC's.
#![allow(dead_code, unused_imports)]

use board::stm32mp1;
use cost_ledger::{CostTable, Ledger};
use engine_models::phys::PhysMap;
use engine_models::power::GateBlock;
use engine_models::soc::Port;
use engine_models::stm32mp1::{Stm32mp1, Stm32mp1Machine};
use mmio::RegisterBus;
use pio_dma_driver::testkit::{self as kit, Leaked, Soc};

pub use cipher_service::testkit::{CLIENT, DATA, Layout, Rig, hex, request, status};
pub use kit::{copied, counted, rig};

/// CRYP1 and its DMA controller on the stm32mp1 model.
pub struct Stm32;

impl Soc for Stm32 {
    type Model = Stm32mp1<'static>;
    type Bus = Port<'static, Stm32mp1Machine<'static>>;
    type Engine<A: RegisterBus, D: RegisterBus> = stm32_cryp_driver::Engine<A, D>;
    const ENGINE: board::Device = stm32mp1::CRYP1;
    const DMA: board::Device = stm32mp1::DMA;
    const DDR: u64 = stm32mp1::DDR.phys;
    const COSTS: &'static CostTable = &stm32mp1::COSTS;

    fn model(
        mem: &'static PhysMap,
        gates: &'static GateBlock,
        ledger: &'static Ledger,
    ) -> Stm32mp1<'static> {
        engine_models::stm32mp1::stm32mp1(mem, gates, ledger)
    }
    fn engine_bus(soc: &'static Stm32mp1<'static>) -> Self::Bus {
        soc.cryp()
    }
    fn dma_bus(soc: &'static Stm32mp1<'static>) -> Self::Bus {
        soc.dma()
    }
    fn engine<A: RegisterBus, D: RegisterBus>(cryp: A, dma: D) -> Self::Engine<A, D> {
        stm32_cryp_driver::Engine::new(stm32_cryp_driver::STM32MP1, cryp, dma)
    }
    fn map(mem: &PhysMap<'static>, phys: u64, memory: Leaked) {
        // SAFETY: `Leaked` memory stays allocated for the rest of the process; the model,
        // the driver and the test reach it one at a time (work completes inside the
        // driver's calls).
        unsafe { mem.add_raw(phys, memory.ptr(), memory.len()) }
    }
}

pub type Board = kit::Board<Stm32>;
pub type Bus = <Stm32 as Soc>::Bus;
pub type Driver<A = Bus, D = Bus> = kit::BoardDriver<Stm32, A, D>;
