#![cfg_attr(target_os = "none", no_std, no_main)]
//! Pong: answers each number with the number plus one.
use runtime_examples::pingpong::Pong;

pd_runtime::protection_domain!(Pong::init);
