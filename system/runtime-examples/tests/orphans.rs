//! No PD outlives its runner, however the runner dies: a runner process killed with
//! SIGKILL (no chance to clean up) takes every PD with it (PR_SET_PDEATHSIG).

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::boot;
use host_runner::Options;

#[path = "../../host-runner/tests/support/pids.rs"]
mod pids;
use pids::{alive, assert_gone_soon};

const ROLE: &str = "PD_RUNTIME_TEST_RUNNER";

/// Not a test: the runner process for the test below, run by it with `--ignored`.
#[test]
#[ignore = "helper process for pds_die_with_a_killed_runner"]
fn runner_process() {
    if std::env::var_os(ROLE).is_none() {
        return;
    }
    let system = boot("restart.system", Options::default());
    println!(
        "pids {} {}",
        system.pid("ping").unwrap(),
        system.pid("pong").unwrap()
    );
    std::thread::sleep(Duration::from_secs(60));
}

#[test]
fn pds_die_with_a_killed_runner() {
    let mut runner = Command::new(std::env::current_exe().unwrap())
        .args(["--ignored", "--exact", "runner_process", "--nocapture"])
        .env(ROLE, "1")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(runner.stdout.take().unwrap()).lines();
    let pids: Vec<u32> = lines
        .find_map(|l| {
            let l = l.ok()?;
            let rest = l.strip_prefix("pids ")?.to_string();
            Some(rest.split(' ').map(|p| p.parse().unwrap()).collect())
        })
        .expect("the runner reports its PDs");
    assert_eq!(pids.len(), 2);
    assert!(pids.iter().all(|&p| alive(p)));

    runner.kill().unwrap();
    runner.wait().unwrap();
    assert_gone_soon(&pids);
}
