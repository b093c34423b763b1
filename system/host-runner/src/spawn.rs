//! Starting one PD process: its boot information, the descriptors it inherits, and the
//! settings that keep it from outliving the runner.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};
use std::os::unix::fs::FileExt;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::thread::JoinHandle;

use pd_runtime::host::boot::{
    BOOT_FD_ENV, BootInfo, ChannelInfo, ChildInfo, FileInfo, IrqInfo, RegionInfo, VarInfo,
};
use rustix::io::{FdFlags, fcntl_setfd};
use rustix::pipe::{PipeFlags, pipe_with};
use rustix::process::{Pid, PidfdFlags, Signal, getpid, getppid, pidfd_open};
use rustix::thread::CpuSet;

use crate::objects::{Objects, memfd};
use crate::options::Options;
use crate::plan::Plan;

/// A running PD process.
pub struct Proc {
    pub child: Child,
    pub pidfd: OwnedFd,
    /// Copies the PD's output lines to the runner's sink; ends when the PD does.
    pub output: JoinHandle<()>,
}

/// The boot information for PD `i`, naming the runner's own descriptor numbers (the
/// child inherits them under the same numbers).
fn boot_info(plan: &Plan, i: usize, objs: &Objects, fds: &PdFds<'_>, opts: &Options) -> BootInfo {
    let pd = &plan.pds[i];
    BootInfo {
        name: pd.name.clone(),
        index: u8::try_from(i + 1).expect("at most 63 PDs"),
        priority: pd.priority,
        passive: pd.passive,
        spin: opts.spin,
        page_fd: objs.pages[i].fd.as_raw_fd(),
        monitor_fd: fds.monitor.map_or(-1, |m| m.as_raw_fd()),
        console_fd: fds.console.as_raw_fd(),
        regions: pd
            .maps
            .iter()
            .map(|m| RegionInfo {
                mr: plan.regions[m.region].name.clone(),
                symbol: m.symbol.clone(),
                fd: objs.regions[m.region].as_raw_fd(),
                size: plan.regions[m.region].size,
                vaddr: m.vaddr,
                paddr: plan.regions[m.region].paddr,
                perms: m.perms,
                cached: m.cached,
            })
            .collect(),
        channels: pd
            .channels
            .iter()
            .enumerate()
            .map(|(n, c)| {
                let back = plan.pds[c.remote]
                    .channels
                    .iter()
                    .position(|b| b.remote == i && b.id == c.remote_id)
                    .expect("a channel has two ends");
                ChannelInfo {
                    id: c.id,
                    remote_id: c.remote_id,
                    remote: plan.pds[c.remote].name.clone(),
                    pp: c.pp,
                    notify: c.notify,
                    remote_pp: c.remote_pp,
                    remote_notify: c.remote_notify,
                    out_fd: objs.ends[i][n].fd.as_raw_fd(),
                    in_fd: objs.ends[c.remote][back].fd.as_raw_fd(),
                    peer_page_fd: objs.pages[c.remote].fd.as_raw_fd(),
                }
            })
            .collect(),
        irqs: pd
            .irqs
            .iter()
            .map(|&(irq, id, edge)| IrqInfo { irq, id, edge })
            .collect(),
        children: pd
            .children
            .iter()
            .map(|&(id, c)| ChildInfo {
                id,
                name: plan.pds[c].name.clone(),
            })
            .collect(),
        vars: pd
            .vars
            .iter()
            .map(|(symbol, value)| VarInfo {
                symbol: symbol.clone(),
                value: *value,
            })
            .collect(),
        files: opts
            .grants
            .iter()
            .filter(|g| g.pd == pd.name)
            .map(|g| FileInfo {
                name: g.name.clone(),
                fd: g.fd.as_raw_fd(),
            })
            .collect(),
    }
}

/// The runner's pipes a PD writes to.
pub struct PdFds<'a> {
    /// Requests about its children, if it has any.
    pub monitor: Option<&'a OwnedFd>,
    /// The system console (debug output of every PD).
    pub console: &'a OwnedFd,
}

/// Starts PD `i`. Lines it writes to stdout or stderr outside the runtime's debug
/// console (panic messages, say) go to `sink(line)`.
pub fn spawn(
    plan: &Plan,
    i: usize,
    objs: &Objects,
    fds: &PdFds<'_>,
    opts: &Options,
    sink: impl FnMut(String) + Send + 'static,
) -> io::Result<Proc> {
    let info = boot_info(plan, i, objs, fds, opts);
    let bytes = info.encode();
    let boot = File::from(memfd(
        &format!("pd-boot:{}", info.name),
        bytes.len() as u64,
    )?);
    boot.write_all_at(&bytes, 0)?;

    let mut keep = vec![boot.as_raw_fd(), info.page_fd];
    keep.extend(info.regions.iter().map(|r| r.fd));
    keep.extend(
        info.channels
            .iter()
            .flat_map(|c| [c.out_fd, c.in_fd, c.peer_page_fd]),
    );
    keep.extend((info.monitor_fd >= 0).then_some(info.monitor_fd));
    keep.push(info.console_fd);
    keep.extend(info.files.iter().map(|f| f.fd));

    let (out_r, out_w) = pipe_with(PipeFlags::CLOEXEC)?;
    let runner = getpid();
    let mut cmd = Command::new(&plan.pds[i].binary);
    cmd.envs(opts.env.iter().map(|(k, v)| (k, v)))
        .env(BOOT_FD_ENV, boot.as_raw_fd().to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::from(out_w.try_clone()?))
        .stderr(Stdio::from(out_w));
    // SAFETY: the closure runs in the child between fork and exec. It allocates nothing
    // and makes only async-signal-safe system calls (setpgid, setrlimit, setpriority,
    // sched_setaffinity, prctl, getppid, close_range, fcntl) on values prepared before
    // the fork.
    let cpu = opts.pin_cpus.then(|| {
        let mut set = CpuSet::new();
        set.set(usize::from(plan.pds[i].cpu));
        set
    });
    unsafe {
        let nice = nice_of(plan.pds[i].priority, plan.top_priority());
        cmd.pre_exec(move || child_setup(runner, &keep, cpu.as_ref(), nice));
    }
    let child = cmd.spawn()?;
    drop(cmd);
    let pid = Pid::from_raw(child.id() as i32).expect("a child's pid is positive");
    let pidfd = pidfd_open(pid, PidfdFlags::empty())?;
    let output = std::thread::Builder::new()
        .name(format!("out:{}", info.name))
        .spawn(move || copy_lines(out_r, sink))?;
    Ok(Proc {
        child,
        pidfd,
        output,
    })
}

/// In the child before exec: its own process group, so a terminal's Ctrl-C reaches only
/// the runner (which then stops PDs in order); its data limit and nice value; SIGKILL
/// if the runner dies (checking that it has not died already); no descriptors but those
/// in `keep` across exec; on its CPU if pinned.
fn child_setup(runner: Pid, keep: &[i32], cpu: Option<&CpuSet>, nice: i32) -> io::Result<()> {
    rustix::process::setpgid(None, None)?;
    // A PD's own memory (heap, anonymous maps) is bounded; its regions are shared maps,
    // which RLIMIT_DATA does not count, sized by the .system.
    let data = rustix::process::Rlimit {
        current: Some(PD_DATA_LIMIT),
        maximum: Some(PD_DATA_LIMIT),
    };
    rustix::process::setrlimit(rustix::process::Resource::Data, data)?;
    // Lower priorities weigh less with the scheduler (raising nice needs no privilege).
    rustix::process::setpriority_process(None, nice)?;
    if let Some(set) = cpu {
        rustix::thread::sched_setaffinity(None, set)?;
    }
    rustix::process::set_parent_process_death_signal(Some(Signal::KILL))?;
    if getppid() != Some(runner) {
        return Err(io::Error::from_raw_os_error(libc::ESRCH));
    }
    // SAFETY: close_range with CLOSE_RANGE_CLOEXEC only sets flags on descriptors; it
    // closes nothing and touches no memory.
    let r = unsafe {
        libc::syscall(
            libc::SYS_close_range,
            3u32,
            u32::MAX,
            libc::CLOSE_RANGE_CLOEXEC,
        )
    };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    for &fd in keep {
        // SAFETY: each number is a descriptor the runner holds open across the spawn.
        fcntl_setfd(unsafe { BorrowedFd::borrow_raw(fd) }, FdFlags::empty())?;
    }
    Ok(())
}

/// Most private memory (heap and anonymous maps) a PD may have: what the runtime and a
/// PD's own allocations need, with room (the largest, a speed client, copies its data
/// region once). A PD had none: one populated 1 GiB (issue 32).
pub const PD_DATA_LIMIT: u64 = 256 << 20;

/// The nice value for a PD of `priority` in a system whose highest is `top`: 0 for the
/// highest, one step per 32 priorities below it (at most 19). Linux weighs, where seL4
/// preempts: a lower-priority PD still runs beside a busy higher one, only less (a nice
/// step is ~1.25x less CPU). Budgets and periods (MCS) are not mapped (cgroup v2's
/// cpu.max needs a cgroup delegated to the runner).
pub fn nice_of(priority: u8, top: u8) -> i32 {
    (i32::from(top.saturating_sub(priority)) / 32).min(19)
}

/// Longest line kept from a PD's standard output: a PD that writes without a newline
/// gets its output cut into lines this long, not the runner's memory filled.
const LINE_MAX: u64 = 4096;

/// Hands each line read from `from` to `sink`, until end of file (a byte that is not
/// UTF-8 becomes U+FFFD: nothing a PD writes ends the copy before it closes).
pub fn copy_lines(from: OwnedFd, mut sink: impl FnMut(String)) {
    let mut lines = BufReader::new(File::from(from));
    let mut line = Vec::new();
    loop {
        line.clear();
        match (&mut lines).take(LINE_MAX).read_until(b'\n', &mut line) {
            Ok(0) => return,
            Ok(_) => sink(
                String::from_utf8_lossy(&line)
                    .trim_end_matches('\n')
                    .to_string(),
            ),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}
