//! Published vectors through the whole service path: request descriptor in a queue,
//! segments in a data region, the CPU engine, response descriptor back. FIPS-197
//! Appendix C and SP 800-38A F.1, F.2, F.5, with the data split at every offset.

mod rig;

use pd_idl::cipher::{CipherError, CipherOp, Mode, Path};
use rig::{Rig, hex};

const PLAIN: &str = "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51\
                     30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710";
const K128: &str = "2b7e151628aed2a6abf7158809cf4f3c";
const K192: &str = "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b";
const K256: &str = "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4";
const CBC_IV: &str = "000102030405060708090a0b0c0d0e0f";
const CTR_IV: &str = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

/// (name, mode, key, iv, ciphertext)
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

#[test]
fn fips_197_appendix_c() {
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
        let mut rig = Rig::new();
        let s = rig.open(Mode::Ecb, &hex(key), &[0; 16]).unwrap();
        assert_eq!(
            rig.crypt(s, CipherOp::Encrypt, &pt, &[16]),
            Ok(hex(ct)),
            "key {key}"
        );
        assert_eq!(
            rig.crypt(s, CipherOp::Decrypt, &hex(ct), &[16]),
            Ok(pt.clone())
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
        // segments: the straddling blocks go through the gather path.
        let mut splits: Vec<Vec<u32>> = vec![vec![64]];
        splits.extend((1..64).map(|k| vec![k, 64 - k]));
        splits.push(vec![5, 27, 1, 31]);
        for split in &splits {
            let mut rig = Rig::new();
            let s = rig.open(mode, &key, &iv).unwrap();
            assert_eq!(
                rig.crypt(s, CipherOp::Encrypt, &plain, split),
                Ok(ct.clone()),
                "{name} {split:?}"
            );
            let s = rig.open(mode, &key, &iv).unwrap();
            assert_eq!(
                rig.crypt(s, CipherOp::Decrypt, &ct, split),
                Ok(plain.clone()),
                "{name} {split:?}"
            );
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
    assert_eq!(out, hex(SP800_38A[4].4)[..21].to_vec());
    assert_eq!(rig.last_path, Some(Path::Cpu));
    assert_eq!(rig.cipher_bytes(), 21);
    // Block modes refuse a partial block.
    let s = rig.open(Mode::Cbc, &hex(K128), &hex(CBC_IV)).unwrap();
    assert_eq!(
        rig.crypt(s, CipherOp::Encrypt, &[0; 17], &[17]),
        Err(CipherError::BadLength)
    );
}
