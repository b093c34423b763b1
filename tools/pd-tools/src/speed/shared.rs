//! `speed --clients K`: K speed clients on one driver PD, each measured in the same
//! window of time per size ([`measure::measure_shared`](super::measure::measure_shared)):
//! the aggregate throughput and each client's share of it. The driver serves its
//! clients round robin (driver-pd), so with equal demand each should get about 1/K.

use super::measure::{Job, Sample};
use crate::systems::client_name;

/// How far (percentage points) a client's share may stray from 1/K and still be fair:
/// the 40-60% for two clients.
pub const FAIR_POINTS: f64 = 10.0;

/// One shared run: each client's samples, in client order.
pub struct SharedRun {
    pub job: Job,
    pub depth: u32,
    pub seconds: f64,
    pub clients: Vec<Vec<Sample>>,
}

impl SharedRun {
    /// Sizes measured, in order.
    fn sizes(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.clients[0].iter().map(|s| s.size).enumerate()
    }

    /// Each client's share (%) of the ops done at size index `i`; `None` if nobody did
    /// any.
    pub fn shares(&self, i: usize) -> Option<Vec<f64>> {
        let ops: Vec<u64> = self.clients.iter().map(|c| c[i].ops).collect();
        let total: u64 = ops.iter().sum();
        (total > 0).then(|| {
            ops.iter()
                .map(|&o| 100.0 * o as f64 / total as f64)
                .collect()
        })
    }

    /// The largest distance (percentage points) of any client's share from 1/K, and
    /// at which size.
    pub fn worst_gap(&self) -> Option<(f64, usize)> {
        let fair = 100.0 / self.clients.len() as f64;
        self.sizes()
            .filter_map(|(i, size)| {
                let gap = self
                    .shares(i)?
                    .iter()
                    .map(|s| (s - fair).abs())
                    .fold(0.0, f64::max);
                Some((gap, size))
            })
            .max_by(|a, b| a.0.total_cmp(&b.0))
    }

    pub fn table(&self) -> String {
        let k = self.clients.len();
        let mut out = format!(
            "{k} clients of one {} driver: {}, {} path, {} request(s) in flight each, every client in the same {:.2} s window per size, one run (host real time; {})\n",
            self.job.engine.name(),
            self.job.alg.name(),
            self.job.path.name(),
            self.depth,
            self.seconds,
            bench_stats::machine()
        );
        out += &format!(
            "{:>7} {:>14} {:>14}",
            "size", "aggregate MB/s", "aggregate op/s"
        );
        for c in 0..k {
            out += &format!(" {:>9}", client_name(c));
        }
        out += "\n";
        for (i, size) in self.sizes() {
            let ops: u64 = self.clients.iter().map(|c| c[i].ops).sum();
            let per_s = ops as f64 / self.seconds;
            out += &format!(
                "{size:>7} {:>14.1} {:>14.0}",
                per_s * size as f64 / 1e6,
                per_s
            );
            match self.shares(i) {
                Some(shares) => {
                    for s in shares {
                        out += &format!(" {:>8.1}%", s);
                    }
                }
                None => out += "  (no request taken at this size)",
            }
            out += "\n";
        }
        let fair = 100.0 / k as f64;
        out += &match self.worst_gap() {
            Some((gap, size)) if gap <= FAIR_POINTS => format!(
                "  fair: every client within {FAIR_POINTS} points of {fair:.0}% at every size (largest gap {gap:.1} points, at {size} B)\n"
            ),
            Some((gap, size)) => format!(
                "  NOT fair: a client {gap:.1} points from {fair:.0}% at {size} B (allowed: {FAIR_POINTS})\n"
            ),
            None => "  no size measured\n".into(),
        };
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algs::{DataPath, Engine};
    use crate::speed::measure::Alg;

    fn run(a: &[u64], b: &[u64]) -> SharedRun {
        let sizes = [16, 1024];
        let client = |ops: &[u64]| {
            sizes
                .iter()
                .zip(ops)
                .map(|(&s, &o)| Sample::of(s, o))
                .collect()
        };
        SharedRun {
            job: Job {
                engine: Engine::Cpu,
                alg: Alg::parse("aes-128-cbc").unwrap(),
                path: DataPath::Cpu,
            },
            depth: 32,
            seconds: 1.0,
            clients: vec![client(a), client(b)],
        }
    }

    #[test]
    fn shares_and_the_fairness_verdict_come_from_the_ops() {
        let even = run(&[500, 100], &[500, 120]);
        assert_eq!(even.shares(0), Some(vec![50.0, 50.0]));
        let (gap, size) = even.worst_gap().unwrap();
        assert!(
            (gap - 4.545).abs() < 0.01 && size == 1024,
            "{gap} at {size}"
        );
        let t = even.table();
        assert!(t.contains("  fair: every client within 10 points"), "{t}");
        assert!(t.contains("0.0"), "aggregate MB/s printed: {t}");
        let skewed = run(&[700, 100], &[300, 100]);
        assert!(
            skewed
                .table()
                .contains("NOT fair: a client 20.0 points from 50% at 16 B")
        );
        let idle = run(&[0, 0], &[0, 0]);
        assert_eq!(idle.shares(0), None);
        assert!(idle.table().contains("no size measured"));
    }
}
