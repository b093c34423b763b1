//! `host-runner` as a user meets its traces and its endless runs: a `--trace` naming no
//! trace region is refused before anything boots, naming those there are; a dump
//! collapses repeated events; a PD that faults has its last events printed; SIGUSR1
//! dumps a running system; a system nothing will end says so.
//!
//! The demo and crash systems boot PD binaries of other packages from target/debug
//! (`cargo build --workspace --bins`).

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use assert_cmd::Command;

fn runner() -> Command {
    Command::cargo_bin("host-runner").expect("the host-runner binary")
}

fn system(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(name)
}

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A system of one PD that nobody calls and that calls nobody (no client), keeping a
/// trace region (which that PD never writes).
fn lone_server(tag: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("{}-{tag}.system", std::process::id()));
    let xml = "<system>\n <memory_region name=\"lone_trace\" size=\"0x1000\" />\n \
               <protection_domain name=\"lone\" priority=\"100\">\n  \
               <program_image path=\"hr-bench-server.elf\" />\n  \
               <map mr=\"lone_trace\" vaddr=\"0x47000000\" perms=\"rw\" setvar_vaddr=\"trace\" />\n \
               </protection_domain>\n</system>\n";
    std::fs::write(&path, xml).unwrap();
    path
}

#[test]
fn a_trace_region_the_system_lacks_is_refused_before_boot_naming_those_it_has() {
    let start = Instant::now();
    let out = runner()
        .args(["--trace", "nosuch"])
        .arg(system("demo.system"))
        .timeout(Duration::from_secs(10))
        .output()
        .unwrap();
    let took = start.elapsed();
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(took < Duration::from_secs(1), "took {took:?}: {stderr}");
    assert!(
        stderr.contains("--trace nosuch:") && stderr.contains("no such trace region"),
        "{stderr}"
    );
    for region in [
        "omap_trace (omap_aes)",
        "sec1_trace (sec1)",
        "cpu_digest_trace",
    ] {
        assert!(stderr.contains(region), "{region} not named: {stderr}");
    }
    assert!(!stderr.contains("started"), "no PD started: {stderr}");
}

/// One event line of a dump: (first sequence number, last, the events of its cycle,
/// how many times the cycle ran).
fn parse_event(line: &str) -> (u32, u32, usize, u32) {
    let (seqs, rest) = line.split_once(' ').unwrap();
    let (first, last) = match seqs.split_once("-#") {
        Some((a, b)) => (a.parse().unwrap(), b.parse().unwrap()),
        None => (seqs.parse().unwrap(), seqs.parse().unwrap()),
    };
    let (events, n) = match rest.rsplit_once(" x") {
        Some((events, n)) => (events, n.parse().unwrap()),
        None => (rest, 1),
    };
    (first, last, events.split(", ").count(), n)
}

#[test]
fn a_dump_collapses_repeated_events_into_one_line_with_a_count() {
    // One known-answer client on the OMAP driver: runs of PIO interrupts and of DMA
    // requests done.
    let out = runner()
        .args(["-q", "--show", "none", "--trace", "omap_trace"])
        .arg(system("cipher-omap.system"))
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let stderr = stderr_of(&out);
    assert!(out.status.success(), "{stderr}");
    let lines: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("host-runner: trace omap_trace: #"))
        .collect();
    let events: Vec<(u32, u32, usize, u32)> = lines.iter().map(|l| parse_event(l)).collect();
    assert!(
        events.iter().any(|&(_, _, _, n)| n >= 2),
        "a run collapsed: {stderr}"
    );
    assert!(
        lines.len() < 32,
        "64 events in {} lines: {stderr}",
        lines.len()
    );
    for (line, &(first, last, cycle, n)) in lines.iter().zip(&events) {
        assert_eq!(last - first + 1, cycle as u32 * n, "{line}");
    }
    assert!(
        events.windows(2).all(|w| w[1].0 == w[0].1 + 1),
        "every event of the ring shown once, in order: {stderr}"
    );
    let shown = events.last().unwrap().1 - events[0].0 + 1;
    assert_eq!(shown, 64, "the whole ring: {stderr}");
    let said = |l: &str| l.split_once(' ').map(|(_, what)| what.to_string());
    assert!(
        lines.windows(2).all(|w| said(w[0]) != said(w[1])),
        "no two lines in a row say the same: {stderr}"
    );
}

#[test]
fn a_faulting_pd_has_its_last_traced_events_printed_with_its_fault() {
    let out = runner()
        .arg(system("crash.system"))
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let stderr = stderr_of(&out);
    assert!(out.status.success(), "{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    let fault = lines
        .iter()
        .position(|l| l.starts_with("host-runner: PD cpu_crash: FAULT"))
        .unwrap_or_else(|| panic!("no fault: {stderr}"));
    // PD output echoed meanwhile may come between the fault and its trace.
    let header = lines[fault..]
        .iter()
        .position(|l| {
            l.starts_with(
                "host-runner: PD cpu_crash: its last events before the fault (trace cpu_trace, ",
            )
        })
        .map(|at| fault + at)
        .unwrap_or_else(|| panic!("no trace after the fault: {stderr}"));
    let tail: Vec<&&str> = lines[header + 1..]
        .iter()
        .take_while(|l| l.starts_with("host-runner: trace cpu_trace: #"))
        .collect();
    // The test driver faults on its client's 40th notification, past 40 requests done.
    assert!(
        !tail.is_empty() && tail.iter().any(|l| l.contains("DoneCpu")),
        "{stderr}"
    );
}

#[test]
fn a_system_with_no_client_says_at_start_that_only_ctrl_c_or_seconds_end_it() {
    let path = lone_server("no-client");
    let out = runner()
        .arg("-q")
        .arg(&path)
        .timeout(Duration::from_secs(2))
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&path);
    let stderr = stderr_of(&out);
    assert!(!out.status.success(), "killed by the timeout: {stderr}");
    let said: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("runs until"))
        .collect();
    assert_eq!(said.len(), 1, "{stderr}");
    assert!(said[0].contains("has no client"), "{stderr}");
    assert!(said[0].contains("Ctrl-C or --seconds N"), "{stderr}");
}

/// escape.system's client tries its escapes, then idles, as does its peer: the system
/// will do nothing more, and the runner says so once.
#[test]
fn a_system_whose_pds_all_went_to_sleep_says_so_once() {
    let out = runner()
        .arg("-q")
        .arg(system("runtime-examples/systems/escape.system"))
        .timeout(Duration::from_secs(5))
        .output()
        .unwrap();
    let stderr = stderr_of(&out);
    let said: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("every PD is asleep"))
        .collect();
    assert_eq!(said.len(), 1, "{stderr}");
    assert!(said[0].contains("Ctrl-C or --seconds N"), "{stderr}");
}

#[test]
fn sigusr1_dumps_the_traces_of_a_running_system() {
    let path = lone_server("usr1");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_host-runner"))
        .arg(&path)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut log = BufReader::new(child.stderr.take().unwrap()).lines();
    for line in log.by_ref() {
        if line.unwrap().ends_with("PD lone: init done") {
            break;
        }
    }
    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::USR1).unwrap();
    let mut dumped = None;
    for line in log.by_ref() {
        let line = line.unwrap();
        if line.starts_with("host-runner: trace lone_trace:") {
            dumped = Some(line);
            break;
        }
    }
    rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
    let rest: Vec<String> = log.map(|l| l.unwrap()).collect();
    let _ = std::fs::remove_file(&path);
    assert_eq!(child.wait().unwrap().code(), Some(130), "{rest:?}");
    // hr-bench-server keeps no trace: the region is dumped as it is, empty.
    assert_eq!(
        dumped.as_deref(),
        Some("host-runner: trace lone_trace: no trace in that region (yet)"),
        "{rest:?}"
    );
}
