//! `host-runner`: boots a Microkit `.system` file on Linux, the host backend's stand-in
//! for the seL4 kernel and Microkit's monitor. Binary: `host-runner FILE.system`;
//! library: [`System::boot`], then watch ([`System::wait_exit`], [`System::events`],
//! [`System::output`]) and [`System::shutdown`], for tests and tools.
//!
//! # What it does
//!
//! * Reads the file with `system-desc` (every error, with line and element).
//! * Each PD is one process of the workspace binary named by its `program_image`'s file
//!   stem (`client.elf` -> `client`), looked up next to the runner's executable, i.e.
//!   `target/<profile>/` ([`Options::bin_dir`] to change it).
//! * Each memory region is a memfd, mapped shared by exactly the PDs that `map` it, with
//!   their perms; each PD has a PD page and each channel end an end page
//!   (`pd_runtime::host::page`), which the PDs that must not write them map read-only.
//!   A PD inherits only the descriptors its boot information names (hubpack, in a
//!   memfd), and the host files a tool grants it ([`Options::grants`]).
//! * A PD process that dies on its own is a fault: a child's goes to its parent's
//!   `fault` handler, which may restart it; a top-level PD is restarted up to
//!   [`Options::max_restarts`] times, then held ([`PastLimit::Hold`]: not started again,
//!   the rest of the system running on) or the system stops ([`PastLimit::Stop`]). A PD
//!   still in `init` after [`Options::init_timeout`] is a boot error (or, after boot, a
//!   fault).
//! * PD output: debug lines through one console socket (in the order written, each
//!   filed under the PD whose pid wrote it), other
//!   stdout/stderr through a pipe per PD; [`Options::echo`] prints them as `[pd] line`,
//!   [`System::output`] keeps the latest of them ([`KEPT_LINES`], [`KEPT_BYTES`]). A PD
//!   writing over [`LINES_PER_S`] or [`BYTES_PER_S`] (after a burst) has its lines
//!   dropped, neither echoed nor kept, and counted ([`System::dropped_output`]), so a
//!   flood costs neither the runner's memory nor the other PDs' lines.
//!   [`Options::pin_cpus`] runs each PD on the CPU its `cpu` attribute names (the
//!   round-trip benchmark uses it).
//! * A PD's trace (`pd-trace`, the region it maps as `trace`): [`System::trace`] reads
//!   it; [`Options::fault_traces`] prints a faulted PD's last events; [`trace`] finds a
//!   system's trace regions and formats a dump with repeated events collapsed.
//! * [`System::asleep_for`]: how long every PD has slept with nothing sent to any, so a
//!   caller can tell a system that will do nothing more until it is stopped.
//! * Shutdown stops PDs lowest priority first, each waited for. PDs get
//!   PR_SET_PDEATHSIG(SIGKILL) and their own process group, so none outlives the runner
//!   and a terminal's Ctrl-C reaches only the runner.
//!
//! # What it assumes
//!
//! Linux 5.16 or later (futex_waitv; pidfd, close_range with CLOSE_RANGE_CLOEXEC, memfd),
//! x86_64 or aarch64 (the PDs' seccomp filter). PDs are
//! built for the host from this workspace with `pd-runtime`; the runner and its PDs use
//! the same `pd-runtime` (boot information carries a version). Exit status 0 of a PD
//! means "done" (Microkit PDs never return; tests and demos need an end). Each PD
//! sandboxes itself before its `init` (`pd_runtime`'s host backend); the runner is not
//! dumpable. When a top-level PD restarts, its children keep
//! running; a child whose parent is down has its fault kept for the next incarnation.

mod console;
mod error;
mod event;
mod objects;
mod options;
pub mod plan;
mod shared;
mod spawn;
mod supervise;
mod system;
pub mod trace;

pub use error::BootError;
pub use event::{Cause, Event, Outcome};
pub use options::PastLimit;
pub use rustix::process::Signal;
pub use shared::{BURST_BYTES, BURST_LINES, BYTES_PER_S, KEPT_BYTES, KEPT_LINES, LINES_PER_S};
pub use spawn::{PD_DATA_LIMIT, nice_of};
pub use system::{Grant, Options, System, default_bin_dir};
