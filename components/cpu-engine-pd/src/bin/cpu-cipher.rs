#![cfg_attr(target_os = "none", no_std, no_main)]
//! The CPU engine (RustCrypto AES; AES-NI or the ARMv8 crypto extensions where present)
//! as a Cipher driver PD.
use cipher_service::Cipher;
use cpu_engine::CpuEngine;
use driver_pd::DriverPd;

fn init() -> DriverPd<Cipher<CpuEngine>> {
    DriverPd::start(CpuEngine::default(), None, |_, _| {})
}

pd_runtime::protection_domain!(init);
