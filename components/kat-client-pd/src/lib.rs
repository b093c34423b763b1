//! Known-answer client PDs, one source for the host and seL4: `kat-cipher` runs
//! FIPS-197 C and SP 800-38A through every path a Cipher driver offers, `kat-digest` runs
//! FIPS 180-4 and RFC 1321 through every path of a Digest driver, `kat-mac` runs RFC 2202
//! and RFC 4231 through a Mac driver (tags, verifies, mismatches), each printing a
//! summary per path and exiting 0 only when every answer matches the published one.
//!
//! The driver is on channel 0 with the client's regions `queues` and `data`
//! (`crypto_client::pd`); a cost ledger mapped as `ledger` (optional) lets a client
//! report what its requests cost. A system that collects verdicts (the seL4 image's
//! test client) maps a region `report` and names the channel to notify with
//! `setvar_id="verdict"`: the verdict line goes there too ([`report`]). `no_std`, no heap.
#![no_std]

pub mod cases;

pub use soc_access::shared::Meter;

use core::fmt::Write;
use crypto_client::verdict::{Text, report as region};

/// Hands the verdict to whoever collects them, if the system says who: writes it to the
/// region `report` and notifies the channel `verdict`.
pub fn report(passed: bool, line: core::fmt::Arguments<'_>) {
    let Some(r) = pd_runtime::maybe_memory_region!(report) else {
        return;
    };
    let mut text = Text::default();
    let _ = text.write_fmt(line);
    region::write(r, passed, text.as_str());
    if let Some(ch) = pd_runtime::maybe_var!(verdict).and_then(|v| u8::try_from(v).ok()) {
        pd_runtime::Channel::new(ch).notify();
    }
}

/// What a known-answer client ran, for its verdict: its name, what it checks
/// (`vectors`, `digests`) and against which publications, its results by path, and
/// what the verdict adds after them.
pub struct Verdict<'a> {
    pub name: &'a str,
    pub what: &'a str,
    pub sources: &'a str,
    pub by_path: &'a dyn core::fmt::Display,
    pub extra: core::fmt::Arguments<'a>,
    /// What the summary's columns mean, printed after a pass.
    pub legend: &'a str,
}

/// Ends a known-answer client: with nothing failed and something passed, its verdict
/// line, the report and exit 0; else the failure count, the report and exit 1.
pub fn conclude(v: Verdict<'_>, passed: u32, failed: u32) -> ! {
    let name = v.name;
    if failed == 0 && passed > 0 {
        pd_runtime::debug_println!(
            "{name}: verdict: all {passed} {} passed ({}): {}{}",
            v.what,
            v.sources,
            v.by_path,
            v.extra
        );
        report(
            true,
            format_args!("all {passed} {} passed: {}", v.what, v.by_path),
        );
        pd_runtime::debug_println!("{name}: ({})", v.legend);
        pd_runtime::exit(0);
    }
    pd_runtime::debug_println!("{name}: {failed} failed, {passed} passed");
    report(false, format_args!("{failed} failed, {passed} passed"));
    pd_runtime::exit(1);
}

/// The algorithms of `all` the driver refused at open (their bits, `bit(a)`, set in
/// `bits`), for the verdict's extra: reported, not failed.
pub struct Refused<A: 'static> {
    pub bits: u8,
    pub all: &'static [A],
    pub bit: fn(A) -> u8,
}

impl<A: Copy + core::fmt::Debug> core::fmt::Display for Refused<A> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let mut sep = "; refused at open: ";
        for a in self
            .all
            .iter()
            .filter(|a| self.bits & 1 << (self.bit)(**a) != 0)
        {
            write!(f, "{sep}{a:?}")?;
            sep = ", ";
        }
        Ok(())
    }
}
