//! `pd-rand NUM`: NUM random bytes from the isolated Rng driver PD, shaped like
//! `openssl rand`: raw on standard output, `-hex` as one line of hex, `-out FILE` into
//! a file. The bytes come from a CTR_DRBG (SP 800-90A, AES-256, derivation function) of
//! this run's own, inside the driver PD, seeded through SP 800-90B's health tests from
//! the host backend's entropy device, a model fed from the host's getrandom; a failing
//! source is an error, never bytes.
use std::fs::File;
use std::os::fd::{AsFd, OwnedFd};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use pd_tools::algs::Engine;
use pd_tools::cli::{Tool, io_text, quote};
use pd_tools::run::run;
use pd_tools::systems::Kind;

const TOOL: Tool = Tool("pd-rand");

#[derive(Parser)]
#[command(
    name = "pd-rand",
    version,
    about = "Random bytes from the isolated Rng driver PD (host backend), as openssl rand"
)]
struct Args {
    /// Print the bytes as hex, one line.
    #[arg(long)]
    hex: bool,
    /// Write to FILE rather than standard output.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Reseed the DRBG from the entropy source before every 64 KiB (prediction
    /// resistance).
    #[arg(long)]
    prediction_resistance: bool,
    /// How many bytes.
    num: u64,
}

/// openssl rand's single-dash spellings, as this tool's options.
fn openssl_habits(args: impl Iterator<Item = String>) -> Vec<String> {
    args.map(|a| match a.as_str() {
        "-hex" => "--hex".to_string(),
        "-out" => "--out".to_string(),
        _ => a,
    })
    .collect()
}

fn main() -> ExitCode {
    let a = Args::parse_from(openssl_habits(std::env::args()));
    let output: OwnedFd = match &a.out {
        Some(p) => File::create(p)
            .unwrap_or_else(|e| {
                TOOL.die(format_args!(
                    "{}: {}",
                    quote(&p.to_string_lossy()),
                    io_text(&e)
                ))
            })
            .into(),
        None => std::io::stdout()
            .as_fd()
            .try_clone_to_owned()
            .unwrap_or_else(|e| TOOL.die(format_args!("write error: {}", io_text(&e)))),
    };
    let flag = |b: bool| if b { "1" } else { "0" }.to_string();
    let env = vec![
        ("PDT_BYTES".into(), a.num.to_string()),
        ("PDT_HEX".into(), flag(a.hex)),
        ("PDT_PR".into(), flag(a.prediction_resistance)),
    ];
    if let Err(e) = run(
        Engine::Cpu,
        Kind::Rng,
        "pdt-rand-client",
        env,
        vec![("out".to_string(), output)],
        Duration::from_secs(3600),
        &mut |_| {},
    ) {
        TOOL.die(e);
    }
    ExitCode::SUCCESS
}
