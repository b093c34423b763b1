//! The library API: boot a system, watch it, shut it down.

use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rustix::pipe::{PipeFlags, pipe_with};
use rustix::process::{Pid, Signal, kill_process};
use system_desc::SystemDescription;

use crate::error::BootError;
use crate::event::{Event, Outcome};
use crate::supervise::Supervisor;
use crate::{objects, plan};

/// How to run a system.
#[derive(Clone, Debug)]
pub struct Options {
    /// Where PD binaries are; `None`: next to the running executable (for a test or
    /// bench binary in `target/<profile>/deps`, its parent).
    pub bin_dir: Option<PathBuf>,
    /// Restarts of a faulting top-level PD before the system is stopped.
    pub max_restarts: u32,
    /// How long a PD may take in `init`.
    pub init_timeout: Duration,
    /// Spins on a futex word before sleeping (0: the sleep path only). Each spin is
    /// a few loads and a pause: 2000 is some tens of microseconds, enough to catch a
    /// peer's quick answer without burning a shared core.
    pub spin: u32,
    /// Print each PD's output lines, prefixed with its name.
    pub echo: bool,
    /// With `echo`: if not empty, print only the lines of the PDs named here (every
    /// line is still kept for [`System::output`]).
    pub show: Vec<String>,
    /// Print each event (start, fault, restart...) on stderr.
    pub log: bool,
    /// A PD exiting with status 0 ends the system (but see `wait_for`).
    pub stop_on_exit: bool,
    /// With `stop_on_exit`: if not empty, the system ends only once every PD named here
    /// has exited with status 0 (a demo whose clients finish one by one); other PDs
    /// exiting 0 are just logged.
    pub wait_for: Vec<String>,
    /// Run each PD on the CPU its `cpu` attribute names (Microkit's default is 0, so
    /// without `cpu` attributes every PD shares CPU 0). Off: the host scheduler decides.
    pub pin_cpus: bool,
    /// Extra environment for every PD process: host-only knobs for benches and tools
    /// (PDs inherit the runner's environment too).
    pub env: Vec<(String, String)>,
    /// Host descriptors handed to PDs: a PD is sandboxed and opens no file itself, so a
    /// tool that streams a file through a client PD opens it and grants it here.
    pub grants: Vec<Grant>,
}

/// A host descriptor granted to one PD under a name (`pd_runtime::host::take_file`).
/// Every incarnation of the PD gets it (one open file: a restarted PD reads on where its
/// predecessor stopped).
#[derive(Clone, Debug)]
pub struct Grant {
    pub pd: String,
    pub name: String,
    pub fd: Arc<OwnedFd>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            bin_dir: None,
            max_restarts: 3,
            init_timeout: Duration::from_secs(3),
            spin: 2_000,
            echo: false,
            show: Vec::new(),
            log: false,
            stop_on_exit: false,
            wait_for: Vec::new(),
            pin_cpus: false,
            env: Vec::new(),
            grants: Vec::new(),
        }
    }
}

/// What the supervisor thread shares with the API.
pub(crate) struct Shared {
    state: Mutex<Status>,
    changed: Condvar,
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

    fn lock(&self) -> MutexGuard<'_, Status> {
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
                output: Vec::new(),
                pids: vec![None; names.len()],
                started: Vec::new(),
                boot: None,
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
        let len = rustix::fs::fstat(fd).ok()?.st_size as usize;
        let mut bytes = vec![0u8; len];
        let mut done = 0;
        while done < len {
            match rustix::io::pread(fd, &mut bytes[done..], done as u64) {
                Ok(0) | Err(_) => return None,
                Ok(n) => done += n,
            }
        }
        Some(bytes)
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

    pub fn events(&self) -> Vec<Event> {
        self.shared.lock().events.clone()
    }

    /// The lines `pd` has printed so far, across its incarnations.
    pub fn output(&self, pd: &str) -> Vec<String> {
        let st = self.shared.lock();
        st.output
            .iter()
            .filter(|(p, _)| p == pd)
            .map(|(_, l)| l.clone())
            .collect()
    }

    /// Waits until `f` finds what it looks for in the event log and output (pairs of PD
    /// name and line). `f` runs with the system's state locked: it must not call other
    /// methods of this `System`, and should be quick, since PD output waits for it.
    pub fn wait_until<T>(
        &self,
        timeout: Duration,
        mut f: impl FnMut(&[Event], &[(String, String)]) -> Option<T>,
    ) -> Option<T> {
        self.shared.wait(timeout, |st| f(&st.events, &st.output))
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
