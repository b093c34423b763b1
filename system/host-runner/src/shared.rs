//! What the supervisor thread and the console share with the library's API: the events,
//! the PDs' output and pids, and how the system ended, behind one lock.

use std::collections::VecDeque;
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

/// The PDs' latest output lines, bounded (see [`Status::output`]).
#[derive(Default)]
pub(crate) struct Output {
    lines: VecDeque<(String, String)>,
    bytes: usize,
    /// Lines dropped to keep within the bounds.
    pub dropped: u64,
}

impl Output {
    pub(crate) fn push(&mut self, pd: &str, line: String) {
        self.bytes += pd.len() + line.len();
        self.lines.push_back((pd.to_string(), line));
        while self.lines.len() > KEPT_LINES || self.bytes > KEPT_BYTES {
            let Some((p, l)) = self.lines.pop_front() else {
                break;
            };
            self.bytes -= p.len() + l.len();
            self.dropped += 1;
        }
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &(String, String)> {
        self.lines.iter()
    }

    /// Every kept line, oldest first, as one slice.
    pub(crate) fn as_slice(&mut self) -> &[(String, String)] {
        self.lines.make_contiguous()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_keeps_the_latest_lines_within_both_bounds() {
        let mut out = Output::default();
        for i in 0..KEPT_LINES + 10 {
            out.push("pd", format!("line {i}"));
        }
        assert_eq!(out.iter().count(), KEPT_LINES);
        assert_eq!(out.dropped, 10);
        assert_eq!(out.as_slice()[0].1, "line 10", "the oldest go first");
        let long = "x".repeat(4096);
        for _ in 0..(KEPT_BYTES / 4096 + 100) {
            out.push("pd", long.clone());
        }
        assert!(out.bytes <= KEPT_BYTES, "{} bytes kept", out.bytes);
        let kept: usize = out.iter().map(|(p, l)| p.len() + l.len()).sum();
        assert_eq!(kept, out.bytes, "the byte count follows the lines");
        assert_eq!(out.as_slice().last().unwrap().1, long, "the newest is kept");
    }
}
