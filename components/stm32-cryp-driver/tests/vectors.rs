//! Published vectors through the whole service path on every route: request in a queue,
//! segments in the client's region, cipher-service, the driver, the stm32mp1 model, the
//! response back. FIPS-197 Appendix C and SP 800-38A F.1, F.2, F.5; CPU mode split at
//! every byte offset, DMA split at every block boundary, DMA with a CPU tail for CTR
//! lengths that end mid-block; the ledger checked on DMA.

mod rig;

use cost_ledger::Event;
use kat_vectors::{CBC_IV, CTR_IV, K128, K256, SP800_38A};
use pd_idl::cipher::{CipherError, CipherOp, Mode, Path};
use pio_dma_driver::testkit::{self as kit, both_ways};
use rig::{Board, Layout, counted, hex};

#[test]
fn fips_197_appendix_c_on_cpu_and_dma() {
    // Upstream never DMAs 16 bytes: two copies of the block, in two segments.
    let board = Board::new();
    kit::fips_197_appendix_c(&mut rig::rig(&board, board.driver()), 2);
}

#[test]
fn sp800_38a_dma_split_at_every_block_and_no_cpu_copy() {
    let board = Board::new();
    let mut rig = rig::rig(&board, board.driver());
    let layouts = [Layout::Aligned, Layout::Words];
    kit::sp800_38a_dma_split_at_every_block(&mut rig, board.ledger, &layouts);
}

#[test]
fn ctr_dma_with_a_cpu_tail() {
    // Upstream: a last segment that is not block-aligned goes DMA for its aligned part
    // and CPU for the tail. Only the tail's bytes are touched by the CPU.
    let board = Board::new();
    let mut rig = rig::rig(&board, board.driver());
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
    let board = Board::new();
    let mut rig = rig::rig(&board, board.driver());
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

#[test]
fn iv_carries_over_between_requests_on_both_routes() {
    let board = Board::new();
    kit::iv_carries_over_between_requests(&mut rig::rig(&board, board.driver()), 32);
}

#[test]
fn forced_dma_refuses_what_upstream_would_not_dma() {
    let board = Board::new();
    let mut rig = rig::rig(&board, board.driver());
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
}

/// Requests of one session queued together run as one transfer and give the vectors'
/// bytes as one at a time does, on every route (DMA in 32-byte requests: upstream's rule
/// gives DMA nothing of 16 bytes or fewer, and a request DMA refuses alone never joins).
#[test]
fn queued_requests_of_a_session_run_as_one_transfer() {
    let board = Board::new();
    let mut rig = rig::rig(&board, board.driver());
    kit::queued_requests_run_as_one_transfer(&mut rig, board.ledger, 32);
    // A 16-byte request DMA cannot take alone is refused alone, queued or not.
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

/// How the driver joins queued requests, on every path (32-byte requests: upstream's
/// rule gives DMA nothing of 16 bytes or fewer): the longest join it makes (`MAX_JOINED`
/// requests, its link sets all used) and one more, two transfers on DMA; runs split
/// where another session's request or a bad one comes between, and a failed transfer
/// fails only its own requests; always each session's bytes as one at a time.
#[test]
fn joins_on_every_path() {
    let board = Board::new();
    let mut rig = rig::rig(&board, board.driver());
    let starts = || board.ledger.get(Event::DmaStart);
    cipher_service::testkit::suite::joins_on_every_path(&mut rig, 32, &starts);
}

/// The engine keeps a session's key (prepared, for a decryption) and IV between its
/// jobs and reloads them whenever anything else ran, the direction changed or power
/// was lost (`ContextKept` in the ledger); SP 800-38A CBC and CTR a block per request.
#[test]
fn a_held_context_is_reused_only_when_it_matches() {
    let board = Board::new();
    let mut rig = rig::rig(&board, board.driver());
    // PIO only: the check goes a block per request, and upstream's rule gives DMA
    // nothing of 16 bytes or fewer (the DMA route keeps its context the same way, by the
    // same `Context` comparison in pio-dma-driver).
    kit::a_held_context_is_reused_only_when_it_matches(&mut rig, board.ledger, &[Path::Pio]);
}

#[test]
fn sp800_38a_cpu_mode_split_at_every_offset() {
    let board = Board::new();
    kit::sp800_38a_pio_split_at_every_offset(&mut rig::rig(&board, board.driver()));
}
