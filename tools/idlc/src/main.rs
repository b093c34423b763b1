//! `idlc FILE.idl...`: prints the Rust generated for interface files, for reading what the
//! build generates (the build itself calls the library from idl/build.rs).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

/// Compile crypto-pd interface (.idl) files to Rust and print the result.
#[derive(Parser)]
#[command(version)]
struct Args {
    /// Interface files (RON).
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let mut status = ExitCode::SUCCESS;
    for file in &args.files {
        match idlc::compile_file(file) {
            Ok(code) => print!("{code}"),
            Err(e) => {
                eprintln!("idlc: {e}");
                status = ExitCode::FAILURE;
            }
        }
    }
    status
}
