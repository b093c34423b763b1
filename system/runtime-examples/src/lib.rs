//! `runtime-examples`: small protection domains that exercise `pd-runtime` on the host
//! backend, the `.system` files that wire them (beside this crate in `systems/`), and the integration tests and round-trip benchmark that boot
//! them with `host-runner`.
//!
//! The PDs are written against the runtime API only (no `std` calls outside the bench
//! PDs, which time themselves), as components will be. Shared pieces live here:
//! [`queues`] lays two shm-queues out in one region, [`pingpong`] is the ping and pong
//! logic used by two systems.
//!
//! Assumes the binaries are built into the same directory as the runner or test binary
//! (`cargo test -p runtime-examples` and `cargo build -p runtime-examples` do that).
#![no_std]

pub mod pingpong;
pub mod queues;

/// Program images are named after these binaries (`ex-ping.elf` -> `ex-ping`).
pub const SYSTEMS_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/systems");
