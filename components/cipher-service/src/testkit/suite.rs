//! Checks every Cipher engine must pass, written once and run by each engine's tests.

use std::vec::Vec;

use super::{CLIENT, DATA, Layout, Rig, hex, request, status};
use crate::CipherEngine;
use pd_idl::cipher::{CipherError, CipherOp, Mode, Path, Response};

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
    too_many.nsegs = segment_list::MAX_SEGMENTS as u8 + 1;
    // An IV the driver would draw: these rigs' engines have no Rng service.
    let mut new_iv = request(11, s, &[(0, 32), (64, 16)]);
    new_iv.op = CipherOp::EncryptNewIv.into();
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
        (new_iv, CipherError::NoRandomness),
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

/// Requests of one session queued together (the engine may run them as one job, see
/// [`CipherEngine::coalesces`]) give each vector's bytes as one request at a time would,
/// and each is answered once, in order, with its own id and byte count: `plain` cut into
/// requests of `per` bytes, each on its own bytes, both directions, for each vector
/// `(name, mode, key, iv, ct)` on `path`. Then: two requests rewriting the same bytes
/// give the second the first's output (ECB twice), and a transfer that fails fails
/// every request queued with it, each answered once.
pub fn queued_requests_match_one_at_a_time<E: CipherEngine>(
    rig: &mut Rig<E>,
    vectors: &[(&str, Mode, &str, &str, &str)],
    plain: &str,
    path: Path,
    per: u32,
) {
    for &(name, mode, key, iv, ct) in vectors {
        let (plain, ct) = (hex(plain), hex(ct));
        for (op, input, want) in [
            (CipherOp::Encrypt, &plain, &ct),
            (CipherOp::Decrypt, &ct, &plain),
        ] {
            let s = rig.open(mode, path, &hex(key), &hex(iv)).unwrap();
            let mut reqs = Vec::new();
            for (i, chunk) in input.chunks(per as usize).enumerate() {
                let at = 256 * i as u32;
                rig.bytes()[at as usize..at as usize + chunk.len()].copy_from_slice(chunk);
                let mut r = request(100 + i as u32, s, &[(at, chunk.len() as u32)]);
                r.op = op.into();
                reqs.push(r);
            }
            let got = rig.exchange(CLIENT, &reqs);
            assert_eq!(got.len(), reqs.len(), "{name}: one answer per request");
            let mut out = Vec::new();
            for (i, (r, a)) in reqs.iter().zip(&got).enumerate() {
                assert_eq!(a.id, r.id, "{name}: answers in order");
                assert_eq!(status(a), Ok(()), "{name} {op:?} request {i}");
                assert_eq!(a.bytes_done, r.segs[0].len, "{name}: its own bytes");
                let at = 256 * i;
                out.extend_from_slice(&rig.bytes()[at..at + r.segs[0].len as usize]);
            }
            assert_eq!(&out, want, "{name} {op:?} {path:?} in requests of {per} B");
            rig.service.sessions.close(CLIENT, s).unwrap();
        }
    }
    // Twice in place: the second request must see the first one's output.
    let block = hex("6bc1bee22e409f96e93d7e117393172a");
    let s = rig.open(Mode::Ecb, path, &hex(KEY), &[0; 16]).unwrap();
    let twice = |rig: &mut Rig<E>, s: u32, requests: usize| {
        rig.bytes()[..32].copy_from_slice(&[block.as_slice(), block.as_slice()].concat());
        let reqs: Vec<_> = (0..requests as u32)
            .map(|i| request(200 + i, s, &[(0, 32)]))
            .collect();
        let got = rig.exchange(CLIENT, &reqs);
        assert!(got.iter().all(|a| status(a).is_ok()), "{got:?}");
        rig.bytes()[..32].to_vec()
    };
    let queued = twice(rig, s, 2);
    let once = twice(rig, s, 1);
    rig.bytes()[..32].copy_from_slice(&once);
    let r = request(300, s, &[(0, 32)]);
    assert_eq!(status(&rig.exchange(CLIENT, &[r])[0]), Ok(()));
    assert_eq!(
        queued,
        rig.bytes()[..32],
        "the second saw the first's output"
    );
    rig.service.sessions.close(CLIENT, s).unwrap();
    // A failed transfer: every request queued with it gets its own EngineFault.
    if path != Path::Pio {
        let s = rig.open(Mode::Cbc, Path::Dma, &hex(KEY), &[0; 16]).unwrap();
        let good = rig.phys;
        rig.phys = Some(0x1000);
        let reqs: Vec<_> = (0..4u32)
            .map(|i| request(400 + i, s, &[(256 * i, 32)]))
            .collect();
        let got = rig.exchange(CLIENT, &reqs);
        rig.phys = good;
        assert_eq!(got.len(), 4, "{got:?}");
        for (r, a) in reqs.iter().zip(&got) {
            assert_eq!((a.id, status(a)), (r.id, Err(CipherError::EngineFault)));
        }
        rig.service.sessions.close(CLIENT, s).unwrap();
    }
}

/// A longest join and one more: `MAX_JOINED + 1` requests of `per` bytes on one CBC
/// session, queued together, give the bytes the same requests give one at a time (the
/// session's IV carries across the join and into the one left over), and take two
/// transfers: `dma_starts` (the ledger's, on a DMA path) counts one per channel each.
pub fn a_longest_join_and_one_more<E: CipherEngine>(
    rig: &mut Rig<E>,
    path: Path,
    per: u32,
    dma_starts: &dyn Fn() -> u64,
) {
    // Requests this far apart: the longest join's fit the rig's data region.
    const STRIDE: usize = 128;
    let n = crate::MAX_JOINED as u32 + 1;
    assert!(
        STRIDE * n as usize <= DATA,
        "the requests fit the data region"
    );
    assert!(
        per as usize <= STRIDE,
        "requests apart: overlapping ones would not join"
    );
    let plain: Vec<u8> = (0..per * n).map(|i| (i * 7 + 3) as u8).collect();
    let reqs = |rig: &mut Rig<E>, s: u32| -> Vec<_> {
        (0..n)
            .map(|i| {
                let at = STRIDE as u32 * i;
                let chunk = &plain[(per * i) as usize..][..per as usize];
                rig.bytes()[at as usize..][..per as usize].copy_from_slice(chunk);
                request(400 + i, s, &[(at, per)])
            })
            .collect()
    };
    let out = |rig: &mut Rig<E>| -> Vec<u8> {
        (0..n as usize)
            .flat_map(|i| rig.bytes()[STRIDE * i..][..per as usize].to_vec())
            .collect()
    };
    let s = rig.open(Mode::Cbc, path, &hex(KEY), &[9; 16]).unwrap();
    let batch = reqs(rig, s);
    let before = dma_starts();
    let got = rig.exchange(CLIENT, &batch);
    let starts = dma_starts() - before;
    assert_eq!(got.len(), batch.len(), "one answer per request");
    assert!(got.iter().all(|a| status(a).is_ok()), "{got:?}");
    let queued = out(rig);
    rig.service.sessions.close(CLIENT, s).unwrap();
    let s = rig.open(Mode::Cbc, path, &hex(KEY), &[9; 16]).unwrap();
    for r in reqs(rig, s) {
        assert_eq!(status(&rig.exchange(CLIENT, &[r])[0]), Ok(()));
    }
    assert_eq!(queued, out(rig), "{path:?}: joined as one at a time");
    rig.service.sessions.close(CLIENT, s).unwrap();
    if path == Path::Dma {
        assert_eq!(
            starts,
            4,
            "a join of {} and one alone, two channels each",
            n - 1
        );
    }
}

/// How a driver joins queued requests, on every path (DMA, adaptive, PIO): the longest
/// join and one more ([`a_longest_join_and_one_more`]), and runs split by session and by
/// a bad request ([`runs_split_at_another_session_and_at_a_bad_request`]); `per`: the
/// requests' size (one the driver's DMA takes), `dma_starts`: the ledger's DMA starts.
pub fn joins_on_every_path<E: CipherEngine>(
    rig: &mut Rig<E>,
    per: u32,
    dma_starts: &dyn Fn() -> u64,
) {
    for path in [Path::Dma, Path::Adaptive, Path::Pio] {
        a_longest_join_and_one_more(rig, path, per, dma_starts);
        runs_split_at_another_session_and_at_a_bad_request(rig, path, per, dma_starts);
    }
}

/// Queued runs split where the session changes and at a bad request, and a failure fails
/// only the run it touched. Sessions A and B (CBC, keys and IVs of their own) queued
/// interleaved as A A B A A x A A B, x being A's request past the region's end: each is
/// answered once, in order, with its own status, and each session's bytes are what its
/// requests give one at a time; on `path` Dma the runs take five transfers, two channel
/// starts each (`dma_starts`), where a join across B or across x would take fewer, and on
/// Pio none. Then (once, with `path` Dma), with the region's physical address outside
/// every DMA window, A on DMA and B on PIO queued as A A B A B: each of A's requests
/// fails with `EngineFault`, each of B's is served, with B's bytes.
pub fn runs_split_at_another_session_and_at_a_bad_request<E: CipherEngine>(
    rig: &mut Rig<E>,
    path: Path,
    per: u32,
    dma_starts: &dyn Fn() -> u64,
) {
    const STRIDE: u32 = 128;
    assert!(per <= STRIDE && 9 * STRIDE as usize <= DATA);
    let keys = [
        hex(KEY),
        hex("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4"),
    ];
    let ivs = [[3u8; 16], [11u8; 16]];
    let plain = |i: u32| -> Vec<u8> { (0..per).map(|b| (i * 31 + b * 7) as u8).collect() };
    let bad = (DATA as u32 - 8, 16);
    // (session: 0 for A, 1 for B; out of the region?) in queue order.
    let order = [
        (0, false),
        (0, false),
        (1, false),
        (0, false),
        (0, false),
        (0, true),
        (0, false),
        (0, false),
        (1, false),
    ];
    let paths = [path, path];
    // Queues `order` at once (or one at a time) on fresh sessions; returns each
    // request's status and output bytes, and the DMA starts taken.
    let run = |rig: &mut Rig<E>, order: &[(usize, bool)], paths: [Path; 2], at_once: bool| {
        let s: Vec<u32> = (0..2)
            .map(|k| {
                let key = &keys[k];
                rig.open(Mode::Cbc, paths[k], key, &ivs[k]).unwrap()
            })
            .collect();
        let reqs: Vec<_> = order
            .iter()
            .enumerate()
            .map(|(i, &(k, out_of_region))| {
                let at = STRIDE * i as u32;
                rig.bytes()[at as usize..][..per as usize].copy_from_slice(&plain(i as u32));
                let seg = if out_of_region { bad } else { (at, per) };
                request(500 + i as u32, s[k], &[seg])
            })
            .collect();
        let before = dma_starts();
        let got: Vec<Response> = if at_once {
            rig.exchange(CLIENT, &reqs)
        } else {
            reqs.iter()
                .flat_map(|r| rig.exchange(CLIENT, &[*r]))
                .collect()
        };
        let starts = dma_starts() - before;
        assert_eq!(got.len(), reqs.len(), "one answer per request: {got:?}");
        let answers: Vec<_> = reqs
            .iter()
            .zip(&got)
            .enumerate()
            .map(|(i, (r, a))| {
                assert_eq!(a.id, r.id, "answers in order");
                let at = STRIDE as usize * i;
                (
                    status(a),
                    a.bytes_done,
                    rig.bytes()[at..][..per as usize].to_vec(),
                )
            })
            .collect::<Vec<_>>();
        for k in s {
            rig.service.sessions.close(CLIENT, k).unwrap();
        }
        (answers, starts)
    };
    let (queued, starts) = run(rig, &order, paths, true);
    let (alone, _) = run(rig, &order, paths, false);
    for (i, (q, a)) in queued.iter().zip(&alone).enumerate() {
        let (k, out_of_region) = order[i];
        let want = if out_of_region {
            (Err(CipherError::SegmentOutOfRange), 0)
        } else {
            (Ok(()), per)
        };
        assert_eq!((q.0, q.1), want, "{path:?} request {i} (session {k})");
        assert_eq!(q, a, "{path:?} request {i} (session {k}): as one at a time");
    }
    match path {
        Path::Dma => assert_eq!(
            starts, 10,
            "runs A A | B | A A | x | A A | B, two channels each"
        ),
        Path::Pio => assert_eq!(starts, 0, "PIO starts no DMA"),
        _ => {}
    }
    if path == Path::Dma {
        // A failed transfer: only its own requests fail (once, from the DMA call: it
        // sets its own paths).
        let good = rig.phys;
        rig.phys = Some(0x1000);
        let order = [(0, false), (0, false), (1, false), (0, false), (1, false)];
        let (queued, _) = run(rig, &order, [Path::Dma, Path::Pio], true);
        rig.phys = good;
        let (alone, _) = run(rig, &order, [Path::Pio, Path::Pio], false);
        for (i, (q, a)) in queued.iter().zip(&alone).enumerate() {
            if order[i].0 == 0 {
                assert_eq!(
                    (q.0, q.1),
                    (Err(CipherError::EngineFault), 0),
                    "A's request {i}"
                );
            } else {
                assert_eq!(q, a, "B's request {i}: served, as one at a time");
                assert_eq!(q.0, Ok(()));
            }
        }
    }
}

/// An engine that keeps a session's key and IV loaded between jobs reuses them only
/// when they are exactly what the next job needs: the vector `(name, mode, key, iv, ct)`
/// (CBC or CTR) enciphered a block per request on `path`, with another session's
/// request, a decryption and a loss of power between them, still gives `ct`. `kept()`
/// reads how many jobs so far found their context held (the ledger's `ContextKept`).
pub fn held_context_only_when_it_matches<E: CipherEngine>(
    rig: &mut Rig<E>,
    vector: (&str, Mode, &str, &str, &str),
    plain: &str,
    path: Path,
    kept: &dyn Fn() -> u64,
) {
    let (name, mode, key, iv, ct) = vector;
    let (plain, ct) = (hex(plain), hex(ct));
    let s = rig.open(mode, path, &hex(key), &hex(iv)).unwrap();
    let other = rig.open(Mode::Cbc, path, &hex(KEY), &[7; 16]).unwrap();
    let mut out = Vec::new();
    let block = |rig: &mut Rig<E>, i: usize| {
        let k = kept();
        let got = rig.crypt(
            s,
            CipherOp::Encrypt,
            &plain[16 * i..16 * (i + 1)],
            &[16],
            Layout::Aligned,
        );
        (got.unwrap(), kept() - k)
    };
    // The first block loads the context; the second finds it held.
    let (b0, k0) = block(rig, 0);
    let (b1, k1) = block(rig, 1);
    assert_eq!((k0, k1), (0, 1), "{name}: loaded, then held");
    out.extend(b0);
    out.extend(b1);
    // Another session's request between: the context is loaded again, the IV carried.
    rig.crypt(other, CipherOp::Encrypt, &[1; 16], &[16], Layout::Aligned)
        .unwrap();
    let (b2, k2) = block(rig, 2);
    assert_eq!(k2, 0, "{name}: another session ran between");
    out.extend(b2);
    // Power lost: nothing held any more.
    rig.service.engine.context_lost();
    let (b3, k3) = block(rig, 3);
    assert_eq!(k3, 0, "{name}: after a loss of power");
    out.extend(b3);
    assert_eq!(out, ct, "{name} a block per request on {path:?}");
    // The other direction of a held session loads its context.
    let k = kept();
    rig.crypt(s, CipherOp::Decrypt, &[2; 16], &[16], Layout::Aligned)
        .unwrap();
    assert_eq!(kept() - k, 0, "{name}: a decryption after encryptions");
    rig.service.sessions.close(CLIENT, s).unwrap();
    rig.service.sessions.close(CLIENT, other).unwrap();
}
