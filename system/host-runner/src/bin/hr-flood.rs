//! Output-flood PD for the runner's tests. As PD `flooder` it says how many lines it
//! will write, then writes `PD_FLOOD_MB` MiB (default 400) of 1,000-byte lines, half
//! to the debug console and half to stdout, and exits 0; as any other PD (the
//! `witness`) it writes one line and idles. Host only: it reads the environment.
use std::io::Write;

use pd_runtime::{Handler, debug_println, pd_name};

const LINE: usize = 1000;

struct Idle;

impl Handler for Idle {}

fn init() -> Idle {
    if pd_name() != "flooder" {
        debug_println!("witness: here");
        return Idle;
    }
    let mib: usize = std::env::var("PD_FLOOD_MB")
        .ok()
        .and_then(|m| m.parse().ok())
        .unwrap_or(400);
    let lines = (mib << 20) / LINE;
    // This line is counted among the lines written.
    debug_println!("flood: {} lines", lines + 1);
    let text = "f".repeat(LINE - 1);
    let mut out = std::io::stdout().lock();
    for i in 0..lines {
        if i % 2 == 0 {
            debug_println!("{text}");
        } else {
            let _ = writeln!(out, "{text}");
        }
    }
    let _ = out.flush();
    pd_runtime::exit(0)
}

pd_runtime::protection_domain!(init);
