//! What an idle system costs: the CPU driver PD and a client holding an open session
//! and asking nothing, booted, then every PD process's CPU time over a few seconds
//! (`speed --host-limit` prints it). PDs spin briefly after their last event and then
//! sleep in the kernel, so this should be ~0.

use std::time::{Duration, Instant};

use host_runner::{Options, System};

use crate::algs::Engine;
use crate::systems::{self, Kind};

/// CPU time used by the PDs of an idle system over a window.
pub struct IdleCpu {
    pub pds: usize,
    pub window: Duration,
    /// CPU time of every PD process (all its threads) in the window.
    pub used: Duration,
}

impl IdleCpu {
    /// The used time as a percentage of one CPU over the window.
    pub fn percent(&self) -> f64 {
        100.0 * self.used.as_secs_f64() / self.window.as_secs_f64()
    }

    pub fn line(&self) -> String {
        format!(
            "  idle: {} PDs booted, a session open and nothing asked, used {:.2} ms of CPU in {:.1} s ({:.3}% of one CPU)\n",
            self.pds,
            self.used.as_secs_f64() * 1e3,
            self.window.as_secs_f64(),
            self.percent()
        )
    }
}

/// ns on a CPU of process `pid`, every thread (`/proc/<pid>/task/*/schedstat`'s first
/// field). The tool reads it; the PDs themselves cannot (their sandbox). A thread that
/// ends between the listing and its read is left out (its time with it: an idle PD's
/// threads do not end), rather than failing the reading: gone before the open, its file
/// is not found; gone between the open and the read, the read says ESRCH.
fn cpu_ns(pid: u32) -> Result<u64, String> {
    let dir = format!("/proc/{pid}/task");
    let mut total = 0;
    for task in std::fs::read_dir(&dir).map_err(|e| format!("{dir}: {e}"))? {
        let path = task.map_err(|e| e.to_string())?.path().join("schedstat");
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e)
                if e.kind() == std::io::ErrorKind::NotFound
                    || e.raw_os_error() == Some(libc::ESRCH) =>
            {
                continue;
            }
            Err(e) => return Err(format!("{}: {e}", path.display())),
        };
        total += text
            .split_whitespace()
            .next()
            .and_then(|v| v.parse::<u64>().ok())
            .ok_or_else(|| format!("{}: {text:?}", path.display()))?;
    }
    Ok(total)
}

/// Boots the CPU cipher driver with an idle client and measures its PDs over `window`.
pub fn measure(window: Duration) -> Result<IdleCpu, String> {
    let text = systems::system(Engine::Cpu, Kind::Cipher, "pdt-speed-client")?;
    let desc = system_desc::parse(&text, "pd-tools.system")
        .map_err(|e| format!("generated system is invalid: {e:?}"))?;
    let env = [
        ("PDT_KIND", "idle"),
        ("PDT_ALG", "aes-128-cbc"),
        ("PDT_PATH", "cpu"),
        ("PDT_SIZES", "16"),
        ("PDT_SECONDS", "0"),
        ("PDT_MIN_OPS", "0"),
        ("PDT_MAX_OPS", "0"),
    ];
    let opts = Options {
        max_restarts: 0,
        // A fault ends the measurement, failed, rather than leaving it waiting.
        past_limit: host_runner::PastLimit::Stop,
        env: env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        ..Options::default()
    };
    let system = System::boot_desc(&desc, opts).map_err(|e| e.to_string())?;
    let ready = system
        .wait_until(Duration::from_secs(10), |_, out| {
            out.iter().any(|(_, l)| l == "idle ready").then_some(())
        })
        .is_some();
    let result = if ready {
        // Past the spin after the session's set-up.
        std::thread::sleep(Duration::from_millis(200));
        let pids: Vec<u32> = system.pds().iter().filter_map(|p| system.pid(p)).collect();
        let sum = |pids: &[u32]| -> Result<u64, String> {
            pids.iter().map(|&p| cpu_ns(p)).sum::<Result<u64, String>>()
        };
        let start = Instant::now();
        let before = sum(&pids)?;
        std::thread::sleep(window);
        let after = sum(&pids)?;
        Ok(IdleCpu {
            pds: pids.len(),
            window: start.elapsed(),
            used: Duration::from_nanos(after.saturating_sub(before)),
        })
    } else {
        Err(format!(
            "the idle client never said it was ready: {:?}",
            system.output("client")
        ))
    };
    system.shutdown();
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reading sees CPU time: a process spinning for 200 ms shows. A process of
    /// its own: the test harness's threads end while others run, and this one's
    /// once failed the reading by ending between the listing and its read.
    #[test]
    fn cpu_time_of_a_busy_process_shows() {
        /// Kills the spinning process however the test ends.
        struct Spin(std::process::Child);
        impl Drop for Spin {
            fn drop(&mut self) {
                let _ = self.0.kill();
                let _ = self.0.wait();
            }
        }
        let spin = Spin(
            std::process::Command::new("sh")
                .args(["-c", "while :; do :; done"])
                .spawn()
                .unwrap(),
        );
        let before = cpu_ns(spin.0.id()).unwrap();
        std::thread::sleep(Duration::from_millis(200));
        let after = cpu_ns(spin.0.id()).unwrap();
        drop(spin);
        // A fifth of the window: the machine is shared and `make test` runs in parallel.
        assert!(after >= before + 40_000_000, "{before} -> {after}");
    }

    /// A process that is gone is an error, not a zero.
    #[test]
    fn a_process_that_is_gone_is_an_error() {
        let mut done = std::process::Command::new("true").spawn().unwrap();
        let pid = done.id();
        done.wait().unwrap();
        assert!(
            cpu_ns(pid)
                .unwrap_err()
                .contains(&format!("/proc/{pid}/task"))
        );
    }
}
