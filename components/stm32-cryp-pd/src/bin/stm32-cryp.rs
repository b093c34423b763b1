#![cfg_attr(target_os = "none", no_std, no_main)]
//! The STM32 CRYP driver PD (see the `stm32-cryp-pd` crate docs).
use cipher_service::{Cipher, ClientData};
use driver_pd::DriverPd;
use soc_access::{Stm32mp1, Stm32mp1Bus};
use stm32_cryp_driver::{Engine, LedgerMeter, STM32MP1, Stm32CrypDriver};

type Driver = Stm32CrypDriver<'static, Stm32mp1Bus, Stm32mp1Bus, LedgerMeter<'static>>;

fn init() -> DriverPd<Cipher<Driver>> {
    let soc = Stm32mp1::take();
    let meter = LedgerMeter {
        ledger: soc.common.ledger,
        costs: &board::stm32mp1::COSTS,
    };
    let engine = Engine::new(STM32MP1, soc.cryp, soc.dma);
    let s = soc.common.scratch;
    let scratch = ClientData {
        region: s.region,
        phys: Some(s.phys),
    };
    let driver = Driver::new(engine, meter, scratch);
    let power = Some(pd_idl::power::Engine::Stm32Cryp);
    DriverPd::start(driver, power, pio_dma_driver::pd::init)
}

pd_runtime::protection_domain!(init);
