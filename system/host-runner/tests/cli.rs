//! The `host-runner` command: refuses a bad `.system` naming file and line, runs the
//! bench PDs to completion, and on SIGINT stops every PD in order (lowest priority
//! first) and exits 130 with no PD left behind.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

mod support {
    pub mod pids;
}
use support::pids::assert_gone_soon;

fn runner() -> Command {
    Command::new(env!("CARGO_BIN_EXE_host-runner"))
}

fn bench_system() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("systems/bench.system")
}

/// Runs `xml`, written to a temp file of its own (`name`, removed after), expecting the
/// runner to refuse it with status 2; its stderr.
fn refused(name: &str, xml: &str) -> String {
    let path = std::env::temp_dir().join(format!("{}-{name}", std::process::id()));
    std::fs::write(&path, xml).unwrap();
    let out = runner().arg(&path).output().unwrap();
    let _ = std::fs::remove_file(&path);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    stderr
}

/// Runs the bench PDs of `system` quietly for `rounds` round trips, expecting success;
/// (stdout, stderr).
fn bench_run(system: &Path, rounds: &str) -> (String, String) {
    let out = runner()
        .args(["-q", "--spin", "0"])
        .arg(system)
        .env("PD_BENCH_ROUNDS", rounds)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stdout}{stderr}");
    (stdout, stderr)
}

#[test]
fn refuses_a_bad_system_file_naming_file_and_line() {
    let xml = "<system>\n  <protection_domain name=\"a\" priority=\"300\">\n    \
               <program_image path=\"hr-bench-server.elf\" />\n  </protection_domain>\n\
               </system>\n";
    let stderr = refused("cli-bad.system", xml);
    assert!(stderr.contains("cli-bad.system:2:"), "{stderr}");
    assert!(stderr.contains("priority"), "{stderr}");
}

#[test]
fn runs_a_system_until_a_pd_finishes() {
    let (stdout, _) = bench_run(&bench_system(), "200");
    assert!(
        stdout.contains("[client] bench rounds=200 notify_ns="),
        "{stdout}"
    );
}

#[test]
fn sigint_stops_pds_in_order_and_leaves_none() {
    let mut child = runner()
        .arg(bench_system())
        .env_remove("PD_BENCH_ROUNDS")
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut log = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut pids = Vec::new();
    let mut running = 0;
    for line in log.by_ref() {
        let line = line.unwrap();
        if let Some(rest) = line.split(", pid ").nth(1) {
            pids.push(rest.split(' ').next().unwrap().parse::<u32>().unwrap());
        }
        running += usize::from(line.ends_with("init done"));
        if running == 2 {
            break;
        }
    }
    assert_eq!(pids.len(), 2);
    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
    let rest: Vec<String> = log.map(|l| l.unwrap()).collect();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{rest:?}");
    let stopped: Vec<&String> = rest
        .iter()
        .filter(|l| l.starts_with("host-runner: PD ") && l.ends_with(": stopped"))
        .collect();
    assert_eq!(
        stopped,
        [
            "host-runner: PD client: stopped",
            "host-runner: PD server: stopped"
        ],
        "client (priority 100) stops before server (200): {rest:?}"
    );
    assert_gone_soon(&pids);
}

/// With no flags, a system runs until every client (a PD that calls and that nobody
/// calls) has finished, not until the first one has.
#[test]
fn runs_until_every_client_has_finished() {
    let system = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("systems/two-clients.system");
    let desc = system_desc::parse_file(&system).unwrap();
    assert_eq!(desc.clients(), ["client1", "client2"]);
    let (stdout, stderr) = bench_run(&system, "100");
    for client in ["client1", "client2"] {
        assert!(
            stdout.contains(&format!("[{client}] bench rounds=100")),
            "{stdout}"
        );
    }
    assert!(stderr.contains("PDs client1, client2 finished"), "{stderr}");
}

/// Every missing PD binary is named at once, with what to do about it.
#[test]
fn names_every_missing_binary() {
    let xml = "<system>\n <protection_domain name=\"a\" priority=\"1\">\n  <program_image path=\"nope-a.elf\" />\n </protection_domain>\n <protection_domain name=\"b\" priority=\"2\">\n  <program_image path=\"nope-b.elf\" />\n </protection_domain>\n</system>\n";
    let stderr = refused("cli-nobin.system", xml);
    assert!(
        stderr.contains("PD a: program image nope-a.elf has no host binary"),
        "{stderr}"
    );
    assert!(
        stderr.contains("PD b: program image nope-b.elf has no host binary"),
        "{stderr}"
    );
    assert!(stderr.contains("--bin-dir"), "{stderr}");
}

/// `--grouped` prints each client's lines together, once it has exited.
#[test]
fn grouped_prints_each_pd_once_it_has_finished() {
    let system = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("systems/two-clients.system");
    let out = runner()
        .args([
            "-q",
            "--spin",
            "0",
            "--grouped",
            "--show",
            "client1",
            "--show",
            "client2",
        ])
        .arg(&system)
        .env("PD_BENCH_ROUNDS", "50")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines.len(),
        2,
        "one line per client, no server lines: {stdout}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("[client1] bench rounds=50"))
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("[client2] bench rounds=50"))
    );
}

/// `--verdicts` (make run): of each shown client only its verdict line, in the order
/// the options name them whatever order they finish in; a client with no verdict line
/// shows all its lines.
#[test]
fn verdicts_print_one_line_per_client_in_the_order_named() {
    let demo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../demo.system");
    let out = runner()
        .args(["-q", "--grouped", "--verdicts"])
        .args([
            "--show", "kat_sec1", "--show", "vboot", "--show", "kat_omap",
        ])
        .arg(&demo)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    // The order is what this test checks; the counts are the system tests' (they
    // compute them from the vector tables).
    assert!(
        lines[0].starts_with("[kat_sec1] kat-digest: verdict: all ")
            && lines[0].contains(" digests passed"),
        "{stdout}"
    );
    assert!(
        lines[1].starts_with("[vboot] vboot: verdict: 4 of 4"),
        "{stdout}"
    );
    assert!(
        lines[2].starts_with("[kat_omap] kat-cipher: verdict: all ")
            && lines[2].contains(" vectors passed"),
        "{stdout}"
    );
    assert!(lines[2].contains("Dma 24 (0 B CPU-copied)"), "{stdout}");
}

/// What system-check refuses the runner never boots: a writable and executable map
/// (it would be a shared W+X mapping made before the sandbox), a map no one can read,
/// a region of size 0, and maps at the null page or above the user top.
#[test]
fn refuses_to_boot_maps_system_check_refuses() {
    let with = |region: &str, map: &str| {
        format!(
            "<system>\n  <memory_region name=\"m\" {region} />\n  <protection_domain name=\"a\" priority=\"300\">\n    \
             <program_image path=\"hr-bench-server.elf\" />\n    <map mr=\"m\" {map} />\n  </protection_domain>\n</system>\n"
        )
    };
    let page = "size=\"0x1000\"";
    for (name, region, map, says) in [
        (
            "wx",
            page,
            "vaddr=\"0x1000000\" perms=\"rwx\"",
            "writable and executable",
        ),
        (
            "noread",
            page,
            "vaddr=\"0x1000000\" perms=\"\"",
            "has no 'r'",
        ),
        (
            "zero",
            "size=\"0\"",
            "vaddr=\"0x1000000\" perms=\"rw\"",
            "size 0",
        ),
        ("null", page, "vaddr=\"0\" perms=\"rw\"", "null page"),
        (
            "kernel",
            page,
            "vaddr=\"0xffff800000000000\" perms=\"rw\"",
            "kernel",
        ),
    ] {
        let stderr = refused(&format!("cli-{name}.system"), &with(region, map));
        assert!(stderr.contains(says), "{name}: {stderr}");
    }
}

/// A PD writing 400 MiB to its console and stdout as fast as it can: the runner's memory
/// stays bounded (its peak RSS, and its PDs', under 64 MiB), the flooder's lines beyond
/// its rate are dropped and counted to the line (kept + dropped = written), and a quiet
/// PD's line is kept.
#[test]
fn an_output_flood_is_dropped_counted_and_bounded() {
    let system = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("systems/flood.system");
    let out = runner()
        // The flood is the flooder's init.
        .args([
            "--spin",
            "0",
            "--init-timeout",
            "300",
            "--wait-for",
            "flooder",
        ])
        .arg(&system)
        .env("PD_FLOOD_MB", "400")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // Peak RSS of the largest of the runner and its PDs (all waited for), in KiB.
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes one rusage into the buffer it is given.
    let usage = unsafe {
        assert_eq!(
            libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr()),
            0
        );
        usage.assume_init()
    };
    let peak_mib = usage.ru_maxrss as f64 / 1024.0;
    assert!(peak_mib < 64.0, "peak RSS {peak_mib:.1} MiB");
    assert!(stdout.contains("[witness] witness: here"), "{stderr}");
    let written: u64 = stdout
        .lines()
        .find_map(|l| {
            l.strip_prefix("[flooder] flood: ")?
                .strip_suffix(" lines")?
                .parse()
                .ok()
        })
        .expect("the flooder says how many lines it writes");
    let kept = stdout
        .lines()
        .filter(|l| l.starts_with("[flooder] "))
        .count() as u64;
    let dropped: u64 = stderr
        .lines()
        .find_map(|l| {
            l.strip_prefix("host-runner: PD flooder: ")?
                .strip_suffix(" output lines dropped in all (over its rate)")?
                .parse()
                .ok()
        })
        .unwrap_or_else(|| panic!("the runner counts the drops: {stderr}"));
    assert!(dropped > 0 && kept > 1, "kept {kept}, dropped {dropped}");
    assert_eq!(kept + dropped, written, "every line kept or counted");
    eprintln!(
        "flood: {written} lines written, {kept} kept, {dropped} dropped; peak RSS {peak_mib:.1} MiB"
    );
}
