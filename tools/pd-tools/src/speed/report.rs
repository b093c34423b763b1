//! The speed tool's text output: openssl-speed tables, tcrypt lines, modelled time
//! beside host time, and CSV rows. Everything printed here is computed from samples.

use cost_ledger::Event;
use std::fmt::Write;

use super::measure::{Alg, Measured, Sample};
use crate::algs::{AeadAlg, CipherAlg};

/// Which clock a figure is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clock {
    /// The board's cost table over the ledger.
    Modelled,
    /// Real time on this machine through the PDs.
    Host,
}

impl Clock {
    pub fn ns_per_op(self, m: &Measured, s: &Sample) -> f64 {
        match self {
            Clock::Modelled => s.modelled_ns_per_op(m.board),
            Clock::Host => s.host_ns_per_op(),
        }
    }

    pub fn bytes_per_s(self, m: &Measured, s: &Sample) -> f64 {
        s.size as f64 * 1e9 / self.ns_per_op(m, s)
    }

    pub fn label(self, m: &Measured) -> String {
        match self {
            Clock::Modelled if m.counted_by_tool => format!(
                "modelled {} time (events counted by the tool: the CPU driver PD counts none)",
                m.board.name
            ),
            Clock::Modelled => format!("modelled {} time (ledger x cost table)", m.board.name),
            Clock::Host => "host real time (this machine, through the PDs)".into(),
        }
    }
}

/// The tick rate tcrypt's "cycles" are counted in for a board: a 24 MHz timer on the
/// ARM boards (SOURCES.md: the stm32-cryp DMA change's tcrypt cycles look like one), nanoseconds otherwise.
pub fn tick_hz(board: &str) -> f64 {
    match board {
        "am335x" | "stm32mp1" => 24e6,
        _ => 1e9,
    }
}

/// How the host figures were taken, from the slices the measured runs reported (a size
/// a path refused has none): a run with no time budget is one slice, timed whole.
pub(crate) fn slices_said(ms: &[Measured]) -> String {
    let counts = ms.iter().flat_map(|m| {
        m.samples
            .iter()
            .filter(|s| s.measured())
            .map(|s| s.host_slices.len().max(1))
    });
    let (lo, hi) = counts.fold((usize::MAX, 0), |(lo, hi), n| (lo.min(n), hi.max(n)));
    match (lo, hi) {
        (_, 0) => "no run measured".into(),
        (_, 1) => "each size's run timed whole (one slice)".into(),
        (lo, hi) if lo == hi => format!("the median of {hi} timed slices of each size's run"),
        (lo, hi) => format!("the median of {lo} to {hi} timed slices of each size's run"),
    }
}

/// An openssl-speed table, one row per measured job, on `clock`.
pub fn openssl_table(ms: &[Measured], clock: Clock) -> String {
    let mut sizes: Vec<usize> = ms
        .iter()
        .flat_map(|m| m.samples.iter().map(|s| s.size))
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    let mut out = String::new();
    let what = match clock {
        Clock::Modelled => {
            // One request in flight (or a CPU driver, whose events the tool counts per
            // request), a run's events follow from the requests alone;
            // deeper, which requests a driver joins depends on the host's timing.
            if ms.iter().all(|m| m.depth <= 1 || m.counted_by_tool) {
                "modelled board time: the same in every run".to_string()
            } else {
                "modelled board time: with requests in flight, joins depend on the host's timing, so runs differ a little".to_string()
            }
        }
        Clock::Host => format!(
            "host real time, {}: {}",
            slices_said(ms),
            bench_stats::context()
                .split(", each figure")
                .next()
                .unwrap_or_default()
        ),
    };
    let _ = writeln!(
        out,
        "The 'numbers' are in 1000s of bytes per second processed ({what})."
    );
    let _ = write!(out, "{:<38}", "type");
    for s in &sizes {
        let _ = write!(out, " {s:>7} bytes");
    }
    out.push('\n');
    for m in ms {
        let board = match clock {
            Clock::Modelled => m.board.name,
            Clock::Host => "real",
        };
        let _ = write!(
            out,
            "{:<38}",
            format!(
                "{} {}/{} @{board}",
                m.job.alg.name(),
                m.job.engine.name(),
                m.job.path.name()
            )
        );
        for size in &sizes {
            match m.samples.iter().find(|s| s.size == *size && s.measured()) {
                Some(s) => {
                    let _ = write!(out, " {:>12.2}k", clock.bytes_per_s(m, s) / 1000.0);
                }
                None => out += "           n/a",
            }
        }
        out.push('\n');
    }
    if clock == Clock::Host {
        out += &spreads(ms);
    }
    out
}

/// The host figures' spread between slices, per job and size, and a warning when one
/// is too wide to trust.
fn spreads(ms: &[Measured]) -> String {
    let mut out = String::from("spread between slices (half of (max - min) / median):\n");
    let mut all = Vec::new();
    for m in ms {
        let stats: Vec<_> = m
            .samples
            .iter()
            .filter(|s| s.measured())
            .map(|s| (s.size, s.host_stats()))
            .collect();
        let cells: Vec<String> = stats
            .iter()
            .map(|(size, st)| format!("{size} B {}", st.spread_cell()))
            .collect();
        let _ = writeln!(out, "  {}: {}", m.job.label(), cells.join(", "));
        all.extend(stats.into_iter().map(|(_, st)| st));
    }
    if let Some(w) = bench_stats::warning(&all) {
        let _ = writeln!(out, "{w}");
    }
    out
}

/// tcrypt's lines for one job on `clock`.
pub fn tcrypt_lines(m: &Measured, clock: Clock) -> String {
    let hz = match clock {
        Clock::Modelled => tick_hz(m.board.name),
        Clock::Host => 1e9,
    };
    let mut out = format!(
        "tcrypt style: {} {} ({}; cycles = ticks at {} MHz)\n",
        m.job.label(),
        match m.job.alg {
            Alg::Cipher(_) => "encryption",
            Alg::Digest(_) => "digest",
            Alg::Aead(_) => "aead encryption",
            Alg::Mac(_) => "mac",
        },
        clock.label(m),
        hz / 1e6
    );
    for (i, s) in m.samples.iter().enumerate() {
        if !s.measured() {
            let _ = writeln!(
                out,
                "test {i}: {} byte blocks: refused by the driver on this path",
                s.size
            );
            continue;
        }
        let cycles = clock.ns_per_op(m, s) * hz / 1e9;
        let _ = match m.job.alg {
            Alg::Cipher(CipherAlg { key_len, .. }) | Alg::Aead(AeadAlg { key_len, .. }) => {
                writeln!(
                    out,
                    "test {i} ({} bit key, {} byte blocks): 1 operation in {:.0} cycles ({} bytes)",
                    key_len * 8,
                    s.size,
                    cycles,
                    s.size
                )
            }
            Alg::Digest(_) | Alg::Mac(_) => writeln!(
                out,
                "test {i:>2} ({:>5} byte blocks,{:>5} bytes per update,   1 updates): {:>8.0} cycles/operation, {:>5.0} cycles/byte",
                s.size,
                s.size,
                cycles,
                cycles / s.size.max(1) as f64
            ),
        };
    }
    out
}

/// Modelled time per request one at a time (`one`) and with requests in flight
/// (`deep`), per size: what the driver's coalescing or chaining gains (`gain` > 1), that
/// it never loses (`never slower` is computed over every size), the most any joining
/// could gain (`limit`: one at a time over the board's own cost of a request, which each
/// request still pays however many share a transfer), and how much of the time in
/// flight is that cost (`own`, from the requests counted: near 100%, joining has
/// nothing left to take).
pub fn depth_gain(one: &Measured, deep: &Measured) -> String {
    let mut out = format!(
        "{}: modelled {} us per request, one in flight vs {} in flight\n",
        deep.job.label(),
        deep.board.name,
        deep.depth
    );
    let _ = writeln!(
        out,
        "{:>7} {:>12} {:>12} {:>8} {:>8} {:>6} {:>16}",
        "size", "depth 1", "deep", "gain", "limit", "own", "DMA starts/req"
    );
    let request_ns = deep.board.costs.request_ps as f64 / 1e3;
    let mut never_slower = true;
    for d in deep.samples.iter().filter(|s| s.measured()) {
        let Some(o) = one
            .samples
            .iter()
            .find(|s| s.size == d.size && s.measured())
        else {
            continue;
        };
        let (o_ns, d_ns) = (
            Clock::Modelled.ns_per_op(one, o),
            Clock::Modelled.ns_per_op(deep, d),
        );
        // Equal work gives equal figures up to the float rounding of total / ops.
        never_slower &= d_ns <= o_ns * (1.0 + 1e-9);
        let limit = if request_ns > 0.0 {
            format!("{:.2}x", o_ns / request_ns)
        } else {
            "-".into()
        };
        let own_ps = d.counts.get(Event::Request) * deep.board.costs.request_ps;
        let total_ps = d.counts.modelled_ps(&deep.board.costs);
        let own = if total_ps > 0 {
            format!("{:.0}%", 100.0 * own_ps as f64 / total_ps as f64)
        } else {
            "-".into()
        };
        // What joining saved, in the ledger's own count: channel starts per request.
        let starts = |s: &Sample| s.counts.get(Event::DmaStart) as f64 / s.ops.max(1) as f64;
        let saved = if o.counts.get(Event::DmaStart) + d.counts.get(Event::DmaStart) > 0 {
            format!("{:.2} -> {:.2}", starts(o), starts(d))
        } else {
            "-".into()
        };
        let _ = writeln!(
            out,
            "{:>7} {:>12.2} {:>12.2} {:>7.2}x {limit:>8} {own:>6} {saved:>16}",
            d.size,
            o_ns / 1e3,
            d_ns / 1e3,
            o_ns / d_ns
        );
    }
    let _ = writeln!(
        out,
        "  never slower in flight than one at a time: {}",
        if never_slower { "yes" } else { "NO" }
    );
    let _ = writeln!(
        out,
        "  limit: the gain if joining removed all but each request's own cost ({:.2} us on {}); own: that cost's share of the time in flight; DMA starts/req: the ledger's channel starts per request, one at a time -> in flight",
        request_ns / 1e3,
        deep.board.name
    );
    out
}

/// Modelled beside host, per size, with the path the driver took.
pub fn detail(m: &Measured) -> String {
    // The depth as run: these tables once said "one request in flight" whatever it was.
    let in_flight = match m.depth {
        1 => "one request".to_string(),
        d => format!("{d} requests"),
    };
    let mut out = format!(
        "{}: {in_flight} in flight, client PD -> queue -> driver PD -> engine\n",
        m.job.label()
    );
    let _ = writeln!(
        out,
        "{:>7} {:>8} {:>16} {:>14} {:>15} {:>13}  taken",
        "size",
        "ops",
        format!("modelled {} us", m.board.name),
        "host real us",
        "modelled MB/s",
        "host MB/s"
    );
    for s in &m.samples {
        if !s.measured() {
            let _ = writeln!(
                out,
                "{:>7}  n/a: the driver refuses this size on this path",
                s.size
            );
            continue;
        }
        let _ = writeln!(
            out,
            "{:>7} {:>8} {:>16.2} {:>14.2} {:>15.2} {:>13.2}  {}",
            s.size,
            s.ops,
            Clock::Modelled.ns_per_op(m, s) / 1000.0,
            Clock::Host.ns_per_op(m, s) / 1000.0,
            Clock::Modelled.bytes_per_s(m, s) / 1e6,
            Clock::Host.bytes_per_s(m, s) / 1e6,
            s.taken()
        );
    }
    if m.counted_by_tool {
        out += "  (modelled: the CPU driver PD counts no ledger events; the tool counted one request and every byte at the host board's prices)\n";
    }
    out
}

pub const CSV_HEADER: &str = "engine,board,path,algorithm,size,ops,modelled_ns_per_op,host_ns_per_op,modelled_bytes_per_s,host_bytes_per_s";

/// One CSV row per size.
pub fn csv_rows(m: &Measured) -> String {
    let mut out = String::new();
    for s in m.samples.iter().filter(|s| s.measured()) {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{:.1},{:.1},{:.0},{:.0}",
            m.job.engine.name(),
            m.board.name,
            m.job.path.name(),
            m.job.alg.name(),
            s.size,
            s.ops,
            Clock::Modelled.ns_per_op(m, s),
            Clock::Host.ns_per_op(m, s),
            Clock::Modelled.bytes_per_s(m, s),
            Clock::Host.bytes_per_s(m, s)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algs::{CipherAlg, DataPath, Engine};
    use crate::speed::measure::Job;
    use cost_ledger::Counts;

    fn measured() -> Measured {
        let mut counts = Counts::default();
        // 2 interrupts per op on am335x, 10 ops.
        counts.0[Event::Interrupt as usize] = 20;
        Measured {
            job: Job {
                engine: Engine::OmapAes,
                alg: crate::speed::measure::Alg::Cipher(CipherAlg::parse("aes-128-cbc").unwrap()),
                path: DataPath::Pio,
            },
            board: &board::am335x::BOARD,
            depth: 32,
            samples: vec![Sample {
                size: 16,
                ops: 10,
                late_ns: 0,
                latency: None,
                host_ns: 10_000.0,
                host_slices: vec![1000.0; 5],
                pio: 10,
                dma: 0,
                cpu: 0,
                counts,
                half: None,
                updates: None,
                first: None,
            }],
            counted_by_tool: false,
        }
    }

    #[test]
    fn figures_follow_from_the_counts_and_the_cost_table() {
        let m = measured();
        let s = &m.samples[0];
        let want_ns = 2.0 * board::am335x::COSTS.interrupt_ps as f64 / 1000.0;
        assert_eq!(Clock::Modelled.ns_per_op(&m, s), want_ns);
        assert_eq!(Clock::Host.ns_per_op(&m, s), 1000.0);
        let table = openssl_table(std::slice::from_ref(&m), Clock::Host);
        // 16 bytes per microsecond = 16000 kB/s.
        assert!(table.contains("16000.00k"), "{table}");
        let t = tcrypt_lines(&m, Clock::Modelled);
        let cycles = (want_ns * 24e6 / 1e9).round();
        assert!(
            t.contains(&format!(
                "test 0 (128 bit key, 16 byte blocks): 1 operation in {cycles} cycles (16 bytes)"
            )),
            "{t}"
        );
        let csv = csv_rows(&m);
        assert_eq!(csv.lines().count(), 1);
        assert_eq!(csv.split(',').count(), CSV_HEADER.split(',').count());
    }

    #[test]
    fn depth_gain_is_the_ratio_of_modelled_times_and_flags_a_loss() {
        let one = measured();
        let mut deep = measured();
        // Half the interrupts per op in flight: twice as fast.
        deep.samples[0].counts.0[Event::Interrupt as usize] = 10;
        let t = depth_gain(&one, &deep);
        assert!(t.contains("32 in flight"), "{t}");
        assert!(t.contains("   2.00x"), "{t}");
        // One at a time: 20 interrupts over 10 requests at 11.47 us; each request's own
        // cost on am335x is 22.62 us, so no join could make it more than 1.01x faster.
        assert!(t.contains("    1.01x"), "{t}");
        assert!(t.contains("(22.62 us on am335x)"), "{t}");
        assert!(t.contains("one at a time: yes"), "{t}");
        // No request counted: none of the time is a request's own.
        assert!(t.contains("1.01x     0%"), "{t}");
        // Ten requests at 22.62 us beside 10 interrupts at 11.47 us: 66% their own.
        let mut counted = deep.clone();
        counted.samples[0].counts.0[Event::Request as usize] = 10;
        let own = depth_gain(&one, &counted);
        assert!(own.contains("    66%"), "{own}");
        // Starts counted: per request one at a time, then in flight.
        let mut started = deep.clone();
        started.samples[0].counts.0[Event::DmaStart as usize] = 5;
        let mut alone = one.clone();
        alone.samples[0].counts.0[Event::DmaStart as usize] = 20;
        assert!(depth_gain(&alone, &started).contains("2.00 -> 0.50"));
        assert!(
            t.ends_with("in flight\n") && t.lines().nth(2).unwrap().ends_with(" -"),
            "{t}"
        );
        let t = depth_gain(&deep, &one);
        assert!(t.contains("   0.50x"), "{t}");
        assert!(t.contains("one at a time: NO"), "{t}");
        // The same work in another number of ops is not a loss.
        let mut same = measured();
        same.samples[0].ops *= 3;
        same.samples[0].counts.0[Event::Interrupt as usize] *= 3;
        assert!(depth_gain(&one, &same).contains("one at a time: yes"));
    }

    #[test]
    fn the_detail_table_says_how_many_requests_were_in_flight() {
        let mut m = measured();
        assert!(detail(&m).starts_with("omap-aes pio aes-128-cbc: 32 requests in flight,"));
        m.depth = 1;
        assert!(detail(&m).contains(": one request in flight,"));
    }

    /// The host table's heading counts the slices of measured runs only: a size a path
    /// refused (no ops) would have read as a run of one slice.
    #[test]
    fn the_heading_counts_the_slices_of_measured_runs() {
        let mut m = measured();
        assert_eq!(
            slices_said(core::slice::from_ref(&m)),
            "the median of 5 timed slices of each size's run"
        );
        let mut refused = m.samples[0].clone();
        refused.ops = 0;
        refused.host_slices.clear();
        m.samples.push(refused);
        assert_eq!(
            slices_said(core::slice::from_ref(&m)),
            "the median of 5 timed slices of each size's run"
        );
        let mut whole = m.samples[0].clone();
        whole.host_slices.clear();
        m.samples.push(whole);
        assert_eq!(
            slices_said(core::slice::from_ref(&m)),
            "the median of 1 to 5 timed slices of each size's run"
        );
        m.samples.retain(|s| s.host_slices.is_empty());
        assert_eq!(
            slices_said(core::slice::from_ref(&m)),
            "each size's run timed whole (one slice)"
        );
        m.samples.clear();
        assert_eq!(slices_said(core::slice::from_ref(&m)), "no run measured");
    }
}
