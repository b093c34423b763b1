#![cfg_attr(target_os = "none", no_std, no_main)]
//! The CPU engine (RustCrypto AES; AES-NI or the ARMv8 crypto extensions where present)
//! as a Cipher driver PD. Where the system gives it an Rng driver (`driver_pd::rng`),
//! the IVs of `EncryptNewIv` are drawn there; without one, those are `NoRandomness`.
//! Where it gives a key store (`driver_pd::keys`), clients open sessions by handle.
use cipher_service::Cipher;
use cpu_engine::CpuEngine;
use driver_pd::DriverPd;

fn init() -> DriverPd<Cipher<CpuEngine>> {
    // Sessions on keys by handle, where the system gives a key store.
    driver_pd::keys::connect();
    let engine = if driver_pd::rng::connect() {
        CpuEngine::with_random(driver_pd::rng::draw)
    } else {
        CpuEngine::default()
    };
    DriverPd::start(engine, None, |_, _| {})
}

pd_runtime::protection_domain!(init);
