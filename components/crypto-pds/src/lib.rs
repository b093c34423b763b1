//! `crypto-pds`: the protection-domain entries of crypto-pd, thin wiring over the
//! component libraries, and the integration tests that boot whole systems
//! (`system/*.system`) on the host backend.
//!
//! Binaries (a `.system` `program_image` `x.elf` runs binary `x`):
//! * `pm-am335x`, `pm-stm32mp1`, `pm-mpc885`: the power manager of each board
//!   ([`power`]); the driver PDs are its children, so it sees their faults, revokes their
//!   grants and restarts them.
//! * `cpu-cipher`, `cpu-digest`: the CPU engine (RustCrypto) as Cipher and Digest
//!   drivers; `omap-aes`, `stm32-cryp`, `sec1-hash`: the hardware drivers, each over its
//!   board's engine model living inside the driver process ([`board`]).
//! * `kat-cipher`, `kat-digest`: clients that run the published vectors through every
//!   path the driver takes and exit 0 only when all pass; `hostile-cipher`: a client
//!   that misbehaves in every way a client can; `stream-cipher`: a client that keeps
//!   requests in flight (for the restart test); `timer-tick`: a host stand-in for a timer
//!   driver, so the power manager gates engines when their autosuspend delay passes.
//!
//! Why one crate: cargo builds a package's binaries for its own integration tests, and
//! the host runner finds PD binaries beside the test executable; the logic lives in the
//! libraries (`driver-pd`, `power-manager`, the driver crates), so each entry here is a
//! few dozen lines.
//!
//! Host assumptions: the engine models, the ledger and the gate block stand in for
//! silicon; the ledger (`setvar_vaddr="ledger"`) and the gate block (`"gates"`) are
//! shared memory regions so that the power manager, the driver and readers see the same
//! counters. The model of a board is built once per driver process at init, on the
//! host's heap (the silicon is not part of the driver); the drivers and the power
//! manager themselves allocate nothing.
#![cfg(not(target_os = "none"))]

pub mod board;
pub mod client;
pub mod hostile;
pub mod kat;
pub mod pio_dma;
pub mod power;
pub mod report;
pub mod shared;
