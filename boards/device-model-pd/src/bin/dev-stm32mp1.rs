#![cfg_attr(target_os = "none", no_std, no_main)]
//! stm32mp1's CRYP1 with its DMA and clock controller, standing in for the silicon (see
//! the `device-model-pd` crate docs).
use device_model_pd::{DevicePd, gates, keep, ledger, phys_map};
use engine_models::soc::Soc;
use engine_models::stm32mp1::{DEV_CRYP, DEV_DMA, Stm32mp1Machine, stm32mp1};
use static_cell::StaticCell;

fn init() -> DevicePd<Stm32mp1Machine<'static>> {
    static SOC: StaticCell<Soc<'static, Stm32mp1Machine<'static>>> = StaticCell::new();
    let soc = keep(&SOC, stm32mp1(phys_map(), gates(), ledger()));
    DevicePd::new(soc, DEV_CRYP, Some(DEV_DMA))
}

pd_runtime::protection_domain!(init);
