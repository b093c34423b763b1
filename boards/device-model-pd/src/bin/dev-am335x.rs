#![cfg_attr(target_os = "none", no_std, no_main)]
//! am335x's AES0 with its EDMA and clock controller, standing in for the silicon (see
//! the `device-model-pd` crate docs).
use device_model_pd::{DevicePd, gates, keep, ledger, phys_map};
use engine_models::am335x::{Am335xMachine, DEV_AES, DEV_EDMA, am335x};
use engine_models::soc::Soc;
use static_cell::StaticCell;

fn init() -> DevicePd<Am335xMachine<'static>> {
    static SOC: StaticCell<Soc<'static, Am335xMachine<'static>>> = StaticCell::new();
    let soc = keep(&SOC, am335x(phys_map(), gates(), ledger()));
    DevicePd::new(soc, DEV_AES, Some(DEV_EDMA))
}

pd_runtime::protection_domain!(init);
