#![cfg_attr(target_os = "none", no_std, no_main)]
//! The STM32 CRYP driver PD (see the `stm32-cryp-pd` crate docs).
use board::stm32mp1;
use pd_idl::power;
use pio_dma_driver::pd::{PioDmaPd, start};
use soc_access::{Stm32mp1, Stm32mp1Bus};
use stm32_cryp_driver::{Engine, STM32MP1};

fn init() -> PioDmaPd<Engine<Stm32mp1Bus, Stm32mp1Bus>> {
    let Stm32mp1 { cryp, dma, common } = Stm32mp1::take();
    let engine = Engine::new(STM32MP1, cryp, dma);
    start(engine, common, &stm32mp1::COSTS, power::Engine::Stm32Cryp)
}

pd_runtime::protection_domain!(init);
