#![cfg_attr(target_os = "none", no_std, no_main)]
//! The OMAP AES driver PD (see the `omap-aes-pd` crate docs).
use cipher_service::ClientData;
use driver_pd::cipher::CipherPd;
use omap_aes_driver::{Config, LedgerMeter, OmapAesDriver};
use pd_idl::power::Engine;
use pd_runtime::{debug_println, pd_name};
use soc_access::{Am335x, Am335xBus};

type Driver = OmapAesDriver<'static, Am335xBus, Am335xBus, LedgerMeter<'static>>;

fn init() -> CipherPd<Driver> {
    let soc = Am335x::take();
    let meter = LedgerMeter {
        ledger: soc.common.ledger,
        costs: &boards::am335x::COSTS,
    };
    let scratch = soc.common.scratch;
    let scratch = ClientData {
        region: scratch.region,
        phys: Some(scratch.phys),
    };
    let driver = omap_aes_driver::new(Config::AM335X, soc.aes, soc.edma, meter, scratch);
    driver_pd::cipher::bring_up(
        driver,
        Engine::OmapAes,
        |d| d.init().copied(),
        |cal| {
            debug_println!("{}: self-test passed on every path", pd_name());
            for e in cal.entries() {
                debug_println!("{}: {e}", pd_name());
            }
        },
    )
}

pd_runtime::protection_domain!(init);
