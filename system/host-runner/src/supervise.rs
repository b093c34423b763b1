//! The supervisor thread: the host's stand-in for the seL4 kernel's fault delivery and
//! Microkit's monitor. It starts every PD, watches for deaths (pidfds), serves parents'
//! restart/stop requests (monitor pipes), applies the fault policy and shuts down.
//!
//! Every process is started from this one thread, which lives until shutdown: Linux ties
//! PR_SET_PDEATHSIG to the thread that forked, not to the process.

use std::io::Write;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::sync::Arc;
use std::sync::atomic::Ordering::SeqCst;
use std::time::Instant;

use pd_runtime::host::page::RUNNING;
use pd_runtime::host::{MONITOR_RESTART, MONITOR_STOP};
use rustix::event::{PollFd, PollFlags, poll};
use rustix::pipe::{PipeFlags, pipe_with};
use rustix::process::{Signal, pidfd_send_signal};
use rustix::time::Timespec;

use crate::console::{Console, Echo, emit};
use crate::error::BootError;
use crate::event::{Cause, Event, Outcome};
use crate::objects::Objects;
use crate::options::{Options, PastLimit};
use crate::plan::Plan;
use crate::shared::Shared;
use crate::spawn::{PdFds, Proc, spawn};
use crate::trace;
use pd_runtime::host::boot::PERM_W;

#[derive(Default)]
struct PdState {
    proc: Option<Proc>,
    incarnation: u32,
    restarts: u32,
    /// The coming death was asked for (stop, restart, shutdown): not a fault.
    stopping: bool,
    /// Start again after the coming death (a parent's restart of a live child).
    restart_after: bool,
    /// Set until `init` returns.
    init_deadline: Option<Instant>,
    /// Set when the runner killed it for overrunning init.
    timed_out: bool,
}

pub(crate) struct Supervisor {
    plan: Plan,
    objs: Objects,
    opts: Options,
    shared: Arc<Shared>,
    /// Per PD with children: the pipe its requests come in on (read, write).
    monitors: Vec<Option<(OwnedFd, OwnedFd)>>,
    /// Every PD's debug output; `None` if the pipe could not be made (boot fails).
    console: Option<Console>,
    pds: Vec<PdState>,
    booted: bool,
    outcome: Option<Outcome>,
    /// PDs that exited with status 0, in order.
    finished: Vec<String>,
    /// While every PD sleeps: the sum of what they wait on, and since when it has not
    /// changed.
    asleep: Option<(u64, Instant)>,
}

impl Supervisor {
    pub(crate) fn new(plan: Plan, objs: Objects, opts: Options, shared: Arc<Shared>) -> Self {
        let monitors = plan
            .pds
            .iter()
            .map(|pd| {
                (!pd.children.is_empty())
                    .then(|| pipe_with(PipeFlags::CLOEXEC | PipeFlags::NONBLOCK).ok())
                    .flatten()
            })
            .collect();
        let pds = plan.pds.iter().map(|_| PdState::default()).collect();
        let names: Vec<String> = plan.pds.iter().map(|p| p.name.clone()).collect();
        let console = Console::open(
            names,
            shared.clone(),
            Echo::new(opts.echo, &opts.show, opts.log),
        )
        .ok();
        Supervisor {
            plan,
            objs,
            opts,
            shared,
            monitors,
            console,
            pds,
            booted: false,
            outcome: None,
            finished: Vec::new(),
            asleep: None,
        }
    }

    fn log(&self, event: Event) {
        if self.opts.log {
            // One write, so the line is not split by PD output echoed meanwhile.
            let _ = std::io::stderr().write_all(format!("host-runner: {event}\n").as_bytes());
        }
        self.shared.update(|st| st.events.push(event));
    }

    fn boot_failed(&mut self, e: BootError) {
        self.shared.update(|st| st.boot = Some(Err(e)));
        self.outcome = Some(Outcome::Shutdown);
    }

    fn start(&mut self, i: usize) -> std::io::Result<()> {
        self.objs.pages[i].get().reset();
        let name = self.plan.pds[i].name.clone();
        let shared = self.shared.clone();
        let echo = Echo::new(self.opts.echo, &self.opts.show, self.opts.log);
        let sink = move |line: String| emit(&shared, &echo, &name, line);
        let console = self
            .console
            .as_ref()
            .map(Console::write_end)
            .ok_or_else(|| std::io::Error::other("no console pipe"))?;
        let fds = PdFds {
            monitor: self.monitors[i].as_ref().map(|(_, w)| w),
            console,
        };
        let proc = spawn(&self.plan, i, &self.objs, &fds, &self.opts, sink)?;
        let pid = proc.child.id();
        let st = &mut self.pds[i];
        st.incarnation += 1;
        st.init_deadline = Some(Instant::now() + self.opts.init_timeout);
        st.timed_out = false;
        let incarnation = st.incarnation;
        st.proc = Some(proc);
        self.shared.update(|s| {
            s.pids[i] = Some(pid);
            s.started.push((pid, i));
        });
        self.log(Event::Started {
            pd: self.plan.pds[i].name.clone(),
            pid,
            incarnation,
        });
        Ok(())
    }

    pub(crate) fn run(mut self, ctl: OwnedFd) {
        for i in 0..self.plan.pds.len() {
            if let Err(e) = self.start(i) {
                let pd = Some(self.plan.pds[i].name.clone());
                let what = format!("cannot start {}: {e}", self.plan.pds[i].binary.display());
                self.boot_failed(BootError::Os { pd, what });
                break;
            }
        }
        while self.outcome.is_none() {
            self.step(&ctl);
        }
        self.shutdown();
    }

    /// Waits up to 20 ms for something to happen, then handles everything that did.
    fn step(&mut self, ctl: &OwnedFd) {
        let mut fds = vec![PollFd::new(ctl, PollFlags::IN)];
        fds.extend(
            self.monitors
                .iter()
                .flatten()
                .map(|(r, _)| PollFd::new(r, PollFlags::IN)),
        );
        fds.extend(
            self.pds
                .iter()
                .filter_map(|p| p.proc.as_ref())
                .map(|p| PollFd::new(&p.pidfd, PollFlags::IN)),
        );
        let timeout = Timespec {
            tv_sec: 0,
            tv_nsec: 20_000_000,
        };
        let _ = poll(&mut fds, Some(&timeout));
        let shutdown = fds[0].revents().intersects(PollFlags::IN | PollFlags::HUP);
        drop(fds);
        if shutdown {
            self.outcome = Some(Outcome::Shutdown);
            return;
        }
        self.serve_monitors();
        for i in 0..self.pds.len() {
            let status = match self.pds[i].proc.as_mut().map(|p| p.child.try_wait()) {
                Some(Ok(Some(status))) => status,
                _ => continue,
            };
            self.died(i, status);
        }
        self.check_init();
        self.watch_sleep();
    }

    fn check_init(&mut self) {
        if self.outcome.is_some() {
            return;
        }
        let now = Instant::now();
        for i in 0..self.pds.len() {
            let Some(deadline) = self.pds[i].init_deadline else {
                continue;
            };
            let name = self.plan.pds[i].name.clone();
            if self.objs.pages[i]
                .get()
                .state
                .load(std::sync::atomic::Ordering::SeqCst)
                == RUNNING
            {
                self.pds[i].init_deadline = None;
                self.log(Event::Running { pd: name });
            } else if now > deadline && !self.pds[i].timed_out {
                if !self.booted {
                    let after = self.opts.init_timeout;
                    self.boot_failed(BootError::InitTimeout { pd: name, after });
                    return;
                }
                self.pds[i].timed_out = true;
                self.kill(i);
            }
        }
        if !self.booted && self.pds.iter().all(|p| p.init_deadline.is_none()) {
            self.booted = true;
            self.shared.update(|st| st.boot = Some(Ok(())));
        }
    }

    fn kill(&self, i: usize) {
        if let Some(p) = &self.pds[i].proc {
            let _ = pidfd_send_signal(p.pidfd.as_fd(), Signal::KILL);
        }
    }

    /// PD `i`'s process ended with `status`.
    fn died(&mut self, i: usize, status: ExitStatus) {
        let proc = self.pds[i].proc.take().expect("it was running");
        let _ = proc.output.join();
        if let Some(console) = &mut self.console {
            console.sync();
        }
        self.shared.update(|st| st.pids[i] = None);
        let page = self.objs.pages[i].get();
        let init_done = page.state.load(std::sync::atomic::Ordering::SeqCst) == RUNNING;
        if init_done && self.pds[i].init_deadline.is_some() {
            self.log(Event::Running {
                pd: self.plan.pds[i].name.clone(),
            });
        }
        // As the kernel would: fail the calls made to it and not answered (the calls it
        // made need nothing: each caller has its own slot).
        self.objs.pd_died(&self.plan, i);
        let name = self.plan.pds[i].name.clone();
        let st = &mut self.pds[i];
        st.init_deadline = None;
        if std::mem::take(&mut st.stopping) {
            let again = std::mem::take(&mut st.restart_after);
            self.log(Event::Stopped { pd: name });
            if again {
                self.restart(i);
            }
            return;
        }
        let cause = if st.timed_out {
            Cause::InitTimeout
        } else if let Some(sig) = status.signal() {
            Cause::Signal(sig)
        } else {
            match status.code() {
                Some(0) => {
                    self.log(Event::Exited { pd: name.clone() });
                    self.finished.push(name.clone());
                    let all_done = self.opts.wait_for.iter().all(|w| self.finished.contains(w));
                    if self.opts.stop_on_exit && all_done {
                        self.outcome = Some(Outcome::Exited { pd: name });
                    }
                    return;
                }
                code => Cause::Exit(code.unwrap_or(-1)),
            }
        };
        self.log(Event::Faulted {
            pd: name.clone(),
            cause,
        });
        // Read before any restart: the next incarnation records into the same ring.
        if self.opts.log
            && self.opts.fault_traces
            && let Some(tail) = self.trace_tail(i)
        {
            let _ = std::io::stderr().write_all(tail.as_bytes());
        }
        if !self.booted && !init_done {
            /// Lines of a PD's own output kept in the error.
            const LAST_WORDS: usize = 8;
            let mut last_words = Vec::new();
            self.shared.update(|st| {
                last_words = st
                    .output
                    .iter()
                    .filter(|(pd, _)| *pd == name)
                    .map(|(_, l)| l.clone())
                    .collect();
            });
            let keep = last_words.len().saturating_sub(LAST_WORDS);
            last_words.drain(..keep);
            self.boot_failed(BootError::InitFault {
                pd: name,
                cause: cause.to_string(),
                last_words,
            });
            return;
        }
        match self.plan.pds[i].parent {
            Some((parent, id)) => {
                let (kind, detail) = cause.fault();
                self.objs.pages[parent]
                    .get()
                    .child_faulted(id, kind as u64, detail);
                let parent = self.plan.pds[parent].name.clone();
                self.log(Event::FaultToParent { pd: name, parent });
            }
            None if self.pds[i].restarts < self.opts.max_restarts => {
                self.pds[i].restarts += 1;
                let count = self.pds[i].restarts;
                self.restart(i);
                self.log(Event::Restarted { pd: name, count });
            }
            None if self.opts.past_limit == PastLimit::Hold => {
                let restarts = self.pds[i].restarts;
                self.log(Event::Held {
                    pd: name.clone(),
                    restarts,
                    cause,
                });
                if self.opts.stop_on_exit && self.opts.wait_for.contains(&name) {
                    self.outcome = Some(Outcome::Failed { pd: name, cause });
                }
            }
            None => {
                let restarts = self.pds[i].restarts;
                self.log(Event::GaveUp {
                    pd: name.clone(),
                    restarts,
                });
                self.outcome = Some(Outcome::Failed { pd: name, cause });
            }
        }
    }

    /// The last events in PD `i`'s trace, if it keeps one.
    fn trace_tail(&self, i: usize) -> Option<String> {
        let pd = &self.plan.pds[i];
        let map = pd
            .maps
            .iter()
            .find(|m| m.symbol == trace::TRACE_SYMBOL && m.perms & PERM_W != 0)?;
        let bytes = trace::read(&self.objs.regions[map.region])?;
        let snap = pd_trace::Snapshot::parse(&bytes)?;
        Some(trace::tail(
            &pd.name,
            &self.plan.regions[map.region].name,
            &snap,
        ))
    }

    /// What every live PD's sleep waits on changing, summed (PD pages, channel ends),
    /// if every live PD is past init and asleep now; `None` while one is awake.
    fn sleep_signature(&self) -> Option<u64> {
        let mut sum = 0u64;
        let mut any = false;
        for (i, st) in self.pds.iter().enumerate() {
            if st.proc.is_none() {
                continue;
            }
            let page = self.objs.pages[i].get();
            if st.init_deadline.is_some() || page.sleepers.load(SeqCst) == 0 {
                return None;
            }
            any = true;
            let words = [page.wake.load(SeqCst), page.starts.load(SeqCst)];
            let wide = [page.faults.load(SeqCst), page.irqs.load(SeqCst)];
            sum = words
                .iter()
                .map(|&w| u64::from(w))
                .chain(wide)
                .fold(sum, u64::wrapping_add);
            for end in &self.objs.ends[i] {
                let e = end.end();
                for w in [&e.bell, &e.notes, &e.call, &e.reply] {
                    sum = sum.wrapping_add(u64::from(w.load(SeqCst)));
                }
            }
        }
        any.then_some(sum)
    }

    /// Notes since when every PD has slept with nothing sent to any of them.
    fn watch_sleep(&mut self) {
        let now = self.sleep_signature();
        if now.is_none() || now != self.asleep.map(|(sig, _)| sig) {
            self.asleep = now.map(|sig| (sig, Instant::now()));
        }
        let since = self.asleep.map(|(_, t)| t);
        if self.shared.lock().asleep_since != since {
            self.shared.update(|st| st.asleep_since = since);
        }
    }

    fn restart(&mut self, i: usize) {
        if let Err(e) = self.start(i) {
            eprintln!(
                "host-runner: PD {}: cannot restart: {e}",
                self.plan.pds[i].name
            );
        }
    }

    /// Requests from parents: `[op, child id]` pairs on their monitor pipes.
    fn serve_monitors(&mut self) {
        for parent in 0..self.monitors.len() {
            let mut buf = [0u8; 64];
            let n = match &self.monitors[parent] {
                Some((r, _)) => rustix::io::read(r, &mut buf).unwrap_or(0),
                None => continue,
            };
            for req in buf[..n].chunks_exact(2) {
                let (op, id) = (req[0], req[1]);
                let children = &self.plan.pds[parent].children;
                let Some(&(_, child)) = children.iter().find(|(cid, _)| *cid == id) else {
                    continue;
                };
                let alive = self.pds[child].proc.is_some();
                match op {
                    MONITOR_RESTART if alive => {
                        self.pds[child].stopping = true;
                        self.pds[child].restart_after = true;
                        self.kill(child);
                    }
                    MONITOR_RESTART => self.restart(child),
                    MONITOR_STOP if alive => {
                        self.pds[child].stopping = true;
                        self.kill(child);
                    }
                    _ => {}
                }
            }
        }
    }

    /// Stops every PD, lowest priority first (clients before the servers they use; ties
    /// in reverse boot order, so children before parents), each waited for.
    fn shutdown(mut self) {
        let mut order: Vec<usize> = (0..self.pds.len()).collect();
        order.sort_by_key(|&i| (self.plan.pds[i].priority, std::cmp::Reverse(i)));
        for i in order {
            let Some(mut proc) = self.pds[i].proc.take() else {
                continue;
            };
            let _ = pidfd_send_signal(proc.pidfd.as_fd(), Signal::KILL);
            let _ = proc.child.wait();
            let _ = proc.output.join();
            self.objs.pd_died(&self.plan, i);
            self.shared.update(|st| st.pids[i] = None);
            self.log(Event::Stopped {
                pd: self.plan.pds[i].name.clone(),
            });
        }
        if let Some(console) = self.console.take() {
            console.close();
        }
        let outcome = self.outcome.take().unwrap_or(Outcome::Shutdown);
        self.shared.update(|st| {
            if st.boot.is_none() {
                st.boot = Some(Ok(()));
            }
            st.outcome = Some(outcome);
        });
    }
}
