#![cfg_attr(target_os = "none", no_std, no_main)]
//! A TEST BUILD of the CPU Digest driver PD that faults once, on its client's first
//! notification, with the client's first request queued and unserved
//! (`driver_pd::crash_test`). For the restart tests of whole systems; no release system
//! names this binary, and the `cpu-digest` binary has none of this code.
use cpu_engine::hash::CpuDigest;
use digest_service::Digest;
use driver_pd::DriverPd;
use driver_pd::crash_test::FaultOnce;

fn init() -> FaultOnce<DriverPd<Digest<CpuDigest>>> {
    FaultOnce::new(DriverPd::start(CpuDigest::default(), None, |_, _| {}), 1)
}

pd_runtime::protection_domain!(init);
