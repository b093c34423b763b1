//! The CPU engine (RustCrypto MD5, SHA-1, SHA-256; SHA-NI where present) as a Digest
//! driver PD. No clock gate, so no power grant.
use cpu_engine::hash::CpuDigest;
use driver_pd::digest::DigestPd;

fn init() -> DigestPd<CpuDigest> {
    DigestPd::new(CpuDigest::default(), None)
}

pd_runtime::protection_domain!(init);
