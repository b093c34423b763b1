//! What the supervisor thread and the console share with the library's API: the events,
//! the PDs' output and pids, and how the system ended, behind one lock.

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
    pub output: Vec<(String, String)>,
    pub pids: Vec<Option<u32>>,
    /// Every (pid, PD index) the runner started, oldest first: the console files a
    /// record by its writer's pid, which may have died since.
    pub started: Vec<(u32, usize)>,
    pub boot: Option<Result<(), BootError>>,
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
