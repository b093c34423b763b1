#![cfg_attr(target_os = "none", no_std, no_main)]
//! The CPU engine (RustCrypto MD5, SHA-1, SHA-256; SHA-NI where present) as a Digest
//! driver PD.
use cpu_engine::hash::CpuDigest;
use driver_pd::digest::DigestPd;

fn init() -> DigestPd<CpuDigest> {
    driver_pd::digest::pd(CpuDigest::default(), None)
}

pd_runtime::protection_domain!(init);
