//! The library API: boot a system, watch it, shut it down.

use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use rustix::pipe::{PipeFlags, pipe_with};
use rustix::process::{Pid, Signal, kill_process};
use system_desc::SystemDescription;

use crate::error::BootError;
use crate::event::{Event, Outcome};
pub use crate::options::{Grant, Options};
use crate::shared::{Output, Shared, Status};
use crate::supervise::Supervisor;
use crate::{objects, plan};

/// A booted system. Dropping it shuts it down.
pub struct System {
    shared: Arc<Shared>,
    names: Vec<String>,
    /// Each memory region's name and a descriptor of it, for readers (tests, tools).
    regions: Vec<(String, OwnedFd)>,
    /// Closing (or writing) the write end asks the supervisor to shut down.
    ctl: Option<OwnedFd>,
    thread: Option<JoinHandle<()>>,
}

/// The directory of PD binaries when none is given.
pub fn default_bin_dir() -> std::io::Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let mut dir = exe.parent().unwrap_or(Path::new(".")).to_path_buf();
    if dir.file_name().is_some_and(|n| n == "deps") {
        dir.pop();
    }
    Ok(dir)
}

impl System {
    /// Parses, checks and boots the `.system` file at `path`; returns once every PD's
    /// `init` has returned, or with the first reason it could not.
    pub fn boot(path: impl AsRef<Path>, opts: Options) -> Result<System, BootError> {
        let desc = system_desc::parse_file(path).map_err(BootError::Desc)?;
        System::boot_desc(&desc, opts)
    }

    pub fn boot_desc(desc: &SystemDescription, opts: Options) -> Result<System, BootError> {
        let os = |what: String| BootError::Os { pd: None, what };
        let bin_dir = match &opts.bin_dir {
            Some(d) => d.clone(),
            None => default_bin_dir().map_err(|e| os(format!("finding binaries: {e}")))?,
        };
        let plan = plan::plan(desc, &bin_dir)?;
        // The runner holds every region's and kernel page's descriptor: not dumpable, so
        // a PD of the same user cannot open them through /proc/<runner>/fd.
        rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable)
            .map_err(|e| os(format!("prctl(PR_SET_DUMPABLE): {e}")))?;
        let objs = objects::create(&plan).map_err(|e| os(format!("memfd: {e}")))?;
        let regions = plan
            .regions
            .iter()
            .zip(&objs.regions)
            .map(|(r, fd)| Ok((r.name.clone(), fd.try_clone()?)))
            .collect::<std::io::Result<_>>()
            .map_err(|e| os(format!("dup: {e}")))?;
        let (ctl_r, ctl_w) = pipe_with(PipeFlags::CLOEXEC).map_err(|e| os(format!("pipe: {e}")))?;
        let names: Vec<String> = plan.pds.iter().map(|p| p.name.clone()).collect();
        let shared = Arc::new(Shared {
            state: Mutex::new(Status {
                events: Vec::new(),
                output: Output::default(),
                pids: vec![None; names.len()],
                started: Vec::new(),
                boot: None,
                asleep_since: None,
                outcome: None,
            }),
            changed: Condvar::new(),
        });
        let sup = Supervisor::new(plan, objs, opts, shared.clone());
        let thread = std::thread::Builder::new()
            .name("supervisor".into())
            .spawn(move || sup.run(ctl_r))
            .map_err(|e| os(format!("thread: {e}")))?;
        let mut system = System {
            shared,
            names,
            regions,
            ctl: Some(ctl_w),
            thread: Some(thread),
        };
        // The supervisor enforces each PD's init deadline, so this wait ends.
        let boot = system
            .shared
            .wait(Duration::MAX, |st| st.boot.take())
            .expect("no timeout");
        match boot {
            Ok(()) => Ok(system),
            Err(e) => {
                system.stop();
                Err(e)
            }
        }
    }

    /// The PDs, parents before children.
    pub fn pds(&self) -> &[String] {
        &self.names
    }

    /// A copy of memory region `name` as it is now (what a debugger would read: a
    /// driver's trace, a ledger), or `None` if the system has no such region.
    pub fn read_region(&self, name: &str) -> Option<Vec<u8>> {
        let (_, fd) = self.regions.iter().find(|(n, _)| n == name)?;
        crate::trace::read(fd)
    }

    /// Writes `bytes` at `offset` of memory region `name`, as a PD that maps it
    /// writable could: for tests that play a hostile client's scribbling. Whether it
    /// went in whole.
    pub fn write_region(&self, name: &str, offset: u64, bytes: &[u8]) -> bool {
        let Some((_, fd)) = self.regions.iter().find(|(n, _)| n == name) else {
            return false;
        };
        rustix::io::pwrite(fd, bytes, offset).is_ok_and(|n| n == bytes.len())
    }

    /// The trace a driver PD keeps in region `name` (see `pd-trace`), read now.
    pub fn trace(&self, name: &str) -> Option<pd_trace::Snapshot> {
        pd_trace::Snapshot::parse(&self.read_region(name)?)
    }

    fn position(&self, pd: &str) -> Option<usize> {
        self.names.iter().position(|n| n == pd)
    }

    /// The current process id of `pd`, if it is running.
    pub fn pid(&self, pd: &str) -> Option<u32> {
        let i = self.position(pd)?;
        self.shared.lock().pids[i]
    }

    /// Sends `signal` to `pd`'s process (tests: killing a PD mid-run).
    pub fn signal(&self, pd: &str, signal: Signal) -> bool {
        let pid = self.pid(pd).and_then(|p| Pid::from_raw(p as i32));
        pid.is_some_and(|pid| kill_process(pid, signal).is_ok())
    }

    /// How long every running PD has been asleep (past init, waiting for an event) with
    /// nothing sent to any of them; `None` while one is awake. A system asleep for a
    /// while does nothing more by itself: no PD has a timer, so only a fault, a signal
    /// or the runner wakes one. Sampled every 20 ms, so a PD that slept through each
    /// sample but was woken in between is caught by what woke it changing.
    pub fn asleep_for(&self) -> Option<Duration> {
        self.shared.lock().asleep_since.map(|t| t.elapsed())
    }

    pub fn events(&self) -> Vec<Event> {
        self.shared.lock().events.clone()
    }

    /// The lines `pd` has printed so far, across its incarnations (of the latest
    /// [`KEPT_LINES`](crate::KEPT_LINES) lines of all PDs).
    pub fn output(&self, pd: &str) -> Vec<String> {
        let st = self.shared.lock();
        st.output
            .iter()
            .filter(|(p, _)| p == pd)
            .map(|(_, l)| l.clone())
            .collect()
    }

    /// Each PD that wrote over its output rate, and how many of its lines were dropped
    /// for it (see [`LINES_PER_S`](crate::LINES_PER_S)).
    pub fn dropped_output(&self) -> Vec<(String, u64)> {
        self.shared.lock().output.dropped()
    }

    /// Waits until `f` finds what it looks for in the event log and output (pairs of PD
    /// name and line). `f` runs with the system's state locked: it must not call other
    /// methods of this `System`, and should be quick, since PD output waits for it.
    pub fn wait_until<T>(
        &self,
        timeout: Duration,
        mut f: impl FnMut(&[Event], &[(String, String)]) -> Option<T>,
    ) -> Option<T> {
        self.shared
            .wait(timeout, |st| f(&st.events, st.output.as_slice()))
    }

    /// Waits for `pd` to exit with status 0.
    pub fn wait_exit(&self, pd: &str, timeout: Duration) -> bool {
        self.wait_until(timeout, |events, _| {
            events
                .iter()
                .any(|e| matches!(e, Event::Exited { pd: p } if p == pd))
                .then_some(())
        })
        .is_some()
    }

    /// Waits for the system to end by itself (a PD exit with `stop_on_exit`, or the
    /// fault policy giving up).
    pub fn wait_outcome(&self, timeout: Duration) -> Option<Outcome> {
        self.shared.wait(timeout, |st| st.outcome.clone())
    }

    fn stop(&mut self) -> Option<Outcome> {
        drop(self.ctl.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        self.shared.lock().outcome.clone()
    }

    /// Stops every PD in order and releases every kernel object.
    pub fn shutdown(mut self) -> Outcome {
        self.stop().unwrap_or(Outcome::Shutdown)
    }
}

impl Drop for System {
    fn drop(&mut self) {
        self.stop();
    }
}
