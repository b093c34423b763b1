#![cfg_attr(target_os = "none", no_std, no_main)]
//! The STM32 CRYP driver PD (see the `stm32-cryp-pd` crate docs).
use cipher_service::ClientData;
use driver_pd::cipher::CipherPd;
use pd_idl::power::Engine;
use pd_runtime::{debug_println, pd_name};
use soc_access::{Stm32mp1, Stm32mp1Bus};
use stm32_cryp_driver::{Config, LedgerMeter, Stm32CrypDriver};

type Driver = Stm32CrypDriver<'static, Stm32mp1Bus, Stm32mp1Bus, LedgerMeter<'static>>;

fn init() -> CipherPd<Driver> {
    let soc = Stm32mp1::take();
    let meter = LedgerMeter {
        ledger: soc.common.ledger,
        costs: &boards::stm32mp1::COSTS,
    };
    let scratch = soc.common.scratch;
    let scratch = ClientData {
        region: scratch.region,
        phys: Some(scratch.phys),
    };
    let driver = stm32_cryp_driver::new(Config::STM32MP1, soc.cryp, soc.dma, meter, scratch);
    driver_pd::cipher::bring_up(
        driver,
        Engine::Stm32Cryp,
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
