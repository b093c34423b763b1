#![cfg_attr(target_os = "none", no_std, no_main)]
//! The OMAP AES driver PD (see the `omap-aes-pd` crate docs).
use driver_pd::cipher::CipherPd;
use omap_aes_driver::{Config, Engine, LedgerMeter, OmapAesDriver};
use soc_access::{Am335x, Am335xBus};

fn init() -> CipherPd<OmapAesDriver<'static, Am335xBus, Am335xBus, LedgerMeter<'static>>> {
    let soc = Am335x::take();
    let meter = LedgerMeter {
        ledger: soc.common.ledger,
        costs: &boards::am335x::COSTS,
    };
    let s = soc.common.scratch;
    let engine = Engine::new(Config::AM335X, soc.aes, soc.edma);
    pio_dma_driver::pd::bring_up(
        engine,
        meter,
        s.region,
        s.phys,
        pd_idl::power::Engine::OmapAes,
    )
}

pd_runtime::protection_domain!(init);
