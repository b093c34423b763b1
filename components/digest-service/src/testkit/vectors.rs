//! Published vectors: FIPS 180-4's examples (SHA-1, SHA-224, SHA-256, SHA-384, SHA-512)
//! and RFC 1321's MD5 test suite, plus RustCrypto as the reference for messages no
//! document lists.

use pd_idl::digest::Algorithm;
// md-5, sha1 and sha2 share one `digest` crate: its trait serves all three.
use sha1::Digest as _;
use std::vec::Vec;

// The published data lives once, in `kat-vectors`; this module adds the std helpers.
pub use kat_vectors::{ABC, FIPS180_4, M448, M896, MD5_MILLION_A, RFC1321};

/// One million 'a' (FIPS 180-4 example).
pub fn million_a() -> Vec<u8> {
    std::vec![b'a'; 1_000_000]
}

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
        Algorithm::Sha224 => sha2::Sha224::digest(msg).to_vec(),
        Algorithm::Sha256 => sha2::Sha256::digest(msg).to_vec(),
        Algorithm::Sha384 => sha2::Sha384::digest(msg).to_vec(),
        Algorithm::Sha512 => sha2::Sha512::digest(msg).to_vec(),
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
