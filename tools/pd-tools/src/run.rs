//! Booting a generated system and collecting what its client reports.
//!
//! Protocol (host-only, between a tool and its client PD): the tool passes parameters
//! in the PDs' environment (`PDT_*`) and the host files the client streams as granted
//! descriptors (the tool opens them: a sandboxed PD opens no file); the client prints result lines on its debug
//! console and exits 0 when done, or prints `error: ...` and exits non-zero. Nothing is
//! restarted: a tool run is one attempt, and any PD fault fails it with the PD's output.

use std::time::Duration;

use std::os::fd::OwnedFd;
use std::sync::Arc;

use host_runner::{BootError, Event, Grant, Options, System};

use crate::algs::Engine;
use crate::systems::{self, Kind};

/// Spins before a PD of the tools' systems sleeps (see the options in [`run_clients`]): ~0.3 ms
/// here.
pub const THROUGHPUT_SPIN: u32 = 8_000;

/// Prefix of an error line from a client PD.
pub const ERROR: &str = "error: ";

/// What the client printed, in order.
pub struct Report {
    pub lines: Vec<String>,
}

impl Report {
    /// The lines that start with `tag ` (tag removed).
    pub fn tagged<'a>(&'a self, tag: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.lines
            .iter()
            .filter_map(move |l| l.strip_prefix(tag)?.strip_prefix(' '))
    }
}

/// What a user is told when the system does not come up: the client's own reason if
/// it gave one (`error: ...` before it exited), else the runner's.
fn boot_error(e: &BootError) -> String {
    if let BootError::InitFault { last_words, .. } = e
        && let Some(why) = last_words.iter().find_map(|l| l.strip_prefix(ERROR))
    {
        return why.to_string();
    }
    format!("the system did not start: {e}")
}

/// Boots `engine`'s driver with `client` as its client, passes `env` to the PDs and
/// grants the client `files` (name, descriptor), and waits up to `timeout` for the
/// client to finish, calling `progress` with the number of lines the client has
/// printed so far every 100 ms (a tool's progress line).
pub fn run(
    engine: Engine,
    kind: Kind,
    client: &str,
    env: Vec<(String, String)>,
    files: Vec<(String, OwnedFd)>,
    timeout: Duration,
    progress: &mut dyn FnMut(usize),
) -> Result<Report, String> {
    let job = Clients {
        engine,
        kind,
        client,
        count: 1,
    };
    Ok(run_clients(job, env, files, timeout, progress)?.remove(0))
}

/// The clients of one run: `count` instances of the binary `client` on `engine`'s
/// driver, named by [`systems::client_name`].
pub struct Clients<'a> {
    pub engine: Engine,
    pub kind: Kind,
    pub client: &'a str,
    pub count: usize,
}

/// Boots `job`'s system, passes `env` to every PD and grants the first client `files`,
/// and waits up to `timeout` for every client to finish; each client's report, in
/// order. `progress` gets the lines the clients have printed so far, every 100 ms.
pub fn run_clients(
    job: Clients<'_>,
    env: Vec<(String, String)>,
    files: Vec<(String, OwnedFd)>,
    timeout: Duration,
    progress: &mut dyn FnMut(usize),
) -> Result<Vec<Report>, String> {
    let text = systems::system_with(job.engine, job.kind, job.client, job.count)?;
    let names: Vec<String> = (0..job.count).map(systems::client_name).collect();
    let desc = system_desc::parse(&text, "pd-tools.system")
        .map_err(|e| format!("generated system is invalid: {e:?}\n{text}"))?;
    let opts = Options {
        max_restarts: 0,
        // A fault ends the measurement, failed, rather than leaving it waiting.
        past_limit: host_runner::PastLimit::Stop,
        // The hardware drivers run their self-test and crossover calibration in init,
        // against the models; a debug build on a loaded 2-core machine needs a while.
        init_timeout: Duration::from_secs(30),
        // PDT_ECHO=1: every PD's output on the terminal, as `[pd] line` (debugging).
        echo: std::env::var_os("PDT_ECHO").is_some(),
        env,
        grants: files
            .into_iter()
            .map(|(name, fd)| Grant {
                pd: names[0].clone(),
                name,
                fd: Arc::new(fd),
            })
            .collect(),
        // As a throughput system would run on an SMP seL4 board: the driver on a CPU of
        // its own (the `cpu` attributes of `systems`), and, since a futex sleep and
        // wake-up cost tens of microseconds here where a seL4 notification costs about
        // one, PDs spinning up to ~0.3 ms before they sleep (the runner's default, ~80
        // us, let a client sleep between batches of 16 KiB requests: 16 KiB AES-128-CBC
        // 15.6 -> 14.6 us, SHA-256 10.0 -> 9.6 us; unpinned, two busy PDs sometimes
        // shared one CPU for a whole short run). Not pinned on a one-CPU machine.
        pin_cpus: std::thread::available_parallelism().is_ok_and(|n| n.get() >= 2),
        spin: THROUGHPUT_SPIN,
        ..Options::default()
    };
    let system = System::boot_desc(&desc, opts).map_err(|e| boot_error(&e))?;
    let deadline = std::time::Instant::now() + timeout;
    let end = loop {
        let end = system.wait_until(Duration::from_millis(100), |events, _| {
            let exited = |name: &String| {
                events
                    .iter()
                    .any(|e| matches!(e, Event::Exited { pd } if pd == name))
            };
            if names.iter().all(exited) {
                return Some(Ok(()));
            }
            events.iter().find_map(|e| match e {
                Event::Faulted { pd, cause } => Some(Err(format!("PD {pd} {cause}"))),
                _ => None,
            })
        });
        progress(names.iter().map(|n| system.output(n).len()).sum());
        if end.is_some() || std::time::Instant::now() >= deadline {
            break end;
        }
    };
    let outputs: Vec<Vec<String>> = names.iter().map(|n| system.output(n)).collect();
    let mut all = String::new();
    for pd in system.pds() {
        for l in system.output(pd) {
            all += &format!("  [{pd}] {l}\n");
        }
    }
    system.shutdown();
    let error = outputs
        .iter()
        .flatten()
        .find_map(|l| l.strip_prefix(ERROR))
        .map(str::to_string);
    match (end, error) {
        (_, Some(e)) => Err(e),
        (Some(Ok(())), None) => Ok(outputs.into_iter().map(|lines| Report { lines }).collect()),
        (Some(Err(e)), None) => Err(format!("{e}\n{all}")),
        (None, None) => Err(format!("no answer within {timeout:?}\n{all}")),
    }
}
