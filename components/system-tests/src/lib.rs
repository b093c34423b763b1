//! `system-tests`: the host-only protection domains of crypto-pd (each board's power
//! manager, the test and demo clients) and the integration tests that boot whole
//! systems (`system/*.system`) on the host backend. The driver PDs are not here: each is
//! its engine's own, one source for the host and seL4 (`components/<engine>/pd`), and
//! the tests find them beside their own binaries (`make test` builds every package's
//! PD binaries first).
//!
//! Binaries (a `.system` `program_image` `x.elf` runs binary `x`):
//! * `pm-am335x`, `pm-stm32mp1`, `pm-mpc885`: the power manager of each board
//!   ([`power`]); the driver PDs are its children, so it sees their faults, revokes their
//!   grants and restarts them.
//! * `busy-client`: the two clients of the test that a driver serves while its engine
//!   works (`system/busy.system`).
//! * `hostile-cipher`: a client
//!   that misbehaves in every way a client can; `stream-cipher`: a client that keeps
//!   requests in flight (for the restart test); `timer-tick`: a host stand-in for a timer
//!   driver, so the power manager gates engines when their autosuspend delay passes.
//!
//! Host assumptions: the engine models, the ledger and the gate block stand in for
//! silicon; the ledger (`setvar_vaddr="ledger"`) and the gate block (`"gates"`) are
//! shared memory regions so that the power manager, the driver and readers see the same
//! counters (the driver PDs build their board's model through `soc-access`).
#![cfg(not(target_os = "none"))]

pub mod client;
pub mod hostile;
pub mod shared;
