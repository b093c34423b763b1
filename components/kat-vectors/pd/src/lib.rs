//! Known-answer client PDs, one source for the host and seL4: `kat-cipher` runs
//! FIPS-197 C and SP 800-38A through every path a Cipher driver offers, `kat-digest` runs
//! FIPS 180-4 and RFC 1321 through every path of a Digest driver, each printing a
//! summary per path and exiting 0 only when every answer matches the published one.
//!
//! The driver is on channel 0 with the client's regions `queues` and `data`
//! (`crypto_client::pd`); a cost ledger mapped as `ledger` (optional) lets a client
//! report what its requests cost. `no_std`, no heap.
#![no_std]

pub mod cases;

pub use soc_access::shared::Meter;
