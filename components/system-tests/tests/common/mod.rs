//! Booting the crypto-pd systems (`system/*.system`) from tests.
#![allow(dead_code)]

use std::path::PathBuf;
use std::time::Duration;

use host_runner::{Event, Options, System};

pub const WAIT: Duration = Duration::from_secs(20);

/// Held by each test while its system runs: a system is a dozen processes, and two
/// booted at once on a 2-core machine starve each other enough to upset the tests that
/// compare how two clients of one driver progress. Tests in one binary take turns.
pub fn serial() -> std::sync::MutexGuard<'static, ()> {
    static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
    // A test that failed while holding it does not stop the others.
    TURN.lock().unwrap_or_else(|e| e.into_inner())
}

pub fn system_file(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../system")).join(name)
}

pub fn boot(name: &str) -> System {
    System::boot(system_file(name), Options::default()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Boots `name`, waits for PD `client` to exit 0, returns every output line in order.
pub fn run_to_exit(name: &str, client: &str) -> Vec<(String, String)> {
    let system = boot(name);
    let done = system.wait_exit(client, WAIT);
    let all = output(&system);
    assert!(
        done,
        "{name}: {client} did not exit 0:\n{}",
        show(&all, &system.events())
    );
    all
}

/// Every output line so far, in order.
pub fn output(system: &System) -> Vec<(String, String)> {
    system
        .wait_until(Duration::ZERO, |_, out| Some(out.to_vec()))
        .unwrap()
}

/// Waits until the `stream` client has reported `answered` requests answered.
pub fn stream_answered(system: &System, answered: u32) -> bool {
    let progress = format!("progress answered {answered}");
    system
        .wait_until(WAIT, |_, out| {
            out.iter()
                .any(|(p, l)| p == "stream" && l.contains(&progress))
                .then_some(())
        })
        .is_some()
}

/// Runs system `name` until its `kat` client exits 0, in this test's turn.
pub fn run_kat(name: &str) -> Vec<(String, String)> {
    let _turn = serial();
    run_to_exit(name, "kat")
}

pub fn show(out: &[(String, String)], events: &[Event]) -> String {
    let mut s = String::new();
    for e in events {
        s += &format!("  event: {e}\n");
    }
    for (pd, l) in out {
        s += &format!("  [{pd}] {l}\n");
    }
    s
}

/// Lines of `pd` containing `needle`.
pub fn lines<'a>(out: &'a [(String, String)], pd: &str, needle: &str) -> Vec<&'a str> {
    out.iter()
        .filter(|(p, l)| p == pd && l.contains(needle))
        .map(|(_, l)| l.as_str())
        .collect()
}

/// The number after `key=` (or `key `) in `line`.
pub fn field(line: &str, key: &str) -> u64 {
    let at = line
        .find(key)
        .unwrap_or_else(|| panic!("no {key} in {line:?}"))
        + key.len();
    let rest = line[at..].trim_start_matches(['=', ' ']);
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("{key} in {line:?} is not a number"))
}

/// The per-path summary line of a kat client, if that path ran.
pub fn path_line<'a>(out: &'a [(String, String)], client: &str, path: &str) -> Option<&'a str> {
    let prefix = format!("path {path}:");
    out.iter()
        .filter(|(p, _)| p == client)
        .map(|(_, l)| l.as_str())
        .find(|l| l.contains(&prefix) && !l.contains("skipped"))
}

/// Waits until the trace in region `region` satisfies `done` (a PD's trace changes
/// without an event to wake on: read it every 10 ms); the last snapshot either way.
pub fn wait_trace(
    system: &System,
    region: &str,
    timeout: Duration,
    done: impl Fn(&pd_trace::Snapshot) -> bool,
) -> (bool, Option<pd_trace::Snapshot>) {
    let start = std::time::Instant::now();
    loop {
        let snap = system.trace(region);
        if snap.as_ref().is_some_and(&done) {
            return (true, snap);
        }
        if start.elapsed() > timeout {
            return (false, snap);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The trace in region `region`, which the system must have.
pub fn trace(system: &System, region: &str) -> pd_trace::Snapshot {
    system
        .trace(region)
        .unwrap_or_else(|| panic!("no trace in region {region}"))
}

/// The arguments of the ring's entries of `kind`, oldest first.
pub fn args(trace: &pd_trace::Snapshot, kind: pd_trace::Kind) -> Vec<u32> {
    let entries = trace.ring.iter().flatten();
    entries.filter(|e| e.kind == kind).map(|e| e.arg).collect()
}
