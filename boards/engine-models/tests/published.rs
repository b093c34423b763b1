//! One test per source document: drive the model as that source's driver did and check
//! that the board's cost table reproduces the source's published table within the error
//! SOURCES.md states. Each test prints its table (`cargo test -- --nocapture`).

mod common;

use board::{am335x, mpc885, stm32mp1};
use common::{Arena, Job, Mode, hex, powered, ram_at, rel_err, set_clock};
use cost_ledger::{Counts, Event, Ledger};
use engine_models::mdeu::HashAlg;

/// Modelled microseconds of what `f` does.
fn measure(ledger: &Ledger, table: &cost_ledger::CostTable, f: impl FnOnce()) -> (f64, Counts) {
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

use board::published::{omap_dma_pio, omap_idle_start, stm32_dma, talitos_chain};

const DMA_PIO_SIZES: [usize; 5] = omap_dma_pio::SIZES;

/// The omap-aes DMA/PIO series, am335x tcrypt ops/s: PIO, DMA with direct SG, DMA with the old bounce copy.
#[test]
fn omap_dma_pio_series_pio_and_dma_operations_per_size() {
    use omap_dma_pio::{DMA_OLD as OLD, DMA_REWRITE as DMA, PIO};
    let (gates, ledger) = powered(&[am335x::AES0.gate.unwrap(), am335x::EDMA.gate.unwrap()]);
    let mut ram = vec![0u8; 64 << 10];
    let mem = ram_at(am335x::DDR.phys, &mut ram);
    let soc = engine_models::am335x::am335x(&mem, &gates, &ledger);
    let costs = &am335x::COSTS;
    let key = hex(common::vectors::KEY128);
    let job = Job::new(&key, Some(&[0; 16]), Mode::Cbc, true);
    let mut arena = Arena::new(am335x::DDR.phys, 64 << 10);
    let src = arena.alloc(8192, 4096);
    let dst = arena.alloc(8192, 4096);
    let bounce = (arena.alloc(8192, 4096), arena.alloc(8192, 4096));
    println!("size  PIO model/pub (err)     DMA model/pub (err)     old model/pub (err)");
    for (i, &n) in DMA_PIO_SIZES.iter().enumerate() {
        let data = vec![0xa5u8; n];
        let (s, t) = (pages(src, n), pages(dst, n));
        let (pio, _) = measure(&ledger, costs, || {
            common::omap::pio(&soc, &ledger, &job, &data).unwrap();
        });
        let (dma, d) = measure(&ledger, costs, || {
            common::omap::dma(&soc, &ledger, &job, &s, &t).unwrap();
        });
        assert_eq!(d.get(Event::CpuCopyByte), 0);
        let (old, _) = measure(&ledger, costs, || {
            common::omap::dma_bounce(&soc, &mem, &ledger, &job, bounce, &s, &t).unwrap();
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
    // The engine's clock is the one under test: each phase below ungates it itself.
    let (gates, ledger) = powered(&[am335x::EDMA.gate.unwrap()]);
    let gate = am335x::AES0.gate.unwrap();
    let mut ram = vec![0u8; 64 << 10];
    let mem = ram_at(am335x::DDR.phys, &mut ram);
    let soc = engine_models::am335x::am335x(&mem, &gates, &ledger);
    let costs = &am335x::COSTS;
    let key = hex(common::vectors::KEY128);
    let job = Job::new(&key, Some(&[0; 16]), Mode::Cbc, true);
    let mut arena = Arena::new(am335x::DDR.phys, 64 << 10);
    let (src, dst) = (arena.alloc(8192, 4096), arena.alloc(8192, 4096));
    let bounce = (arena.alloc(8192, 4096), arena.alloc(8192, 4096));
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
            let (s, t) = (pages(src, n), pages(dst, n));
            common::omap::dma_bounce(&soc, &mem, &ledger, &job, bounce, &s, &t).unwrap();
        };
        let (per_request, d1) = measure(&ledger, costs, || {
            for _ in 0..REQUESTS {
                set_clock(&gates, &ledger, gate, true);
                request();
                set_clock(&gates, &ledger, gate, false);
            }
        });
        let (per_session, d2) = measure(&ledger, costs, || {
            set_clock(&gates, &ledger, gate, true);
            for _ in 0..REQUESTS {
                request();
            }
            set_clock(&gates, &ledger, gate, false);
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
    let (gates, ledger) = powered(&[stm32mp1::CRYP1.gate.unwrap(), stm32mp1::DMA.gate.unwrap()]);
    let mut ram = vec![0u8; 64 << 10];
    let mem = ram_at(stm32mp1::DDR.phys, &mut ram);
    let soc = engine_models::stm32mp1::stm32mp1(&mem, &gates, &ledger);
    let costs = &stm32mp1::COSTS;
    let key = hex(common::vectors::KEY256);
    let job = Job::new(&key, Some(&[0; 16]), Mode::Cbc, true);
    let mut arena = Arena::new(stm32mp1::DDR.phys, 64 << 10);
    let (src, dst) = (arena.alloc(16384, 64), arena.alloc(16384, 64));
    println!("size   DMA kB/s model/pub (err)   CPU kB/s model/pub (err)");
    for (i, &n) in SIZES.iter().enumerate() {
        let data = vec![0x3cu8; n];
        let by_cpu = || {
            common::stm32::it_mode(&soc, &ledger, &job, &data).unwrap();
        };
        let (cpu, _) = measure(&ledger, costs, by_cpu);
        let seg = [(src, n as u32)];
        let (dma, _) = measure(&ledger, costs, || {
            if common::stm32::dma_eligible(&seg) {
                common::stm32::dma_mode(&soc, &ledger, &job, &seg, &[(dst, n as u32)], &[])
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
    let soc = engine_models::mpc885::mpc885(&mem, &gates, &ledger);
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
