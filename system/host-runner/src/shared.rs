//! What the supervisor thread and the console share with the library's API: the events,
//! the PDs' output and pids, and how the system ended, behind one lock.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::error::BootError;
use crate::event::{Event, Outcome};

/// What the supervisor thread shares with the API.
pub(crate) struct Shared {
    pub(crate) state: Mutex<Status>,
    pub(crate) changed: Condvar,
}

pub(crate) struct Status {
    pub events: Vec<Event>,
    /// The PDs' latest output lines, (PD, line), oldest first: at most [`KEPT_LINES`]
    /// and [`KEPT_BYTES`] of them, older lines dropped (a PD flooding its console must
    /// not fill the runner's memory: 3 s of one took it from 5 MB to 430 MB).
    pub output: Output,
    pub pids: Vec<Option<u32>>,
    /// Every (pid, PD index) the runner started, oldest first: the console files a
    /// record by its writer's pid, which may have died since.
    pub started: Vec<(u32, usize)>,
    pub boot: Option<Result<(), BootError>>,
    /// Since when every live PD has slept with nothing sent to any (see
    /// [`System::asleep_for`](crate::System::asleep_for)).
    pub asleep_since: Option<Instant>,
    pub outcome: Option<Outcome>,
}

impl Shared {
    pub(crate) fn update(&self, f: impl FnOnce(&mut Status)) {
        f(&mut self.lock());
        self.changed.notify_all();
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Status> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until `f` returns `Some`, or `timeout` passes.
    pub(crate) fn wait<T>(
        &self,
        timeout: Duration,
        mut f: impl FnMut(&mut Status) -> Option<T>,
    ) -> Option<T> {
        // Duration::MAX means "no timeout" (no Instant that far ahead exists).
        let end = Instant::now().checked_add(timeout);
        let mut st = self.lock();
        loop {
            if let Some(v) = f(&mut st) {
                return Some(v);
            }
            let left = match end {
                Some(end) => end.checked_duration_since(Instant::now())?,
                None => Duration::from_secs(3600),
            };
            st = self
                .changed
                .wait_timeout(st, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

/// Most output lines the runner keeps.
pub const KEPT_LINES: usize = 1 << 16;
/// Most bytes of output lines the runner keeps.
pub const KEPT_BYTES: usize = 16 << 20;

/// What one PD may write, console and stdout together, before its lines are dropped
/// (counted): a burst of [`BURST_LINES`] lines and [`BURST_BYTES`] bytes, refilled at
/// these rates. So a PD flooding its output costs neither the terminal (dropped lines
/// are not echoed) nor the other PDs' lines: the kept output, shared by every PD, holds
/// at least `(KEPT_LINES - BURST_LINES) / LINES_PER_S` = 12 s of one flooder before a
/// quiet PD's lines age out. The noisiest PD of the tests (a KAT client) writes a few
/// hundred lines.
pub const LINES_PER_S: u64 = 4 << 10;
pub const BYTES_PER_S: u64 = 1 << 20;
pub const BURST_LINES: u64 = 16 << 10;
pub const BURST_BYTES: u64 = 4 << 20;

/// One PD's allowance of lines and bytes: a token bucket.
struct Allowance {
    lines: u64,
    bytes: u64,
    at: Instant,
    /// Lines dropped over the run.
    dropped: u64,
}

impl Allowance {
    fn new(now: Instant) -> Self {
        Allowance {
            lines: BURST_LINES,
            bytes: BURST_BYTES,
            at: now,
            dropped: 0,
        }
    }

    /// Whether a line of `len` bytes fits the allowance at `now` (taking it if so).
    fn take(&mut self, len: usize, now: Instant) -> bool {
        let us = now.saturating_duration_since(self.at).as_micros() as u64;
        let lines = us * LINES_PER_S / 1_000_000;
        let bytes = us * BYTES_PER_S / 1_000_000;
        // Time is spent only once it refilled something, so slow writers still refill.
        if lines > 0 {
            self.lines = (self.lines + lines).min(BURST_LINES);
            self.bytes = (self.bytes + bytes).min(BURST_BYTES);
            self.at = now;
        }
        let len = len as u64 + 1;
        if self.lines >= 1 && self.bytes >= len {
            self.lines -= 1;
            self.bytes -= len;
            true
        } else {
            self.dropped += 1;
            false
        }
    }
}

/// The PDs' latest output lines, bounded (see [`Status::output`]) and limited per PD.
#[derive(Default)]
pub(crate) struct Output {
    lines: VecDeque<(String, String)>,
    bytes: usize,
    /// Lines aged out to keep within the bounds.
    pub aged_out: u64,
    allowance: BTreeMap<String, Allowance>,
}

/// What became of a line [`Output::push`] was given.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Pushed {
    Kept,
    /// Dropped, the PD over its rate; `first`: the first line of this PD dropped.
    Dropped {
        first: bool,
    },
}

impl Output {
    pub(crate) fn push(&mut self, pd: &str, line: String, now: Instant) -> Pushed {
        let allowance = match self.allowance.get_mut(pd) {
            Some(a) => a,
            None => self
                .allowance
                .entry(pd.to_string())
                .or_insert(Allowance::new(now)),
        };
        if !allowance.take(line.len(), now) {
            return Pushed::Dropped {
                first: allowance.dropped == 1,
            };
        }
        self.bytes += pd.len() + line.len();
        self.lines.push_back((pd.to_string(), line));
        while self.lines.len() > KEPT_LINES || self.bytes > KEPT_BYTES {
            let Some((p, l)) = self.lines.pop_front() else {
                break;
            };
            self.bytes -= p.len() + l.len();
            self.aged_out += 1;
        }
        Pushed::Kept
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &(String, String)> {
        self.lines.iter()
    }

    /// Every kept line, oldest first, as one slice.
    pub(crate) fn as_slice(&mut self) -> &[(String, String)] {
        self.lines.make_contiguous()
    }

    /// Each PD that had lines dropped for its rate, and how many, over the run.
    pub(crate) fn dropped(&self) -> Vec<(String, u64)> {
        self.allowance
            .iter()
            .filter(|(_, a)| a.dropped > 0)
            .map(|(pd, a)| (pd.clone(), a.dropped))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_keeps_the_latest_lines_within_both_bounds() {
        let mut out = Output::default();
        // Lines of many PDs, none over its rate: only the store's bounds drop any.
        let pd = |i: usize| format!("pd{}", i % 64);
        let now = Instant::now();
        for i in 0..KEPT_LINES + 10 {
            assert_eq!(out.push(&pd(i), format!("line {i}"), now), Pushed::Kept);
        }
        assert_eq!(out.iter().count(), KEPT_LINES);
        assert_eq!(out.aged_out, 10);
        assert_eq!(out.as_slice()[0].1, "line 10", "the oldest go first");
        let long = "x".repeat(4096);
        for i in 0..(KEPT_BYTES / 4096 + 100) {
            assert_eq!(out.push(&pd(i), long.clone(), now), Pushed::Kept);
        }
        assert!(out.bytes <= KEPT_BYTES, "{} bytes kept", out.bytes);
        let kept: usize = out.iter().map(|(p, l)| p.len() + l.len()).sum();
        assert_eq!(kept, out.bytes, "the byte count follows the lines");
        assert_eq!(out.as_slice().last().unwrap().1, long, "the newest is kept");
        assert!(out.dropped().is_empty());
    }

    #[test]
    fn a_pd_over_its_rate_has_its_lines_dropped_and_counted_and_others_none() {
        let mut out = Output::default();
        let t0 = Instant::now();
        let burst = BURST_LINES as usize;
        for i in 0..burst {
            assert_eq!(out.push("flood", format!("{i}"), t0), Pushed::Kept);
        }
        assert_eq!(
            out.push("flood", "over".into(), t0),
            Pushed::Dropped { first: true }
        );
        assert_eq!(
            out.push("flood", "over".into(), t0),
            Pushed::Dropped { first: false }
        );
        assert_eq!(out.push("quiet", "here".into(), t0), Pushed::Kept);
        // A quarter of a second refills a quarter of the line rate.
        let later = t0 + Duration::from_millis(250);
        assert_eq!(out.push("flood", "back".into(), later), Pushed::Kept);
        let refilled = (LINES_PER_S / 4) as usize;
        for _ in 1..refilled {
            assert_eq!(out.push("flood", "x".into(), later), Pushed::Kept);
        }
        assert!(matches!(
            out.push("flood", "x".into(), later),
            Pushed::Dropped { .. }
        ));
        assert_eq!(out.dropped(), [("flood".to_string(), 3)]);
        assert_eq!(out.iter().count(), burst + 1 + refilled);
        // Bytes bound too: lines of 64 KiB exhaust the byte burst long before the lines.
        let big = "y".repeat(64 << 10);
        let fits = (BURST_BYTES / (big.len() as u64 + 1)) as usize;
        for _ in 0..fits {
            assert_eq!(out.push("big", big.clone(), t0), Pushed::Kept);
        }
        assert!(matches!(out.push("big", big, t0), Pushed::Dropped { .. }));
    }
}
