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
    /// sessions' keys (the old baseline); an HMAC's pads hashed per message.
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
        _ => None,
    };
    let sealer = match alg {
        Alg::Aead(a) => Some(refcrypto::AeadKeyed::new(a, &key)),
        _ => None,
    };
    let mac = match alg {
        Alg::Mac(m) => Some(refcrypto::MacKeyed::new(m, &key)),
        _ => None,
    };
    let nonce = [0x3c; 12];
    let mut out = [0; refcrypto::MAX_DIGEST];
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
                        refcrypto::digest_into(d, &data, &mut out);
                        data[0] ^= out[0];
                    }
                    (Alg::Aead(a), _, key_use) => {
                        let tag = match (&sealer, key_use) {
                            (Some(s), KeyUse::Once) => s.seal(&nonce, &mut data),
                            _ => refcrypto::AeadKeyed::new(a, &key).seal(&nonce, &mut data),
                        };
                        std::hint::black_box(tag);
                    }
                    (Alg::Mac(m), _, key_use) => {
                        match (&mac, key_use) {
                            (Some(k), KeyUse::Once) => k.tag_into(&data, &mut out),
                            _ => refcrypto::MacKeyed::new(m, &key).tag_into(&data, &mut out),
                        };
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

/// The CPU engine through its driver PD at one or more depths, and in process at the
/// same sizes: measured in one run, so the ratios compare like with like.
pub struct HostLimit {
    /// (requests in flight, the measurement through the PDs).
    pub runs: Vec<(u32, Measured)>,
    /// In process, key expanded once (the comparison that counts), per size.
    pub once: Vec<(usize, bench_stats::Stats)>,
    /// In process, key expanded per buffer (ciphers only), per size.
    pub per_op: Vec<(usize, Option<bench_stats::Stats>)>,
}

impl HostLimit {
    /// Measures in process at the sizes the PD runs measured.
    pub fn new(runs: Vec<(u32, Measured)>, seconds: f64) -> HostLimit {
        let (mut once, mut per_op) = (Vec::new(), Vec::new());
        if let Some((_, m)) = runs.first() {
            let keyed = !matches!(m.job.alg, Alg::Digest(_));
            for s in m.samples.iter().filter(|s| s.measured()) {
                once.push((
                    s.size,
                    in_process_ns(m.job.alg, s.size, seconds, KeyUse::Once),
                ));
                let p = keyed.then(|| in_process_ns(m.job.alg, s.size, seconds, KeyUse::PerOp));
                per_op.push((s.size, p));
            }
        }
        HostLimit { runs, once, per_op }
    }

    fn local(&self, size: usize) -> Option<bench_stats::Stats> {
        self.once.iter().find(|(n, _)| *n == size).map(|(_, s)| *s)
    }

    /// Throughput against size: through the PDs at each depth, and in process, on one
    /// chart.
    /// Draws this round's figures; `rounds`: how many were run (the caption says which
    /// one this is, where the tables give every round's).
    pub fn svg(&self, path: &std::path::Path, rounds: usize) -> Result<(), String> {
        let Some((_, first)) = self.runs.first() else {
            return Ok(());
        };
        let mut series = Vec::new();
        let mut labels = Vec::new();
        for (depth, m) in &self.runs {
            let pts = m.samples.iter().filter(|s| s.measured());
            series.push(
                pts.map(|s| (s.size, s.size as f64 * 1e3 / s.host_stats().median))
                    .collect(),
            );
            labels.push(format!(
                "through the CPU driver PD, {depth} request(s) in flight"
            ));
        }
        series.push(
            self.once
                .iter()
                .map(|(n, st)| (*n, *n as f64 * 1e3 / st.median))
                .collect(),
        );
        labels.push("in process (RustCrypto, key expanded once)".into());
        let caption = if rounds > 1 {
            format!(
                "{}: host real time, the first of {rounds} rounds",
                first.job.alg.name()
            )
        } else {
            format!("{}: host real time", first.job.alg.name())
        };
        let panels = [(caption.as_str(), series)];
        super::plot::plot(
            path,
            "isolation's cost against request size",
            &panels,
            &labels,
        )
        .map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// One size's figures in one round.
struct RoundFigures {
    pd: bench_stats::Stats,
    local: bench_stats::Stats,
    per_op: Option<bench_stats::Stats>,
}

/// One table per depth, each against the in-process figures, over one or more rounds,
/// each a [`HostLimit`] (the PD runs, then in process). With several, each ratio is
/// taken within its round and the table gives their median and range, and each time is
/// the median of the rounds' medians with their spread: runs on this machine are
/// bimodal (now and then a whole run, PD or in process, is about twice as slow at 16 B),
/// and the slices inside one run cannot show it.
pub fn tables(rounds: &[HostLimit]) -> String {
    let mut out = String::new();
    let Some(first) = rounds.first() else {
        return out;
    };
    let several = rounds.len() > 1;
    let mut all = Vec::new();
    for (k, (depth, m)) in first.runs.iter().enumerate() {
        let keyed = !matches!(m.job.alg, Alg::Digest(_));
        out += &format!(
            "host limit: {} through the isolated CPU driver PD ({depth} request(s) in flight) vs in-process RustCrypto{} (host real time; {}, {})\n",
            m.job.alg.name(),
            if keyed {
                " with the key expanded once and reused (the per-op-key column: expanded for every buffer)"
            } else {
                ""
            },
            bench_stats::machine(),
            if several {
                format!(
                    "{} rounds, each the PD runs then in process, a ratio per round; each figure the median of the rounds' own medians, its spread across the rounds",
                    rounds.len()
                )
            } else {
                format!(
                    "PD: {}; in process: the median of {} timed slices",
                    super::report::slices_said(std::slice::from_ref(m)),
                    bench_stats::RUNS
                )
            }
        );
        out += &format!(
            "{:>7} {:>12} {:>8} {:>14} {:>8} {:>10} {:>10} {:>8} {:>14}{}\n",
            "size",
            "PD ns/op",
            "spread",
            "in-proc ns/op",
            "spread",
            "PD MB/s",
            "proc MB/s",
            "ratio",
            "per-op-key ns",
            if several { "    ratio range" } else { "" }
        );
        for s in m.samples.iter().filter(|s| s.measured()) {
            // This size in every round.
            let per_round: Vec<_> = rounds
                .iter()
                .filter_map(|r| {
                    let (_, rm) = r.runs.get(k)?;
                    let rs = rm
                        .samples
                        .iter()
                        .find(|x| x.size == s.size && x.measured())?;
                    let local = r.local(s.size)?;
                    let per_op = r
                        .per_op
                        .iter()
                        .find(|(n, _)| *n == s.size)
                        .and_then(|(_, p)| *p);
                    Some(RoundFigures {
                        pd: rs.host_stats(),
                        local,
                        per_op,
                    })
                })
                .collect();
            if per_round.is_empty() {
                continue;
            }
            let of = |f: fn(&RoundFigures) -> f64| {
                bench_stats::Stats::of(&per_round.iter().map(f).collect::<Vec<_>>())
            };
            // One round: the slices' spread; several: the spread of the rounds' medians.
            let (pd, local) = if several {
                (of(|r| r.pd.median), of(|r| r.local.median))
            } else {
                (per_round[0].pd, per_round[0].local)
            };
            let ratio = of(|r| r.local.median / r.pd.median);
            let per_op: Vec<f64> = per_round
                .iter()
                .filter_map(|r| Some(r.per_op?.median))
                .collect();
            all.extend([pd, local]);
            out += &format!(
                "{:>7} {:>12.0} {:>8} {:>14.0} {:>8} {:>10.1} {:>10.1} {:>7.2}x {:>14}{}\n",
                s.size,
                pd.median,
                pd.spread_cell(),
                local.median,
                local.spread_cell(),
                s.size as f64 * 1e3 / pd.median,
                s.size as f64 * 1e3 / local.median,
                ratio.median,
                if per_op.is_empty() {
                    "-".into()
                } else {
                    format!("{:.0}", bench_stats::Stats::of(&per_op).median)
                },
                if several {
                    format!("  {:.2}x-{:.2}x", ratio.min, ratio.max)
                } else {
                    String::new()
                }
            );
        }
    }
    out += "  (ratio = throughput through the PDs / throughput in process; 1.00x: isolation costs nothing)\n";
    if let Some((_, m)) = first.runs.iter().find(|(depth, _)| *depth == 1) {
        let lat: Vec<String> = m
            .samples
            .iter()
            .filter_map(|s| {
                let (p50, p99) = s.latency?;
                Some(format!("{} B p50 {p50} ns p99 {p99} ns", s.size))
            })
            .collect();
        if !lat.is_empty() {
            out += &format!(
                "  idle-to-reply latency, one request in flight, the driver spinning{}: {}\n",
                if several { " (first round)" } else { "" },
                lat.join(", ")
            );
        }
    }
    if let Some(w) = bench_stats::warning(&all) {
        out += &w;
        out.push('\n');
    }
    out
}
