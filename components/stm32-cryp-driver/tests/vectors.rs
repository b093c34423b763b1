//! Published vectors through the whole service path on every route: request in a queue,
//! segments in the client's region, cipher-service, the driver, the stm32mp1 model, the
//! response back. FIPS-197 Appendix C and SP 800-38A F.1, F.2, F.5; CPU mode split at
//! every byte offset, DMA split at every block boundary, DMA with a CPU tail for CTR
//! lengths that end mid-block; the ledger checked on DMA. What both engines check alike
//! is `pio_dma_driver::testkit::vector_suite`.

mod rig;

use cost_ledger::Event;
use kat_vectors::{CBC_IV, CTR_IV, K128, K256, SP800_38A};
use pd_idl::cipher::{CipherError, CipherOp, Mode, Path};
use pio_dma_driver::testkit::{self as kit, both_ways};
use rig::{Board, Layout, counted, hex};

/// Upstream never DMAs 16 bytes: the suite's DMA requests are 32 bytes here.
#[test]
fn the_vectors_both_engines_pass() {
    kit::vector_suite::<rig::Stm32>();
}

#[test]
fn ctr_dma_with_a_cpu_tail() {
    // Upstream: a last segment that is not block-aligned goes DMA for its aligned part
    // and CPU for the tail. Only the tail's bytes are touched by the CPU.
    let board = Board::new();
    let mut rig = board.rig();
    let splits = vec![
        vec![21],
        vec![40],
        vec![63],
        vec![16, 47],
        vec![32, 31],
        vec![16, 16, 16, 1],
    ];
    for &v in &SP800_38A[5..] {
        for split in &splits {
            let n: u32 = split.iter().sum();
            let ((), c) = counted(board.ledger, || {
                both_ways(
                    &mut rig,
                    v,
                    Path::Dma,
                    std::slice::from_ref(split),
                    Layout::Words,
                );
            });
            let tail = u64::from(n % 16);
            assert_eq!(rig::copied(&c), 2 * tail, "{} {split:?}", v.0);
            assert_eq!(c.get(Event::DmaByte), 2 * 2 * u64::from(n - n % 16));
            assert_eq!(
                c.get(Event::PioWord),
                2 * 8,
                "one block each way, per request"
            );
        }
    }
}

#[test]
fn adaptive_follows_upstreams_rule_and_the_crossover() {
    let mut rig = Board::new().rig();
    let from = kit::dma_from(&rig, Mode::Ctr, 32);
    let s = rig
        .open(Mode::Ctr, Path::Adaptive, &hex(K256), &hex(CTR_IV))
        .unwrap();
    let big = vec![0x22u8; from as usize + 5];
    for (split, layout, want) in [
        (vec![from + 5], Layout::Words, Path::Dma),
        (vec![from - 16], Layout::Aligned, Path::Pio),
        (vec![from + 5], Layout::Scattered, Path::Pio),
        // A non-last segment that is not whole blocks.
        (vec![8, from - 3], Layout::Aligned, Path::Pio),
        (vec![16, from - 11], Layout::Aligned, Path::Dma),
    ] {
        let n: u32 = split.iter().sum();
        rig.crypt(s, CipherOp::Encrypt, &big[..n as usize], &split, layout)
            .unwrap();
        assert_eq!(rig.last_path, Some(want), "{split:?} {layout:?}");
    }
    rig.phys = None;
    rig.crypt(s, CipherOp::Encrypt, &big, &[from + 5], Layout::Aligned)
        .unwrap();
    assert_eq!(
        rig.last_path,
        Some(Path::Pio),
        "no physical address, no DMA"
    );
}

/// Alone or queued (a request DMA refuses alone never joins another).
#[test]
fn forced_dma_refuses_what_upstream_would_not_dma() {
    let mut rig = Board::new().rig();
    let s = rig
        .open(Mode::Cbc, Path::Dma, &hex(K128), &hex(CBC_IV))
        .unwrap();
    for (len, split, layout) in [
        (16, vec![16], Layout::Aligned),
        (32, vec![32], Layout::Scattered),
        (32, vec![8, 24], Layout::Aligned),
    ] {
        assert_eq!(
            rig.crypt(s, CipherOp::Encrypt, &vec![0; len], &split, layout),
            Err(CipherError::UnsupportedPath),
            "{split:?} {layout:?}"
        );
    }
    let (_, mode, key, iv, _) = SP800_38A[0];
    let s = rig.open(mode, Path::Dma, &hex(key), &hex(iv)).unwrap();
    let short = rig::request(9, s, &[(0, 16)]);
    let got = rig.exchange(rig::CLIENT, &[short, short]);
    assert!(
        got.iter()
            .all(|a| rig::status(a) == Err(CipherError::UnsupportedPath)),
        "{got:?}"
    );
}
