//! The published vectors through the driver and the host model, encrypt and decrypt:
//! FIPS-197 appendix C (each key size), and every SP 800-38A example of `kat-vectors`
//! (ECB, CBC, CTR with 128-, 192- and 256-bit keys), whole and split across segments, in
//! one request and chained across requests through the session's IV.

mod rig;

use kat_vectors::{CBC_IV, CTR_IV, FIPS197_C, FIPS197_PT, K128, K256, PLAIN, SP800_38A as VECTORS};
use pd_idl::cipher::{CipherOp, Mode, Path};
use rig::{DATA_PHYS, hex, rig, session};
use virtio_crypto_driver::{Direction, DmaBuf, algo_of};

/// The published ciphertext of the SP 800-38A example `name`.
fn ct_of(name: &str) -> &'static str {
    VECTORS
        .iter()
        .find(|v| v.0 == name)
        .expect("a published example")
        .4
}

/// FIPS-197 appendix C: one block under a 128-, 192- and 256-bit key, each way.
#[test]
fn fips197_appendix_c_every_key_size() {
    let mut r = rig();
    let pt = hex(FIPS197_PT);
    for &(name, key, ct) in FIPS197_C {
        let ct = hex(ct);
        for (op, input, want) in [(CipherOp::Encrypt, &pt, &ct), (CipherOp::Decrypt, &ct, &pt)] {
            let mut s = session(Mode::Ecb, &hex(key), &[0; 16]);
            r.data()[..16].copy_from_slice(input);
            assert_eq!(
                r.crypt(&mut s, op, &[(0, 16)]),
                Ok(Path::Dma),
                "{name} {op:?}"
            );
            assert_eq!(&r.data()[..16], &want[..], "{name} {op:?}");
        }
    }
}

#[test]
fn sp800_38a_whole_and_split() {
    let mut r = rig();
    let (pt, base) = (hex(PLAIN), 256u32);
    for &(name, mode, key, iv, ct) in VECTORS {
        let ct = hex(ct);
        // One segment; then 3 segments split at odd offsets (blocks straddle descriptors).
        for segs in [
            &[(base, 64)][..],
            &[(base, 7), (base + 7, 30), (base + 37, 27)],
        ] {
            for (op, input, want) in [(CipherOp::Encrypt, &pt, &ct), (CipherOp::Decrypt, &ct, &pt)]
            {
                let mut s = session(mode, &hex(key), &hex(iv));
                r.data()[base as usize..base as usize + 64].copy_from_slice(input);
                assert_eq!(r.crypt(&mut s, op, segs), Ok(Path::Dma), "{name} {op:?}");
                assert_eq!(
                    &r.data()[base as usize..base as usize + 64],
                    &want[..],
                    "{name} {op:?} {segs:?}"
                );
            }
        }
    }
}

#[test]
fn sp800_38a_chained_block_by_block() {
    let mut r = rig();
    let pt = hex(PLAIN);
    for &(name, mode, key, iv, ct) in VECTORS {
        let ct = hex(ct);
        for (op, input, want) in [(CipherOp::Encrypt, &pt, &ct), (CipherOp::Decrypt, &ct, &pt)] {
            let mut s = session(mode, &hex(key), &hex(iv));
            r.data()[..64].copy_from_slice(input);
            // Four requests of one block each: the IV must carry over as the driver computes it.
            for b in 0..4u32 {
                r.crypt(&mut s, op, &[(16 * b, 16)]).unwrap();
            }
            assert_eq!(&r.data()[..64], &want[..], "{name} {op:?} chained");
        }
    }
}

#[test]
fn ctr_partial_blocks_are_padded_and_the_counter_moves_on() {
    let mut r = rig();
    let (pt, ct) = (hex(PLAIN), hex(ct_of("F.5.1 CTR-AES128")));
    let mut s = session(Mode::Ctr, &hex(K128), &hex(CTR_IV));
    r.data()[..64].copy_from_slice(&pt);
    // 5 bytes, then the rest of block 0 is lost to the pad: the next request starts at
    // block 1 (as Linux's ctr(aes) does), so compare 0..5 and 16..64.
    r.crypt(&mut s, CipherOp::Encrypt, &[(0, 5)]).unwrap();
    r.crypt(&mut s, CipherOp::Encrypt, &[(16, 48)]).unwrap();
    assert_eq!(&r.data()[..5], &ct[..5]);
    assert_eq!(
        &r.data()[5..16],
        &pt[5..16],
        "bytes outside the request are untouched"
    );
    assert_eq!(&r.data()[16..64], &ct[16..64]);
}

#[test]
fn out_of_place_with_different_splits() {
    let mut r = rig();
    let (key, iv, pt, ct) = (
        hex(K256),
        hex(CBC_IV),
        hex(PLAIN),
        hex(ct_of("F.2.5 CBC-AES256")),
    );
    r.data()[..64].copy_from_slice(&pt);
    let src = [
        DmaBuf {
            phys: DATA_PHYS,
            len: 40,
        },
        DmaBuf {
            phys: DATA_PHYS + 40,
            len: 24,
        },
    ];
    let dst = [
        DmaBuf {
            phys: DATA_PHYS + 64,
            len: 17,
        },
        DmaBuf {
            phys: DATA_PHYS + 81,
            len: 47,
        },
    ];
    let algo = algo_of(Mode::Cbc);
    let id = r
        .dev
        .create_session(algo, Direction::Encrypt, &key)
        .unwrap();
    let iv: [u8; 16] = iv.try_into().unwrap();
    r.dev
        .cipher(id, algo, Direction::Encrypt, Some(&iv), &src, &dst)
        .unwrap();
    r.dev.destroy_session(id).unwrap();
    assert_eq!(&r.data()[64..128], &ct[..]);
    assert_eq!(&r.data()[..64], &pt[..], "the source is untouched");
}
