//! Published vectors through the whole service path on every route: request in a queue,
//! segments in the client's region, cipher-service, the driver, the stm32mp1 model, the
//! response back. FIPS-197 Appendix C and SP 800-38A F.1, F.2, F.5; CPU mode split at
//! every byte offset, DMA split at every block boundary, DMA with a CPU tail for CTR
//! lengths that end mid-block; the ledger checked on DMA.

mod rig;

use cost_ledger::Event;
use kat_vectors::{CBC_IV, CTR_IV, FIPS197_C, FIPS197_PT, K128, K256, PLAIN, SP800_38A};
use pd_idl::cipher::{CipherError, CipherOp, Mode, Path};
use pio_dma_driver::testkit::{self as kit, both_ways};
use rig::{Board, Layout, counted, hex};

#[test]
fn fips_197_appendix_c_on_cpu_and_dma() {
    let board = Board::new();
    let mut rig = rig::rig(&board, board.driver());
    let pt = hex(FIPS197_PT);
    for &(_, key, ct) in FIPS197_C {
        // Upstream never DMAs 16 bytes: two copies of the block, in two segments.
        let (pt2, ct2) = ([pt.clone(), pt.clone()].concat(), hex(&format!("{ct}{ct}")));
        for (path, input, want, split) in [
            (Path::Pio, &pt, hex(ct), vec![16]),
            (Path::Adaptive, &pt, hex(ct), vec![16]),
            (Path::Dma, &pt2, ct2.clone(), vec![16, 16]),
        ] {
            let s = rig.open(Mode::Ecb, path, &hex(key), &[0; 16]).unwrap();
            let enc = rig.crypt(s, CipherOp::Encrypt, input, &split, Layout::Aligned);
            assert_eq!(enc.as_ref(), Ok(&want), "{key} {path:?}");
            let dec = rig.crypt(s, CipherOp::Decrypt, &want, &split, Layout::Aligned);
            assert_eq!(dec.as_ref(), Ok(input), "{key} {path:?}");
        }
    }
}

#[test]
fn sp800_38a_dma_split_at_every_block_and_no_cpu_copy() {
    let board = Board::new();
    let mut rig = rig::rig(&board, board.driver());
    let splits = vec![
        vec![64],
        vec![16, 48],
        vec![32, 32],
        vec![48, 16],
        vec![16, 16, 16, 16],
        vec![0, 32, 0, 32],
    ];
    for &v in SP800_38A {
        for layout in [Layout::Aligned, Layout::Words] {
            let ((), c) = counted(board.ledger, || {
                both_ways(&mut rig, v, Path::Dma, &splits, layout);
            });
            assert_eq!(rig::copied(&c), 0, "{}: DMA copies no client byte", v.0);
            let requests = 2 * splits.len() as u64;
            assert_eq!(c.get(Event::Request), requests);
            assert_eq!(c.get(Event::DmaByte), requests * 2 * 64, "{}", v.0);
            assert_eq!(c.get(Event::PioWord), 0, "{}", v.0);
        }
    }
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
    let from = rig
        .service
        .engine
        .calibration()
        .get(Mode::Ctr, 32)
        .dma_from_bytes;
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
    let mut rig = rig::rig(&board, board.driver());
    for (path, chunk) in [(Path::Pio, 16), (Path::Dma, 32)] {
        for &(name, mode, key, iv, ct) in SP800_38A {
            let s = rig.open(mode, path, &hex(key), &hex(iv)).unwrap();
            let mut out = Vec::new();
            for part in hex(PLAIN).chunks(chunk) {
                out.extend(
                    rig.crypt(s, CipherOp::Encrypt, part, &[chunk as u32], Layout::Aligned)
                        .unwrap(),
                );
            }
            assert_eq!(out, hex(ct), "{name} {path:?}");
        }
    }
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
    for (path, per) in [(Path::Dma, 32), (Path::Pio, 16), (Path::Adaptive, 16)] {
        cipher_service::testkit::suite::queued_requests_match_one_at_a_time(
            &mut rig, SP800_38A, PLAIN, path, per,
        );
    }
    let (_, mode, key, iv, ct) = SP800_38A[0];
    let s = rig.open(mode, Path::Dma, &hex(key), &hex(iv)).unwrap();
    let plain = hex(PLAIN);
    let reqs: Vec<_> = (0..2u32)
        .map(|i| {
            let at = 256 * i as usize;
            rig.bytes()[at..at + 32].copy_from_slice(&plain[32 * i as usize..][..32]);
            rig::request(i + 1, s, &[(256 * i, 32)])
        })
        .collect();
    let (got, c) = counted(board.ledger, || rig.exchange(rig::CLIENT, &reqs));
    assert!(got.iter().all(|a| rig::status(a).is_ok()), "{got:?}");
    assert_eq!(
        c.get(Event::DmaStart),
        2,
        "one transfer: tx and rx started once"
    );
    assert_eq!(c.get(Event::Request), 2, "each request still costs its own");
    let out: Vec<u8> = (0..2)
        .flat_map(|i| rig.bytes()[256 * i..][..32].to_vec())
        .collect();
    assert_eq!(out, hex(ct));
    // A 16-byte request DMA cannot take alone is refused alone, queued or not.
    let mut short = rig::request(9, s, &[(0, 16)]);
    short.op = CipherOp::Encrypt.into();
    let got = rig.exchange(rig::CLIENT, &[short, short]);
    assert!(
        got.iter()
            .all(|a| rig::status(a) == Err(CipherError::UnsupportedPath)),
        "{got:?}"
    );
}

/// How the driver joins queued requests, on every path (32-byte requests: upstream's rule gives DMA nothing of 16 bytes or fewer): the longest join it
/// makes (`MAX_JOINED` requests, its link sets all used) and one more, two transfers on
/// DMA; runs split where another session's request or a bad one comes between, and a
/// failed transfer fails only its own requests; always each session's bytes as one at a
/// time.
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
    for v in SP800_38A.iter().filter(|v| v.1 != Mode::Ecb) {
        let kept = || board.ledger.get(Event::ContextKept);
        cipher_service::testkit::suite::held_context_only_when_it_matches(
            &mut rig,
            *v,
            PLAIN,
            Path::Pio,
            &kept,
        );
    }
}

#[test]
fn sp800_38a_cpu_mode_split_at_every_offset() {
    let board = Board::new();
    kit::sp800_38a_pio_split_at_every_offset(&mut rig::rig(&board, board.driver()));
}
