#![cfg_attr(target_os = "none", no_std, no_main)]
//! The stm32mp1 RNG driver PD: RNG1 as the entropy source of the Rng service (SP 800-90B
//! health tests, a CTR_DRBG per session), data on the RNG's interrupt. RNG1 has no
//! silicon under QEMU or on the host, so the PD reaches it through the device PD
//! standing in for it (`dev-stm32mp1-rng`, on its device channel: `setvar_id="device"`),
//! whose notifications are the RNG's interrupt. On a board the same driver would run
//! over volatile MMIO; that mapping is not built yet. No clock gate: no power grant.
use driver_pd::DriverPd;
use pd_runtime::debug_println;
use rng_service::{Entropy, Rng};
use soc_access::device::{DeviceBus, window};
use stm32_rng_driver::Stm32Rng;

fn init() -> DriverPd<Rng<Stm32Rng<DeviceBus>>> {
    let Some(ch) = pd_runtime::device_channel() else {
        debug_println!(
            "stm32-rng: needs the device PD standing in for RNG1 (a channel with setvar_id=\"device\"); exiting"
        );
        pd_runtime::exit(1);
    };
    let dev = Stm32Rng::new(DeviceBus::new(ch, window::ENGINE))
        .unwrap_or_else(|e| panic!("stm32_rng: RNG1 does not answer: {e:?}"));
    debug_println!(
        "stm32_rng: RNG1 up through its device PD; claims {} bits a sample",
        stm32_rng_driver::CLAIM_BITS
    );
    DriverPd::start(Entropy::new(dev), None, |_, _| {})
}

pd_runtime::protection_domain!(init);
