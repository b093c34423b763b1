//! `pd-enc`: AES through an isolated Cipher driver PD, in the spirit of kcapi-enc.
//!
//! Boots a minimal system on the host backend (the engine's power manager if it has a
//! clock gate, its driver PD, and the `pdt-enc-client` PD) and runs the input through
//! it: raw bytes, no padding. For ECB and CBC a length that is not a multiple of 16 is
//! an error: found before anything is written when the input is a regular file, at the
//! end of the input otherwise (then the output holds every whole chunk before it, and
//! the exit status is 1). CTR takes any length.
use std::fs::File;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use pd_tools::algs::{CipherAlg, DataPath, Engine};
use pd_tools::hexfmt;
use pd_tools::run::run;
use pd_tools::systems::Kind;

#[derive(Parser)]
#[command(
    name = "pd-enc",
    version,
    about = "Encrypt or decrypt through an isolated crypto-engine driver PD (host backend)"
)]
struct Args {
    /// The engine whose driver does the work: the OMAP AES or STM32 CRYP model, or the
    /// CPU.
    #[arg(long, value_parser = ["omap-aes", "stm32-cryp", "cpu"], default_value = "cpu")]
    engine: String,
    /// How the driver moves data (adaptive: PIO or DMA per request by size and
    /// alignment; the CPU engine offers cpu and adaptive).
    #[arg(long, value_enum, default_value = "adaptive")]
    path: DataPath,
    /// The cipher. CBC and ECB take no padding: the input must be whole 16-byte blocks
    /// (as `openssl enc -nopad`).
    #[arg(short = 'a', long, value_parser = ["aes-128-cbc", "aes-192-cbc", "aes-256-cbc", "aes-128-ctr", "aes-256-ctr", "aes-128-ecb"])]
    alg: String,
    /// Encrypt.
    #[arg(
        short = 'e',
        conflicts_with = "decrypt",
        required_unless_present = "decrypt"
    )]
    encrypt: bool,
    /// Decrypt.
    #[arg(short = 'd')]
    decrypt: bool,
    /// The key in hex (16, 24 or 32 bytes, as the algorithm says).
    #[arg(long)]
    key: String,
    /// The IV (CTR: the initial counter block) in hex, 16 bytes; ECB ignores it.
    #[arg(long, default_value = "00000000000000000000000000000000")]
    iv: String,
    /// Input file (default: standard input).
    #[arg(short = 'i')]
    input: Option<PathBuf>,
    /// Output file (default: standard output).
    #[arg(short = 'o')]
    output: Option<PathBuf>,
}

fn main() -> ExitCode {
    let a = Args::parse();
    let engine = match a.engine.as_str() {
        "omap-aes" => Engine::OmapAes,
        "stm32-cryp" => Engine::Stm32Cryp,
        _ => Engine::Cpu,
    };
    engine.check_path(a.path, true).unwrap_or_else(|e| die(&e));
    if let Some(out) = &a.output {
        check_output(out).unwrap_or_else(|e| die(&e));
    }
    let alg = CipherAlg::parse(&a.alg).unwrap_or_else(|e| die(&e));
    let key = hexfmt::decode(&a.key).unwrap_or_else(|e| die(&format!("--key: {e}")));
    if key.len() != alg.key_len {
        die(&format!(
            "--key: {} takes a {}-byte key, got {} bytes",
            a.alg,
            alg.key_len,
            key.len()
        ));
    }
    let iv = hexfmt::decode(&a.iv).unwrap_or_else(|e| die(&format!("--iv: {e}")));
    if iv.len() != 16 {
        die(&format!("--iv: 16 bytes expected, got {}", iv.len()));
    }
    // The tool opens both ends: the client PD is sandboxed and opens no file itself.
    let input: OwnedFd = match &a.input {
        Some(p) => {
            let f = File::open(p).unwrap_or_else(|e| die(&format!("{}: {e}", p.display())));
            let m = f
                .metadata()
                .unwrap_or_else(|e| die(&format!("{}: {e}", p.display())));
            if m.is_dir() {
                die(&format!("{}: is a directory", p.display()));
            }
            if m.is_file() && alg.whole_blocks() && !m.len().is_multiple_of(16) {
                die(&format!(
                    "{}: {} bytes is not a multiple of 16 ({} has no padding)",
                    p.display(),
                    m.len(),
                    a.alg
                ));
            }
            f.into()
        }
        None => dup(std::io::stdin().as_fd(), "standard input"),
    };
    let output: OwnedFd = match &a.output {
        Some(p) => File::create(p)
            .unwrap_or_else(|e| die(&format!("-o {}: {e}", p.display())))
            .into(),
        None => dup(std::io::stdout().as_fd(), "standard output"),
    };
    let env = vec![
        ("PDT_ALG".into(), a.alg.clone()),
        ("PDT_PATH".into(), a.path.name().to_string()),
        ("PDT_OP".into(), if a.decrypt { "d" } else { "e" }.into()),
        ("PDT_KEY".into(), a.key.clone()),
        ("PDT_IV".into(), a.iv.clone()),
    ];
    let files = vec![("in".to_string(), input), ("out".to_string(), output)];
    if let Err(e) = run(
        engine,
        Kind::Cipher,
        "pdt-enc-client",
        env,
        files,
        Duration::from_secs(3600),
    ) {
        die(&e);
    }
    ExitCode::SUCCESS
}

/// A descriptor of our own for `fd` (standard input or output), to grant to the client.
fn dup(fd: BorrowedFd<'_>, what: &str) -> OwnedFd {
    fd.try_clone_to_owned()
        .unwrap_or_else(|e| die(&format!("{what}: {e}")))
}

fn die(what: &str) -> ! {
    eprintln!("pd-enc: {what}");
    std::process::exit(1)
}

/// Whether the output can be written where it is asked for, before anything boots.
fn check_output(p: &std::path::Path) -> Result<(), String> {
    if p.is_dir() {
        return Err(format!("-o {}: is a directory", p.display()));
    }
    match p.parent() {
        Some(dir) if !dir.as_os_str().is_empty() && !dir.is_dir() => Err(format!(
            "-o {}: no directory {}",
            p.display(),
            dir.display()
        )),
        _ => Ok(()),
    }
}
