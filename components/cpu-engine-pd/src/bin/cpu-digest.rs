#![cfg_attr(target_os = "none", no_std, no_main)]
//! The CPU engine (RustCrypto MD5, SHA-1, SHA-256; SHA-NI where present) as a Digest
//! driver PD.
use cpu_engine::hash::CpuDigest;
use digest_service::Digest;
use driver_pd::DriverPd;

fn init() -> DriverPd<Digest<CpuDigest>> {
    DriverPd::start(CpuDigest::default(), None, |_, _| {})
}

pd_runtime::protection_domain!(init);
