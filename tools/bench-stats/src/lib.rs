//! Repeated measurements for the project's benchmarks. This machine is shared (2 cores):
//! one run of a timing can be off by 100x, and nothing in a single figure says so. Every
//! benchmark figure is measured [`RUNS`] times and printed as its median with the spread
//! (`(max - min) / median`), beside the load average and the build profile, with a
//! warning when the spread is wider than [`WIDE`]. Host-only (reads `/proc/loadavg`).

/// Runs per figure.
pub const RUNS: usize = 5;
/// A spread above this (50%) makes a figure unreliable: the warning says so.
pub const WIDE: f64 = 0.5;

/// The runs of one figure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub runs: usize,
}

impl Stats {
    /// Of `samples` (at least one).
    pub fn of(samples: &[f64]) -> Stats {
        assert!(!samples.is_empty(), "a figure needs a run");
        let mut s = samples.to_vec();
        s.sort_by(f64::total_cmp);
        let mid = s.len() / 2;
        let median = if s.len() % 2 == 1 {
            s[mid]
        } else {
            (s[mid - 1] + s[mid]) / 2.0
        };
        Stats {
            median,
            min: s[0],
            max: s[s.len() - 1],
            runs: s.len(),
        }
    }

    /// `(max - min) / median`.
    pub fn spread(&self) -> f64 {
        if self.median == 0.0 {
            0.0
        } else {
            (self.max - self.min) / self.median
        }
    }

    /// Whether the runs disagree too much for the median to be trusted.
    pub fn wide(&self) -> bool {
        self.spread() > WIDE
    }

    /// The spread as a cell: `±12%`, or `±120% (!)` when wide.
    pub fn spread_cell(&self) -> String {
        let pct = self.spread() * 100.0 / 2.0;
        if self.wide() {
            format!("±{pct:.0}% (!)")
        } else {
            format!("±{pct:.0}%")
        }
    }
}

/// Runs `measure` [`RUNS`] times.
pub fn repeat(mut measure: impl FnMut() -> f64) -> Stats {
    let samples: Vec<f64> = (0..RUNS).map(|_| measure()).collect();
    Stats::of(&samples)
}

/// The build profile this code was compiled in.
pub fn profile() -> &'static str {
    if cfg!(debug_assertions) {
        "debug build"
    } else {
        "release build"
    }
}

/// One line for a benchmark's header: cores, load average, build profile, runs.
pub fn context() -> String {
    format!(
        "{}, each figure the median of {RUNS} runs with its spread",
        machine()
    )
}

/// The machine and build a figure was measured on: cores, load average, profile.
pub fn machine() -> String {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "unknown".into());
    format!(
        "{cores} cores, load average {load} (1, 5, 15 min), {}",
        profile()
    )
}

/// The warning to print after a table if any of its figures was unreliable.
pub fn warning(figures: &[Stats]) -> Option<String> {
    let wide = figures.iter().filter(|s| s.wide()).count();
    (wide > 0).then(|| {
        format!(
            "warning: {wide} figure(s) marked (!) varied by more than {:.0}% between runs: the machine is busy, so treat them as rough",
            WIDE * 100.0
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_spread_and_the_warning() {
        let s = Stats::of(&[3.0, 1.0, 2.0, 100.0, 2.5]);
        assert_eq!((s.median, s.min, s.max, s.runs), (2.5, 1.0, 100.0, 5));
        assert!(s.wide());
        assert!(s.spread_cell().ends_with("(!)"));
        let calm = Stats::of(&[10.0, 10.5, 9.8, 10.1]);
        assert_eq!(calm.median, 10.05);
        assert!(!calm.wide());
        assert_eq!(calm.spread_cell(), "±3%");
        assert_eq!(warning(&[calm]), None);
        assert!(
            warning(&[calm, s])
                .unwrap()
                .starts_with("warning: 1 figure(s)")
        );
        let mut n = 0.0;
        let r = repeat(|| {
            n += 1.0;
            n
        });
        assert_eq!((r.runs, r.median), (RUNS, 3.0));
        assert!(context().contains("load average") && context().contains(profile()));
    }
}
