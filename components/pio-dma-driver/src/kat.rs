//! Known-answer vectors for the init self-test, as Linux's testmgr runs them before an
//! engine serves anyone: FIPS-197 Appendix C and SP 800-38A F.2.1 and F.5.1.

use cipher_service::BLOCK;
use pd_idl::cipher::Mode;

/// One vector: `cipher = E(key, iv, plain)` in `mode`; `iv_out` is the chaining value
/// after the whole text (checked too: the next request depends on it).
pub struct Kat {
    pub name: &'static str,
    pub mode: Mode,
    pub key: &'static [u8],
    pub iv: [u8; 16],
    pub plain: &'static [u8],
    pub cipher: &'static [u8],
}

/// Bytes of a hex string, at compile time.
const fn hex<const N: usize>(s: &str) -> [u8; N] {
    const fn nibble(c: u8) -> u8 {
        match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            _ => panic!("not lower-case hex"),
        }
    }
    let s = s.as_bytes();
    assert!(s.len() == 2 * N);
    let mut out = [0u8; N];
    let mut i = 0;
    while i < N {
        out[i] = nibble(s[2 * i]) << 4 | nibble(s[2 * i + 1]);
        i += 1;
    }
    out
}

const SP_KEY: [u8; 16] = hex("2b7e151628aed2a6abf7158809cf4f3c");
const SP_PLAIN: [u8; 64] = hex(
    "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51\
     30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710",
);
const FIPS_PLAIN: [u8; 16] = hex("00112233445566778899aabbccddeeff");
const FIPS_KEY256: [u8; 32] =
    hex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");

/// F.5.1 cut to 40 bytes, for engines whose DMA path leaves a partial last block to the
/// CPU (two blocks by DMA and an 8-byte tail).
pub const CTR_TAIL: Kat = Kat {
    name: "SP 800-38A F.5.1 CTR-AES128, 40 bytes",
    plain: KATS[3].plain.split_at(40).0,
    cipher: KATS[3].cipher.split_at(40).0,
    ..KATS[3]
};

/// Longest vector text, in bytes (the scratch buffer must hold it).
pub const MAX_TEXT: usize = 64;

pub const KATS: [Kat; 4] = [
    Kat {
        name: "FIPS-197 C.1 AES-128",
        mode: Mode::Ecb,
        key: &hex::<16>("000102030405060708090a0b0c0d0e0f"),
        iv: [0; 16],
        plain: &FIPS_PLAIN,
        cipher: &hex::<16>("69c4e0d86a7b0430d8cdb78070b4c55a"),
    },
    Kat {
        name: "FIPS-197 C.3 AES-256",
        mode: Mode::Ecb,
        key: &FIPS_KEY256,
        iv: [0; 16],
        plain: &FIPS_PLAIN,
        cipher: &hex::<16>("8ea2b7ca516745bfeafc49904b496089"),
    },
    Kat {
        name: "SP 800-38A F.2.1 CBC-AES128",
        mode: Mode::Cbc,
        key: &SP_KEY,
        iv: hex("000102030405060708090a0b0c0d0e0f"),
        plain: &SP_PLAIN,
        cipher: &hex::<64>(
            "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2\
             73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7",
        ),
    },
    Kat {
        name: "SP 800-38A F.5.1 CTR-AES128",
        mode: Mode::Ctr,
        key: &SP_KEY,
        iv: hex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"),
        plain: &SP_PLAIN,
        cipher: &hex::<64>(
            "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff\
             5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee",
        ),
    },
];

/// The IV a vector leaves behind: CBC the last ciphertext block, CTR the counter after
/// the blocks used, ECB unchanged.
pub fn iv_after(kat: &Kat) -> [u8; 16] {
    let block = BLOCK as usize;
    match kat.mode {
        Mode::Ecb => kat.iv,
        Mode::Cbc => kat.cipher[kat.cipher.len() - block..]
            .try_into()
            .unwrap_or(kat.iv),
        Mode::Ctr => {
            let blocks = kat.plain.len().div_ceil(block) as u128;
            u128::from_be_bytes(kat.iv)
                .wrapping_add(blocks)
                .to_be_bytes()
        }
    }
}

/// Every vector above.
pub const ALL: [&Kat; 4] = [&KATS[0], &KATS[1], &KATS[2], &KATS[3]];
/// Every vector and the CTR tail, for engines that finish a partial last block by CPU.
pub const ALL_WITH_CTR_TAIL: [&Kat; 5] = [&KATS[0], &KATS[1], &KATS[2], &KATS[3], &CTR_TAIL];
