//! Checks every Cipher engine must pass, written once and run by each engine's tests.

use std::vec::Vec;

use super::{CLIENT, DATA, Layout, Rig, hex, request, status};
use crate::CipherEngine;
use pd_idl::cipher::{CipherError, CipherOp, Mode, Path};

const KEY: &str = "2b7e151628aed2a6abf7158809cf4f3c";

/// Every kind of bad request, in one batch, gets its own typed error in order, with no
/// byte done; afterwards the engine still serves. `dma`: the engine has a DMA path, so
/// forced-DMA sessions are checked too (a request DMA cannot take is `UnsupportedPath`,
/// never a silent copy).
pub fn bad_requests_get_their_own_errors<E: CipherEngine>(rig: &mut Rig<E>, dma: bool) {
    let s = rig
        .open(Mode::Cbc, Path::Adaptive, &hex(KEY), &[0; 16])
        .unwrap();
    let mut bad_op = request(5, s, &[(0, 16)]);
    bad_op.op.0 = 9;
    let mut too_many = request(6, s, &[(0, 16)]);
    too_many.nsegs = 9;
    let mut cases = Vec::from([
        (request(1, s ^ 0x7, &[(0, 16)]), CipherError::UnknownSession),
        (request(2, s, &[(0, 17)]), CipherError::BadLength),
        (
            request(3, s, &[(DATA as u32 - 8, 16)]),
            CipherError::SegmentOutOfRange,
        ),
        (
            request(4, s, &[(u32::MAX - 3, 16)]),
            CipherError::SegmentOutOfRange,
        ),
        (bad_op, CipherError::BadRequest),
        (too_many, CipherError::TooManySegments),
        (
            request(7, s, &[(0, u32::MAX), (0, 2)]),
            CipherError::SegmentOutOfRange,
        ),
        // In place, two segments sharing bytes would make the result depend on the
        // order an engine visits them.
        (
            request(10, s, &[(0, 32), (16, 32)]),
            CipherError::OverlappingSegments,
        ),
    ]);
    let forced = dma.then(|| rig.open(Mode::Cbc, Path::Dma, &hex(KEY), &[0; 16]).unwrap());
    if let Some(d) = forced {
        // Misaligned, and a segment of partial blocks before the last.
        cases.push((request(8, d, &[(2, 32)]), CipherError::UnsupportedPath));
        cases.push((
            request(9, d, &[(0, 8), (64, 24)]),
            CipherError::UnsupportedPath,
        ));
    }
    let requests: Vec<_> = cases.iter().map(|(r, _)| *r).collect();
    let answers = rig.exchange(CLIENT, &requests);
    assert_eq!(answers.len(), cases.len(), "one answer per request");
    for ((req, want), got) in cases.iter().zip(&answers) {
        assert_eq!(got.id, req.id);
        assert_eq!(status(got), Err(*want), "request {}", req.id);
        assert_eq!(got.bytes_done, 0);
    }
    for session in [Some(s), forced].into_iter().flatten() {
        let ok = rig.crypt(session, CipherOp::Encrypt, &[0; 32], &[32], Layout::Aligned);
        assert!(ok.is_ok(), "the engine still serves: {ok:?}");
    }
}

/// The client's region given to the driver at a physical address no DMA window covers:
/// the engine's bus error comes back as `EngineFault`, and both paths work afterwards.
pub fn dma_fault_is_typed_and_recovers<E: CipherEngine>(rig: &mut Rig<E>) {
    let s = rig.open(Mode::Cbc, Path::Dma, &hex(KEY), &[0; 16]).unwrap();
    let good = rig.phys;
    rig.phys = Some(0x1000);
    assert_eq!(
        rig.crypt(s, CipherOp::Encrypt, &[1; 64], &[64], Layout::Aligned),
        Err(CipherError::EngineFault)
    );
    rig.phys = good;
    let want = rig
        .crypt(s, CipherOp::Encrypt, &[1; 64], &[64], Layout::Aligned)
        .unwrap();
    let p = rig.open(Mode::Cbc, Path::Pio, &hex(KEY), &[0; 16]).unwrap();
    let pio = rig.crypt(p, CipherOp::Encrypt, &[1; 64], &[64], Layout::Aligned);
    assert_eq!(pio, Ok(want), "both routes work after the fault");
}
