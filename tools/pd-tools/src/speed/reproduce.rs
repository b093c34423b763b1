//! `speed --reproduce CHANGE`: the published figures of one of the four Linux changes
//! (boards/SOURCES.md) beside the same measurement on our model of its board, for the
//! change's old strategy and for ours, with ratios. CHANGE is `omap-idle-start`,
//! `omap-dma-pio`, `stm32-dma` or `talitos-chain`.
//!
//! The published figures are typed in below as data, each with its source's public
//! name. Every figure labelled "model" is computed in this run from the ledger of
//! requests sent through the real system (client PD -> queue -> driver PD -> engine
//! model). Where our driver no longer has the old strategy, the old strategy's figure is
//! our measured events plus the events the old strategy adds, counted explicitly and
//! said so in the output:
//! * per-request power (the omap-aes idle/start patch): one `PowerOn` and one
//!   `PowerOff` per request;
//! * OMAP's old DMA path (the omap-aes DMA/PIO series' "without DMA rewrite"): the
//!   bounce copy in and out, two `CpuCopyByte` per byte of the request.
//!
//! SEC1 (the talitos chaining change) has both strategies in the driver (`copy`,
//! `chained`): both measured.

use std::fmt::Write;

use board::published::{omap_dma_pio, omap_idle_start, stm32_dma, talitos_chain};
use cost_ledger::{Counts, Event};

use super::measure::{Alg, Budget, Job, Measured, Sample, announce, measure};
use crate::algs::{DataPath, Engine};

/// AF_ALG's splice hands the hash one page per update (board::mpc885's fit).
const TALITOS_UPDATE: usize = 4096;
/// Bytes we hash through the system; the 90 MB figure is scaled from it.
const TALITOS_MEASURED: u64 = 4 << 20;

/// The names `--reproduce` takes, in order.
pub const CHANGES: [&str; 4] = [
    "omap-idle-start",
    "omap-dma-pio",
    "stm32-dma",
    "talitos-chain",
];

pub fn run(change: &str, budget: Budget) -> Result<String, String> {
    // The published figures were measured one request at a time (tcrypt's sync tests,
    // openssl through AF_ALG): so are ours beside them.
    let budget = Budget { depth: 1, ..budget };
    match change {
        "omap-idle-start" => omap_idle_start(budget),
        "omap-dma-pio" => omap_dma_pio(budget),
        "stm32-dma" => stm32_dma(budget),
        "talitos-chain" => talitos_chain(),
        _ => Err(format!(
            "no published change `{change}`: one of {}",
            CHANGES.join(", ")
        )),
    }
}

fn job(engine: Engine, alg: &str, path: DataPath) -> Job {
    Job {
        engine,
        alg: Alg::parse(alg).expect("a known algorithm"),
        path,
    }
}

/// The sample at `size`; `None` where the driver refused that size on that path.
fn sample(m: &Measured, size: usize) -> Option<&Sample> {
    m.samples.iter().find(|s| s.size == size && s.ops > 0)
}

/// The sample at `size`, which this comparison cannot do without.
fn need(m: &Measured, size: usize) -> Result<&Sample, String> {
    sample(m, size)
        .ok_or_else(|| format!("{}: the driver refused {size}-byte requests", m.job.label()))
}

/// `v` right-aligned in `w` columns with `p` decimals and `suffix`, or `n/a`.
fn opt(v: Option<f64>, w: usize, p: usize, suffix: &str) -> String {
    match v {
        Some(v) => format!("{:>w$}", format!("{v:.p$}{suffix}")),
        None => format!("{:>w$}", "n/a"),
    }
}

/// Modelled ns per op of `s` with `extra` events added per op.
fn modelled_with(m: &Measured, s: &Sample, extra: impl Fn(usize) -> Counts) -> f64 {
    let per_op = extra(s.size);
    let total = s.counts.modelled_ps(&m.board.costs) as f64
        + per_op.modelled_ps(&m.board.costs) as f64 * s.ops as f64;
    total / 1000.0 / s.ops as f64
}

fn counts(events: &[(Event, u64)]) -> Counts {
    let mut c = Counts::default();
    for &(e, n) in events {
        c.0[e as usize] += n;
    }
    c
}

fn power_cycle(_: usize) -> Counts {
    counts(&[(Event::PowerOn, 1), (Event::PowerOff, 1)])
}

fn bounce_copy(size: usize) -> Counts {
    counts(&[(Event::CpuCopyByte, 2 * size as u64)])
}

/// [`measure`], saying on stderr what it measures as each size starts, as openssl
/// speed does: a comparison runs for a while with nothing else to show.
fn measured(
    job: Job,
    sizes: &[usize],
    budget: Budget,
    stream: Option<u64>,
) -> Result<Measured, String> {
    let mut say = |line: &str| eprintln!("{line}");
    let mut doing = announce(job, sizes, budget, stream, &mut say);
    measure(job, sizes, budget, stream, &mut doing)
}

fn ops_per_s(ns: f64) -> f64 {
    1e9 / ns
}

fn omap_idle_start(budget: Budget) -> Result<String, String> {
    let over = |path| {
        measured(
            job(Engine::OmapAes, "aes-128-cbc", path),
            &omap_idle_start::SIZES,
            budget,
            None,
        )
    };
    let dma = over(DataPath::Dma)?;
    let adaptive = over(DataPath::Adaptive)?;
    let mut out = String::from(
        "\"OMAP: AES: Don't idle/start AES device between Encrypt operations\" (Joel A. Fernandes, May 2013):\n OMAP AES (am335x) runtime PM per request vs per session, openssl speed -evp aes-128-cbc\n\
         published: operations per second (the published ops in 3 s / 3)\n\
         model: our omap-aes driver PD on the am335x model, DMA path, requests through the queues;\n\
         the 2013 driver's DMA bounced through a copy (two CPU-copied bytes per byte added to our DMA events),\n\
         per-request power adds one PowerOn + PowerOff per request to that; 'ours' is our adaptive path, session power.\n\n",
    );
    let _ = writeln!(
        out,
        "{:>6} | {:>11} {:>11} {:>6} | {:>11} {:>11} {:>6} | {:>11} {:>8}",
        "size",
        "pub. before",
        "pub. after",
        "ratio",
        "model per-rq",
        "model sess.",
        "ratio",
        "model ours",
        "ours/bef"
    );
    for (i, &size) in omap_idle_start::SIZES.iter().enumerate() {
        let (before, after) = (
            omap_idle_start::BEFORE_OPS_3S[i] / 3.0,
            omap_idle_start::AFTER_OPS_3S[i] / 3.0,
        );
        let s = need(&dma, size)?;
        let session = ops_per_s(modelled_with(&dma, s, bounce_copy));
        let per_request = ops_per_s(modelled_with(&dma, s, |n| {
            let mut c = bounce_copy(n);
            for (e, v) in power_cycle(n).0.iter().enumerate() {
                c.0[e] += v;
            }
            c
        }));
        let ours = ops_per_s(need(&adaptive, size)?.modelled_ns_per_op(adaptive.board));
        let _ = writeln!(
            out,
            "{size:>6} | {before:>11.0} {after:>11.0} {:>5.2}x | {per_request:>11.0} {session:>11.0} {:>5.2}x | {ours:>11.0} {:>7.2}x",
            after / before,
            session / per_request,
            ours / per_request
        );
    }
    out += "\n(ratio = per-session / per-request operations per second; ours/bef = our adaptive driver / the old strategy, both modelled)\n";
    Ok(out)
}

fn omap_dma_pio(budget: Budget) -> Result<String, String> {
    let mut ms = Vec::new();
    for path in [DataPath::Pio, DataPath::Dma, DataPath::Adaptive] {
        ms.push(measured(
            job(Engine::OmapAes, "aes-128-cbc", path),
            &omap_dma_pio::SIZES,
            budget,
            None,
        )?);
    }
    let (pio, dma, adaptive) = (&ms[0], &ms[1], &ms[2]);
    let mut out = String::from(
        "\"crypto: omap-aes: DMA and PIO mode improvements\" (Joel Fernandes, Aug 2013):\n OMAP AES (am335x) PIO vs DMA vs the old copying DMA, tcrypt aes-128-cbc, operations per second\n\
         published: tcrypt operations in 1 s\n\
         model: our omap-aes driver PD on the am335x model; 'old' = our DMA events + the bounce copy in and out\n\
         (two CPU-copied bytes per byte); adaptive = ours (PIO or DMA per request, crossover calibrated at init).\n\n",
    );
    let _ = writeln!(
        out,
        "{:>6} | {:>9} {:>9} | {:>9} {:>9} | {:>9} {:>9} | {:>9} {:>5} {:>8} {:>8}",
        "size",
        "pub. old",
        "model old",
        "pub. DMA",
        "model DMA",
        "pub. PIO",
        "model PIO",
        "adaptive",
        "took",
        "vs old",
        "vs best"
    );
    for (i, &size) in omap_dma_pio::SIZES.iter().enumerate() {
        let d = need(dma, size)?;
        let old = ops_per_s(modelled_with(dma, d, bounce_copy));
        let mdma = ops_per_s(d.modelled_ns_per_op(dma.board));
        let mpio = ops_per_s(need(pio, size)?.modelled_ns_per_op(pio.board));
        let a = need(adaptive, size)?;
        let mad = ops_per_s(a.modelled_ns_per_op(adaptive.board));
        let best_published = omap_dma_pio::DMA_REWRITE[i]
            .max(omap_dma_pio::PIO[i])
            .max(omap_dma_pio::DMA_OLD[i]);
        let _ = writeln!(
            out,
            "{size:>6} | {:>9.0} {old:>9.0} | {:>9.0} {mdma:>9.0} | {:>9.0} {mpio:>9.0} | {mad:>9.0} {:>5} {:>7.2}x {:>7.2}x",
            omap_dma_pio::DMA_OLD[i],
            omap_dma_pio::DMA_REWRITE[i],
            omap_dma_pio::PIO[i],
            a.taken(),
            mad / old,
            mad / best_published
        );
    }
    out += "\n(vs old = adaptive / the old copying DMA, both modelled; vs best = adaptive modelled / the best published figure at that size)\n";
    Ok(out)
}

fn stm32_dma(budget: Budget) -> Result<String, String> {
    let mut sizes: Vec<usize> = stm32_dma::SIZES
        .iter()
        .chain(&stm32_dma::TCRYPT_SIZES)
        .copied()
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    let mut ms = Vec::new();
    for path in [DataPath::Pio, DataPath::Dma, DataPath::Adaptive] {
        ms.push(measured(
            job(Engine::Stm32Cryp, "aes-256-cbc", path),
            &sizes,
            budget,
            None,
        )?);
    }
    let (pio, dma, adaptive) = (&ms[0], &ms[1], &ms[2]);
    let kbs = |m: &Measured, size: usize| {
        sample(m, size).map(|s| size as f64 * 1e6 / s.modelled_ns_per_op(m.board))
    };
    let mut out = String::from(
        "the STM32 CRYP change \"Use DMA when buffer are aligned and with expected size\" (linux-next fb11a4f6af):\n STM32 CRYP (stm32mp1) CPU mode vs DMA, aes-256-cbc\n\
         published: openssl speed -evp aes-256-cbc -engine afalg, 1000s of bytes/s\n\
         model: our stm32-cryp driver PD on the stm32mp1 model (its cost table is fitted to this openssl run,\n\
         AF_ALG's per-request cost included); old = CPU (PIO) mode only; ours = adaptive;\n\
         n/a: the forced DMA path refuses the size (upstream's rule: DMA only above one block).\n\n",
    );
    let _ = writeln!(
        out,
        "{:>6} | {:>10} {:>10} | {:>10} {:>10} | {:>10} {:>5} {:>8} {:>8}",
        "size",
        "pub. CPU",
        "model PIO",
        "pub. DMA",
        "model DMA",
        "adaptive",
        "took",
        "vs old",
        "vs pub."
    );
    for (i, &size) in stm32_dma::SIZES.iter().enumerate() {
        let (p, d, a) = (kbs(pio, size), kbs(dma, size), kbs(adaptive, size));
        let best_published = stm32_dma::DMA_KBS[i].max(stm32_dma::CPU_KBS[i]);
        let _ = writeln!(
            out,
            "{size:>6} | {:>9.2}k {} | {:>9.2}k {} | {} {:>5} {} {}",
            stm32_dma::CPU_KBS[i],
            opt(p, 10, 2, "k"),
            stm32_dma::DMA_KBS[i],
            opt(d, 10, 2, "k"),
            opt(a, 10, 2, "k"),
            sample(adaptive, size).map_or("-".into(), |s| s.taken()),
            opt(a.zip(p).map(|(a, p)| a / p), 8, 2, "x"),
            opt(a.map(|a| a / best_published), 8, 2, "x")
        );
    }
    // tcrypt runs in the kernel: no AF_ALG round trip. The model's per-request cost is
    // that round trip (board::stm32mp1), so tcrypt is compared without it.
    let tick = |m: &Measured, size: usize| {
        sample(m, size).map(|s| {
            let ps = s.counts.modelled_ps(&m.board.costs)
                - s.counts.get(Event::Request) * m.board.costs.request_ps;
            ps as f64 / 1e3 / s.ops as f64 * 24e6 / 1e9
        })
    };
    out += "\ntcrypt mode=500 cbc(aes) 256-bit encryption, cycles per operation (24 MHz ticks, boards/SOURCES.md);\n\
            model: the same runs without the per-request AF_ALG cost (tcrypt runs in the kernel)\n";
    let _ = writeln!(
        out,
        "{:>6} | {:>9} {:>9} | {:>9} {:>9} | {:>9} {:>5}",
        "size", "pub. CPU", "model PIO", "pub. DMA", "model DMA", "adaptive", "took"
    );
    for (i, &size) in stm32_dma::TCRYPT_SIZES.iter().enumerate() {
        let _ = writeln!(
            out,
            "{size:>6} | {:>9.0} {} | {:>9.0} {} | {} {:>5}",
            stm32_dma::TCRYPT_CPU[i],
            opt(tick(pio, size), 9, 0, ""),
            stm32_dma::TCRYPT_DMA[i],
            opt(tick(dma, size), 9, 0, ""),
            opt(tick(adaptive, size), 9, 0, ""),
            sample(adaptive, size).map_or("-".into(), |s| s.taken())
        );
    }
    out += "(the model has no cost for tcrypt's own per-request work, so its small sizes read low by about the\n\
            published fixed cost; compare the growth with size)\n";
    Ok(out)
}

fn talitos_chain() -> Result<String, String> {
    let budget = Budget {
        seconds: 0.0,
        min_ops: 0,
        max_ops: u64::MAX,
        depth: 1,
    };
    let mut out = format!(
        "\"crypto: talitos - chain in buffered data for ahash on SEC1\" (Christophe Leroy, commit 37b5e8897eb5, Oct 2017):\n talitos SEC1 (mpc885) md5 of 90 MB: copy into one buffer vs chained descriptors\n\
         published: md5sum of a 90 MB file, {} s copying, {} s chained\n\
         model: our sec1-hash driver PD on the mpc885 model, one session, {TALITOS_UPDATE}-byte updates (AF_ALG's page per\n\
         update) of {} MiB through the queues, then the final; the 90 MB figure is the per-update events\n\
         scaled to 90e6 bytes (the first update measured as is, each later one at the measured per-update events),\n\
         which holds only if every update after the first has identical events: checked below, per event kind,\n\
         between the two halves of the run.\n\n",
        talitos_chain::COPY_S,
        talitos_chain::CHAINED_S,
        TALITOS_MEASURED >> 20
    );
    let _ = writeln!(
        out,
        "{:>8} | {:>8} {:>10} {:>7} | {:>12} {:>14} {:>16}",
        "path", "pub. s", "model s", "ratio", "identical", "copied B/upd", "host s (scaled)"
    );
    let mut model = [0.0f64; 2];
    for (k, (path, published_s)) in [
        (DataPath::Copy, talitos_chain::COPY_S),
        (DataPath::Chained, talitos_chain::CHAINED_S),
    ]
    .into_iter()
    .enumerate()
    {
        let m = measured(
            job(Engine::Sec1, "md5", path),
            &[TALITOS_UPDATE],
            budget,
            Some(TALITOS_MEASURED),
        )?;
        let s = &m.samples[0];
        let (Some(first), Some(half), Some(updates)) = (s.first, s.half, s.updates) else {
            return Err("the stream run reported no first/half/updates counts".into());
        };
        // The first update has no buffered block before it; every later one should cost
        // the same: the updates of the second half and those of the first half after the
        // first must have the same events per update, exactly.
        let n = s.ops;
        let h = n / 2;
        let second = updates.since(&half);
        let early = half.since(&first);
        let identical = (0..Event::COUNT).all(|i| {
            second.0[i] % h == 0
                && early.0[i] % (h - 1) == 0
                && second.0[i] / h == early.0[i] / (h - 1)
        });
        let steady = updates.since(&first);
        let per_update_ps = steady.modelled_ps(&m.board.costs) as f64 / (n - 1) as f64;
        let first_ps = first.modelled_ps(&m.board.costs) as f64;
        let final_ps = s.counts.since(&updates).modelled_ps(&m.board.costs) as f64;
        let updates_90 = talitos_chain::FILE_BYTES / TALITOS_UPDATE as f64;
        let secs = (first_ps + per_update_ps * (updates_90 - 1.0) + final_ps) / 1e12;
        model[k] = secs;
        let copied = steady.get(Event::CpuCopyByte) as f64 / (n - 1) as f64;
        let scale = talitos_chain::FILE_BYTES / TALITOS_MEASURED as f64;
        let _ = writeln!(
            out,
            "{:>8} | {published_s:>8.1} {secs:>10.3} {:>6.2}x | {:>12} {copied:>14.1} {:>16.2}",
            path.name(),
            secs / published_s,
            if identical { "yes" } else { "NO" },
            s.host_ns / 1e9 * scale
        );
    }
    let _ = writeln!(
        out,
        "\ncopy / chained: published {:.2}x, model {:.2}x (ratio column: model / published; host s: real time here for the same\n\
         updates through the PDs, scaled to 90 MB like the model)",
        talitos_chain::COPY_S / talitos_chain::CHAINED_S,
        model[0] / model[1]
    );
    Ok(out)
}
