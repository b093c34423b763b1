#![cfg_attr(target_os = "none", no_std, no_main)]
//! The CPU engine (RustCrypto AES-GCM and the engine's CCM) as an Aead driver PD. Where
//! the system gives it an Rng driver (`driver_pd::rng`), the nonces of
//! `EncryptNewNonce` are drawn there; without one, those are `NoRandomness`.
use aead_service::Aead;
use cpu_engine::aead::CpuAead;
use driver_pd::DriverPd;

fn init() -> DriverPd<Aead<CpuAead>> {
    // Sessions on keys by handle, where the system gives a key store.
    driver_pd::keys::connect();
    let engine = if driver_pd::rng::connect() {
        CpuAead::with_random(driver_pd::rng::draw)
    } else {
        CpuAead::default()
    };
    DriverPd::start(engine, None, |_, _| {})
}

pd_runtime::protection_domain!(init);
