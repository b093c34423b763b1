//! `host-runner FILE.system`: boots a system on Linux and runs it until every client has
//! exited with status 0 (the PDs that call others and that nobody calls; `--wait-for`
//! names others; a PD's exit ends a system that has no clients), the fault policy gives
//! up, `--seconds` pass, or SIGINT/SIGTERM arrives.
//! Exit status: 0 when a PD finished or on a timeout, 1 when the system failed, 2 when
//! it could not boot, 130 when interrupted.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use clap::Parser;
use host_runner::{Options, Outcome, System};

#[derive(Parser)]
#[command(
    version,
    about = "Boot a Microkit .system file on Linux: one process per protection domain"
)]
struct Args {
    /// The system description.
    system: PathBuf,
    /// Restarts of a faulting top-level PD before the system is stopped.
    #[arg(long, default_value_t = 3)]
    max_restarts: u32,
    /// Seconds a PD may spend in init.
    #[arg(long, default_value_t = 3.0)]
    init_timeout: f64,
    /// Spins on a futex word before sleeping (0: always sleep).
    #[arg(long, default_value_t = 2_000)]
    spin: u32,
    /// Stop after this many seconds.
    #[arg(long)]
    seconds: Option<f64>,
    /// Where the PD binaries are (default: next to this executable).
    #[arg(long)]
    bin_dir: Option<PathBuf>,
    /// Keep running when a PD exits with status 0.
    #[arg(long)]
    keep_going: bool,
    /// Stop once every PD named here (repeat the option) has exited with status 0
    /// (default: every client of the system).
    #[arg(long, value_name = "PD")]
    wait_for: Vec<String>,
    /// Print only the output of the PDs named here (repeat the option); default: all.
    #[arg(long, value_name = "PD")]
    show: Vec<String>,
    /// Print each shown PD's lines together when it exits (and the rest when the system
    /// stops) instead of as they come: in the order --show names them, or else in the
    /// order they finish.
    #[arg(long)]
    grouped: bool,
    /// With --grouped: of each shown PD, print only its verdict lines (those holding
    /// "verdict: "), or all its lines if it printed none.
    #[arg(long, requires = "grouped")]
    verdicts: bool,
    /// Do not log starts, faults and restarts.
    #[arg(long, short)]
    quiet: bool,
    /// When the system stops, print the driver trace kept in this memory region:
    /// counters and last events (repeat the option for several).
    #[arg(long, value_name = "REGION")]
    trace: Vec<String>,
}

/// Prints the traces named by `--trace`, as they are now.
fn dump_traces(system: &System, regions: &[String]) {
    for name in regions {
        match system.trace(name) {
            None => eprintln!("host-runner: trace {name}: no trace in that region"),
            Some(t) => {
                eprintln!(
                    "host-runner: trace {name}: {} events, {}",
                    t.written,
                    if t.busy {
                        "a request in flight"
                    } else {
                        "idle"
                    }
                );
                let counts: Vec<String> = pd_trace::KINDS
                    .iter()
                    .filter(|k| t.count(**k) > 0)
                    .map(|k| format!("{k:?} {}", t.count(*k)))
                    .collect();
                eprintln!("host-runner: trace {name}: counts: {}", counts.join(", "));
                for e in t.ring.iter().flatten() {
                    eprintln!(
                        "host-runner: trace {name}: #{} {:?} {}",
                        e.seq, e.kind, e.arg
                    );
                }
            }
        }
    }
}

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

fn main() -> ExitCode {
    let args = Args::parse();
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::signal(libc::SIGINT, handler);
        libc::signal(libc::SIGTERM, handler);
    }
    let desc = match system_desc::parse_file(&args.system) {
        Ok(d) => d,
        Err(errors) => {
            eprintln!("host-runner: {}: cannot boot:", args.system.display());
            for e in errors {
                eprintln!("{e}");
            }
            return ExitCode::from(2);
        }
    };
    let wait_for = if args.wait_for.is_empty() {
        desc.clients()
    } else {
        args.wait_for.clone()
    };
    let opts = Options {
        bin_dir: args.bin_dir,
        max_restarts: args.max_restarts,
        init_timeout: Duration::from_secs_f64(args.init_timeout),
        spin: args.spin,
        echo: !args.grouped,
        show: args.show.clone(),
        log: !args.quiet,
        stop_on_exit: !args.keep_going,
        wait_for: wait_for.clone(),
        ..Options::default()
    };
    let system = match System::boot_desc(&desc, opts) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("host-runner: {}: cannot boot:\n{e}", args.system.display());
            return ExitCode::from(2);
        }
    };
    let end = args
        .seconds
        .map(|s| Instant::now() + Duration::from_secs_f64(s));
    let mut printed: Vec<String> = Vec::new();
    let mut print_finished = |system: &System, all: bool| {
        if !args.grouped {
            return;
        }
        let exited: Vec<String> = system
            .events()
            .iter()
            .filter_map(|e| match e {
                host_runner::Event::Exited { pd } => Some(pd.clone()),
                _ => None,
            })
            .collect();
        let mut names = if args.show.is_empty() {
            exited
        } else {
            // In the order the options name them: each once it and those before it
            // have finished (or the system stopped).
            let ready = args.show.iter().take_while(|pd| all || exited.contains(pd));
            ready.cloned().collect()
        };
        if all {
            names.extend(system.pds().iter().cloned());
        }
        for pd in names {
            let shown = args.show.is_empty() || args.show.contains(&pd);
            if shown && !printed.contains(&pd) {
                let lines = system.output(&pd);
                let verdicts: Vec<&String> =
                    lines.iter().filter(|l| l.contains("verdict: ")).collect();
                if args.verdicts && !verdicts.is_empty() {
                    verdicts.iter().for_each(|line| println!("[{pd}] {line}"));
                } else {
                    lines.iter().for_each(|line| println!("[{pd}] {line}"));
                }
                printed.push(pd);
            }
        }
    };
    loop {
        print_finished(&system, false);
        if let Some(outcome) = system.wait_outcome(Duration::from_millis(50)) {
            print_finished(&system, true);
            dump_traces(&system, &args.trace);
            system.shutdown();
            return match outcome {
                Outcome::Exited { pd } => {
                    let who = if wait_for.len() > 1 {
                        format!("PDs {}", wait_for.join(", "))
                    } else {
                        format!("PD {pd}")
                    };
                    eprintln!("host-runner: {who} finished; system stopped");
                    ExitCode::SUCCESS
                }
                Outcome::Failed { pd, cause } => {
                    eprintln!("host-runner: system failed: PD {pd}: {cause}");
                    ExitCode::FAILURE
                }
                Outcome::Shutdown => ExitCode::SUCCESS,
            };
        }
        let timed_out = end.is_some_and(|e| Instant::now() >= e);
        if STOP.load(Ordering::SeqCst) || timed_out {
            print_finished(&system, true);
            dump_traces(&system, &args.trace);
            system.shutdown();
            let why = if timed_out {
                "time is up"
            } else {
                "interrupted"
            };
            eprintln!("host-runner: {why}; every PD stopped");
            return if timed_out {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(130)
            };
        }
    }
}
