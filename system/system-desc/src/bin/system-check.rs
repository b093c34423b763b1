//! `system-check FILE.system...`: check Microkit system descriptions.
//!
//! Prints every error of every file to stderr and exits 1 if any file has one; otherwise
//! prints one summary line per file to stdout and exits 0. Unused memory regions are
//! warnings, as in Microkit, and do not fail the check; so are program images with no
//! binary in `--bin-dir` (looked for as `NAME.elf` and, for the host backend, `NAME`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use system_desc::{Arch, SystemDescription, parse_file_for};

#[derive(Parser)]
// The package is system-desc; the program is system-check, and says so in --version.
#[command(
    name = "system-check",
    version,
    about = "Check seL4 Microkit .system files"
)]
struct Args {
    /// Target architecture (decides the valid page sizes).
    #[arg(long, value_enum, default_value_t = ArchArg::Aarch64)]
    arch: ArchArg,
    /// Warn about program images with no binary in this directory (`make pds` puts the
    /// seL4 ones in target/aarch64-unknown-none/release, the host ones are in
    /// target/debug).
    #[arg(long, value_name = "DIR")]
    bin_dir: Option<PathBuf>,
    /// The .system files to check.
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum ArchArg {
    Aarch64,
    Riscv64,
}

impl From<ArchArg> for Arch {
    fn from(arch: ArchArg) -> Arch {
        match arch {
            ArchArg::Aarch64 => Arch::Aarch64,
            ArchArg::Riscv64 => Arch::Riscv64,
        }
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    let mut failed = 0;
    for file in &args.files {
        match parse_file_for(file, args.arch.into()) {
            Ok(sys) => {
                for mr in sys.unused_memory_regions() {
                    let (path, loc) = (file.display(), mr.loc);
                    eprintln!(
                        "{path}:{loc}: warning: memory region '{}' is not mapped",
                        mr.name
                    );
                }
                if let Some(dir) = &args.bin_dir {
                    for e in sys.all_pds() {
                        let image = &e.pd.program_image.path;
                        let host = dir.join(image.file_stem().unwrap_or_default());
                        if !dir.join(image).is_file() && !host.is_file() {
                            eprintln!(
                                "{}:{}: warning: PD '{}': program image {} is not in {}",
                                file.display(),
                                e.pd.program_image.loc,
                                e.pd.name,
                                image.display(),
                                dir.display()
                            );
                        }
                    }
                }
                println!("{}", summary(&sys));
            }
            Err(errors) => {
                failed += 1;
                for e in &errors {
                    eprintln!("{e}");
                }
                eprintln!(
                    "{}: {}",
                    file.display(),
                    count(errors.len(), "error", "errors")
                );
            }
        }
    }
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn summary(sys: &SystemDescription) -> String {
    let pds = sys.all_pds();
    let children = pds.iter().filter(|e| e.parent.is_some()).count();
    let irqs: usize = pds.iter().map(|e| e.pd.irqs.len()).sum();
    format!(
        "{}: ok: {} ({}), {}, {}, {}",
        sys.file.display(),
        count(pds.len(), "protection domain", "protection domains"),
        count(children, "child", "children"),
        count(sys.memory_regions.len(), "memory region", "memory regions"),
        count(sys.channels.len(), "channel", "channels"),
        count(irqs, "irq", "irqs"),
    )
}

/// `n` and the noun in the number it takes (`1 child`, `0 children`).
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
