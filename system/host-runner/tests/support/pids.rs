//! Whether PD processes outlive their runner, read from /proc: shared by host-runner's
//! CLI tests and runtime-examples' orphan test (which includes this file by path).

use std::time::{Duration, Instant};

/// A process is gone once it is reaped or a zombie waiting for its new parent to reap it.
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z'),
        Err(_) => false,
    }
}

/// Fails unless every one of `pids` is gone within five seconds of its runner's end.
pub fn assert_gone_soon(pids: &[u32]) {
    let start = Instant::now();
    while pids.iter().any(|&p| alive(p)) {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "PDs {pids:?} outlived the runner"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}
