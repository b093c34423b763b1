//! Published vectors through the whole service path: request descriptor in a queue,
//! segments in a data region, the CPU engine, response descriptor back. FIPS-197
//! Appendix C and SP 800-38A F.1, F.2, F.5, with the data split at every offset.

mod rig;

use cipher_service::testkit::Layout;
use kat_vectors::{CBC_IV, CTR_IV, FIPS197_C, FIPS197_PT, K128, PLAIN, SP800_38A};
use pd_idl::cipher::{CipherError, CipherOp, Mode, Path};
use rig::{Rig, hex};

#[test]
fn fips_197_appendix_c() {
    let pt = hex(FIPS197_PT);
    for &(name, key, ct) in FIPS197_C {
        let mut rig = Rig::new();
        let s = rig.open(Mode::Ecb, &hex(key), &[0; 16]).unwrap();
        assert_eq!(
            rig.crypt(s, CipherOp::Encrypt, &pt, &[16]),
            Ok(hex(ct)),
            "{name}"
        );
        assert_eq!(
            rig.crypt(s, CipherOp::Decrypt, &hex(ct), &[16]),
            Ok(pt.clone()),
            "{name}"
        );
    }
}

#[test]
fn sp800_38a_whole_and_split_at_every_offset() {
    let plain = hex(PLAIN);
    for &(name, mode, key, iv, ct) in SP800_38A {
        let ct = hex(ct);
        let (key, iv) = (hex(key), hex(iv));
        // One segment, then two segments split at every byte offset, then four uneven
        // segments: the straddling blocks go through the gather path. Every layout:
        // 16-byte aligned segments take the direct vector loads, 8-byte aligned ones the
        // word pairs, the others the copies.
        let mut splits: Vec<Vec<u32>> = vec![vec![64]];
        splits.extend((1..64).map(|k| vec![k, 64 - k]));
        splits.push(vec![5, 27, 1, 31]);
        splits.push(vec![16, 0, 32, 16]);
        for layout in Layout::ALL {
            for split in &splits {
                let mut rig = Rig::new();
                let s = rig.open(mode, &key, &iv).unwrap();
                assert_eq!(
                    rig.0.crypt(s, CipherOp::Encrypt, &plain, split, layout),
                    Ok(ct.clone()),
                    "{name} {split:?} {layout:?}"
                );
                let s = rig.open(mode, &key, &iv).unwrap();
                assert_eq!(
                    rig.0.crypt(s, CipherOp::Decrypt, &ct, split, layout),
                    Ok(plain.clone()),
                    "{name} {split:?} {layout:?}"
                );
            }
        }
    }
}

#[test]
fn iv_carries_over_between_requests() {
    let plain = hex(PLAIN);
    for &(name, mode, key, iv, ct) in SP800_38A {
        let mut rig = Rig::new();
        let s = rig.open(mode, &hex(key), &hex(iv)).unwrap();
        // Four requests of one block each give the same as one of four blocks.
        let mut out = Vec::new();
        for block in plain.chunks(16) {
            out.extend(rig.crypt(s, CipherOp::Encrypt, block, &[16]).unwrap());
        }
        assert_eq!(out, hex(ct), "{name}");
    }
}

#[test]
fn ctr_takes_any_length_and_path_is_reported() {
    let mut rig = Rig::new();
    let s = rig.open(Mode::Ctr, &hex(K128), &hex(CTR_IV)).unwrap();
    let out = rig
        .crypt(s, CipherOp::Encrypt, &hex(PLAIN)[..21], &[7, 14])
        .unwrap();
    let f51 = kat_vectors::sp800_38a("F.5.1 CTR-AES128");
    assert_eq!(out, hex(f51.4)[..21].to_vec());
    assert_eq!(rig.last_path, Some(Path::Cpu));
    assert_eq!(rig.cipher_bytes(), 21);
    // Block modes refuse a partial block.
    let s = rig.open(Mode::Cbc, &hex(K128), &hex(CBC_IV)).unwrap();
    assert_eq!(
        rig.crypt(s, CipherOp::Encrypt, &[0; 17], &[17]),
        Err(CipherError::BadLength)
    );
}

/// A session's key is expanded once, not per request (as Linux's setkey), for as long
/// as the session is open: and the answers stay the published ones.
#[test]
fn a_sessions_key_is_expanded_once_and_forgotten_when_it_closes() {
    let plain = hex(PLAIN);
    let (_, mode, key, iv, ct) = SP800_38A[1]; // F.2.1 CBC-AES128
    let (key, iv, ct) = (hex(key), hex(iv), hex(ct));
    let mut rig = Rig::new();
    let s = rig.open(mode, &key, &iv).unwrap();
    for block in 0..4 {
        let got = rig.crypt(s, CipherOp::Encrypt, &plain[16 * block..][..16], &[16]);
        assert_eq!(got, Ok(ct[16 * block..][..16].to_vec()), "block {block}");
    }
    assert_eq!(
        rig.service.engine.expansions, 1,
        "four requests, one expansion"
    );
    // Another session with another key: its own expansion; the first is still kept.
    let other = rig.open(Mode::Ecb, &[7; 16], &[0; 16]).unwrap();
    rig.crypt(other, CipherOp::Encrypt, &[0; 16], &[16])
        .unwrap();
    rig.crypt(s, CipherOp::Decrypt, &ct[..16], &[16]).unwrap();
    assert_eq!(rig.service.engine.expansions, 2);
    // Closed, the key is gone from the engine: a new session with it expands it again.
    rig.service.close(rig::CLIENT, s).unwrap();
    let again = rig.open(mode, &key, &iv).unwrap();
    assert_eq!(
        rig.crypt(again, CipherOp::Encrypt, &plain[..16], &[16]),
        Ok(ct[..16].to_vec())
    );
    assert_eq!(rig.service.engine.expansions, 3);
}

/// As many sessions as the engine keeps keys for, each with a key of its own, taking
/// turns: each key is expanded once, and each session's answers are its own key's; one
/// session more, and every turn re-expands (the least recently used goes), still with
/// the right answers.
#[test]
fn sessions_taking_turns_expand_each_key_once_up_to_the_cache() {
    let mut rig = Rig::new();
    let turns = |rig: &mut Rig, n: usize| -> u64 {
        let keys: Vec<[u8; 16]> = (0..n).map(|i| [i as u8 + 1; 16]).collect();
        let sessions: Vec<u32> = keys
            .iter()
            .map(|k| rig.open(Mode::Ecb, k, &[0; 16]).unwrap())
            .collect();
        let before = rig.service.engine.expansions;
        for round in 0..3u8 {
            for (s, k) in sessions.iter().zip(&keys) {
                let got = rig
                    .crypt(*s, CipherOp::Encrypt, &[round; 16], &[16])
                    .unwrap();
                let mut want = [round; 16];
                aes_ecb(k, &mut want);
                assert_eq!(got, want, "round {round}");
            }
        }
        for s in sessions {
            rig.service.close(rig::CLIENT, s).unwrap();
        }
        rig.service.engine.expansions - before
    };
    let n = cpu_engine::CACHED_KEYS;
    assert_eq!(turns(&mut rig, n), n as u64, "one per key");
    assert_eq!(
        turns(&mut rig, n + 1),
        3 * (n as u64 + 1),
        "one per request"
    );
}

/// AES-128-ECB of one block with RustCrypto, the reference.
fn aes_ecb(key: &[u8; 16], block: &mut [u8; 16]) {
    use aes::cipher::{BlockEncrypt, KeyInit};
    let c = aes::Aes128::new(key.into());
    c.encrypt_block(block.into());
}
