//! One test per source document: drive the model as that source's driver did and check
//! that the board's cost table reproduces the source's published table within the error
//! SOURCES.md states. Each test prints its table (`cargo test -- --nocapture`).

mod common;

use board::{Board, am335x, mpc885, stm32mp1};
use common::vectors::{KEY128, KEY256};
use common::{Arena, Job, Mode, hex, powered, ram_at, rel_err, set_clock};
use cost_ledger::{CostTable, Counts, Event, Ledger};
use engine_models as models;
use engine_models::mdeu::HashAlg;
use engine_models::phys::PhysMap;
use engine_models::power::GateBlock;

/// Modelled microseconds of what `f` does.
fn measure(ledger: &Ledger, table: &CostTable, f: impl FnOnce()) -> (f64, Counts) {
    let before = ledger.snapshot();
    f();
    let d = ledger.snapshot().since(&before);
    (d.modelled_us(table), d)
}

/// Splits `len` bytes at `base` into page-sized segments, as tcrypt's SG list.
fn pages(base: u32, len: usize) -> Vec<(u32, u32)> {
    (0..len)
        .step_by(4096)
        .map(|o| (base + o as u32, (len - o).min(4096) as u32))
        .collect()
}

/// The part of DDR a cipher series works in: room for its buffers and a bounce pair.
const WINDOW: usize = 64 << 10;

/// What a cipher series drives: a board's model with `clocks` ungated over a window at
/// the start of its DMA-reachable memory (its DDR), an arena in that window, the board's costs, and the request the sources
/// timed (AES-CBC encryption under a zero IV). Leaked, so that the model, which borrows
/// its memory, gates and ledger, can live beside them.
struct Series<S> {
    soc: S,
    gates: &'static GateBlock,
    ledger: &'static Ledger,
    mem: &'static PhysMap<'static>,
    costs: &'static CostTable,
    job: Job<'static>,
    arena: Arena,
}

/// A board's model builder, as `engine_models::am335x::am335x`.
type Model<S> = fn(&'static PhysMap<'static>, &'static GateBlock, &'static Ledger) -> S;

impl<S> Series<S> {
    fn new(board: &'static Board, model: Model<S>, clocks: &[usize], key: &str) -> Self {
        let ddr = board.dma_regions[0].phys;
        let (gates, ledger) = powered(clocks);
        let (gates, ledger) = (&*Box::leak(Box::new(gates)), &*Box::leak(Box::new(ledger)));
        let mem = &*Box::leak(Box::new(ram_at(ddr, vec![0; WINDOW].leak())));
        Series {
            soc: model(mem, gates, ledger),
            gates,
            ledger,
            mem,
            costs: &board.costs,
            job: Job::new(hex(key).leak(), Some(&[0; 16]), Mode::Cbc, true),
            arena: Arena::new(ddr, WINDOW),
        }
    }
}

use board::published::{omap_dma_pio, omap_idle_start, stm32_dma, talitos_chain};

const DMA_PIO_SIZES: [usize; 5] = omap_dma_pio::SIZES;

/// The omap-aes DMA/PIO series, am335x tcrypt ops/s: PIO, DMA with direct SG, DMA with the old bounce copy.
#[test]
fn omap_dma_pio_series_pio_and_dma_operations_per_size() {
    use omap_dma_pio::{DMA_OLD as OLD, DMA_REWRITE as DMA, PIO};
    let clocks = [am335x::AES0.gate.unwrap(), am335x::EDMA.gate.unwrap()];
    let mut s = Series::new(&am335x::BOARD, models::am335x::am335x, &clocks, KEY128);
    let src = s.arena.alloc(8192, 4096);
    let dst = s.arena.alloc(8192, 4096);
    let bounce = (s.arena.alloc(8192, 4096), s.arena.alloc(8192, 4096));
    println!("size  PIO model/pub (err)     DMA model/pub (err)     old model/pub (err)");
    for (i, &n) in DMA_PIO_SIZES.iter().enumerate() {
        let data = vec![0xa5u8; n];
        let (from, to) = (pages(src, n), pages(dst, n));
        let (pio, _) = measure(s.ledger, s.costs, || {
            common::omap::pio(&s.soc, s.ledger, &s.job, &data).unwrap();
        });
        let (dma, d) = measure(s.ledger, s.costs, || {
            common::omap::dma(&s.soc, s.ledger, &s.job, &from, &to).unwrap();
        });
        assert_eq!(d.get(Event::CpuCopyByte), 0);
        let (old, _) = measure(s.ledger, s.costs, || {
            common::omap::dma_bounce(&s.soc, s.mem, s.ledger, &s.job, bounce, &from, &to).unwrap();
        });
        // Errors on time per operation, as SOURCES.md's fits state them.
        let ops = |us: f64| 1e6 / us;
        let (e_pio, e_dma, e_old) = (
            rel_err(pio, 1e6 / PIO[i]),
            rel_err(dma, 1e6 / DMA[i]),
            rel_err(old, 1e6 / OLD[i]),
        );
        println!(
            "{n:5} {:7.0}/{:7.0} ({:4.1}%)  {:6.0}/{:6.0} ({:4.1}%)  {:6.0}/{:6.0} ({:4.1}%)",
            ops(pio),
            PIO[i],
            e_pio * 100.0,
            ops(dma),
            DMA[i],
            e_dma * 100.0,
            ops(old),
            OLD[i],
            e_old * 100.0
        );
        // SOURCES.md: PIO worst error 1.7%; DMA 2.3% and the old path 3.1% from 256 B up.
        assert!(e_pio <= 0.017, "PIO at {n} B off by {e_pio}");
        if n >= 256 {
            // Both channels' transfers outgrow the EDMA pipeline: the source's step.
            assert_eq!(d.get(Event::DmaPipelineFull), 2, "{n} B");
            assert!(e_dma <= 0.023, "DMA at {n} B off by {e_dma}");
            assert!(e_old <= 0.031, "old DMA at {n} B off by {e_old}");
        } else {
            // SOURCES.md: flat ~230 us up to 64 B, the piecewise fit within ~4%; here the
            // step above 64 B is the EDMA pipeline event, absent at these sizes.
            assert_eq!(d.get(Event::DmaPipelineFull), 0, "{n} B fits the pipeline");
            assert!(
                e_dma <= 0.04 && e_old <= 0.04,
                "small DMA at {n} B off by {e_dma}/{e_old}"
            );
        }
    }
}

/// The omap-aes idle/start patch, am335x openssl speed (3 s per size): power per request vs per session.
#[test]
fn omap_idle_start_patch_power_per_request_vs_per_session() {
    use omap_idle_start::{AFTER_OPS_3S as AFTER, BEFORE_OPS_3S as BEFORE};
    let gate = am335x::AES0.gate.unwrap();
    // The engine's clock is the one under test: each phase below ungates it itself.
    let clocks = [am335x::EDMA.gate.unwrap()];
    let mut s = Series::new(&am335x::BOARD, models::am335x::am335x, &clocks, KEY128);
    let (src, dst) = (s.arena.alloc(8192, 4096), s.arena.alloc(8192, 4096));
    let bounce = (s.arena.alloc(8192, 4096), s.arena.alloc(8192, 4096));
    const REQUESTS: u64 = 8;
    // The published per-op differences span 66.8-80.2 us; one power cycle must land in
    // that span, and be charged once per request (before) or once per session (after).
    let published: Vec<f64> = (0..5).map(|i| 3e6 / BEFORE[i] - 3e6 / AFTER[i]).collect();
    let (lo, hi) = published
        .iter()
        .fold((f64::MAX, 0f64), |(l, h), &d| (l.min(d), h.max(d)));
    println!("size  modelled extra us/op  published");
    for (i, &n) in omap_idle_start::SIZES.iter().enumerate() {
        let request = || {
            let (from, to) = (pages(src, n), pages(dst, n));
            common::omap::dma_bounce(&s.soc, s.mem, s.ledger, &s.job, bounce, &from, &to).unwrap();
        };
        let (per_request, d1) = measure(s.ledger, s.costs, || {
            for _ in 0..REQUESTS {
                set_clock(s.gates, s.ledger, gate, true);
                request();
                set_clock(s.gates, s.ledger, gate, false);
            }
        });
        let (per_session, d2) = measure(s.ledger, s.costs, || {
            set_clock(s.gates, s.ledger, gate, true);
            for _ in 0..REQUESTS {
                request();
            }
            set_clock(s.gates, s.ledger, gate, false);
        });
        assert_eq!(d1.get(Event::PowerOn), REQUESTS);
        assert_eq!(d2.get(Event::PowerOn), 1);
        let extra = (per_request - per_session) / (REQUESTS - 1) as f64;
        println!("{n:5} {extra:8.1} {:8.1}", published[i]);
        assert!(
            (lo..=hi).contains(&extra),
            "power cycle {extra} us outside {lo}-{hi}"
        );
    }
}

/// The stm32-cryp DMA change, stm32mp1 openssl speed via AF_ALG, AES-256-CBC: DMA (upstream's rules) vs CPU.
#[test]
fn stm32_cryp_dma_change_dma_vs_cpu_throughput_per_size() {
    use stm32_dma::{CPU_KBS as CPU_KBPS, DMA_KBS as DMA_KBPS, SIZES};
    let clocks = [stm32mp1::CRYP1.gate.unwrap(), stm32mp1::DMA.gate.unwrap()];
    let mut s = Series::new(
        &stm32mp1::BOARD,
        models::stm32mp1::stm32mp1,
        &clocks,
        KEY256,
    );
    let (src, dst) = (s.arena.alloc(16384, 64), s.arena.alloc(16384, 64));
    println!("size   DMA kB/s model/pub (err)   CPU kB/s model/pub (err)");
    for (i, &n) in SIZES.iter().enumerate() {
        let data = vec![0x3cu8; n];
        let by_cpu = || {
            common::stm32::it_mode(&s.soc, s.ledger, &s.job, &data).unwrap();
        };
        let (cpu, _) = measure(s.ledger, s.costs, by_cpu);
        let seg = [(src, n as u32)];
        let (dma, _) = measure(s.ledger, s.costs, || {
            if common::stm32::dma_eligible(&seg) {
                common::stm32::dma_mode(&s.soc, s.ledger, &s.job, &seg, &[(dst, n as u32)], &[])
                    .unwrap();
            } else {
                by_cpu();
            }
        });
        // Errors on time per operation, as SOURCES.md's fits state them.
        let kbps = |us: f64| n as f64 / us * 1e3;
        let us = |k: f64| n as f64 / k * 1e3;
        let (e_dma, e_cpu) = (rel_err(dma, us(DMA_KBPS[i])), rel_err(cpu, us(CPU_KBPS[i])));
        println!(
            "{n:5} {:9.2}/{:9.2} ({:4.2}%) {:8.2}/{:8.2} ({:4.2}%)",
            kbps(dma),
            DMA_KBPS[i],
            e_dma * 100.0,
            kbps(cpu),
            CPU_KBPS[i],
            e_cpu * 100.0
        );
        // SOURCES.md: DMA worst error 0.7% (>= 64 B), CPU 0.8%; the 16-byte DMA column is
        // the CPU path under upstream's rule (len > 16 for DMA).
        assert!(e_cpu <= 0.008, "CPU at {n} B off by {e_cpu}");
        assert!(
            e_dma <= if n >= 64 { 0.007 } else { 0.008 },
            "DMA at {n} B off by {e_dma}"
        );
    }
}

/// The talitos chaining change, mpc885 md5sum of a 90 MB file: copy path 6 s, chained 3 s.
///
/// Hashing 90 MB in a debug build is too slow for the suite, so this hashes 64 page
/// updates (256 KiB) after a warm-up update and scales the modelled time by the number
/// of updates in 90e6 bytes: every update of the stream has the same events (one page
/// in, one block kept), so the scaling is exact up to the first and final updates.
#[test]
fn talitos_chaining_change_md5_of_90_mb_copy_vs_chained() {
    use talitos_chain::{CHAINED_S, COPY_S, FILE_BYTES as FILE};
    const PAGE: usize = 4096;
    const UPDATES: usize = 64;
    let (gates, ledger) = powered(&[mpc885::SEC.gate.unwrap()]);
    let base = mpc885::SDRAM.phys + 0x10_0000;
    let mut ram = vec![0u8; 1 << 20];
    let mem = ram_at(base, &mut ram);
    let soc = models::mpc885::mpc885(&mem, &gates, &ledger);
    common::sec1::init(&soc);
    let mut seconds = [0f64; 2];
    for (k, path) in [common::sec1::Path::Copy, common::sec1::Path::Chained]
        .into_iter()
        .enumerate()
    {
        let mut arena = Arena::new(base, 1 << 20);
        let mut s = common::sec1::Session::new(&mut arena, HashAlg::Md5, path);
        let page = arena.put(&mem, &[0x42; PAGE], 4);
        s.update(&soc, &mem, &ledger, page, PAGE, false).unwrap();
        let (us, d) = measure(&ledger, &mpc885::COSTS, || {
            for _ in 0..UPDATES {
                s.update(&soc, &mem, &ledger, page, PAGE, false).unwrap();
            }
        });
        let per_update_copy = d.get(Event::CpuCopyByte) as f64 / UPDATES as f64;
        if path == common::sec1::Path::Chained {
            assert!(
                per_update_copy <= 128.0,
                "chained copies {per_update_copy} B per update"
            );
        }
        seconds[k] = us * 1e-6 * FILE / (UPDATES * PAGE) as f64;
    }
    println!(
        "md5sum 90 MB: copy {:.2} s (published {COPY_S}), chained {:.2} s (published {CHAINED_S})",
        seconds[0], seconds[1]
    );
    // The source says "approximately" 6 s and 3 s; SOURCES.md states no error, we allow 5%.
    assert!(
        rel_err(seconds[0], COPY_S) <= 0.05,
        "copy path {} s",
        seconds[0]
    );
    assert!(
        rel_err(seconds[1], CHAINED_S) <= 0.05,
        "chained path {} s",
        seconds[1]
    );
}
