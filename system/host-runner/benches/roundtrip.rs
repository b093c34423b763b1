//! Round trips between two PDs on the host backend, notification and PPC, on the spin
//! path (PDs spin on their futex words before sleeping; PDs on CPUs 0 and 1) and the
//! sleep path (spin 0: every wait is a FUTEX_WAIT; PDs on one CPU, and on two), beside this machine's limits measured in the same run:
//! a shared-memory spin round trip and a futex round trip between two threads (threads
//! of one process cost the same as two processes for both: the cache line and the
//! futex system calls are the same).
//!
//! `cargo bench -p host-runner --bench roundtrip` (builds the bench PDs in release).

use std::hint::spin_loop;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering::SeqCst};
use std::time::{Duration, Instant};

use host_runner::{Options, System};
use rustix::thread::futex;

const PD_ROUNDS: u64 = 20_000;
const RAW_ROUNDS: u32 = 200_000;
const FUTEX_ROUNDS: u32 = 20_000;

/// `bench.system` puts both PDs on CPU 0, `bench-apart.system` on CPUs 0 and 1.
fn bench_system(apart: bool) -> PathBuf {
    let name = if apart { "bench-apart" } else { "bench" };
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("systems/{name}.system"))
}

/// (notification ns, PPC ns) per round trip, from the client PD's report, with the
/// PDs pinned to the CPUs their system file names.
fn pd_round_trips(apart: bool, spin: u32) -> (f64, f64) {
    let opts = Options {
        spin,
        pin_cpus: true,
        env: vec![("PD_BENCH_ROUNDS".into(), PD_ROUNDS.to_string())],
        ..Options::default()
    };
    let system = System::boot(bench_system(apart), opts).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        system.wait_exit("client", Duration::from_secs(120)),
        "bench client did not finish: {:?}",
        system.output("client")
    );
    let out = system.output("client");
    let line = out
        .iter()
        .find(|l| l.starts_with("bench "))
        .expect("bench line");
    let field = |name: &str| -> f64 {
        line.split(' ')
            .find_map(|kv| kv.strip_prefix(name)?.strip_prefix('='))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{name} in {line}"))
    };
    system.shutdown();
    (field("notify_ns"), field("ppc_ns"))
}

/// The machine's limits, measured between this process and a copy of it (the peer),
/// through one word of a shared memfd, as two PDs share a kernel page.
mod limits {
    use super::*;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::process::{Child, Command};

    use rustix::fs::{MemfdFlags, ftruncate, memfd_create};
    use rustix::mm::{MapFlags, ProtFlags, mmap};

    /// Maps one shared page of `fd` and returns its first word.
    fn word(fd: &OwnedFd) -> &'static AtomicU32 {
        // SAFETY: a fresh 4 KiB shared mapping, never unmapped; the word is used only
        // atomically, by this process and the peer.
        unsafe {
            let p = mmap(
                std::ptr::null_mut(),
                4096,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::SHARED,
                fd,
                0,
            )
            .expect("mmap");
            &*(p as *const AtomicU32)
        }
    }

    fn wait_for(word: &AtomicU32, want: u32, sleep: bool) {
        loop {
            let v = word.load(SeqCst);
            if v == want {
                return;
            }
            if sleep {
                // A shared futex (not PRIVATE): the word is in two address spaces.
                let _ = futex::wait(word, futex::Flags::empty(), v, None);
            } else {
                spin_loop();
            }
        }
    }

    fn set(word: &AtomicU32, v: u32, sleep: bool) {
        word.store(v, SeqCst);
        if sleep {
            let _ = futex::wake(word, futex::Flags::empty(), 1);
        }
    }

    /// Pins the calling thread to `cpu`.
    fn pin(cpu: usize) {
        let mut set = rustix::thread::CpuSet::new();
        set.set(cpu);
        rustix::thread::sched_setaffinity(None, &set).expect("sched_setaffinity");
    }

    /// Runs as the peer if this process was started as one
    /// (`--peer MODE FD ROUNDS CPU`, CPU -1 for unpinned).
    pub fn peer_main() -> bool {
        let args: Vec<String> = std::env::args().collect();
        let Some(at) = args.iter().position(|a| a == "--peer") else {
            return false;
        };
        let sleep = args[at + 1] == "futex";
        let fd: i32 = args[at + 2].parse().unwrap();
        let rounds: u32 = args[at + 3].parse().unwrap();
        if let Ok(cpu) = args[at + 4].parse::<usize>() {
            pin(cpu);
        }
        // SAFETY: the parent passed this inherited descriptor for us alone.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let w = word(&fd);
        for i in 0..rounds {
            wait_for(w, 2 * i + 1, sleep);
            set(w, 2 * i + 2, sleep);
        }
        true
    }

    /// Mean round trip in ns through a shared word with a peer process; with `cpus`,
    /// this process runs on the first and the peer on the second.
    pub fn round_trip(sleep: bool, rounds: u32, cpus: Option<(usize, usize)>) -> f64 {
        let peer_cpu = cpus.map_or("-1".to_string(), |(_, p)| p.to_string());
        if let Some((me, _)) = cpus {
            pin(me);
        }
        // Inheritable (no CLOEXEC): the peer gets it under the same number.
        let fd = memfd_create("bench-limit", MemfdFlags::empty()).unwrap();
        ftruncate(&fd, 4096).unwrap();
        let w = word(&fd);
        let mode = if sleep { "futex" } else { "spin" };
        let mut peer: Child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--peer",
                mode,
                &fd.as_raw_fd().to_string(),
                &rounds.to_string(),
                &peer_cpu,
            ])
            .spawn()
            .unwrap();
        // The first round includes the peer's start-up; time the rest.
        set(w, 1, sleep);
        wait_for(w, 2, sleep);
        let start = Instant::now();
        for i in 1..rounds {
            set(w, 2 * i + 1, sleep);
            wait_for(w, 2 * i + 2, sleep);
        }
        let ns = start.elapsed().as_nanos() as f64 / f64::from(rounds - 1);
        assert!(peer.wait().unwrap().success());
        ns
    }
}

/// A figure in microseconds, median and spread.
fn us(ns: bench_stats::Stats) -> String {
    format!("{:>9.3} us {:>7}", ns.median / 1000.0, ns.spread_cell())
}

fn main() {
    if limits::peer_main() {
        return;
    }
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    // Spinning peers need a CPU each; sleeping ones are measured both ways, since a
    // wake-up on another CPU (an IPI; on a VM, a halted vCPU to resume) costs far more
    // than a switch on one CPU, and the host scheduler may do either.
    let apart = cpus >= 2;
    let pd_rt = |apart: bool, spin: u32| {
        let (mut notify, mut ppc) = (Vec::new(), Vec::new());
        for _ in 0..bench_stats::RUNS {
            let (n, p) = pd_round_trips(apart, spin);
            notify.push(n);
            ppc.push(p);
        }
        (
            bench_stats::Stats::of(&notify),
            bench_stats::Stats::of(&ppc),
        )
    };
    let spin = apart.then(|| pd_rt(true, Options::default().spin));
    let sleep_apart = apart.then(|| pd_rt(true, 0));
    let sleep_same = pd_rt(false, 0);
    let pair = apart.then_some((0, 1));
    let raw = pair.map(|p| bench_stats::repeat(|| limits::round_trip(false, RAW_ROUNDS, Some(p))));
    let fx_same = bench_stats::repeat(|| limits::round_trip(true, FUTEX_ROUNDS, Some((0, 0))));
    let fx_apart =
        pair.map(|p| bench_stats::repeat(|| limits::round_trip(true, FUTEX_ROUNDS, Some(p))));

    let cell = |v: Option<bench_stats::Stats>| v.map_or(format!("{:>20}", "-"), us);
    println!("round trip between two PDs, host backend, mean of {PD_ROUNDS} per run ({cpus} CPUs)");
    println!("{}", bench_stats::context());
    println!("{:<34}{:>20}{:>20}", "", "spin path", "sleep path");
    let mut all = vec![sleep_same.0, sleep_same.1, fx_same];
    if let (Some(spin), Some(sleep)) = (spin, sleep_apart) {
        println!(
            "{:<34}{}{}",
            "notification, CPUs 0 and 1",
            us(spin.0),
            us(sleep.0)
        );
        println!("{:<34}{}{}", "PPC, CPUs 0 and 1", us(spin.1), us(sleep.1));
        all.extend([spin.0, spin.1, sleep.0, sleep.1]);
    }
    println!(
        "{:<34}{}{}",
        "notification, one CPU",
        cell(None),
        us(sleep_same.0)
    );
    println!("{:<34}{}{}", "PPC, one CPU", cell(None), us(sleep_same.1));
    println!("machine limits, same run (two processes, one shared word):");
    println!("{:<34}{}{}", "CPUs 0 and 1", cell(raw), cell(fx_apart));
    println!("{:<34}{}{}", "one CPU", cell(None), us(fx_same));
    all.extend(raw.into_iter().chain(fx_apart));
    if let Some(w) = bench_stats::warning(&all) {
        println!("{w}");
    }
}
