//! Published vectors through the whole service path on every route: request in a queue,
//! segments in the client's region, cipher-service, the driver, the am335x model, the
//! response back. FIPS-197 Appendix C and SP 800-38A F.1, F.2, F.5; PIO split at every
//! byte offset, DMA split at every block boundary; the ledger checked on DMA. What both
//! engines check alike is `pio_dma_driver::testkit::vector_suite`.

mod rig;

use kat_vectors::{CTR_IV, K128, PLAIN, SP800_38A};
use pd_idl::cipher::{CipherError, CipherOp, Mode, Path};
use pio_dma_driver::testkit as kit;
use rig::{Board, Layout, hex};

#[test]
fn the_vectors_both_engines_pass() {
    kit::vector_suite::<rig::Omap>();
}

#[test]
fn adaptive_picks_by_size_and_alignment() {
    let mut rig = Board::new().rig();
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
fn ctr_partial_blocks_go_pio_and_forced_dma_refuses_them() {
    let mut rig = Board::new().rig();
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
