#![cfg_attr(target_os = "none", no_std, no_main)]
//! The OMAP AES driver PD (see the `omap-aes-pd` crate docs); sessions by key handle
//! where the system gives a key store (`driver_pd::keys`).
use board::am335x;
use omap_aes_driver::{AM335X, Engine};
use pd_idl::power;
use pio_dma_driver::pd::{PioDmaPd, start};
use soc_access::{Am335x, Am335xBus};

fn init() -> PioDmaPd<Engine<Am335xBus, Am335xBus>> {
    // Sessions on keys by handle, where the system gives a key store.
    driver_pd::keys::connect();
    let Am335x { aes, edma, common } = Am335x::take();
    let engine = Engine::new(AM335X, aes, edma);
    start(engine, common, &am335x::COSTS, power::Engine::OmapAes)
}

pd_runtime::protection_domain!(init);
