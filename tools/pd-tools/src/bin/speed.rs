//! `speed`: openssl-speed and tcrypt style measurements of an engine and path through
//! the real system (client PD -> queues -> driver PD -> engine) on the host backend,
//! with modelled board time (the shared ledger x the board's cost table) beside real
//! host time, CSV and an SVG plot; `--reproduce` sets a Linux change's published figures beside
//! the same measurement on our model of its board; `--host-limit` sets the isolated CPU
//! engine beside in-process RustCrypto; `--clients K` shares one driver among K clients.
//! Every figure printed as ours is measured in the
//! run; published figures are typed-in data with their source (`speed::reproduce`).
//! As each size starts, stderr says what it measures (`Doing aes-128-cbc through
//! omap-aes pio @am335x for 0.25s ... on 16 size blocks`, as openssl speed does);
//! stdout holds only the results.
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};
use pd_tools::algs::{DataPath, Engine};
use pd_tools::speed::measure::{Alg, Budget, Job, Measured, announce, measure, measure_shared};
use pd_tools::speed::report::{self, Clock};
use pd_tools::speed::shared::SharedRun;
use pd_tools::speed::{flood, host_limit, idle, plot, reproduce};
use pd_tools::systems;

#[derive(Parser)]
#[command(
    name = "speed",
    version,
    about = "Crypto engine throughput through the isolated driver PDs (host backend)"
)]
struct Args {
    /// Board whose engine to drive (am335x: omap-aes, stm32mp1: stm32-cryp, mpc885:
    /// sec1, host: cpu); --engine overrides. Default: am335x.
    #[arg(long, value_parser = ["am335x", "stm32mp1", "mpc885", "host"])]
    board: Option<String>,
    /// Engine to drive, on the board that has it. Default: the --board's engine
    /// (omap-aes with neither).
    #[arg(long, value_enum)]
    engine: Option<Engine>,
    /// Algorithms, comma-separated (aes-128-cbc, aes-256-cbc, aes-128-ctr, sha256, sha1,
    /// md5, ..., aes-128-gcm, aes-256-ccm, hmac-sha256: the AEADs and HMACs on the CPU
    /// engine); default: aes-128-cbc for cipher engines, sha256 for SEC1.
    #[arg(long, value_delimiter = ',')]
    alg: Vec<String>,
    /// Paths, comma-separated (pio, dma, adaptive, chained, copy, cpu); default: every
    /// path the engine has.
    #[arg(long, value_delimiter = ',', value_enum)]
    path: Vec<DataPath>,
    /// Request sizes in bytes, comma-separated (at most 65536, the client's data region;
    /// whole 16-byte blocks for CBC and ECB, which take no padding).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "16,64,256,1024,8192,16384"
    )]
    sizes: Vec<usize>,
    /// Host seconds per size (at least --min-ops requests each).
    #[arg(long, default_value_t = 0.25)]
    seconds: f64,
    /// Requests per size at least, however short --seconds (0: as many as fit in it).
    #[arg(long, default_value_t = 20)]
    min_ops: u64,
    /// Requests the client keeps in flight: submitted as a batch behind one
    /// notification, answers drained in batches (1: one at a time, as openssl speed
    /// through AF_ALG does). A digest is one final request on a reused session.
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u32).range(1..=64))]
    depth: u32,
    /// The standard set (`make bench`): every engine, each path, its usual algorithms
    /// (default: the one engine of --board or --engine).
    #[arg(long)]
    standard: bool,
    /// CSV rows (engine, path, algorithm, size: modelled ns/op, host ns/op, bytes/s) to
    /// FILE, or to stdout instead of the tables with `--csv` alone. Default: no CSV.
    #[arg(long, num_args = 0..=1, default_missing_value = "-")]
    csv: Option<String>,
    /// Throughput against size, one line per path, as SVG to FILE. Default: no plot.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// A Linux change's published table beside our model of its board, old strategy and
    /// ours: omap-idle-start, omap-dma-pio, stm32-dma or talitos-chain (boards/SOURCES.md).
    /// Default: none.
    #[arg(long, value_name = "CHANGE", value_parser = reproduce::CHANGES)]
    reproduce: Option<String>,
    /// The isolated CPU engine beside in-process RustCrypto, same sizes, with the ratio:
    /// one request in flight and --depth, in one run (--svg: the three on one chart).
    /// Default: off.
    #[arg(long, conflicts_with = "csv")]
    host_limit: bool,
    /// With --host-limit: measure it N times over (the PD runs, then in process, each
    /// time), each ratio taken within its round and reported as their median and range:
    /// a machine that changes speed between runs skews one round's ratio, not the median.
    #[arg(long, value_name = "N", default_value_t = 1, requires = "host_limit",
          value_parser = clap::value_parser!(u32).range(1..=20))]
    rounds: u32,
    /// K client PDs (2 to 4) on one driver, each keeping --depth in flight, all measured
    /// in the same window of --seconds per size: the aggregate throughput and each
    /// client's share of it (fairness). Default: one client.
    #[arg(
        long,
        value_name = "K",
        value_parser = clap::value_parser!(u32).range(2..=4),
        conflicts_with_all = ["csv", "svg", "host_limit", "reproduce", "standard"]
    )]
    clients: Option<u32>,
    /// A light client (each --sizes, --depth in flight) alone on the driver, then beside
    /// a second client flooding it with SIZE-byte requests (32 in flight) in the same
    /// windows: the share of its alone throughput it keeps (engine-time fairness).
    /// Default: off.
    #[arg(
        long,
        value_name = "SIZE",
        conflicts_with_all = ["csv", "svg", "host_limit", "reproduce", "standard", "clients"]
    )]
    flood: Option<usize>,
    /// pd-enc beside `openssl enc -aes-128-cbc -nopad` and pd-dgst beside `sha256sum` on
    /// one file of MIB MiB (made in target/bench/files), alternately, their wall times
    /// and ratios. Default: off.
    #[arg(
        long,
        value_name = "MIB",
        value_parser = clap::value_parser!(u64).range(1..=4096),
        conflicts_with_all = ["csv", "svg", "host_limit", "reproduce", "standard", "clients"]
    )]
    files: Option<u64>,
}

fn default_engine(board: Option<&str>) -> Engine {
    match board {
        Some("am335x") | None => Engine::OmapAes,
        Some("stm32mp1") => Engine::Stm32Cryp,
        Some("mpc885") => Engine::Sec1,
        _ => Engine::Cpu,
    }
}

fn default_paths(e: Engine) -> Vec<DataPath> {
    match e {
        Engine::Cpu => vec![DataPath::Cpu],
        Engine::Sec1 => vec![DataPath::Chained, DataPath::Copy],
        _ => vec![DataPath::Pio, DataPath::Dma, DataPath::Adaptive],
    }
}

fn jobs(a: &Args) -> Result<Vec<Job>, String> {
    if a.standard {
        let mut v = Vec::new();
        for (engine, algs) in [
            (Engine::OmapAes, &["aes-128-cbc"][..]),
            (Engine::Stm32Cryp, &["aes-256-cbc"][..]),
            (Engine::Sec1, &["md5", "sha256"][..]),
            (Engine::Cpu, &["aes-128-cbc", "aes-128-ctr", "sha256"][..]),
        ] {
            for alg in algs {
                let alg = Alg::parse(alg)?;
                for path in default_paths(engine) {
                    let path = match (alg, engine) {
                        (Alg::Digest(_), Engine::Cpu) => DataPath::Auto,
                        _ => path,
                    };
                    v.push(Job { engine, alg, path });
                }
            }
        }
        return Ok(v);
    }
    let engine = a
        .engine
        .unwrap_or_else(|| default_engine(a.board.as_deref()));
    let algs: Vec<Alg> = if a.alg.is_empty() {
        vec![Alg::parse(if engine == Engine::Sec1 {
            "sha256"
        } else {
            "aes-128-cbc"
        })?]
    } else {
        a.alg
            .iter()
            .map(|s| Alg::parse(s))
            .collect::<Result<_, _>>()?
    };
    let paths = if a.path.is_empty() {
        default_paths(engine)
    } else {
        a.path.clone()
    };
    let mut v = Vec::new();
    for alg in algs {
        match alg {
            Alg::Cipher(_) if !engine.ciphers() => {
                return Err(format!("{} does not encipher", engine.name()));
            }
            Alg::Digest(_) if !engine.digests() => {
                return Err(format!("{} does not hash", engine.name()));
            }
            Alg::Digest(d) if !engine.digests_with(d) => {
                return Err(format!(
                    "{} does not hash {}",
                    engine.name(),
                    pd_tools::algs::digest_name(d)
                ));
            }
            // Not yet on the hardware engines' drivers (the CPU engine's Aead and Mac
            // drivers serve them); one path, the engine's own.
            Alg::Aead(_) | Alg::Mac(_) if engine != Engine::Cpu => {
                return Err(format!(
                    "{}: the {} driver offers no {} (the CPU engine's does)",
                    alg.name(),
                    engine.name(),
                    if matches!(alg, Alg::Aead(_)) {
                        "AEAD"
                    } else {
                        "HMAC"
                    }
                ));
            }
            Alg::Aead(_) => {
                v.push(Job {
                    engine,
                    alg,
                    path: DataPath::Cpu,
                });
                continue;
            }
            Alg::Mac(_) => {
                v.push(Job {
                    engine,
                    alg,
                    path: DataPath::Auto,
                });
                continue;
            }
            _ => {}
        }
        for &path in &paths {
            // The CPU digest driver's one path is its default.
            let path = match (alg, engine, path) {
                (Alg::Digest(_), Engine::Cpu, DataPath::Cpu) => DataPath::Auto,
                _ => path,
            };
            engine.check_path(path, matches!(alg, Alg::Cipher(_)))?;
            v.push(Job { engine, alg, path });
        }
    }
    Ok(v)
}

/// A progress bar over `steps` measured sizes, drawn only on a terminal and only when
/// the run is expected to last more than a couple of seconds.
fn bar(steps: u64, expected_s: f64) -> ProgressBar {
    if expected_s < 2.0 || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(steps);
    pb.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} {msg}")
            .expect("a valid template"),
    );
    pb
}

/// Measures every job, advancing `pb` by one per size and saying on stderr, as openssl
/// speed does, what each size measures as it starts (above the bar, when it is drawn).
fn run_all(
    jobs: &[Job],
    sizes: &[usize],
    budget: Budget,
    pb: &ProgressBar,
) -> Result<Vec<Measured>, String> {
    let mut out = Vec::new();
    for job in jobs {
        pb.set_message(job.label());
        let base = pb.position();
        let mut say = |line: &str| pb.suspend(|| eprintln!("{line}"));
        let mut doing = announce(*job, sizes, budget, None, &mut say);
        let m = measure(*job, sizes, budget, None, &mut |lines| {
            doing(lines);
            pb.set_position(base + lines.min(sizes.len()) as u64)
        })?;
        out.push(m);
    }
    Ok(out)
}

/// Refuses, in words, a size no request of these jobs can be.
fn check_sizes(jobs: &[Job], sizes: &[usize]) -> Result<(), String> {
    for &n in sizes {
        if n == 0 || n > systems::DATA_SIZE {
            return Err(format!(
                "--sizes {n}: a request carries 1 to {} bytes (the client's data region)",
                systems::DATA_SIZE
            ));
        }
        for job in jobs {
            if let Alg::Cipher(c) = job.alg
                && c.whole_blocks()
                && n % 16 != 0
            {
                return Err(format!(
                    "--sizes {n}: {} takes whole 16-byte blocks (no padding)",
                    job.alg.name()
                ));
            }
        }
    }
    Ok(())
}

/// `job` with `k` clients on one driver. The clients' windows begin a lead after the
/// boot starts; if a client was late for one (a slow boot: a debug build calibrating
/// on a busy machine), the run is repeated with twice the lead, up to 8 s.
fn shared(job: Job, sizes: &[usize], budget: Budget, k: usize) -> Result<SharedRun, String> {
    let mut lead = std::time::Duration::from_secs(1);
    let each: Vec<String> = sizes.iter().map(usize::to_string).collect();
    // openssl speed's progress line, for the whole run: its clients report together.
    eprintln!(
        "Doing {} by {k} clients at once for {}s on each of {} size blocks",
        job.through(),
        budget.seconds,
        each.join(", ")
    );
    loop {
        match measure_shared(job, sizes, budget, k, lead) {
            Ok(clients) => {
                return Ok(SharedRun {
                    job,
                    depth: budget.depth,
                    seconds: budget.seconds,
                    clients,
                });
            }
            Err(e) if e.contains("late") && lead.as_secs() < 8 => {
                eprintln!("speed: {e}; again with a {} s lead", 2 * lead.as_secs());
                lead *= 2;
            }
            Err(e) => return Err(e),
        }
    }
}

/// Creates (or empties) an output file now, so a bad path fails before measuring.
fn create(path: &std::path::Path) -> Result<std::fs::File, String> {
    if path.is_dir() {
        return Err(format!("{}: is a directory", path.display()));
    }
    std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn main() -> ExitCode {
    let a = Args::parse();
    match main_result(&a) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("speed: {e}");
            ExitCode::FAILURE
        }
    }
}

fn main_result(a: &Args) -> Result<(), String> {
    let budget = Budget {
        seconds: a.seconds,
        min_ops: a.min_ops,
        max_ops: u64::MAX,
        depth: a.depth,
    };
    if let Some(mib) = a.files {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let tools = exe.parent().ok_or("speed has no directory")?;
        let dir = tools.join("../bench/files");
        print!("{}", pd_tools::speed::files::run(tools, &dir, mib)?);
        return Ok(());
    }
    if let Some(change) = &a.reproduce {
        print!("{}", reproduce::run(change, budget)?);
        return Ok(());
    }
    let jobs = if a.host_limit {
        // The CPU engine only, with the first --alg (default aes-128-cbc).
        let alg = Alg::parse(a.alg.first().map_or("aes-128-cbc", String::as_str))?;
        let path = match alg {
            Alg::Cipher(_) | Alg::Aead(_) => DataPath::Cpu,
            Alg::Digest(_) | Alg::Mac(_) => DataPath::Auto,
        };
        vec![Job {
            engine: Engine::Cpu,
            alg,
            path,
        }]
    } else {
        jobs(a)?
    };
    check_sizes(&jobs, &a.sizes)?;
    if let Some(size) = a.flood {
        check_sizes(&jobs, &[size])?;
        for job in &jobs {
            eprintln!(
                "Doing {} alone, then beside a flooder of {size} B requests, for {}s on each size",
                job.through(),
                budget.seconds
            );
            let lead = std::time::Duration::from_secs(2);
            print!(
                "{}",
                flood::run(*job, &a.sizes, budget, size, lead)?.table()
            );
        }
        return Ok(());
    }
    if let Some(k) = a.clients {
        for job in &jobs {
            print!("{}", shared(*job, &a.sizes, budget, k as usize)?.table());
        }
        return Ok(());
    }
    // Where the results go is checked (and the files made) before minutes of measuring.
    let csv_file = match a.csv.as_deref() {
        Some("-") | None => None,
        Some(path) => Some(create(std::path::Path::new(path))?),
    };
    if let Some(path) = &a.svg {
        create(path)?;
    }
    if a.host_limit {
        // One request at a time and `--depth` in flight, in one run, beside in process.
        let mut depths = vec![1];
        if a.depth != 1 {
            depths.push(a.depth);
        }
        let rounds = a.rounds as usize;
        let steps = (rounds * depths.len() * a.sizes.len()) as u64;
        let pb = bar(steps, 2.0 * steps as f64 * a.seconds);
        let mut limits = Vec::new();
        for _ in 0..rounds {
            let mut runs = Vec::new();
            for &depth in &depths {
                let b = Budget { depth, ..budget };
                runs.push((depth, run_all(&jobs, &a.sizes, b, &pb)?.remove(0)));
            }
            limits.push(host_limit::HostLimit::new(runs, a.seconds));
        }
        pb.finish_and_clear();
        if let (Some(path), Some(first)) = (&a.svg, limits.first()) {
            first.svg(path, limits.len())?;
        }
        print!("{}", host_limit::tables(&limits));
        let window = std::time::Duration::from_secs_f64(a.seconds.clamp(0.5, 2.0));
        print!("{}", idle::measure(window)?.line());
        return Ok(());
    }
    let steps = (jobs.len() * a.sizes.len()) as u64;
    let pb = bar(steps, steps as f64 * a.seconds);
    let ms = run_all(&jobs, &a.sizes, budget, &pb)?;
    pb.finish_and_clear();
    let csv_to_stdout = a.csv.as_deref() == Some("-");
    if let Some(path) = &a.csv {
        let mut csv = format!("{}\n", report::CSV_HEADER);
        for m in &ms {
            csv += &report::csv_rows(m);
        }
        match csv_file {
            Some(mut f) => f
                .write_all(csv.as_bytes())
                .map_err(|e| format!("--csv {path}: {e}"))?,
            None => print!("{csv}"),
        }
    }
    if let Some(path) = &a.svg {
        plot::svg(&ms, path)?;
    }
    if csv_to_stdout {
        return Ok(());
    }

    for m in &ms {
        println!("{}", report::detail(m));
    }
    println!("{}", report::openssl_table(&ms, Clock::Modelled));
    println!("{}", report::openssl_table(&ms, Clock::Host));
    for m in &ms {
        println!("{}", report::tcrypt_lines(m, Clock::Modelled));
    }
    if a.standard && a.depth != 1 {
        // What keeping requests in flight gains on the modelled engines (coalesced DMA,
        // chained descriptors): their default path again one request at a time.
        let deep: Vec<&Measured> = ms
            .iter()
            .filter(|m| {
                m.job.engine != Engine::Cpu
                    && matches!(m.job.path, DataPath::Adaptive | DataPath::Chained)
            })
            .collect();
        let one_jobs: Vec<Job> = deep.iter().map(|m| m.job).collect();
        let steps = (one_jobs.len() * a.sizes.len()) as u64;
        let pb = bar(steps, steps as f64 * a.seconds);
        let one = run_all(&one_jobs, &a.sizes, Budget { depth: 1, ..budget }, &pb)?;
        pb.finish_and_clear();
        for (one, deep) in one.iter().zip(deep) {
            println!("{}", report::depth_gain(one, deep));
        }
    }
    Ok(())
}
