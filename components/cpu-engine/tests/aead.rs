//! The CPU Aead engine through the whole client -> queue -> service -> engine path:
//! CAVP's GCM cases (failing tags included), SP 800-38C's and CAVP's CCM cases, the
//! engine's own CCM against RustCrypto's `ccm` at every nonce and tag length, and each
//! typed refusal.

use aead_service::{Aead, Open};
use cpu_engine::aead::CpuAead;
use kat_vectors::{AeadVector, CCM, GCM};
use pd_idl::aead::{AeadAlgorithm, AeadError, AeadOp, Request};
use queued_service::Interface;
use queued_service::testkit::{CLIENT, Region, Rig, fill};

const KEY_AT: u32 = 3;
const NONCE_AT: u32 = 41;
const AAD_AT: u32 = 101;
const PAYLOAD_AT: u32 = 3001;
/// The longest payload the tests send: several of the engine's 2 KiB pieces, with a
/// segment's end inside one.
const LONG: usize = 9000;
/// Past the longest payload, with room for any tag and canaries around it.
const TAG_AT: u32 = PAYLOAD_AT + LONG as u32 + 300;
const REGION: usize = 16 * 1024;

fn hex(s: &str) -> Vec<u8> {
    let mut out = vec![0; s.len() / 2];
    kat_vectors::hex(s, &mut out);
    out
}

struct Case<'a> {
    key: &'a [u8],
    nonce: &'a [u8],
    aad: &'a [u8],
    tag_len: usize,
}

fn rig() -> Rig<Aead<CpuAead>> {
    Rig::new(CpuAead::default(), Region::new(REGION), None)
}

fn open(
    rig: &mut Rig<Aead<CpuAead>>,
    alg: AeadAlgorithm,
    key: &[u8],
    nonce_len: usize,
    tag_len: usize,
) -> Result<u32, AeadError> {
    rig.data.write(KEY_AT as usize, key);
    let args = Open::in_region(
        pd_idl::aead::OpenSessionArgs {
            algorithm: alg,
            key_offset: KEY_AT,
            key_len: key.len() as u32,
            nonce_len: nonce_len as u8,
            tag_len: tag_len as u8,
        },
        Some(rig.client_data()),
    );
    <Aead<CpuAead> as Interface>::precheck(&rig.service.engine, &args)?;
    rig.open_as(CLIENT, args)
}

/// Payload segments of the `split` lengths from `PAYLOAD_AT`, 5 bytes apart.
fn payload_segs(split: &[usize]) -> Vec<(u32, u32)> {
    let mut at = PAYLOAD_AT;
    split
        .iter()
        .map(|&n| {
            let s = (at, n as u32);
            at += n as u32 + 5;
            s
        })
        .collect()
}

/// Lays out one message (the payload cut by `split`), sends one `op` request; the
/// answer's status, and the payload and tag as the region holds them after.
fn one(
    rig: &mut Rig<Aead<CpuAead>>,
    s: u32,
    op: AeadOp,
    c: &Case<'_>,
    payload: &[u8],
    tag: &[u8],
    split: &[usize],
) -> (Result<(), AeadError>, Vec<u8>, Vec<u8>) {
    rig.data.write(0, &fill(REGION));
    rig.data.write(NONCE_AT as usize, c.nonce);
    rig.data.write(AAD_AT as usize, c.aad);
    let segs = payload_segs(split);
    let mut from = 0;
    for &(at, n) in &segs {
        rig.data
            .write(at as usize, &payload[from..from + n as usize]);
        from += n as usize;
    }
    assert_eq!(from, payload.len());
    rig.data.write(TAG_AT as usize, tag);
    let before = rig.data.bytes().to_vec();
    let aad: &[(u32, u32)] = &[(AAD_AT, c.aad.len() as u32)];
    let tag_seg = (TAG_AT, c.tag_len as u32);
    let req = Request::message(
        9,
        s,
        op,
        (NONCE_AT, c.nonce.len() as u32),
        aad,
        &segs,
        tag_seg,
    );
    let resp = rig.exchange(CLIENT, &[req]);
    assert_eq!(resp.len(), 1, "one answer per request");
    let status = resp[0]
        .status
        .check()
        .expect("a status the interface defines");
    let after = rig.data.bytes();
    let out: Vec<u8> = segs
        .iter()
        .flat_map(|&(at, n)| after[at as usize..(at + n) as usize].to_vec())
        .collect();
    let t = after[TAG_AT as usize..TAG_AT as usize + c.tag_len].to_vec();
    // Nothing but the payload and (an encrypt's) tag changes.
    for (i, (a, b)) in after.iter().zip(&before).enumerate() {
        let in_payload = segs
            .iter()
            .any(|&(at, n)| (at as usize..(at + n) as usize).contains(&i));
        let in_tag =
            op == AeadOp::Encrypt && (TAG_AT as usize..TAG_AT as usize + c.tag_len).contains(&i);
        assert!(a == b || in_payload || in_tag, "byte {i} changed");
    }
    if status.is_ok() {
        assert_eq!(resp[0].bytes_done as usize, payload.len());
    } else if status != Err(AeadError::TagMismatch) {
        assert!(after == &before[..], "a refused request writes nothing");
    }
    (status, out, t)
}

/// A published case: encrypted (if it has a plaintext) to its ciphertext and tag, and
/// decrypted to its plaintext, or refused with the payload zeroed (FAIL).
fn run_vector(rig: &mut Rig<Aead<CpuAead>>, v: &AeadVector, split: &[usize]) {
    let (key, nonce, aad, ct, tag) = (
        hex(v.key),
        hex(v.nonce),
        hex(v.aad),
        hex(v.cipher),
        hex(v.tag),
    );
    let c = Case {
        key: &key,
        nonce: &nonce,
        aad: &aad,
        tag_len: tag.len(),
    };
    let s = open(rig, v.algorithm, c.key, nonce.len(), tag.len()).unwrap();
    match v.plain.map(hex) {
        Some(pt) => {
            let (st, got_ct, got_tag) = one(rig, s, AeadOp::Encrypt, &c, &pt, &[], split);
            assert_eq!(st, Ok(()), "{}", v.source);
            assert_eq!((got_ct, got_tag), (ct.clone(), tag.clone()), "{}", v.source);
            let (st, got_pt, _) = one(rig, s, AeadOp::Decrypt, &c, &ct, &tag, split);
            assert_eq!(st, Ok(()), "{}", v.source);
            assert_eq!(got_pt, pt, "{}", v.source);
        }
        None => {
            let (st, got, _) = one(rig, s, AeadOp::Decrypt, &c, &ct, &tag, split);
            assert_eq!(st, Err(AeadError::TagMismatch), "{}", v.source);
            assert!(got.iter().all(|&b| b == 0), "{}: payload zeroed", v.source);
        }
    }
    rig.service.close(CLIENT, s).unwrap();
}

#[test]
fn cavp_gcm_cases_pass_and_their_fails_fail() {
    let mut rig = rig();
    for v in GCM {
        let n = hex(v.cipher).len();
        run_vector(&mut rig, v, &[n]);
        // Across three payload segments too.
        run_vector(&mut rig, v, &[n / 3, n / 2 - n / 3, n - n / 2]);
    }
    assert!(GCM.iter().filter(|v| v.plain.is_none()).count() >= 6);
}

#[test]
fn sp800_38c_and_cavp_ccm_cases_pass() {
    let mut rig = rig();
    for v in CCM {
        let n = hex(v.cipher).len();
        run_vector(&mut rig, v, &[n]);
        run_vector(&mut rig, v, &[n / 2, n - n / 2]);
    }
}

#[test]
fn a_forged_tag_never_releases_plaintext() {
    let mut rig = rig();
    for v in GCM.iter().chain(CCM).filter(|v| v.plain.is_some()) {
        let (key, nonce, aad, ct) = (hex(v.key), hex(v.nonce), hex(v.aad), hex(v.cipher));
        let c = Case {
            key: &key,
            nonce: &nonce,
            aad: &aad,
            tag_len: v.tag.len() / 2,
        };
        let s = open(&mut rig, v.algorithm, c.key, nonce.len(), c.tag_len).unwrap();
        for bit in [0, 7, c.tag_len * 8 - 1] {
            let mut tag = hex(v.tag);
            tag[bit / 8] ^= 1 << (bit % 8);
            let (st, got, _) = one(&mut rig, s, AeadOp::Decrypt, &c, &ct, &tag, &[ct.len()]);
            assert_eq!(st, Err(AeadError::TagMismatch), "{} bit {bit}", v.source);
            assert!(got.iter().all(|&b| b == 0), "{}: zeroed", v.source);
        }
        if !ct.is_empty() {
            // A flipped ciphertext bit, with the published tag.
            let mut bad = ct.clone();
            bad[0] ^= 0x80;
            let (st, got, _) = one(
                &mut rig,
                s,
                AeadOp::Decrypt,
                &c,
                &bad,
                &hex(v.tag),
                &[ct.len()],
            );
            assert_eq!(st, Err(AeadError::TagMismatch), "{}", v.source);
            assert!(got.iter().all(|&b| b == 0));
        }
        rig.service.close(CLIENT, s).unwrap();
    }
}

/// RustCrypto's `ccm` for one (key, tag, nonce) size: the ciphertext and tag.
macro_rules! reference_ccm {
    ($key:expr, $nonce:expr, $aad:expr, $pt:expr, $tag:expr; $($n:literal => $N:ty),*; $($t:literal => $T:ty),*) => {{
        use ccm::aead::{AeadInPlace, KeyInit, generic_array::GenericArray};
        fn with<C, M, N>(key: &[u8], nonce: &[u8], aad: &[u8], pt: &[u8]) -> (Vec<u8>, Vec<u8>)
        where
            C: ccm::aead::KeyInit + aes::cipher::BlockCipher + aes::cipher::BlockSizeUser<BlockSize = ccm::consts::U16> + aes::cipher::BlockEncrypt,
            M: ccm::aead::generic_array::ArrayLength<u8> + ccm::TagSize,
            N: ccm::aead::generic_array::ArrayLength<u8> + ccm::NonceSize,
        {
            let c = ccm::Ccm::<C, M, N>::new_from_slice(key).unwrap();
            let mut buf = pt.to_vec();
            let t = c.encrypt_in_place_detached(GenericArray::from_slice(nonce), aad, &mut buf).unwrap();
            (buf, t.to_vec())
        }
        fn tagged<C, N>(t: usize, key: &[u8], nonce: &[u8], aad: &[u8], pt: &[u8]) -> (Vec<u8>, Vec<u8>)
        where
            C: ccm::aead::KeyInit + aes::cipher::BlockCipher + aes::cipher::BlockSizeUser<BlockSize = ccm::consts::U16> + aes::cipher::BlockEncrypt,
            N: ccm::aead::generic_array::ArrayLength<u8> + ccm::NonceSize,
        {
            match t { $($t => with::<C, $T, N>(key, nonce, aad, pt),)* _ => unreachable!() }
        }
        fn keyed<C>(t: usize, key: &[u8], nonce: &[u8], aad: &[u8], pt: &[u8]) -> (Vec<u8>, Vec<u8>)
        where
            C: ccm::aead::KeyInit + aes::cipher::BlockCipher + aes::cipher::BlockSizeUser<BlockSize = ccm::consts::U16> + aes::cipher::BlockEncrypt,
        {
            match nonce.len() { $($n => tagged::<C, $N>(t, key, nonce, aad, pt),)* _ => unreachable!() }
        }
        let (key, nonce, aad, pt, t): (&[u8], &[u8], &[u8], &[u8], usize) = ($key, $nonce, $aad, $pt, $tag);
        match key.len() {
            16 => keyed::<aes::Aes128>(t, key, nonce, aad, pt),
            24 => keyed::<aes::Aes192>(t, key, nonce, aad, pt),
            _ => keyed::<aes::Aes256>(t, key, nonce, aad, pt),
        }
    }};
}

#[test]
fn ccm_matches_rustcrypto_at_every_nonce_and_tag_length() {
    use ccm::consts::*;
    let mut rig = rig();
    let mut ran = 0;
    for key_len in [16, 24, 32] {
        let key: Vec<u8> = (0..key_len as u8)
            .map(|i| i.wrapping_mul(29) ^ 0x5a)
            .collect();
        for n in 7..=13 {
            let nonce: Vec<u8> = (0..n as u8).map(|i| i * 3 + 1).collect();
            for t in (4..=16).step_by(2) {
                let s = open(&mut rig, AeadAlgorithm::AesCcm, &key, n, t).unwrap();
                for (plen, alen) in [
                    (0, 0),
                    (1, 0),
                    (0, 1),
                    (16, 16),
                    (17, 14),
                    (100, 300),
                    (LONG, 2600),
                ] {
                    let pt: Vec<u8> = (0..plen).map(|i| (i * 13 + n + t) as u8).collect();
                    let aad: Vec<u8> = (0..alen).map(|i| (i * 5 + 7) as u8).collect();
                    let want = reference_ccm!(&key, &nonce, &aad, &pt, t;
                        7 => U7, 8 => U8, 9 => U9, 10 => U10, 11 => U11, 12 => U12, 13 => U13;
                        4 => U4, 6 => U6, 8 => U8, 10 => U10, 12 => U12, 14 => U14, 16 => U16);
                    let c = Case {
                        key: &key,
                        nonce: &nonce,
                        aad: &aad,
                        tag_len: t,
                    };
                    let (st, ct, tag) = one(&mut rig, s, AeadOp::Encrypt, &c, &pt, &[], &[plen]);
                    assert_eq!(st, Ok(()));
                    assert_eq!(
                        (ct.clone(), tag.clone()),
                        want,
                        "key {key_len} nonce {n} tag {t} p {plen} a {alen}"
                    );
                    let (st, back, _) = one(&mut rig, s, AeadOp::Decrypt, &c, &ct, &tag, &[plen]);
                    assert_eq!((st, back), (Ok(()), pt));
                    ran += 1;
                }
                rig.service.close(CLIENT, s).unwrap();
            }
        }
    }
    assert_eq!(ran, 3 * 7 * 7 * 7);
}

#[test]
fn gcm_short_tags_are_the_full_tag_cut() {
    // SP 800-38D 5.2.1.2: a t-bit tag is MSB_t of the full one.
    let mut rig = rig();
    let v = GCM
        .iter()
        .find(|v| v.source.contains("PT408 AAD160 #0"))
        .unwrap();
    let (key, nonce, aad, pt, full) = (
        hex(v.key),
        hex(v.nonce),
        hex(v.aad),
        hex(v.plain.unwrap()),
        hex(v.tag),
    );
    for t in 12..=16 {
        let s = open(&mut rig, AeadAlgorithm::AesGcm, &key, 12, t).unwrap();
        let c = Case {
            key: &key,
            nonce: &nonce,
            aad: &aad,
            tag_len: t,
        };
        let (st, _, tag) = one(&mut rig, s, AeadOp::Encrypt, &c, &pt, &[], &[pt.len()]);
        assert_eq!((st, tag), (Ok(()), full[..t].to_vec()), "tag {t}");
        rig.service.close(CLIENT, s).unwrap();
    }
}

#[test]
fn bad_lengths_at_open_are_typed() {
    let mut rig = rig();
    let k = [1u8; 16];
    use AeadAlgorithm::*;
    for (alg, key_len, n, t, want) in [
        (AesGcm, 16, 11, 16, AeadError::BadNonceLength),
        (AesGcm, 16, 13, 16, AeadError::BadNonceLength),
        (AesCcm, 16, 6, 16, AeadError::BadNonceLength),
        (AesCcm, 16, 14, 16, AeadError::BadNonceLength),
        (AesGcm, 16, 12, 8, AeadError::BadTagLength),
        (AesGcm, 16, 12, 17, AeadError::BadTagLength),
        (AesCcm, 16, 13, 5, AeadError::BadTagLength),
        (AesCcm, 16, 13, 18, AeadError::BadTagLength),
        (AesCcm, 16, 13, 2, AeadError::BadTagLength),
        (AesGcm, 15, 12, 16, AeadError::BadKeySize),
        (AesGcm, 0, 12, 16, AeadError::BadKeySize),
    ] {
        let got = open(&mut rig, alg, &k[..key_len.min(16)], n, t);
        let got = if key_len > 16 {
            open(&mut rig, alg, &[0; 33][..key_len], n, t)
        } else {
            got
        };
        assert_eq!(got, Err(want), "{alg:?} key {key_len} nonce {n} tag {t}");
    }
    // A key past the region's end.
    let args = Open::in_region(
        pd_idl::aead::OpenSessionArgs {
            algorithm: AesGcm,
            key_offset: (REGION - 8) as u32,
            key_len: 16,
            nonce_len: 12,
            tag_len: 16,
        },
        Some(rig.client_data()),
    );
    assert_eq!(rig.open_as(CLIENT, args), Err(AeadError::BadKeySize));
}

#[test]
fn bad_requests_are_typed_and_write_nothing() {
    let mut rig = rig();
    let key = [7u8; 16];
    let s = open(&mut rig, AeadAlgorithm::AesGcm, &key, 12, 16).unwrap();
    let nonce = (NONCE_AT, 12);
    let aad = [(AAD_AT, 16)];
    let pay = [(PAYLOAD_AT, 64)];
    let tag = (TAG_AT, 16);
    let send = |rig: &mut Rig<Aead<CpuAead>>, r: Request| {
        rig.data.write(0, &fill(REGION));
        let before = rig.data.bytes().to_vec();
        let a = rig.exchange(CLIENT, &[r]);
        assert!(rig.data.bytes() == &before[..], "a refusal writes nothing");
        a[0].status.check().unwrap()
    };
    use AeadOp::{Decrypt, Encrypt};
    let cases: Vec<(Request, AeadError)> = vec![
        (
            Request::message(1, s, Encrypt, (NONCE_AT, 11), &aad, &pay, tag),
            AeadError::BadNonceLength,
        ),
        (
            Request::message(1, s, Decrypt, (NONCE_AT, 13), &aad, &pay, tag),
            AeadError::BadNonceLength,
        ),
        (
            Request::message(1, s, Decrypt, nonce, &aad, &pay, (TAG_AT, 12)),
            AeadError::BadTagLength,
        ),
        (
            Request::message(1, s, Decrypt, nonce, &aad, &pay, (TAG_AT, 17)),
            AeadError::BadTagLength,
        ),
        (
            Request::message(1, s, Encrypt, nonce, &aad, &pay, (TAG_AT, 15)),
            AeadError::BadTagLength,
        ),
        (
            Request::message(1, s, Encrypt, nonce, &[(REGION as u32 - 8, 16)], &pay, tag),
            AeadError::SegmentOutOfRange,
        ),
        (
            Request::message(1, s, Decrypt, nonce, &[(u32::MAX - 2, 16)], &pay, tag),
            AeadError::SegmentOutOfRange,
        ),
        (
            Request::message(1, s, Encrypt, nonce, &aad, &[(REGION as u32 - 32, 64)], tag),
            AeadError::SegmentOutOfRange,
        ),
        (
            Request::message(
                1,
                s,
                Encrypt,
                nonce,
                &aad,
                &[(PAYLOAD_AT, 64), (PAYLOAD_AT + 32, 8)],
                tag,
            ),
            AeadError::OverlappingSegments,
        ),
        (
            Request::message(1, s, Encrypt, nonce, &aad, &pay, (PAYLOAD_AT + 60, 16)),
            AeadError::OverlappingSegments,
        ),
        (
            Request::message(1, s, Encrypt, nonce, &aad, &[(1, 1); 4], tag),
            AeadError::TooManySegments,
        ),
        (
            Request::message(1, s + 1, Encrypt, nonce, &aad, &pay, tag),
            AeadError::UnknownSession,
        ),
    ];
    for (r, want) in cases {
        assert_eq!(send(&mut rig, r), Err(want), "{r:?}");
    }
    // A count of AAD past the segments, and a list with no room for a tag.
    let mut r = Request::message(1, s, Encrypt, nonce, &aad, &pay, tag);
    r.naad = 3;
    assert_eq!(send(&mut rig, r), Err(AeadError::BadRequest));
    r.naad = 0;
    r.nsegs = 1;
    assert_eq!(send(&mut rig, r), Err(AeadError::BadRequest));
    r.nsegs = 4;
    r.op = pd_idl::aead::AeadOpRaw(9);
    assert_eq!(send(&mut rig, r), Err(AeadError::BadRequest));
}

#[test]
fn a_ccm_payload_past_what_b0_counts_is_too_long() {
    let mut rig = Rig::new(CpuAead::default(), Region::new(80 * 1024), None);
    let key = [9u8; 16];
    let far_tag = (80 * 1024 - 16, 16);
    let request = |s, n, len| {
        Request::message(
            1,
            s,
            AeadOp::Encrypt,
            (NONCE_AT, n),
            &[],
            &[(PAYLOAD_AT, len)],
            far_tag,
        )
    };
    // A 13-byte nonce leaves B0 two bytes: 65,535 is the longest payload.
    let s = open(&mut rig, AeadAlgorithm::AesCcm, &key, 13, 16).unwrap();
    let before = rig.data.bytes().to_vec();
    let r = rig.exchange(CLIENT, &[request(s, 13, 65_536)]);
    assert_eq!(r[0].status.check(), Ok(Err(AeadError::MessageTooLong)));
    assert!(rig.data.bytes() == &before[..], "a refusal writes nothing");
    let r = rig.exchange(CLIENT, &[request(s, 13, 65_535)]);
    assert_eq!(r[0].status.check(), Ok(Ok(())));
    assert_eq!(r[0].bytes_done, 65_535);
    // A 12-byte nonce leaves three: the same payload is taken.
    let s = open(&mut rig, AeadAlgorithm::AesCcm, &key, 12, 16).unwrap();
    let r = rig.exchange(CLIENT, &[request(s, 12, 65_536)]);
    assert_eq!(r[0].status.check(), Ok(Ok(())));
}

/// RustCrypto's `aes-gcm` sealing with a 16-byte tag: the ciphertext and tag.
fn reference_gcm(key: &[u8], nonce: &[u8], aad: &[u8], pt: &[u8]) -> (Vec<u8>, Vec<u8>) {
    use aes_gcm::aead::{AeadInPlace, KeyInit};
    let mut buf = pt.to_vec();
    let nonce = aes_gcm::Nonce::from_slice(nonce);
    let tag = match key.len() {
        16 => aes_gcm::Aes128Gcm::new_from_slice(key)
            .unwrap()
            .encrypt_in_place_detached(nonce, aad, &mut buf),
        24 => aes_gcm::AesGcm::<aes::Aes192, aes_gcm::aead::consts::U12>::new_from_slice(key)
            .unwrap()
            .encrypt_in_place_detached(nonce, aad, &mut buf),
        _ => aes_gcm::Aes256Gcm::new_from_slice(key)
            .unwrap()
            .encrypt_in_place_detached(nonce, aad, &mut buf),
    }
    .unwrap();
    (buf, tag.to_vec())
}

#[test]
fn gcm_matches_rustcrypto_over_long_messages_cut_anywhere() {
    // The engine streams through 2 KiB pieces: lengths and cuts that put block and
    // piece boundaries inside segments, AAD longer than a piece.
    let mut rig = rig();
    let mut ran = 0;
    for key_len in [16, 24, 32] {
        let key: Vec<u8> = (0..key_len as u8).map(|i| i.wrapping_mul(71) ^ 3).collect();
        let nonce: Vec<u8> = (0..12u8).map(|i| i * 7 + key_len as u8).collect();
        let s = open(&mut rig, AeadAlgorithm::AesGcm, &key, 12, 16).unwrap();
        for (split, alen) in [
            (&[0][..], 0),
            (&[1], 2049),
            (&[15, 17], 16),
            (&[2047, 2], 2600),
            (&[2049, 4096, 13], 1),
            (&[LONG], 2048),
            (&[1000, 3001, 4999], 33),
        ] {
            let plen: usize = split.iter().sum();
            let pt: Vec<u8> = (0..plen).map(|i| (i * 31 + alen) as u8).collect();
            let aad: Vec<u8> = (0..alen).map(|i| (i * 3 + 1) as u8).collect();
            let want = reference_gcm(&key, &nonce, &aad, &pt);
            let c = Case {
                key: &key,
                nonce: &nonce,
                aad: &aad,
                tag_len: 16,
            };
            let (st, ct, tag) = one(&mut rig, s, AeadOp::Encrypt, &c, &pt, &[], split);
            assert_eq!(st, Ok(()));
            assert!(
                (ct.clone(), tag.clone()) == want,
                "key {key_len} {split:?} a {alen}"
            );
            let (st, back, _) = one(&mut rig, s, AeadOp::Decrypt, &c, &ct, &tag, split);
            assert!(
                st == Ok(()) && back == pt,
                "key {key_len} {split:?} a {alen}"
            );
            ran += 1;
        }
        rig.service.close(CLIENT, s).unwrap();
    }
    assert_eq!(ran, 21);
}

#[test]
fn ccm_encodes_long_aad_as_rustcrypto_does() {
    // SP 800-38C A.2.2: AAD of 2^16 - 2^8 bytes or more is 0xfffe and four bytes.
    use ccm::consts::*;
    let mut rig = Rig::new(CpuAead::default(), Region::new(80 * 1024), None);
    let key = [0x42u8; 16];
    let nonce = [5u8; 12];
    let (aad_at, payload_at, tag_at) = (100u32, 70_000u32, 79_000u32);
    let s = open(&mut rig, AeadAlgorithm::AesCcm, &key, 12, 16).unwrap();
    for alen in [0xfeff, 0xff00, 0xff01] {
        let aad: Vec<u8> = (0..alen).map(|i| (i * 11) as u8).collect();
        let pt: Vec<u8> = (0..100u8).collect();
        let want = reference_ccm!(&key, &nonce, &aad, &pt, 16; 12 => U12; 16 => U16);
        rig.data.write(NONCE_AT as usize, &nonce);
        rig.data.write(aad_at as usize, &aad);
        rig.data.write(payload_at as usize, &pt);
        let req = Request::message(
            1,
            s,
            AeadOp::Encrypt,
            (NONCE_AT, 12),
            &[(aad_at, alen as u32)],
            &[(payload_at, 100)],
            (tag_at, 16),
        );
        assert_eq!(rig.exchange(CLIENT, &[req])[0].status.check(), Ok(Ok(())));
        let b = rig.data.bytes();
        let got = (
            b[payload_at as usize..payload_at as usize + 100].to_vec(),
            b[tag_at as usize..tag_at as usize + 16].to_vec(),
        );
        assert!(got == want, "aad {alen}");
    }
}

#[test]
fn a_sessions_key_is_expanded_once_and_forgotten_at_its_close() {
    let mut rig = rig();
    let (a, b) = ([1u8; 16], [2u8; 32]);
    let seal = |rig: &mut Rig<Aead<CpuAead>>, s| {
        let req = Request::message(
            1,
            s,
            AeadOp::Encrypt,
            (NONCE_AT, 12),
            &[],
            &[(PAYLOAD_AT, 100)],
            (TAG_AT, 16),
        );
        assert_eq!(rig.exchange(CLIENT, &[req])[0].status.check(), Ok(Ok(())));
        rig.service.engine.expansions
    };
    let sa = open(&mut rig, AeadAlgorithm::AesGcm, &a, 12, 16).unwrap();
    let sb = open(&mut rig, AeadAlgorithm::AesCcm, &b, 12, 16).unwrap();
    assert_eq!(
        [seal(&mut rig, sa), seal(&mut rig, sa), seal(&mut rig, sa)],
        [1, 1, 1]
    );
    // Another key replaces it; back again, it is expanded again.
    assert_eq!(
        [seal(&mut rig, sb), seal(&mut rig, sb), seal(&mut rig, sa)],
        [2, 2, 3]
    );
    // Closed, its expansion is forgotten: a new session on the same key expands anew.
    rig.service.close(CLIENT, sa).unwrap();
    let again = open(&mut rig, AeadAlgorithm::AesGcm, &a, 12, 16).unwrap();
    assert_eq!(seal(&mut rig, again), 4);
    // Closing another session keeps the one in use.
    rig.service.close(CLIENT, sb).unwrap();
    assert_eq!(seal(&mut rig, again), 4);
}

/// The engine alone (no service, which zeroes a refused payload after): a forged
/// decrypt of up to 2 KiB writes nothing into the region, so a client reading it while
/// the driver works sees no plaintext of a forgery; a longer one streams (its plaintext
/// written as it goes, zeroed by the service before the answer).
#[test]
fn a_short_forged_decrypt_writes_nothing_before_its_tag_is_checked() {
    use aead_service::{AeadEngine, AeadStep, Job, Key};
    use pd_idl::common::Segment;
    use segment_list::{Overlaps, from_slice};
    let k = [0x33u8; 16];
    let mut rig = rig();
    let s = open(&mut rig, AeadAlgorithm::AesGcm, &k, 12, 16).unwrap();
    let mut key = Key::default();
    key.fill(16).copy_from_slice(&k);
    for (len, streamed) in [(100u32, false), (2048, false), (2049, true), (5000, true)] {
        let seal = Request::message(
            1,
            s,
            AeadOp::Encrypt,
            (NONCE_AT, 12),
            &[],
            &[(PAYLOAD_AT, len)],
            (TAG_AT, 16),
        );
        assert_eq!(rig.exchange(CLIENT, &[seal])[0].status.check(), Ok(Ok(())));
        // Forge the tag, then open with the engine alone.
        let mut forged = rig.data.bytes()[TAG_AT as usize..TAG_AT as usize + 16].to_vec();
        forged[3] ^= 1;
        rig.data.write(TAG_AT as usize, &forged);
        let before = rig.data.bytes().to_vec();
        let data = rig.client_data();
        let payload = [Segment {
            offset: PAYLOAD_AT,
            len,
        }];
        let job = Job {
            algorithm: AeadAlgorithm::AesGcm,
            op: AeadOp::Decrypt,
            nonce: Segment {
                offset: NONCE_AT,
                len: 12,
            },
            aad: from_slice(&[], data.len(), Overlaps::Allowed).unwrap(),
            payload: from_slice(&payload, data.len(), Overlaps::Allowed).unwrap(),
            tag: Segment {
                offset: TAG_AT,
                len: 16,
            },
            data,
        };
        let mut engine = CpuAead::default();
        let step = engine.start(&mut (), &key, &job);
        assert_eq!(step, AeadStep::Done(Err(AeadError::TagMismatch)), "{len}");
        let untouched = rig.data.bytes() == &before[..];
        assert_eq!(
            untouched, !streamed,
            "{len} B: written before the tag was checked"
        );
    }
}

/// A stand-in for the PD's Rng service: a fixed, recognisable nonce.
fn drawn(out: &mut [u8]) -> bool {
    for (i, b) in out.iter_mut().enumerate() {
        *b = 0xa0 + i as u8;
    }
    true
}

#[test]
fn a_driver_chosen_gcm_nonce_is_drawn_written_back_and_opens() {
    use aes_gcm::aead::{AeadInPlace, KeyInit};
    let key = [7u8; 16];
    let msg = *b"attack at dawn!!";
    let new_nonce = |s: u32| {
        Request::message(
            1,
            s,
            AeadOp::EncryptNewNonce,
            (NONCE_AT, 12),
            &[],
            &[(PAYLOAD_AT, 16)],
            (TAG_AT, 16),
        )
    };
    let mut rig = Rig::new(CpuAead::with_random(drawn), Region::new(REGION), None);
    let s = open(&mut rig, AeadAlgorithm::AesGcm, &key, 12, 16).unwrap();
    rig.data.write(NONCE_AT as usize, &[0xee; 12]);
    rig.data.write(PAYLOAD_AT as usize, &msg);
    let r = rig.exchange(CLIENT, &[new_nonce(s)]);
    assert_eq!(r[0].status.check(), Ok(Ok(())));
    let nonce = rig.data.bytes()[NONCE_AT as usize..NONCE_AT as usize + 12].to_vec();
    let mut want_nonce = [0u8; 12];
    drawn(&mut want_nonce);
    assert_eq!(
        nonce, want_nonce,
        "the drawn nonce is where the client reads it"
    );
    // Sealed under that nonce, as RustCrypto seals it.
    let mut want = msg;
    let tag = aes_gcm::Aes128Gcm::new_from_slice(&key)
        .unwrap()
        .encrypt_in_place_detached(aes_gcm::Nonce::from_slice(&nonce), &[], &mut want)
        .unwrap();
    let b = rig.data.bytes();
    assert_eq!(&b[PAYLOAD_AT as usize..PAYLOAD_AT as usize + 16], &want);
    assert_eq!(&b[TAG_AT as usize..TAG_AT as usize + 16], tag.as_slice());
    // And it opens with the nonce read back.
    let open_req = Request::message(
        2,
        s,
        AeadOp::Decrypt,
        (NONCE_AT, 12),
        &[],
        &[(PAYLOAD_AT, 16)],
        (TAG_AT, 16),
    );
    assert_eq!(
        rig.exchange(CLIENT, &[open_req])[0].status.check(),
        Ok(Ok(()))
    );
    assert_eq!(
        &rig.data.bytes()[PAYLOAD_AT as usize..PAYLOAD_AT as usize + 16],
        &msg
    );

    // A CCM session has no random construction here.
    let c = open(&mut rig, AeadAlgorithm::AesCcm, &key, 12, 16).unwrap();
    let r = rig.exchange(CLIENT, &[new_nonce(c)]);
    assert_eq!(
        r[0].status.check(),
        Ok(Err(AeadError::UnsupportedAlgorithm))
    );

    // A driver with no Rng service: refused, nothing written.
    let mut bare = self::rig();
    let s = open(&mut bare, AeadAlgorithm::AesGcm, &key, 12, 16).unwrap();
    let before = bare.data.bytes().to_vec();
    let r = bare.exchange(CLIENT, &[new_nonce(s)]);
    assert_eq!(r[0].status.check(), Ok(Err(AeadError::NoRandomness)));
    assert_eq!(bare.data.bytes(), &before[..]);
}

/// A session on a key the key store gave (as `open_session_by_key` opens one): the
/// published ciphertext and tag from the fetched key, none of it in the client's region
/// or the call, and only the direction granted (an encrypt-only session is refused a
/// decrypt, writing nothing).
#[test]
fn a_session_by_handle_seals_with_the_fetched_key_and_only_as_granted() {
    let mut rig = rig();
    let v = GCM
        .iter()
        .find(|v| v.plain.is_some())
        .expect("a GCM case that seals");
    let (key, nonce, aad, pt, ct, tag) = (
        hex(v.key),
        hex(v.nonce),
        hex(v.aad),
        hex(v.plain.unwrap()),
        hex(v.cipher),
        hex(v.tag),
    );
    let fetched = queued_service::KeyMaterial::new(&key, aead_service::ENCRYPT).unwrap();
    let call = pd_idl::aead::OpenSessionByKeyArgs {
        algorithm: v.algorithm,
        handle: 7,
        usage: aead_service::ENCRYPT,
        nonce_len: nonce.len() as u8,
        tag_len: tag.len() as u8,
    };
    let args = <Aead<CpuAead> as Interface>::open_by_key(call, fetched);
    assert!(
        matches!(args.key, queued_service::KeySource::Store(_)),
        "no key in the client's region"
    );
    <Aead<CpuAead> as Interface>::precheck(&rig.service.engine, &args).unwrap();
    let s = rig.open_as(CLIENT, args).unwrap();
    let c = Case {
        key: &key,
        nonce: &nonce,
        aad: &aad,
        tag_len: tag.len(),
    };
    let (st, got_ct, got_tag) = one(&mut rig, s, AeadOp::Encrypt, &c, &pt, &[], &[pt.len()]);
    assert_eq!(
        (st, got_ct, got_tag),
        (Ok(()), ct.clone(), tag.clone()),
        "{}",
        v.source
    );
    let (st, _, _) = one(&mut rig, s, AeadOp::Decrypt, &c, &ct, &tag, &[ct.len()]);
    assert_eq!(
        st,
        Err(AeadError::KeyNotPermitted),
        "an encrypt-only session"
    );
}
