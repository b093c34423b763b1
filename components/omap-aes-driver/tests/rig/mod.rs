//! The OMAP AES driver on the shared testkit's am335x model
//! (`pio_dma_driver::testkit::Am335x`): only what is this engine's.
#![allow(dead_code, unused_imports)]

use engine_models::phys::PhysMap;
use mmio::RegisterBus;
use omap_aes_driver::{AM335X, Engine};
use pio_dma_driver::testkit::{self as kit, Leaked, Soc};

pub use cipher_service::testkit::{CLIENT, DATA, Layout, Rig, hex, request, status};
pub use kit::{copied, counted, rig};

pub struct Omap;

impl Soc for Omap {
    type Model = kit::Am335x;
    type Engine<A: RegisterBus, D: RegisterBus> = Engine<A, D>;

    fn engine<A: RegisterBus, D: RegisterBus>(aes: A, edma: D) -> Engine<A, D> {
        Engine::new(AM335X, aes, edma)
    }
    fn map(mem: &PhysMap<'static>, phys: u64, memory: Leaked) {
        // SAFETY: `Leaked` memory stays allocated for the rest of the process; the model,
        // the driver and the test reach it one at a time (work completes inside the
        // driver's calls).
        unsafe { mem.add_raw(phys, memory.ptr(), memory.len()) }
    }
}

pub type Board = kit::Board<Omap>;
pub type Driver<A = kit::Bus<Omap>, D = kit::Bus<Omap>> = kit::BoardDriver<Omap, A, D>;
