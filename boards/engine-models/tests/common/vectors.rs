//! Published vectors, typed as printed: FIPS-197 Appendix C, SP 800-38A F.1/F.2/F.5,
//! FIPS 180-4 examples, RFC 1321's suite.

use super::{Job, Mode, hex};

/// FIPS-197 Appendix C: (key, plaintext, ciphertext), AES-128/192/256.
pub const FIPS197: [(&str, &str, &str); 3] = [
    (
        "000102030405060708090a0b0c0d0e0f",
        "00112233445566778899aabbccddeeff",
        "69c4e0d86a7b0430d8cdb78070b4c55a",
    ),
    (
        "000102030405060708090a0b0c0d0e0f1011121314151617",
        "00112233445566778899aabbccddeeff",
        "dda97ca4864cdfe06eaf70a0ec0d7191",
    ),
    (
        "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
        "00112233445566778899aabbccddeeff",
        "8ea2b7ca516745bfeafc49904b496089",
    ),
];

/// SP 800-38A's plaintext, shared by every F.1/F.2/F.5 example.
pub const SP800_38A_PT: &str = "6bc1bee22e409f96e93d7e117393172a ae2d8a571e03ac9c9eb76fac45af8e51
     30c81c46a35ce411e5fbc1191a0a52ef f69f2445df4f9b17ad2b417be66c3710";

pub const KEY128: &str = "2b7e151628aed2a6abf7158809cf4f3c";
pub const KEY192: &str = "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b";
pub const KEY256: &str = "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4";
pub const CBC_IV: &str = "000102030405060708090a0b0c0d0e0f";
pub const CTR_IV: &str = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

/// One SP 800-38A example.
pub struct Sp800 {
    pub name: &'static str,
    pub mode: Mode,
    pub key: &'static str,
    pub iv: Option<&'static str>,
    pub ct: &'static str,
}

impl Sp800 {
    pub fn decode(&self) -> Decoded {
        Decoded {
            name: self.name,
            mode: self.mode,
            key: hex(self.key),
            iv: self.iv.map(hex),
            ct: hex(self.ct),
        }
    }
}

/// An SP 800-38A example as bytes, to build requests from.
pub struct Decoded {
    pub name: &'static str,
    pub mode: Mode,
    pub key: Vec<u8>,
    pub iv: Option<Vec<u8>>,
    pub ct: Vec<u8>,
}

impl Decoded {
    /// The example's request, one way or the other.
    pub fn job(&self, encrypt: bool) -> Job<'_> {
        Job::new(&self.key, self.iv.as_deref(), self.mode, encrypt)
    }
}

/// F.1.1/3/5 (ECB), F.2.1/3/5 (CBC), F.5.1/3/5 (CTR), encryption; the decryption
/// examples (F.x.2/4/6) are the same pairs the other way round.
pub const SP800_38A: [Sp800; 9] = [
    Sp800 {
        name: "F.1.1 ECB-AES128",
        mode: Mode::Ecb,
        key: KEY128,
        iv: None,
        ct: "3ad77bb40d7a3660a89ecaf32466ef97 f5d3d58503b9699de785895a96fdbaaf
             43b1cd7f598ece23881b00e3ed030688 7b0c785e27e8ad3f8223207104725dd4",
    },
    Sp800 {
        name: "F.1.3 ECB-AES192",
        mode: Mode::Ecb,
        key: KEY192,
        iv: None,
        ct: "bd334f1d6e45f25ff712a214571fa5cc 974104846d0ad3ad7734ecb3ecee4eef
             ef7afd2270e2e60adce0ba2face6444e 9a4b41ba738d6c72fb16691603c18e0e",
    },
    Sp800 {
        name: "F.1.5 ECB-AES256",
        mode: Mode::Ecb,
        key: KEY256,
        iv: None,
        ct: "f3eed1bdb5d2a03c064b5a7e3db181f8 591ccb10d410ed26dc5ba74a31362870
             b6ed21b99ca6f4f9f153e7b1beafed1d 23304b7a39f9f3ff067d8d8f9e24ecc7",
    },
    Sp800 {
        name: "F.2.1 CBC-AES128",
        mode: Mode::Cbc,
        key: KEY128,
        iv: Some(CBC_IV),
        ct: "7649abac8119b246cee98e9b12e9197d 5086cb9b507219ee95db113a917678b2
             73bed6b8e3c1743b7116e69e22229516 3ff1caa1681fac09120eca307586e1a7",
    },
    Sp800 {
        name: "F.2.3 CBC-AES192",
        mode: Mode::Cbc,
        key: KEY192,
        iv: Some(CBC_IV),
        ct: "4f021db243bc633d7178183a9fa071e8 b4d9ada9ad7dedf4e5e738763f69145a
             571b242012fb7ae07fa9baac3df102e0 08b0e27988598881d920a9e64f5615cd",
    },
    Sp800 {
        name: "F.2.5 CBC-AES256",
        mode: Mode::Cbc,
        key: KEY256,
        iv: Some(CBC_IV),
        ct: "f58c4c04d6e5f1ba779eabfb5f7bfbd6 9cfc4e967edb808d679f777bc6702c7d
             39f23369a9d9bacfa530e26304231461 b2eb05e2c39be9fcda6c19078c6a9d1b",
    },
    Sp800 {
        name: "F.5.1 CTR-AES128",
        mode: Mode::Ctr,
        key: KEY128,
        iv: Some(CTR_IV),
        ct: "874d6191b620e3261bef6864990db6ce 9806f66b7970fdff8617187bb9fffdff
             5ae4df3edbd5d35e5b4f09020db03eab 1e031dda2fbe03d1792170a0f3009cee",
    },
    Sp800 {
        name: "F.5.3 CTR-AES192",
        mode: Mode::Ctr,
        key: KEY192,
        iv: Some(CTR_IV),
        ct: "1abc932417521ca24f2b0459fe7e6e0b 090339ec0aa6faefd5ccc2c6f4ce8e94
             1e36b26bd1ebc670d1bd1d665620abf7 4f78a7f6d29809585a97daec58c6b050",
    },
    Sp800 {
        name: "F.5.5 CTR-AES256",
        mode: Mode::Ctr,
        key: KEY256,
        iv: Some(CTR_IV),
        ct: "601ec313775789a5b7a7f504bbf3d228 f443e3ca4d62b59aca84e990cacaf5c5
             2b0930daa23de94ce87017ba2d84988d dfc9c58db67aada613c2dd08457941a6",
    },
];

/// FIPS 180-4 example messages: "abc", the 448-bit message, and one million 'a'
/// (built by [`message`]).
pub const ABC: &[u8] = b"abc";
pub const M448: &[u8] = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
pub fn million_a() -> Vec<u8> {
    vec![b'a'; 1_000_000]
}

/// SHA-1 digests of ABC, M448, one million 'a'.
pub const SHA1: [&str; 3] = [
    "a9993e364706816aba3e25717850c26c9cd0d89d",
    "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
    "34aa973cd4c4daa4f61eeb2bdbad27316534016f",
];
/// SHA-256 digests of ABC, M448, one million 'a'.
pub const SHA256: [&str; 3] = [
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
];

/// RFC 1321 appendix A.5.
pub const MD5: [(&str, &str); 7] = [
    ("", "d41d8cd98f00b204e9800998ecf8427e"),
    ("a", "0cc175b9c0f1b6a831c399e269772661"),
    ("abc", "900150983cd24fb0d6963f7d28e17f72"),
    ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
    (
        "abcdefghijklmnopqrstuvwxyz",
        "c3fcd3d76192e4007dfb496cca67e13b",
    ),
    (
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
        "d174ab98d277d9f5a5611c2c9f419d9f",
    ),
    (
        "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
        "57edf4a22be3c955ac49da2e2107b67a",
    ),
];
