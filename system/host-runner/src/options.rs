//! How to run a system: what the library's caller asks of the runner, read by every
//! part of it (spawning, supervising, the console).

use std::os::fd::OwnedFd;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// How to run a system.
#[derive(Clone, Debug)]
pub struct Options {
    /// Where PD binaries are; `None`: next to the running executable (for a test or
    /// bench binary in `target/<profile>/deps`, its parent).
    pub bin_dir: Option<PathBuf>,
    /// Restarts of a faulting top-level PD before [`past_limit`](Options::past_limit)
    /// applies.
    pub max_restarts: u32,
    /// What becomes of a top-level PD that faults again past `max_restarts`.
    pub past_limit: PastLimit,
    /// How long a PD may take in `init`.
    pub init_timeout: Duration,
    /// Spins on a futex word before sleeping (0: the sleep path only). Each spin is
    /// a few loads and a pause: 2000 is some tens of microseconds, enough to catch a
    /// peer's quick answer without burning a shared core.
    pub spin: u32,
    /// Print each PD's output lines, prefixed with its name.
    pub echo: bool,
    /// With `echo`: if not empty, print only the lines of the PDs named here (every
    /// line is still kept for [`System::output`](crate::System::output)).
    pub show: Vec<String>,
    /// Print each event (start, fault, restart...) on stderr.
    pub log: bool,
    /// With `log`: when a PD faults, print the last events of its trace (the region it
    /// maps writable as `trace`, see `pd-trace`), if it has one: what it was doing.
    pub fault_traces: bool,
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

/// What becomes of a top-level PD that faults past its restart limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PastLimit {
    /// It is held (Hubris's "hold" disposition): not started again, the rest of the
    /// system running on, so one PD's faults cost that PD only. A held PD the system
    /// waits for (`wait_for`) ends the system as failed, since it cannot finish.
    Hold,
    /// The system stops, failed (a tool that measures, or a test that wants the first
    /// fault as the system's outcome).
    Stop,
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
            past_limit: PastLimit::Hold,
            init_timeout: Duration::from_secs(3),
            spin: 2_000,
            echo: false,
            show: Vec::new(),
            log: false,
            fault_traces: false,
            stop_on_exit: false,
            wait_for: Vec::new(),
            pin_cpus: false,
            env: Vec::new(),
            grants: Vec::new(),
        }
    }
}
