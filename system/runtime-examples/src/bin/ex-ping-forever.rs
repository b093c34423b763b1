#![cfg_attr(target_os = "none", no_std, no_main)]
//! Ping without end, reporting every 4096 rounds: the peer that keeps running while its
//! pong is killed and restarted.
use runtime_examples::pingpong::Ping;

fn init() -> Ping {
    Ping::init(None, 4096)
}

pd_runtime::protection_domain!(init);
