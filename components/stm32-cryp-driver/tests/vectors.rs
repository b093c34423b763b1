//! Published vectors through the whole service path on every route: request in a queue,
//! segments in the client's region, cipher-service, the driver, the stm32mp1 model, the
//! response back. FIPS-197 Appendix C and SP 800-38A F.1, F.2, F.5; CPU mode split at
//! every byte offset, DMA split at every block boundary, DMA with a CPU tail for CTR
//! lengths that end mid-block; the ledger checked on DMA.

mod rig;

use cost_ledger::Event;
use pd_idl::cipher::{CipherError, CipherOp, Mode, Path};
use rig::{Board, Layout, Rig, counted, hex};

const PLAIN: &str = "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51\
                     30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710";
const K128: &str = "2b7e151628aed2a6abf7158809cf4f3c";
const K192: &str = "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b";
const K256: &str = "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4";
const CBC_IV: &str = "000102030405060708090a0b0c0d0e0f";
const CTR_IV: &str = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

/// (name, mode, key, iv, ciphertext of PLAIN)
const SP800_38A: &[(&str, Mode, &str, &str, &str)] = &[
    (
        "F.1.1 ECB-AES128",
        Mode::Ecb,
        K128,
        CBC_IV,
        "3ad77bb40d7a3660a89ecaf32466ef97f5d3d58503b9699de785895a96fdbaaf\
      43b1cd7f598ece23881b00e3ed0306887b0c785e27e8ad3f8223207104725dd4",
    ),
    (
        "F.1.5 ECB-AES256",
        Mode::Ecb,
        K256,
        CBC_IV,
        "f3eed1bdb5d2a03c064b5a7e3db181f8591ccb10d410ed26dc5ba74a31362870\
      b6ed21b99ca6f4f9f153e7b1beafed1d23304b7a39f9f3ff067d8d8f9e24ecc7",
    ),
    (
        "F.2.1 CBC-AES128",
        Mode::Cbc,
        K128,
        CBC_IV,
        "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2\
      73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7",
    ),
    (
        "F.2.3 CBC-AES192",
        Mode::Cbc,
        K192,
        CBC_IV,
        "4f021db243bc633d7178183a9fa071e8b4d9ada9ad7dedf4e5e738763f69145a\
      571b242012fb7ae07fa9baac3df102e008b0e27988598881d920a9e64f5615cd",
    ),
    (
        "F.2.5 CBC-AES256",
        Mode::Cbc,
        K256,
        CBC_IV,
        "f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d\
      39f23369a9d9bacfa530e26304231461b2eb05e2c39be9fcda6c19078c6a9d1b",
    ),
    (
        "F.5.1 CTR-AES128",
        Mode::Ctr,
        K128,
        CTR_IV,
        "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff\
      5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee",
    ),
    (
        "F.5.3 CTR-AES192",
        Mode::Ctr,
        K192,
        CTR_IV,
        "1abc932417521ca24f2b0459fe7e6e0b090339ec0aa6faefd5ccc2c6f4ce8e94\
      1e36b26bd1ebc670d1bd1d665620abf74f78a7f6d29809585a97daec58c6b050",
    ),
    (
        "F.5.5 CTR-AES256",
        Mode::Ctr,
        K256,
        CTR_IV,
        "601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c5\
      2b0930daa23de94ce87017ba2d84988ddfc9c58db67aada613c2dd08457941a6",
    ),
];

/// Encrypts and decrypts on `path` with each split; checks the reported path.
fn both_ways(
    rig: &mut Rig<rig::Driver>,
    vector: (&str, Mode, &str, &str, &str),
    path: Path,
    splits: &[Vec<u32>],
    layout: Layout,
) {
    let (name, mode, key, iv, ct) = vector;
    let (plain, ct, key, iv) = (hex(PLAIN), hex(ct), hex(key), hex(iv));
    let want_path = if path == Path::Adaptive {
        Path::Pio
    } else {
        path
    };
    for split in splits {
        let n: u32 = split.iter().sum();
        let (plain, ct) = (&plain[..n as usize], &ct[..n as usize]);
        for (op, input, want) in [
            (CipherOp::Encrypt, plain, ct),
            (CipherOp::Decrypt, ct, plain),
        ] {
            let s = rig.open(mode, path, &key, &iv).unwrap();
            let got = rig.crypt(s, op, input, split, layout);
            assert_eq!(got.as_deref(), Ok(want), "{name} {op:?} {path:?} {split:?}");
            assert_eq!(rig.last_path, Some(want_path), "{name} {split:?}");
            rig.sessions.close(rig::CLIENT, s).unwrap();
        }
    }
}

#[test]
fn fips_197_appendix_c_on_cpu_and_dma() {
    let board = Board::new();
    let mut rig = Rig::new(&board, board.driver());
    let pt = hex("00112233445566778899aabbccddeeff");
    for (key, ct) in [
        (
            "000102030405060708090a0b0c0d0e0f",
            "69c4e0d86a7b0430d8cdb78070b4c55a",
        ),
        (
            "000102030405060708090a0b0c0d0e0f1011121314151617",
            "dda97ca4864cdfe06eaf70a0ec0d7191",
        ),
        (
            "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
            "8ea2b7ca516745bfeafc49904b496089",
        ),
    ] {
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
fn sp800_38a_cpu_mode_split_at_every_offset() {
    let board = Board::new();
    let mut rig = Rig::new(&board, board.driver());
    let mut splits: Vec<Vec<u32>> = vec![vec![64]];
    splits.extend((1..64).map(|k| vec![k, 64 - k]));
    splits.push(vec![5, 27, 1, 31]);
    for &v in SP800_38A {
        both_ways(&mut rig, v, Path::Pio, &splits, Layout::Scattered);
    }
}

#[test]
fn sp800_38a_dma_split_at_every_block_and_no_cpu_copy() {
    let board = Board::new();
    let mut rig = Rig::new(&board, board.driver());
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
    let mut rig = Rig::new(&board, board.driver());
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
    let mut rig = Rig::new(&board, board.driver());
    let from = rig.engine.calibration().get(Mode::Ctr, 32).dma_from_bytes;
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
    let mut rig = Rig::new(&board, board.driver());
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
    let mut rig = Rig::new(&board, board.driver());
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
