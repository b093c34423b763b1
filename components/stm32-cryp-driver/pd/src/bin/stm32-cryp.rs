#![cfg_attr(target_os = "none", no_std, no_main)]
//! The STM32 CRYP driver PD (see the `stm32-cryp-pd` crate docs).
use driver_pd::cipher::CipherPd;
use soc_access::{Stm32mp1, Stm32mp1Bus};
use stm32_cryp_driver::{Config, Engine, LedgerMeter, Stm32CrypDriver};

fn init() -> CipherPd<Stm32CrypDriver<'static, Stm32mp1Bus, Stm32mp1Bus, LedgerMeter<'static>>> {
    let soc = Stm32mp1::take();
    let meter = LedgerMeter {
        ledger: soc.common.ledger,
        costs: &boards::stm32mp1::COSTS,
    };
    let s = soc.common.scratch;
    let engine = Engine::new(Config::STM32MP1, soc.cryp, soc.dma);
    pio_dma_driver::pd::bring_up(
        engine,
        meter,
        s.region,
        s.phys,
        pd_idl::power::Engine::Stm32Cryp,
    )
}

pd_runtime::protection_domain!(init);
