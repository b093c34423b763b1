//! `speed --host-limit`: the CPU engine through the isolated driver beside in-process
//! RustCrypto at the same sizes, in one run: what isolation costs on this machine.

use std::time::Instant;

use super::measure::{Alg, Measured};
use crate::refcrypto;

/// In-process RustCrypto ns per op at `size` (key schedule per op, as the driver does
/// per request), run for about `seconds` cut into `bench_stats::RUNS` timed slices, as
/// the speed client cuts its runs: their median and spread.
pub fn in_process_ns(alg: Alg, size: usize, seconds: f64) -> bench_stats::Stats {
    let mut data: Vec<u8> = (0..size).map(|i| i as u8).collect();
    let key = [0x5a; 32];
    let iv = [0xa5; 16];
    let slice = seconds / bench_stats::RUNS as f64;
    let mut per_op = Vec::with_capacity(bench_stats::RUNS);
    for _ in 0..bench_stats::RUNS {
        let mut ops = 0u64;
        let start = Instant::now();
        loop {
            for _ in 0..16 {
                match alg {
                    Alg::Cipher(c) => refcrypto::crypt(c, true, &key[..c.key_len], &iv, &mut data),
                    Alg::Digest(d) => {
                        let out = refcrypto::digest(d, &data);
                        data[0] ^= out[0];
                    }
                }
                ops += 1;
            }
            if start.elapsed().as_secs_f64() >= slice {
                break;
            }
        }
        per_op.push(start.elapsed().as_nanos() as f64 / ops as f64);
    }
    std::hint::black_box(&data);
    bench_stats::Stats::of(&per_op)
}

/// The side-by-side table for a CPU-engine measurement.
pub fn table(m: &Measured, seconds: f64) -> String {
    let mut out = format!(
        "host limit: {} through the isolated CPU driver PD vs in-process RustCrypto (host real time; {})\n",
        m.job.alg.name(),
        bench_stats::context()
    );
    out += &format!(
        "{:>7} {:>14} {:>8} {:>14} {:>8} {:>12} {:>12} {:>8}\n",
        "size", "PD ns/op", "spread", "in-proc ns/op", "spread", "PD MB/s", "in-proc MB/s", "ratio"
    );
    let mut all = Vec::new();
    for s in m.samples.iter().filter(|s| s.measured()) {
        let pd = s.host_stats();
        let local = in_process_ns(m.job.alg, s.size, seconds);
        all.extend([pd, local]);
        out += &format!(
            "{:>7} {:>14.0} {:>8} {:>14.0} {:>8} {:>12.1} {:>12.1} {:>7.2}x\n",
            s.size,
            pd.median,
            pd.spread_cell(),
            local.median,
            local.spread_cell(),
            s.size as f64 * 1e3 / pd.median,
            s.size as f64 * 1e3 / local.median,
            pd.median / local.median
        );
    }
    out += "  (ratio = time through the PDs / time in process: the cost of the queue round trip and the PD boundary)\n";
    if let Some(w) = bench_stats::warning(&all) {
        out += &w;
        out.push('\n');
    }
    out
}
