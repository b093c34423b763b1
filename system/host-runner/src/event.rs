//! What happens to PDs while a system runs, as the runner logs and reports it.

use std::fmt;

use pd_runtime::FaultKind;

/// Why a PD process ended when nobody asked it to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    /// Killed by a signal (SIGSEGV for a write to a read-only map, SIGABRT, SIGKILL...).
    Signal(i32),
    /// Exited with a non-zero status (a Rust panic exits with 101).
    Exit(i32),
    /// Still in `init` when its deadline passed; the runner killed it.
    InitTimeout,
}

impl Cause {
    /// The fault kind and detail a parent's `fault` handler receives.
    pub fn fault(self) -> (FaultKind, u32) {
        match self {
            Cause::Signal(s) if s == libc::SIGSEGV || s == libc::SIGBUS => {
                (FaultKind::VmFault, s as u32)
            }
            Cause::Signal(s) if s == libc::SIGABRT => (FaultKind::Abort, s as u32),
            Cause::Signal(s) => (FaultKind::Killed, s as u32),
            Cause::Exit(code) => (FaultKind::Abort, code as u32),
            Cause::InitTimeout => (FaultKind::Killed, libc::SIGKILL as u32),
        }
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Cause::Signal(s) => {
                let name = match s {
                    libc::SIGSEGV => "SIGSEGV (memory access not allowed by its maps)",
                    libc::SIGBUS => "SIGBUS",
                    libc::SIGABRT => "SIGABRT (abort)",
                    libc::SIGKILL => "SIGKILL",
                    libc::SIGTERM => "SIGTERM",
                    libc::SIGILL => "SIGILL",
                    libc::SIGFPE => "SIGFPE",
                    _ => return write!(f, "killed by signal {s}"),
                };
                write!(f, "killed by {name}")
            }
            Cause::Exit(101) => write!(f, "panicked (exit status 101)"),
            Cause::Exit(code) => write!(f, "exit status {code}"),
            Cause::InitTimeout => write!(f, "init did not return in time"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A process for the PD was started (`incarnation` 1 at boot, then 2, 3...).
    Started {
        pd: String,
        pid: u32,
        incarnation: u32,
    },
    /// Its `init` returned.
    Running { pd: String },
    /// It ended on its own, with a fault.
    Faulted { pd: String, cause: Cause },
    /// Its fault went to its parent's `fault` handler.
    FaultToParent { pd: String, parent: String },
    /// The runner's policy restarted a top-level PD (`count` restarts so far).
    Restarted { pd: String, count: u32 },
    /// The runner's policy gave up on a top-level PD: the system stops.
    GaveUp { pd: String, restarts: u32 },
    /// A top-level PD faulted past its restart limit and is held: not started again,
    /// the rest of the system running on (`cause`: its last fault).
    Held {
        pd: String,
        restarts: u32,
        cause: Cause,
    },
    /// It exited with status 0: on the host, "this PD is done".
    Exited { pd: String },
    /// It was stopped on request (shutdown, or `microkit_pd_stop`/restart by its parent).
    Stopped { pd: String },
}

impl Event {
    pub fn pd(&self) -> &str {
        match self {
            Event::Started { pd, .. }
            | Event::Running { pd }
            | Event::Faulted { pd, .. }
            | Event::FaultToParent { pd, .. }
            | Event::Restarted { pd, .. }
            | Event::GaveUp { pd, .. }
            | Event::Held { pd, .. }
            | Event::Exited { pd }
            | Event::Stopped { pd } => pd,
        }
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::Started {
                pd,
                pid,
                incarnation,
            } => write!(f, "PD {pd}: started, pid {pid} (incarnation {incarnation})"),
            Event::Running { pd } => write!(f, "PD {pd}: init done"),
            Event::Faulted { pd, cause } => write!(f, "PD {pd}: FAULT: {cause}"),
            Event::FaultToParent { pd, parent } => {
                write!(f, "PD {pd}: fault delivered to parent {parent}")
            }
            Event::Restarted { pd, count } => write!(f, "PD {pd}: restarted ({count})"),
            Event::GaveUp { pd, restarts } => write!(
                f,
                "PD {pd}: restart limit reached ({restarts} restarts); stopping the system"
            ),
            Event::Held {
                pd,
                restarts,
                cause,
            } => write!(
                f,
                "PD {pd}: held: it faulted again ({cause}) after {restarts} restarts, its \
                 limit; the rest of the system runs on"
            ),
            Event::Exited { pd } => write!(f, "PD {pd}: exited"),
            Event::Stopped { pd } => write!(f, "PD {pd}: stopped"),
        }
    }
}

/// How a system ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A PD exited with status 0 and the options say that ends the system.
    Exited { pd: String },
    /// A top-level PD kept faulting past the restart limit.
    Failed { pd: String, cause: Cause },
    /// Shut down on request.
    Shutdown,
}
