//! `pd-dgst`: md5sum/sha1sum/sha256sum through an isolated Digest driver PD.
//!
//! Boots a minimal system on the host backend (the engine's power manager if it has a
//! clock gate, its driver PD, and the `pdt-dgst-client` PD), hashes every FILE through
//! it (`-` or none: stdin) and prints `HEXDIGEST  FILE` lines exactly as coreutils
//! does, so it drops into scripts. An unreadable FILE is reported on stderr as coreutils
//! does and the exit status is 1; the others are still hashed. Files larger than the
//! client's data region are streamed through it in updates.
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use pd_tools::algs::{DataPath, Engine};
use pd_tools::fifo::{self, TempDir};
use pd_tools::run::run;
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
    /// Files to hash; `-` or none: standard input.
    files: Vec<String>,
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
    let files = if args.files.is_empty() {
        vec!["-".to_string()]
    } else {
        args.files
    };
    let tmp = TempDir::new("dgst").unwrap_or_else(|e| die(&format!("temporary directory: {e}")));
    let mut status = ExitCode::SUCCESS;
    // (name as printed, host path the client reads)
    let mut inputs: Vec<(String, PathBuf)> = Vec::new();
    let mut stdin_fed = false;
    for name in &files {
        if name == "-" {
            if stdin_fed {
                // coreutils reads stdin once; a second `-` sees it at its end.
                inputs.push((name.clone(), PathBuf::from("/dev/null")));
                continue;
            }
            let p = tmp.path().join("stdin");
            fifo::make(&p).unwrap_or_else(|e| die(&format!("fifo: {e}")));
            // Fed when the client opens it; the thread ends with the input.
            fifo::feed(p.clone(), std::io::stdin());
            stdin_fed = true;
            inputs.push((name.clone(), p));
            continue;
        }
        match std::fs::metadata(name).and_then(|m| {
            if m.is_dir() {
                Err(std::io::Error::other("Is a directory"))
            } else {
                std::fs::File::open(name).map(|_| ())
            }
        }) {
            Ok(()) => inputs.push((name.clone(), PathBuf::from(name))),
            Err(e) => {
                eprintln!("pd-dgst: {name}: {}", io_text(&e));
                status = ExitCode::FAILURE;
            }
        }
    }
    if inputs.is_empty() {
        return status;
    }
    let list: Vec<String> = inputs
        .iter()
        .map(|(_, p)| {
            std::fs::canonicalize(p)
                .unwrap_or_else(|_| p.clone())
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let env = vec![
        ("PDT_ALG".into(), args.alg.clone()),
        ("PDT_PATH".into(), args.path.name().to_string()),
        ("PDT_INPUTS".into(), list.join("\n")),
    ];
    // Long enough for a large file through a modelled engine; a stuck system still ends.
    let report = run(
        engine,
        Kind::Digest,
        "pdt-dgst-client",
        env,
        Duration::from_secs(3600),
    )
    .unwrap_or_else(|e| die(&e));
    let mut printed = 0;
    for line in report.tagged("digest") {
        let (i, hex) = line.split_once(' ').expect("digest I HEX");
        let i: usize = i.parse().expect("an input index");
        println!("{hex}  {}", inputs[i].0);
        printed += 1;
    }
    if printed != inputs.len() {
        die(&format!("{} of {} inputs hashed", printed, inputs.len()));
    }
    status
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
