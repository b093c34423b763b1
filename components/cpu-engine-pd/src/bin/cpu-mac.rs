#![cfg_attr(target_os = "none", no_std, no_main)]
//! The CPU engine (RustCrypto HMAC over MD5, SHA-1 and SHA-2) as a Mac driver PD.
use cpu_engine::mac::CpuMac;
use driver_pd::DriverPd;
use mac_service::Mac;

fn init() -> DriverPd<Mac<CpuMac>> {
    // Sessions on keys by handle, where the system gives a key store.
    driver_pd::keys::connect();
    DriverPd::start(CpuMac::default(), None, |_, _| {})
}

pd_runtime::protection_domain!(init);
