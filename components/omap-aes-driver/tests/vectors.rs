//! Published vectors through the whole service path on every route: request in a queue,
//! segments in the client's region, cipher-service, the driver, the am335x model, the
//! response back. FIPS-197 Appendix C and SP 800-38A F.1, F.2, F.5; PIO split at every
//! byte offset, DMA split at every block boundary; the ledger checked on DMA.

mod rig;

use cost_ledger::Event;
use kat_vectors::{CBC_IV, CTR_IV, K128, K256, PLAIN, SP800_38A};
use pd_idl::cipher::{CipherError, CipherOp, Mode, Path};
use pio_dma_driver::testkit as kit;
use rig::{Board, Layout, hex};

#[test]
fn fips_197_appendix_c_on_pio_and_dma() {
    let board = Board::new();
    kit::fips_197_appendix_c(&mut rig::rig(&board, board.driver()), 1);
}

#[test]
fn sp800_38a_dma_split_at_every_block_and_no_cpu_copy() {
    let board = Board::new();
    let mut rig = rig::rig(&board, board.driver());
    kit::sp800_38a_dma_split_at_every_block(&mut rig, board.ledger, &[Layout::Aligned]);
}

#[test]
fn adaptive_picks_by_size_and_alignment() {
    let board = Board::new();
    let mut rig = rig::rig(&board, board.driver());
    let from = kit::dma_from(&rig, Mode::Cbc, 16);
    let key = hex(K128);
    let s = rig.open(Mode::Cbc, Path::Adaptive, &key, &[0; 16]).unwrap();
    let big = vec![0x11u8; from as usize];
    let small = &big[..from as usize - 16];
    rig.crypt(s, CipherOp::Encrypt, &big, &[from], Layout::Aligned)
        .unwrap();
    assert_eq!(rig.last_path, Some(Path::Dma), "aligned, at the crossover");
    rig.crypt(s, CipherOp::Encrypt, small, &[from - 16], Layout::Aligned)
        .unwrap();
    assert_eq!(
        rig.last_path,
        Some(Path::Pio),
        "one block below the crossover"
    );
    rig.crypt(s, CipherOp::Encrypt, &big, &[from], Layout::Scattered)
        .unwrap();
    assert_eq!(
        rig.last_path,
        Some(Path::Pio),
        "misaligned goes PIO, not copied"
    );
    // Aligned but not whole blocks per segment: PIO too.
    let split = [8, from - 8];
    rig.crypt(s, CipherOp::Encrypt, &big, &split, Layout::Aligned)
        .unwrap();
    assert_eq!(rig.last_path, Some(Path::Pio));
    // A region without a physical address never goes DMA.
    rig.phys = None;
    rig.crypt(s, CipherOp::Encrypt, &big, &[from], Layout::Aligned)
        .unwrap();
    assert_eq!(rig.last_path, Some(Path::Pio));
}

#[test]
fn adaptive_and_forced_paths_agree_with_each_other() {
    // 40 blocks (above any crossover) chained over three requests per path: the same
    // ciphertext whichever way the bytes moved, and the IV carries over.
    let board = Board::new();
    let mut rig = rig::rig(&board, board.driver());
    let plain: Vec<u8> = (0..640u32).map(|i| (i * 7) as u8).collect();
    let mut outs = Vec::new();
    for path in [Path::Pio, Path::Dma, Path::Adaptive] {
        let s = rig.open(Mode::Cbc, path, &hex(K256), &hex(CBC_IV)).unwrap();
        let mut out = Vec::new();
        for chunk in [&plain[..64], &plain[64..320], &plain[320..]] {
            let len = chunk.len() as u32;
            out.extend(
                rig.crypt(
                    s,
                    CipherOp::Encrypt,
                    chunk,
                    &[len / 2, len / 2],
                    Layout::Aligned,
                )
                .unwrap(),
            );
        }
        outs.push(out);
    }
    assert_eq!(outs[0], outs[1]);
    assert_eq!(outs[0], outs[2]);
}

#[test]
fn iv_carries_over_between_requests_on_both_routes() {
    let board = Board::new();
    kit::iv_carries_over_between_requests(&mut rig::rig(&board, board.driver()), 16);
}

#[test]
fn ctr_partial_blocks_go_pio_and_forced_dma_refuses_them() {
    let board = Board::new();
    let mut rig = rig::rig(&board, board.driver());
    let want = hex(SP800_38A[5].4);
    let s = rig
        .open(Mode::Ctr, Path::Adaptive, &hex(K128), &hex(CTR_IV))
        .unwrap();
    let out = rig
        .crypt(
            s,
            CipherOp::Encrypt,
            &hex(PLAIN)[..21],
            &[7, 14],
            Layout::Aligned,
        )
        .unwrap();
    assert_eq!(out, want[..21].to_vec());
    assert_eq!(rig.last_path, Some(Path::Pio));
    // The counter moved past the partial block: the next request starts at block 2.
    let out = rig
        .crypt(
            s,
            CipherOp::Encrypt,
            &hex(PLAIN)[32..64],
            &[32],
            Layout::Aligned,
        )
        .unwrap();
    assert_eq!(out, want[32..64].to_vec());
    let d = rig
        .open(Mode::Ctr, Path::Dma, &hex(K128), &hex(CTR_IV))
        .unwrap();
    assert_eq!(
        rig.crypt(
            d,
            CipherOp::Encrypt,
            &hex(PLAIN)[..21],
            &[21],
            Layout::Aligned
        ),
        Err(CipherError::UnsupportedPath),
        "forced DMA on a request DMA cannot take is refused, not copied"
    );
}

/// Requests of one session queued together run as one transfer (two DMA channel starts
/// for all of them, one context load) and give the vectors' bytes as one at a time
/// does; PIO and adaptive likewise (adaptive routes the joined bytes).
#[test]
fn queued_requests_of_a_session_run_as_one_transfer() {
    let board = Board::new();
    let mut rig = rig::rig(&board, board.driver());
    kit::queued_requests_run_as_one_transfer(&mut rig, board.ledger, 16);
}

/// How the driver joins queued requests, on every path: the longest join it
/// makes (`MAX_JOINED` requests, its link sets all used) and one more, two transfers on
/// DMA; runs split where another session's request or a bad one comes between, and a
/// failed transfer fails only its own requests; always each session's bytes as one at a
/// time.
#[test]
fn joins_on_every_path() {
    let board = Board::new();
    let mut rig = rig::rig(&board, board.driver());
    let starts = || board.ledger.get(Event::DmaStart);
    cipher_service::testkit::suite::joins_on_every_path(&mut rig, 16, &starts);
}

/// The engine keeps a session's key and IV between its jobs and reloads them whenever
/// anything else ran, the direction changed or power was lost (`ContextKept` in the
/// ledger); the SP 800-38A CBC and CTR vectors a block per request on both routes.
#[test]
fn a_held_context_is_reused_only_when_it_matches() {
    let board = Board::new();
    let mut rig = rig::rig(&board, board.driver());
    let paths = [Path::Pio, Path::Dma];
    kit::a_held_context_is_reused_only_when_it_matches(&mut rig, board.ledger, &paths);
}

#[test]
fn sp800_38a_pio_split_at_every_offset() {
    let board = Board::new();
    kit::sp800_38a_pio_split_at_every_offset(&mut rig::rig(&board, board.driver()));
}
