//! The speed tool's library: what it measures ([`measure`]), how it prints it
//! ([`report`]: openssl-speed tables, tcrypt lines, modelled beside host time, CSV),
//! the plot ([`plot`]), the published figures of the four Linux changes beside our model ([`reproduce`])
//! the host limit ([`host_limit`]), several clients sharing one driver ([`shared`]), a
//! light client beside a flooder ([`flood`]) and the file tools beside the programs they
//! stand in for ([`files`]).
//!
//! Two clocks, never mixed: *modelled* time is the board's cost table applied to the
//! events the engine models and drivers counted in the shared ledger during the run
//! (what the requests would cost on that board); *host* time is real time on this
//! machine for the same requests through the PDs (client PD -> queue -> driver PD ->
//! engine model or RustCrypto), one request in flight.

pub mod files;
pub mod flood;
pub mod host_limit;
pub mod idle;
pub mod measure;
pub mod plot;
pub mod report;
pub mod reproduce;
pub mod shared;

/// openssl speed's sizes.
pub const OPENSSL_SIZES: [usize; 6] = [16, 64, 256, 1024, 8192, 16384];

/// Now, in ns of CLOCK_MONOTONIC: the clock every process of the machine shares, so the
/// tool and its client PDs agree on `speed --clients`' windows.
pub fn monotonic_ns() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}
