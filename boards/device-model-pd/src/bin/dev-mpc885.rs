#![cfg_attr(target_os = "none", no_std, no_main)]
//! mpc885's SEC 1.2 (talitos, which masters its own DMA) and clock controller, standing
//! in for the silicon (see the `device-model-pd` crate docs).
use device_model_pd::{DevicePd, gates, keep, ledger, phys_map};
use engine_models::mpc885::{DEV_SEC, Mpc885Machine, mpc885};
use engine_models::soc::Soc;
use static_cell::StaticCell;

fn init() -> DevicePd<Mpc885Machine<'static>> {
    static SOC: StaticCell<Soc<'static, Mpc885Machine<'static>>> = StaticCell::new();
    let soc = keep(&SOC, mpc885(phys_map(), gates(), ledger()));
    DevicePd::new(soc, DEV_SEC, None)
}

pd_runtime::protection_domain!(init);
