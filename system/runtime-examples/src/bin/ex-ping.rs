#![cfg_attr(target_os = "none", no_std, no_main)]
//! Ping: 1000 checked rounds with pong over queues, then exits 0.
use runtime_examples::pingpong::Ping;

fn init() -> Ping {
    Ping::init(Some(1000), 250)
}

pd_runtime::protection_domain!(init);
