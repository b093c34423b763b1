#![cfg_attr(target_os = "none", no_std, no_main)]
//! The talitos SEC1 hash driver PD (see the `sec1-hash-pd` crate docs): MD5, SHA-1,
//! SHA-256 sessions; each update chains a descriptor over the session's buffered block
//! ahead of descriptors over the client's segments.
use digest_service::Digest;
use driver_pd::DriverPd;
use pd_idl::power::Engine;
use pd_runtime::{debug_println, pd_name};
use sec1_hash_driver::Sec1Hash;
use sec1_hash_pd::Mem;
use soc_access::{Mpc885, Mpc885Bus};

type Driver = Sec1Hash<'static, Mpc885Bus, Mem>;

fn init() -> DriverPd<Digest<Driver>> {
    let soc = Mpc885::take();
    let scratch = u32::try_from(soc.common.scratch.phys).expect("SEC1 scratch below 4 GiB");
    let len = soc.common.scratch.region.len();
    let driver = Sec1Hash::new(soc.sec, Mem(soc.dma), scratch, len, soc.common.ledger);
    DriverPd::start(driver, Some(Engine::Sec1), |d: &mut Driver, _| {
        match d.init() {
            Ok(()) => debug_println!(
                "{}: self-test passed on the chained and copy paths",
                pd_name()
            ),
            Err(e) => debug_println!("{}: SELF-TEST FAILED: {e:?}; not serving", pd_name()),
        }
    })
}

pd_runtime::protection_domain!(init);
