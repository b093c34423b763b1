//! The host backend's Rng driver PD: the Rng service over the getrandom-fed model (see
//! the `host-rng-pd` crate), no clock gate and no interrupt (the model always has
//! samples).
use driver_pd::DriverPd;
use host_rng_pd::HostNoise;
use pd_runtime::debug_println;
use rng_service::{Entropy, Rng};
use shared_region::SharedRegion;

fn init() -> DriverPd<Rng<HostNoise>> {
    let control = pd_runtime::maybe_memory_region!(noise_control).map(|r| {
        // SAFETY: mapped read-write for the PD's life; read only through volatile copies.
        unsafe { SharedRegion::from_raw(r.vaddr, r.size) }
    });
    debug_println!(
        "host-rng: entropy device is a model fed from the host's getrandom, claiming {} bits a sample{}",
        host_rng_pd::CLAIM_BITS,
        if control.is_some() {
            " (test control mapped)"
        } else {
            ""
        }
    );
    DriverPd::start(Entropy::new(HostNoise::new(control)), None, |_, _| {})
}

pd_runtime::protection_domain!(init);
