#![cfg_attr(target_os = "none", no_std, no_main)]
//! The CPU engine (AES-GCM with RustCrypto's aes-gcm, AES-CCM over its aes) as an Aead
//! driver PD.
use aead_service::Aead;
use cpu_engine::aead::CpuAead;
use driver_pd::DriverPd;

fn init() -> DriverPd<Aead<CpuAead>> {
    DriverPd::start(CpuAead::default(), None, |_, _| {})
}

pd_runtime::protection_domain!(init);
