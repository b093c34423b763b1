#![cfg_attr(target_os = "none", no_std, no_main)]
//! The OMAP AES driver PD (see the `omap-aes-pd` crate docs).
use cipher_service::{Cipher, ClientData};
use driver_pd::DriverPd;
use omap_aes_driver::{AM335X, Engine, LedgerMeter, OmapAesDriver};
use soc_access::{Am335x, Am335xBus};

type Driver = OmapAesDriver<'static, Am335xBus, Am335xBus, LedgerMeter<'static>>;

fn init() -> DriverPd<Cipher<Driver>> {
    let soc = Am335x::take();
    let meter = LedgerMeter {
        ledger: soc.common.ledger,
        costs: &board::am335x::COSTS,
    };
    let engine = Engine::new(AM335X, soc.aes, soc.edma);
    let s = soc.common.scratch;
    let scratch = ClientData {
        region: s.region,
        phys: Some(s.phys),
    };
    let driver = Driver::new(engine, meter, scratch);
    let power = Some(pd_idl::power::Engine::OmapAes);
    DriverPd::start(driver, power, pio_dma_driver::pd::init)
}

pd_runtime::protection_domain!(init);
