//! `system-tests`: the host-only protection domains of crypto-pd (test and demo clients,
//! a timer stand-in) and the integration tests that boot whole systems
//! (`system/*.system`) on the host backend. The driver PDs are not here: each is its
//! engine's own, one source for the host and seL4 (`components/<engine>-pd`), as are the
//! power managers (`components/power-manager-pd`); the tests find them beside their own
//! binaries (`make test` builds every package's PD binaries first).
//!
//! Binaries (a `.system` `program_image` `x.elf` runs binary `x`):
//! * `busy-client`: the two clients of the test that a driver serves while its engine
//!   works (`system/busy.system`);
//! * `hostile-cipher`, `hostile-digest`: clients that misbehave in every way a client can
//!   ([`hostile`]);
//! * `come-back-client`: a client that faults with sessions open and is restarted;
//! * `storm-client`: a streaming client that checks each answer is its incarnation's
//!   own, for storms of client and driver kills (`system/storm.system`);
//! * `demo-speed`: the demo's speed table; `device-prober`: a client that probes device
//!   PDs it must not reach;
//! * `timer-tick`: a host stand-in for a timer driver, so the power manager gates engines
//!   when their autosuspend delay passes.
//!
//! Host assumptions: the engine models, the ledger and the gate block stand in for
//! silicon; the ledger (`setvar_vaddr="ledger"`) and the gate block (`"gates"`) are
//! shared memory regions so that the power manager, the driver and readers see the same
//! counters (the driver PDs build their board's model through `soc-access`).
#![cfg(not(target_os = "none"))]

pub mod client;
pub mod hostile;
pub mod shared;
