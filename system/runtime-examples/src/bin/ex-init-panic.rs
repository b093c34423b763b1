#![cfg_attr(target_os = "none", no_std, no_main)]
//! A PD that panics in `init`: a fault during boot.
use pd_runtime::Handler;

struct Never;
impl Handler for Never {}

fn init() -> Never {
    panic!("ex-init-panic: refusing to start (deliberate)");
}

pd_runtime::protection_domain!(init);
