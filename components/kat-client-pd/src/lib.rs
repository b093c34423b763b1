//! Known-answer client PDs, one source for the host and seL4: `kat-cipher` runs
//! FIPS-197 C and SP 800-38A through every path a Cipher driver offers, `kat-digest` runs
//! FIPS 180-4 and RFC 1321 through every path of a Digest driver, `kat-mac` runs RFC 2202
//! and RFC 4231 through a Mac driver (tags, verifies, mismatches), `kat-aead` runs
//! CAVP's and SP 800-38C's GCM and CCM cases through an Aead driver, each printing a
//! summary per path and exiting 0 only when every answer matches the published one;
//! `kat-keys` encrypts by handle with keys the key store holds (and checks no key byte
//! reaches its regions), `hostile-keys` tries every way to get or misuse a key;
//! `stream-cipher` keeps a Cipher driver busy across its restarts. [`Client`] is what
//! the known-answer ones share: their driver, their failures and their verdict.
//!
//! The driver is on channel 0 with the client's regions `queues` and `data`
//! (`crypto_client::pd`); a cost ledger mapped as `ledger` (optional) lets a client
//! report what its requests cost. A system that collects verdicts (the seL4 image's
//! test client) maps a region `report` and names the channel to notify with
//! `setvar_id="verdict"`: the verdict line goes there too ([`report`]). `no_std`, no heap.
#![no_std]

pub mod cases;
pub mod keys;

pub use soc_access::shared::Meter;

use crypto_client::Completion;
use crypto_client::driver::{Driver, Interface};
use crypto_client::pd::Data;

/// Hands the verdict to whoever collects them, if the system says who
/// ([`crypto_client::hand_in!`]).
pub fn report(passed: bool, line: core::fmt::Arguments<'_>) {
    crypto_client::hand_in!(passed, "{line}");
}

/// What a known-answer client checks, for its lines and its verdict.
pub struct About {
    name: &'static str,
    what: &'static str,
    sources: &'static str,
    legend: &'static str,
}

impl About {
    /// A client whose lines start with `name`, whose verdict counts `what` (`vectors`,
    /// `digests`, `answers`) checked against `sources` (the publications), and says
    /// after a pass what its summary's columns mean (`legend`).
    pub const fn new(
        name: &'static str,
        what: &'static str,
        sources: &'static str,
        legend: &'static str,
    ) -> Self {
        About {
            name,
            what,
            sources,
            legend,
        }
    }
}

/// Counters by name, for a verdict line: `sealed 3, opened 4`.
pub struct Passed<const N: usize> {
    names: [&'static str; N],
    pub counts: [u32; N],
}

impl<const N: usize> Passed<N> {
    pub const fn new(names: [&'static str; N]) -> Self {
        Passed {
            names,
            counts: [0; N],
        }
    }

    pub fn total(&self) -> u32 {
        self.counts.iter().sum()
    }
}

impl<const N: usize> core::fmt::Display for Passed<N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let mut sep = "";
        for (name, n) in self.names.iter().zip(self.counts) {
            write!(f, "{sep}{name} {n}")?;
            sep = ", ";
        }
        Ok(())
    }
}

/// One path's results, for the verdict's summary by path.
pub trait PathResults {
    type Path: core::fmt::Debug;
    /// What the summary says of the path after its count, if anything.
    fn notes(&self, path: &Self::Path, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result;
    /// Answers right on the path.
    fn passed(&self) -> u32;
}

/// The summary by path: `Path n` and its notes for each path of `.0` whose results
/// (`.1`, in the same order) passed anything.
pub struct ByPath<'a, T: PathResults>(pub &'a [T::Path], pub &'a [T]);

impl<T: PathResults> ByPath<'_, T> {
    pub fn total(&self) -> u32 {
        self.1.iter().map(T::passed).sum()
    }
}

impl<T: PathResults> core::fmt::Display for ByPath<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let mut sep = "";
        for (path, t) in self.0.iter().zip(self.1).filter(|(_, t)| t.passed() > 0) {
            write!(f, "{sep}{path:?} {}", t.passed())?;
            t.notes(path, f)?;
            sep = ", ";
        }
        Ok(())
    }
}

/// A known-answer client's driver and data region ([`crypto_client::pd`]'s), with what
/// every such client keeps besides its vectors: the name its lines start with, its
/// request ids, its failures and the algorithms its driver refused at open. A client
/// that cannot go on past a driver restart or a refused submit panics, so those end it.
pub struct Client<I: Interface> {
    about: &'static About,
    pub driver: Driver<I>,
    pub data: Data,
    next_id: u32,
    failed: u32,
    /// Algorithms the driver refused at open (bit `alg as u8`), reported, not failed.
    refused: u64,
    /// Algorithms the driver opened a session of (bit `alg as u8`).
    opened: u64,
}

impl<I: Interface> Client<I> {
    pub fn map(about: &'static About) -> Self {
        Client {
            about,
            driver: Driver::map(),
            data: Data::map(),
            next_id: 0,
            failed: 0,
            refused: 0,
            opened: 0,
        }
    }

    pub fn fail(&mut self, what: core::fmt::Arguments<'_>) {
        self.failed += 1;
        pd_runtime::debug_println!("{}: FAIL {what}", self.about.name);
    }

    /// An answer to no request of the client's.
    pub fn unasked(&mut self, id: u32) {
        self.fail(format_args!("answer {id} to nothing asked"));
    }

    /// A request id no request of this client had.
    pub fn fresh_id(&mut self) -> u32 {
        self.next_id += 1;
        self.next_id
    }

    pub fn submit(&mut self, req: I::Request) {
        if let Err(e) = self.driver.submit(req) {
            panic!("{}: submit: {e:?}", self.about.name);
        }
    }

    /// The answers waiting (at most `N`).
    pub fn answers<const N: usize>(&mut self) -> impl Iterator<Item = I::Response> + use<I, N> {
        let name = self.about.name;
        let answers = self.driver.answers::<N>().expect("response queue");
        answers.into_iter().map(move |c| match c {
            Completion::Answered(r) => r,
            Completion::Restarted(id) => panic!("{name}: driver restarted (request {id})"),
        })
    }

    /// Closes `session`; a refusal is a failure.
    pub fn close(&mut self, session: u32) {
        if let Err(e) = self.driver.close_session(session) {
            self.fail(format_args!("close_session: {e:?}"));
        }
    }

    /// Says that the driver offers no `path` (it refused the path's first open).
    pub fn skip_path(&self, path: impl core::fmt::Debug) {
        pd_runtime::debug_println!(
            "{}: path {path:?}: skipped (this driver has no such path)",
            self.about.name
        );
    }

    pub fn refuse(&mut self, bit: u8) {
        self.refused |= 1 << bit;
    }

    /// The driver opened a session of the algorithm of value `bit`.
    pub fn opened(&mut self, bit: u8) {
        self.opened |= 1 << bit;
    }

    /// Checks the driver's `capabilities` answer against what its opens said: an
    /// algorithm refused at open as unsupported must not be offered, and one opened
    /// must be. A disagreement (or a refused query) is a failure.
    pub fn agree<E: core::fmt::Debug>(&mut self, offered: Result<u64, E>) {
        let offered = match offered {
            Ok(bits) => bits,
            Err(e) => return self.fail(format_args!("capabilities: {e:?}")),
        };
        let refused_yet_offered = self.refused & offered;
        let opened_not_offered = self.opened & !offered;
        if refused_yet_offered != 0 || opened_not_offered != 0 {
            self.fail(format_args!(
                "capabilities {offered:#x}: refused at open yet offered {refused_yet_offered:#x}, opened yet not offered {opened_not_offered:#x}"
            ));
        }
    }

    pub fn refuses(&self, bit: u8) -> bool {
        self.refused & 1 << bit != 0
    }

    /// The algorithms of `all` refused, for the verdict.
    pub fn refused_at_open<A>(&self, all: &'static [A], bit: fn(A) -> u8) -> Refused<A> {
        Refused {
            bits: self.refused,
            all,
            bit,
        }
    }

    /// Ends the client: with nothing failed and something passed, its verdict line (its
    /// results `by_path`, then `extra`), the report and exit 0; else the failure count,
    /// the report and exit 1.
    pub fn conclude(
        &self,
        passed: u32,
        by_path: &dyn core::fmt::Display,
        extra: &dyn core::fmt::Display,
    ) -> ! {
        let About {
            name,
            what,
            sources,
            legend,
        } = self.about;
        let failed = self.failed;
        if failed == 0 && passed > 0 {
            pd_runtime::debug_println!(
                "{name}: verdict: all {passed} {what} passed ({sources}): {by_path}{extra}"
            );
            report(true, format_args!("all {passed} {what} passed: {by_path}"));
            pd_runtime::debug_println!("{name}: ({legend})");
            pd_runtime::exit(0);
        }
        pd_runtime::debug_println!("{name}: {failed} failed, {passed} passed");
        report(false, format_args!("{failed} failed, {passed} passed"));
        pd_runtime::exit(1);
    }
}

/// The algorithms of `all` the driver refused at open (their bits, `bit(a)`, set in
/// `bits`), for the verdict's extra: reported, not failed.
pub struct Refused<A: 'static> {
    pub bits: u64,
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
