//! `host-runner FILE.system`: boots a system on Linux and runs it until every client has
//! exited with status 0 (the PDs that call others and that nobody calls; `--wait-for`
//! names others; a PD's exit ends a system that has no clients), the fault policy gives
//! up, `--seconds` pass, or SIGINT/SIGTERM arrives. It says at start when nothing but
//! those will end it (no client to wait for), and once every PD has gone to sleep for
//! good. `--trace REGION` dumps a PD's trace when the system stops, SIGUSR1 while it
//! runs; a faulting PD's last traced events are printed with its fault.
//! Exit status: 0 when a PD finished or on a timeout, 1 when the system failed, 2 when
//! it could not boot, 130 when interrupted.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use clap::Parser;
use host_runner::{Options, Outcome, PastLimit, System};
use system_desc::SystemDescription;

#[derive(Parser)]
#[command(
    version,
    about = "Boot a Microkit .system file on Linux: one process per protection domain"
)]
struct Args {
    /// The system description.
    system: PathBuf,
    /// Restarts of a faulting top-level PD before it is held (not started again, the
    /// rest of the system running on).
    #[arg(long, default_value_t = 3)]
    max_restarts: u32,
    /// Past --max-restarts, stop the whole system instead of holding the PD.
    #[arg(long)]
    stop_past_limit: bool,
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
    /// When the system stops, print the trace a PD keeps in this memory region (see
    /// `pd-trace`): counters and last events, repeats collapsed (repeat the option for
    /// several). SIGUSR1 prints them while it runs (with no --trace: every trace region).
    #[arg(long, value_name = "REGION")]
    trace: Vec<String>,
}

/// Prints the traces of `regions`, as they are now.
fn dump_traces(system: &System, regions: &[String]) {
    for name in regions {
        let dump = host_runner::trace::dump(name, system.trace(name).as_ref());
        // One write: the lines are not split by PD output echoed meanwhile.
        let _ = std::io::stderr().write_all(dump.as_bytes());
    }
}

/// Every region `--trace` names is a trace region of the system, or the message saying
/// which ones are.
fn check_traces(desc: &SystemDescription, file: &Path, asked: &[String]) -> Result<(), String> {
    let regions = host_runner::trace::trace_regions(desc);
    let unknown: Vec<&str> = asked
        .iter()
        .filter(|a| !regions.iter().any(|(r, _)| r == *a))
        .map(String::as_str)
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    let have = if regions.is_empty() {
        "it has none (a PD keeps its trace in a region it maps writable with \
         setvar_vaddr=\"trace\")"
            .to_string()
    } else {
        let named: Vec<String> = regions
            .iter()
            .map(|(r, pd)| format!("{r} ({pd})"))
            .collect();
        format!("its trace regions: {}", named.join(", "))
    };
    Err(format!(
        "--trace {}: {} has no such trace region; {have}",
        unknown.join(", "),
        file.display()
    ))
}

/// Says, for each PD that wrote over its output rate, how many of its lines were dropped.
fn report_dropped(system: &System) {
    for (pd, n) in system.dropped_output() {
        eprintln!("host-runner: PD {pd}: {n} output lines dropped in all (over its rate)");
    }
}

static STOP: AtomicBool = AtomicBool::new(false);
static DUMP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

extern "C" fn on_dump(_: libc::c_int) {
    DUMP.store(true, Ordering::SeqCst);
}

/// How long every PD sleeps, with nothing sent to any, before the runner says it will
/// run on doing nothing: long past any wake-up in flight.
const ASLEEP: Duration = Duration::from_secs(1);

fn main() -> ExitCode {
    let args = Args::parse();
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::signal(libc::SIGINT, handler);
        libc::signal(libc::SIGTERM, handler);
        let dump = on_dump as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::signal(libc::SIGUSR1, dump);
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
    if let Err(e) = check_traces(&desc, &args.system, &args.trace) {
        eprintln!("host-runner: {e}");
        return ExitCode::from(2);
    }
    let wait_for = if args.wait_for.is_empty() {
        desc.clients()
    } else {
        args.wait_for.clone()
    };
    // Said before boot so that a user who sees nothing more knows why.
    let mut said_endless = false;
    if args.seconds.is_none() && (args.keep_going || wait_for.is_empty()) {
        let why = if args.keep_going {
            "with --keep-going".to_string()
        } else {
            format!(
                "{} has no client (a PD that calls others and that nobody calls) to wait \
                 for, so",
                args.system.display()
            )
        };
        let until = if args.keep_going { "" } else { "a PD exits, " };
        eprintln!("host-runner: {why} it runs until {until}Ctrl-C or --seconds N");
        said_endless = true;
    }
    let live_traces: Vec<String> = if args.trace.is_empty() {
        let regions = host_runner::trace::trace_regions(&desc);
        regions.into_iter().map(|(r, _)| r).collect()
    } else {
        args.trace.clone()
    };
    let opts = Options {
        bin_dir: args.bin_dir,
        max_restarts: args.max_restarts,
        past_limit: if args.stop_past_limit {
            PastLimit::Stop
        } else {
            PastLimit::Hold
        },
        init_timeout: Duration::from_secs_f64(args.init_timeout),
        spin: args.spin,
        echo: !args.grouped,
        show: args.show.clone(),
        log: !args.quiet,
        fault_traces: true,
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
        if DUMP.swap(false, Ordering::SeqCst) {
            if live_traces.is_empty() {
                eprintln!("host-runner: SIGUSR1: this system keeps no trace");
            }
            dump_traces(&system, &live_traces);
        }
        if !said_endless && end.is_none() && system.asleep_for().is_some_and(|d| d >= ASLEEP) {
            eprintln!(
                "host-runner: every PD is asleep and none was sent anything: the system will \
                 do nothing more, yet runs until Ctrl-C or --seconds N"
            );
            said_endless = true;
        }
        if let Some(outcome) = system.wait_outcome(Duration::from_millis(50)) {
            print_finished(&system, true);
            dump_traces(&system, &args.trace);
            report_dropped(&system);
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
            report_dropped(&system);
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
