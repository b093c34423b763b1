#![cfg_attr(target_os = "none", no_std, no_main)]
//! A PD whose `init` never returns, for the runner's init deadline. On the host it
//! sleeps rather than spin, so a test waiting on it costs no CPU.
use pd_runtime::Handler;

struct Never;
impl Handler for Never {}

fn init() -> Never {
    loop {
        #[cfg(not(target_os = "none"))]
        std::thread::sleep(std::time::Duration::from_secs(1));
        #[cfg(target_os = "none")]
        core::hint::spin_loop();
    }
}

pd_runtime::protection_domain!(init);
