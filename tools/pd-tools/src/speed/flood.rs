//! `speed --flood SIZE`: what a client flooding one driver with SIZE-byte requests
//! leaves a light client beside it. Per light size, in one run: the light client alone
//! on the driver, then beside the flooder in the same windows of time
//! ([`measure_shared_with`]); the light client's throughput beside the flooder as a share
//! of its throughput alone. Shared by engine time (driver-pd's deficit round robin) a
//! light client that keeps requests queued keeps about half (ARCHITECTURE.md,
//! "Fairness by engine time").

use std::time::Duration;

use super::measure::{Budget, Job, Sample, measure_shared, measure_shared_with};
use crate::systems::client_name;

/// The share of its alone throughput a light client must keep beside a flooder (the
/// issue's target: at least 40%).
pub const KEEPS_AT_LEAST: f64 = 40.0;

/// Requests the flooder keeps in flight: enough that its queue is never empty.
pub const FLOOD_DEPTH: u32 = 32;

/// One flood run.
pub struct FloodRun {
    pub job: Job,
    pub flood_size: usize,
    pub seconds: f64,
    pub depth: u32,
    /// The light client alone, per size.
    pub alone: Vec<Sample>,
    /// The light client and the flooder in the same windows, per size.
    pub beside: Vec<Sample>,
    pub flooder: Vec<Sample>,
}

impl FloodRun {
    /// The light client's throughput beside the flooder, as a percentage of alone, at
    /// size index `i` (`None` if it did nothing alone).
    pub fn kept(&self, i: usize) -> Option<f64> {
        let alone = self.alone[i].ops;
        (alone > 0).then(|| 100.0 * self.beside[i].ops as f64 / alone as f64)
    }

    pub fn table(&self) -> String {
        let mut out = format!(
            "a light client beside one flooding the {} driver with {} B requests ({} in flight): {}, {} path, light client {} in flight, {:.2} s windows, one run (host real time; {})\n",
            self.job.engine.name(),
            self.flood_size,
            FLOOD_DEPTH,
            self.job.alg.name(),
            self.job.path.name(),
            self.depth,
            self.seconds,
            bench_stats::machine()
        );
        out += &format!(
            "{:>7} {:>12} {:>14} {:>7} {:>16}\n",
            "size", "alone op/s", "beside op/s", "kept", "flooder op/s"
        );
        let mut worst: Option<(f64, usize)> = None;
        for (i, s) in self.alone.iter().enumerate() {
            let per_s = |ops: u64| ops as f64 / self.seconds;
            let kept = self.kept(i);
            out += &format!(
                "{:>7} {:>12.0} {:>14.0} {:>7} {:>16.0}\n",
                s.size,
                per_s(s.ops),
                per_s(self.beside[i].ops),
                kept.map_or("-".into(), |k| format!("{k:.1}%")),
                per_s(self.flooder[i].ops)
            );
            if let Some(k) = kept
                && worst.is_none_or(|(w, _)| k < w)
            {
                worst = Some((k, s.size));
            }
        }
        out += &match worst {
            Some((k, size)) if k >= KEEPS_AT_LEAST => format!(
                "  kept: at least {KEEPS_AT_LEAST:.0}% of alone at every size (least {k:.1}%, at {size} B)\n"
            ),
            Some((k, size)) => format!(
                "  NOT kept: {k:.1}% of alone at {size} B (wanted at least {KEEPS_AT_LEAST:.0}%)\n"
            ),
            None => "  no size measured alone\n".into(),
        };
        out
    }
}

/// Measures `job` at `sizes` alone and beside a flooder of `flood_size`-byte requests.
pub fn run(
    job: Job,
    sizes: &[usize],
    budget: Budget,
    flood_size: usize,
    lead: Duration,
) -> Result<FloodRun, String> {
    let alone = measure_shared(job, sizes, budget, 1, lead)?.remove(0);
    let flooder = client_name(1);
    let every: Vec<String> = sizes.iter().map(|_| flood_size.to_string()).collect();
    let own = vec![
        (format!("PDT_SIZES_{flooder}"), every.join(",")),
        (format!("PDT_DEPTH_{flooder}"), FLOOD_DEPTH.to_string()),
    ];
    let mut both = measure_shared_with(job, sizes, budget, 2, lead, own)?;
    let flooded = both.remove(1);
    Ok(FloodRun {
        job,
        flood_size,
        seconds: budget.seconds,
        depth: budget.depth,
        alone,
        beside: both.remove(0),
        flooder: flooded,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algs::{DataPath, Engine};
    use crate::speed::measure::Alg;

    fn flood(alone: u64, beside: u64) -> FloodRun {
        FloodRun {
            job: Job {
                engine: Engine::Cpu,
                alg: Alg::parse("aes-128-cbc").unwrap(),
                path: DataPath::Cpu,
            },
            flood_size: 16384,
            seconds: 0.5,
            depth: 1,
            alone: vec![Sample::of(16, alone)],
            beside: vec![Sample::of(16, beside)],
            flooder: vec![Sample::of(16384, 100)],
        }
    }

    /// The verdict follows from the printed figures, whichever side of the target.
    #[test]
    fn the_verdict_follows_the_kept_share() {
        let kept = flood(1000, 450);
        assert_eq!(kept.kept(0), Some(45.0));
        let t = kept.table();
        assert!(t.contains("   45.0%"), "{t}");
        assert!(
            t.contains("kept: at least 40% of alone at every size (least 45.0%, at 16 B)"),
            "{t}"
        );
        let cut = flood(1000, 10);
        assert!(
            cut.table().contains("NOT kept: 1.0% of alone at 16 B"),
            "{}",
            cut.table()
        );
        assert_eq!(flood(0, 0).kept(0), None);
    }
}
