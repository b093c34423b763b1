//! `pd-dgst`: md5sum/sha1sum/sha256sum through an isolated Digest driver PD.
//!
//! Boots a minimal system on the host backend (the engine's power manager if it has a
//! clock gate, its driver PD, and the `pdt-dgst-client` PD), hashes every FILE through
//! it (`-` or none: stdin) and prints `HEXDIGEST  FILE` lines exactly as coreutils
//! does, so it drops into scripts. An unreadable FILE is reported on stderr as coreutils
//! does and the exit status is 1; the others are still hashed. Files larger than the
//! client's data region are streamed through it in updates.
use std::fs::File;
use std::os::fd::{AsFd, OwnedFd};
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use pd_tools::algs::{DataPath, Engine};
use pd_tools::run::run_watched;
use pd_tools::systems::Kind;

#[derive(Parser)]
#[command(
    name = "pd-dgst",
    version,
    about = "Hash files through an isolated crypto-engine driver PD (host backend)"
)]
struct Args {
    /// The engine whose driver hashes: the SEC1 model (mpc885) or the CPU.
    #[arg(long, value_parser = ["sec1", "cpu"], default_value = "cpu")]
    engine: String,
    /// The hash.
    #[arg(short = 'a', long, value_parser = ["md5", "sha1", "sha256"])]
    alg: String,
    /// How the driver feeds buffered bytes (SEC1: chained or copy; auto: the driver's;
    /// the CPU offers auto only).
    #[arg(long, value_enum, default_value = "auto")]
    path: DataPath,
    /// Read HEX  NAME lines from FILE (what pd-dgst or md5sum/sha256sum printed) and
    /// check each named file: `NAME: OK` or `NAME: FAILED`; exit 1 if any failed.
    #[arg(short = 'c', long, value_name = "FILE")]
    check: Option<String>,
    /// Files to hash; `-` or none: standard input.
    files: Vec<String>,
}

/// A name as coreutils prints it: `\\` and `\n` (and `\r`) escaped, and whether
/// anything was (then the line starts with a backslash).
fn escape(name: &str) -> (bool, String) {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    (out.len() != name.len(), out)
}

/// The reverse of [`escape`], for a checksum line that starts with a backslash.
fn unescape(name: &str) -> Option<String> {
    let mut out = String::with_capacity(name.len());
    let mut chars = name.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            '\\' => out.push('\\'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            _ => return None,
        }
    }
    Some(out)
}

/// One `HEX  NAME` line of a checksum file: (expected hex, name).
fn parse_check_line(line: &str) -> Option<(String, String)> {
    let (escaped, line) = match line.strip_prefix('\\') {
        Some(rest) => (true, rest),
        None => (false, line),
    };
    let (hex, name) = line.split_once("  ").or_else(|| line.split_once(" *"))?;
    if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let name = if escaped {
        unescape(name)?
    } else {
        name.to_string()
    };
    Some((hex.to_ascii_lowercase(), name))
}

fn main() -> ExitCode {
    let args = Args::parse();
    let engine = if args.engine == "sec1" {
        Engine::Sec1
    } else {
        Engine::Cpu
    };
    engine
        .check_path(args.path, false)
        .unwrap_or_else(|e| die(&e));
    if let Some(list) = &args.check {
        return check(engine, &args, list);
    }
    let files = if args.files.is_empty() {
        vec!["-".to_string()]
    } else {
        args.files.clone()
    };
    let (names, inputs, mut status) = open_inputs(&files);
    if inputs.is_empty() {
        return status;
    }
    for (name, hex) in names.iter().zip(hash_all(engine, &args, inputs)) {
        match hex {
            Some(hex) => match escape(name) {
                (true, escaped) => println!("\\{hex}  {escaped}"),
                (false, _) => println!("{hex}  {name}"),
            },
            None => status = ExitCode::FAILURE,
        }
    }
    status
}

/// The readable inputs among `files`: their names as printed and their descriptors,
/// opened here (the client PD is sandboxed and opens no file itself), each unreadable
/// one reported as coreutils does; and the status so far.
fn open_inputs(files: &[String]) -> (Vec<String>, Vec<OwnedFd>, ExitCode) {
    let mut status = ExitCode::SUCCESS;
    let (mut names, mut fds) = (Vec::new(), Vec::new());
    let mut stdin_read = false;
    for name in files {
        let opened = if name == "-" && !stdin_read {
            stdin_read = true;
            std::io::stdin().as_fd().try_clone_to_owned()
        } else if name == "-" {
            // coreutils reads stdin once; a second `-` sees it at its end.
            File::open("/dev/null").map(OwnedFd::from)
        } else {
            File::open(name).and_then(|f| {
                if f.metadata()?.is_dir() {
                    Err(std::io::Error::other("Is a directory"))
                } else {
                    Ok(OwnedFd::from(f))
                }
            })
        };
        match opened {
            Ok(fd) => {
                names.push(name.clone());
                fds.push(fd);
            }
            Err(e) => {
                eprintln!("pd-dgst: {}: {}", escape(name).1, io_text(&e));
                status = ExitCode::FAILURE;
            }
        }
    }
    (names, fds, status)
}

/// Hashes every input through the driver PD, in order (`None`: not hashed). Shows a
/// progress line on a terminal's stderr when the inputs take more than a moment.
fn hash_all(engine: Engine, args: &Args, inputs: Vec<OwnedFd>) -> Vec<Option<String>> {
    let count = inputs.len();
    let env = vec![
        ("PDT_ALG".into(), args.alg.clone()),
        ("PDT_PATH".into(), args.path.name().to_string()),
        ("PDT_INPUTS".into(), count.to_string()),
    ];
    let files = inputs
        .into_iter()
        .enumerate()
        .map(|(i, fd)| (format!("input-{i}"), fd))
        .collect();
    let progress = Progress::new(count);
    // Long enough for a large file through a modelled engine; a stuck system still ends.
    let report = run_watched(
        engine,
        Kind::Digest,
        "pdt-dgst-client",
        env,
        files,
        Duration::from_secs(3600),
        &mut |lines| progress.update(lines),
    )
    .unwrap_or_else(|e| die(&e));
    progress.finish();
    let mut out = vec![None; count];
    for line in report.tagged("digest") {
        let (i, hex) = line.split_once(' ').expect("digest I HEX");
        let i: usize = i.parse().expect("an input index");
        out[i] = Some(hex.to_string());
    }
    if out.iter().any(Option::is_none) {
        let done = out.iter().flatten().count();
        die(&format!("{done} of {count} inputs hashed"));
    }
    out
}

/// `-c FILE`: every listed file hashed again and compared, as md5sum -c does.
fn check(engine: Engine, args: &Args, list: &str) -> ExitCode {
    let text = if list == "-" {
        let mut t = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut t)
            .unwrap_or_else(|e| die(&format!("standard input: {e}")));
        t
    } else {
        std::fs::read_to_string(list).unwrap_or_else(|e| die(&format!("{list}: {}", io_text(&e))))
    };
    let mut wanted = Vec::new();
    let mut malformed = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match parse_check_line(line) {
            Some(entry) => wanted.push(entry),
            None => malformed += 1,
        }
    }
    if wanted.is_empty() {
        die(&format!(
            "{list}: no properly formatted checksum lines found"
        ));
    }
    let listed: Vec<String> = wanted.iter().map(|(_, n)| n.clone()).collect();
    let (names, inputs, _) = open_inputs(&listed);
    let hashed = if inputs.is_empty() {
        Vec::new()
    } else {
        hash_all(engine, args, inputs)
    };
    let (mut failed, mut unreadable) = (0, 0);
    for (want, name) in &wanted {
        // As coreutils' check lines: escaped (with a leading backslash) only when the
        // name holds a line break.
        let shown = if name.contains(['\n', '\r']) {
            format!("\\{}", escape(name).1)
        } else {
            name.clone()
        };
        match names.iter().position(|n| n == name) {
            None => {
                println!("{shown}: FAILED open or read");
                unreadable += 1;
            }
            Some(i) if hashed[i].as_deref() == Some(want.as_str()) => println!("{shown}: OK"),
            Some(_) => {
                println!("{shown}: FAILED");
                failed += 1;
            }
        }
    }
    for (n, one, many) in [
        (
            malformed,
            "line is improperly formatted",
            "lines are improperly formatted",
        ),
        (
            unreadable,
            "listed file could not be read",
            "listed files could not be read",
        ),
        (
            failed,
            "computed checksum did NOT match",
            "computed checksums did NOT match",
        ),
    ] {
        if n > 0 {
            eprintln!("pd-dgst: WARNING: {n} {}", if n == 1 { one } else { many });
        }
    }
    if failed + unreadable + malformed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// A spinner on stderr, only on a terminal and only once the work has taken a moment.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
}

impl Progress {
    fn new(inputs: usize) -> Self {
        if !std::io::IsTerminal::is_terminal(&std::io::stderr()) {
            return Progress { bar: None };
        }
        let bar = indicatif::ProgressBar::new(inputs as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] hashing through the driver PD: {pos}/{len} inputs",
            )
            .expect("a valid template"),
        );
        // Hidden until it has run a while: a quick hash prints nothing extra.
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
        Progress { bar: Some(bar) }
    }

    fn update(&self, done: usize) {
        let Some(bar) = &self.bar else { return };
        bar.set_position(done as u64);
        if bar.elapsed() > Duration::from_secs(2) && bar.is_hidden() {
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            bar.enable_steady_tick(Duration::from_millis(200));
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// The message coreutils prints for a file it cannot read.
fn io_text(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "No such file or directory".into(),
        std::io::ErrorKind::PermissionDenied => "Permission denied".into(),
        _ => e.to_string(),
    }
}

fn die(what: &str) -> ! {
    eprintln!("pd-dgst: {what}");
    std::process::exit(1)
}
