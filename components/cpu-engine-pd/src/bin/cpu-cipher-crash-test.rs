#![cfg_attr(target_os = "none", no_std, no_main)]
//! A TEST BUILD of the CPU Cipher driver PD that faults once, mid-stream, on its client's
//! [`FAULT_AT`]th notification (`driver_pd::crash_test`). For the restart tests of whole
//! systems; no release system names this binary, and the `cpu-cipher` binary has none
//! of this code.
use cipher_service::Cipher;
use cpu_engine::CpuEngine;
use driver_pd::DriverPd;
use driver_pd::crash_test::FaultOnce;

/// The client notification on which the first incarnation faults.
const FAULT_AT: u32 = 40;

fn init() -> FaultOnce<DriverPd<Cipher<CpuEngine>>> {
    let pd = DriverPd::start(CpuEngine::default(), None, |_, _| {});
    FaultOnce::new(pd, FAULT_AT)
}

pd_runtime::protection_domain!(init);
