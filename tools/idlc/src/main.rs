//! `idlc FILE.idl...`: prints the Rust generated for interface files, for reading what the
//! build generates (the build itself calls the library from idl/build.rs). `idlc --c
//! FILE.idl...` prints their C headers instead, and `idlc --c` alone the `wire.h` they
//! include (the committed copies in idl/include/crypto_pd/ are rewritten by
//! `UPDATE_GOLDEN=1 cargo test -p idlc --test c_headers`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

/// Compile crypto-pd interface (.idl) files to Rust and print the result.
#[derive(Parser)]
#[command(version)]
struct Args {
    /// Print C headers rather than Rust (with no files: `wire.h`).
    #[arg(long)]
    c: bool,
    /// Interface files (RON).
    #[arg(required_unless_present = "c")]
    files: Vec<PathBuf>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let mut status = ExitCode::SUCCESS;
    if args.c && args.files.is_empty() {
        print!("{}", idlc::c_wire_header());
    }
    let compile = if args.c {
        idlc::compile_c_file
    } else {
        idlc::compile_file
    };
    for file in &args.files {
        match compile(file) {
            Ok(code) => print!("{code}"),
            Err(e) => {
                eprintln!("idlc: {e}");
                status = ExitCode::FAILURE;
            }
        }
    }
    status
}
