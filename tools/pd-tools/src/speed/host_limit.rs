//! `speed --host-limit`: the CPU engine through the isolated driver beside in-process
//! RustCrypto at the same sizes, in one run: what isolation costs on this machine.

use std::time::Instant;

use super::measure::{Alg, Measured};
use crate::refcrypto;

/// How the in-process program holds its key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyUse {
    /// Expanded once and reused for every buffer: what a program encrypting many buffers
    /// under one key writes (the comparison that counts).
    Once,
    /// Expanded for every buffer: what the driver did per request before it kept its
    /// sessions' keys (the old baseline).
    PerOp,
}

/// In-process RustCrypto ns per op at `size`, run for about `seconds` cut into
/// `bench_stats::RUNS` timed slices, as the speed client cuts its runs: their median and
/// spread.
pub fn in_process_ns(alg: Alg, size: usize, seconds: f64, key_use: KeyUse) -> bench_stats::Stats {
    let mut data: Vec<u8> = (0..size).map(|i| i as u8).collect();
    let key = [0x5a; 32];
    let iv = [0xa5; 16];
    let keyed = match alg {
        Alg::Cipher(c) => Some(refcrypto::Keyed::new(&key[..c.key_len])),
        Alg::Digest(_) => None,
    };
    let slice = seconds / bench_stats::RUNS as f64;
    let mut per_op = Vec::with_capacity(bench_stats::RUNS);
    for _ in 0..bench_stats::RUNS {
        let mut ops = 0u64;
        let start = Instant::now();
        loop {
            for _ in 0..16 {
                match (alg, &keyed, key_use) {
                    (Alg::Cipher(c), Some(k), KeyUse::Once) => k.crypt(c, true, &iv, &mut data),
                    (Alg::Cipher(c), _, _) => {
                        refcrypto::crypt(c, true, &key[..c.key_len], &iv, &mut data)
                    }
                    (Alg::Digest(d), _, _) => {
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

/// The side-by-side table for a CPU-engine measurement made with `depth` requests in
/// flight.
pub fn table(m: &Measured, seconds: f64, depth: u32) -> String {
    let keyed = matches!(m.job.alg, Alg::Cipher(_));
    let mut out = format!(
        "host limit: {} through the isolated CPU driver PD ({depth} request(s) in flight) vs in-process RustCrypto{} (host real time; {})\n",
        m.job.alg.name(),
        if keyed {
            " with the key expanded once and reused (the per-op-key column: expanded for every buffer)"
        } else {
            ""
        },
        bench_stats::context()
    );
    out += &format!(
        "{:>7} {:>12} {:>8} {:>14} {:>8} {:>10} {:>10} {:>8} {:>14}\n",
        "size",
        "PD ns/op",
        "spread",
        "in-proc ns/op",
        "spread",
        "PD MB/s",
        "proc MB/s",
        "ratio",
        "per-op-key ns"
    );
    let mut all = Vec::new();
    for s in m.samples.iter().filter(|s| s.measured()) {
        let pd = s.host_stats();
        let local = in_process_ns(m.job.alg, s.size, seconds, KeyUse::Once);
        let per_op = keyed.then(|| in_process_ns(m.job.alg, s.size, seconds, KeyUse::PerOp));
        all.extend([pd, local]);
        all.extend(per_op);
        out += &format!(
            "{:>7} {:>12.0} {:>8} {:>14.0} {:>8} {:>10.1} {:>10.1} {:>7.2}x {:>14}\n",
            s.size,
            pd.median,
            pd.spread_cell(),
            local.median,
            local.spread_cell(),
            s.size as f64 * 1e3 / pd.median,
            s.size as f64 * 1e3 / local.median,
            local.median / pd.median,
            per_op.map_or("-".into(), |p| format!("{:.0}", p.median))
        );
    }
    out += "  (ratio = throughput through the PDs / throughput in process; 1.00x: isolation costs nothing)\n";
    if let Some(w) = bench_stats::warning(&all) {
        out += &w;
        out.push('\n');
    }
    out
}
