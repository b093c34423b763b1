#![cfg_attr(target_os = "none", no_std, no_main)]
//! A TEST BUILD of the CPU Digest driver PD that faults once, on its client's first
//! notification, with the client's first request queued and unserved
//! (`driver_pd::crash_test`). For the restart tests of whole systems; no release system
//! names this binary, and the `cpu-digest` binary has none of this code.
use cpu_engine::hash::CpuDigest;
use driver_pd::crash_test::FaultOnce;
use driver_pd::digest::DigestPd;

fn init() -> FaultOnce<DigestPd<CpuDigest>> {
    FaultOnce::new(driver_pd::digest::pd(CpuDigest::default(), None), 1)
}

pd_runtime::protection_domain!(init);
