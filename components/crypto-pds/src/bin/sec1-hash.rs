//! The talitos SEC1 hash driver PD (mpc885): MD5, SHA-1, SHA-256 sessions; each update
//! chains a descriptor over the session's buffered block ahead of descriptors over the
//! client's segments (at most two blocks copied per update). On the host the mpc885 model
//! lives in this process behind the register bus.
use crypto_pds::board::{Sec1Mem, parts};
use driver_pd::PowerHold;
use driver_pd::digest::DigestPd;
use engine_models::mpc885::Mpc885Machine;
use engine_models::soc::Port;
use pd_idl::power::Engine;
use pd_runtime::debug_println;
use sec1_hash_driver::Sec1Hash;

type Driver = Sec1Hash<'static, Port<'static, Mpc885Machine<'static>>, Sec1Mem>;

fn init() -> DigestPd<Driver> {
    let parts = parts();
    let soc = parts.mpc885();
    let scratch = u32::try_from(parts.scratch.paddr).expect("SEC1 scratch below 4 GiB");
    let mut driver = Sec1Hash::new(soc.sec(), Sec1Mem(parts.mem), scratch, parts.ledger);
    let mut power = PowerHold::new(Engine::Sec1);
    if let Err(e) = power.ensure() {
        debug_println!("sec1: no power for the self-test: {e:?}");
    }
    match driver.init() {
        Ok(()) => debug_println!("sec1: self-test passed on the chained and copy paths"),
        // Reported and not served: every open gets EngineFault.
        Err(e) => debug_println!("sec1: SELF-TEST FAILED: {e:?}; not serving"),
    }
    let mut pd = driver_pd::digest::pd(driver, Some(power));
    pd.release_idle_power();
    pd
}

pd_runtime::protection_domain!(init);
