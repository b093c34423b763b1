//! Published vectors: FIPS 180-4's examples (SHA-1, SHA-256) and RFC 1321's MD5 test
//! suite, plus RustCrypto as the reference for messages no document lists.

use pd_idl::digest::Algorithm;
// md-5, sha1 and sha2 share one `digest` crate: its trait serves all three.
use sha1::Digest as _;
use std::vec::Vec;

/// FIPS 180-4 example: "abc" (one block).
pub const ABC: &[u8] = b"abc";
/// FIPS 180-4 example: the 448-bit message (padding needs a second block).
pub const M448: &[u8] = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
/// FIPS 180-4 example: the 896-bit message (two blocks of data).
pub const M896: &[u8] = b"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";

/// One million 'a' (FIPS 180-4 example).
pub fn million_a() -> Vec<u8> {
    std::vec![b'a'; 1_000_000]
}

/// (algorithm, message name, digest hex): FIPS 180-4 examples.
pub const FIPS180_4: &[(Algorithm, &str, &str)] = &[
    (
        Algorithm::Sha1,
        "abc",
        "a9993e364706816aba3e25717850c26c9cd0d89d",
    ),
    (
        Algorithm::Sha1,
        "448",
        "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
    ),
    (
        Algorithm::Sha1,
        "896",
        "a49b2446a02c645bf419f995b67091253a04a259",
    ),
    (
        Algorithm::Sha1,
        "million",
        "34aa973cd4c4daa4f61eeb2bdbad27316534016f",
    ),
    (
        Algorithm::Sha256,
        "abc",
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    ),
    (
        Algorithm::Sha256,
        "448",
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    ),
    (
        Algorithm::Sha256,
        "896",
        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
    ),
    (
        Algorithm::Sha256,
        "million",
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
    ),
];

/// The message a [`FIPS180_4`] entry names.
pub fn fips_message(name: &str) -> Vec<u8> {
    match name {
        "abc" => ABC.to_vec(),
        "448" => M448.to_vec(),
        "896" => M896.to_vec(),
        "million" => million_a(),
        _ => panic!("no FIPS 180-4 message {name}"),
    }
}

/// RFC 1321, appendix A.5: (message, MD5).
pub const RFC1321: &[(&[u8], &str)] = &[
    (b"", "d41d8cd98f00b204e9800998ecf8427e"),
    (b"a", "0cc175b9c0f1b6a831c399e269772661"),
    (b"abc", "900150983cd24fb0d6963f7d28e17f72"),
    (b"message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
    (
        b"abcdefghijklmnopqrstuvwxyz",
        "c3fcd3d76192e4007dfb496cca67e13b",
    ),
    (
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
        "d174ab98d277d9f5a5611c2c9f419d9f",
    ),
    (
        b"12345678901234567890123456789012345678901234567890123456789012345678901234567890",
        "57edf4a22be3c955ac49da2e2107b67a",
    ),
];

/// MD5 of one million 'a' (not in RFC 1321; cross-checked against RustCrypto).
pub const MD5_MILLION_A: &str = "7707d6ae4e027c70eea2a935c2296f21";

/// Hex string to bytes.
pub fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex digit"))
        .collect()
}

/// RustCrypto's digest of `msg`: the reference for messages no document lists.
pub fn reference(algorithm: Algorithm, msg: &[u8]) -> Vec<u8> {
    match algorithm {
        Algorithm::Md5 => md5::Md5::digest(msg).to_vec(),
        Algorithm::Sha1 => sha1::Sha1::digest(msg).to_vec(),
        Algorithm::Sha256 => sha2::Sha256::digest(msg).to_vec(),
    }
}

/// A message of `len` bytes that differs at every position (so a byte hashed twice,
/// dropped or reordered changes the digest).
pub fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 + i / 251) as u8).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_agrees_with_the_documents() {
        for &(alg, name, want) in FIPS180_4.iter().filter(|v| v.1 != "million") {
            assert_eq!(reference(alg, &fips_message(name)), hex(want), "{name}");
        }
        for &(msg, want) in RFC1321 {
            assert_eq!(reference(Algorithm::Md5, msg), hex(want));
        }
    }
}
