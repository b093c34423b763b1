//! The STM32 CRYP driver on the shared testkit's stm32mp1 model
//! (`pio_dma_driver::testkit::Stm32mp1`): only what is this engine's.
#![allow(dead_code, unused_imports)]

use engine_models::phys::PhysMap;
use mmio::RegisterBus;
use pio_dma_driver::testkit::{self as kit, Leaked, Soc};
use stm32_cryp_driver::{Engine, STM32MP1};

pub use cipher_service::testkit::{CLIENT, DATA, Layout, Rig, hex, request, status};
pub use kit::{copied, counted, rig};

pub struct Stm32;

impl Soc for Stm32 {
    type Model = kit::Stm32mp1;
    type Engine<A: RegisterBus, D: RegisterBus> = Engine<A, D>;

    fn engine<A: RegisterBus, D: RegisterBus>(cryp: A, dma: D) -> Engine<A, D> {
        Engine::new(STM32MP1, cryp, dma)
    }
    fn map(mem: &PhysMap<'static>, phys: u64, memory: Leaked) {
        // SAFETY: leaked memory is never freed, and no reference into it is held while
        // the model copies in or out: the model runs only inside the driver's calls.
        unsafe { mem.add_raw(phys, memory.ptr(), memory.len()) }
    }
}

pub type Board = kit::Board<Stm32>;
pub type Driver<A = kit::Bus<Stm32>, D = kit::Bus<Stm32>> = kit::BoardDriver<Stm32, A, D>;
