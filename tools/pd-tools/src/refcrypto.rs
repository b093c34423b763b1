//! In-process RustCrypto, the reference the tests compare against and the host limit
//! `speed --host-limit` measures beside the isolated driver.

use aes::{Aes128, Aes192, Aes256};
use cipher::{
    BlockDecrypt, BlockDecryptMut, BlockEncrypt, BlockEncryptMut, InnerIvInit, KeyInit, KeyIvInit,
    StreamCipher,
};
use digest::Digest;
use pd_idl::cipher::Mode;
use pd_idl::digest::Algorithm;

use crate::algs::{AeadAlg, CipherAlg};
use pd_idl::aead::AeadAlgorithm;
use pd_idl::mac::MacAlgorithm;

fn blocks(data: &mut [u8]) -> &mut [cipher::generic_array::GenericArray<u8, cipher::consts::U16>] {
    assert!(data.len().is_multiple_of(16), "whole blocks");
    // SAFETY: GenericArray<u8, U16> is a [u8; 16] (repr(transparent)), alignment 1;
    // the length is a whole number of blocks (checked).
    unsafe { core::slice::from_raw_parts_mut(data.as_mut_ptr().cast(), data.len() / 16) }
}

/// One cipher type's run (a macro: the RustCrypto bounds are unwieldy as generics).
macro_rules! run {
    ($c:ty, $alg:expr, $encrypt:expr, $key:expr, $iv:expr, $data:expr) => {
        match ($alg.mode, $encrypt) {
            (Mode::Ecb, true) => <$c>::new_from_slice($key)
                .expect("key length")
                .encrypt_blocks(blocks($data)),
            (Mode::Ecb, false) => <$c>::new_from_slice($key)
                .expect("key length")
                .decrypt_blocks(blocks($data)),
            (Mode::Cbc, true) => cbc::Encryptor::<$c>::new_from_slices($key, $iv)
                .expect("key and iv length")
                .encrypt_blocks_mut(blocks($data)),
            (Mode::Cbc, false) => cbc::Decryptor::<$c>::new_from_slices($key, $iv)
                .expect("key and iv length")
                .decrypt_blocks_mut(blocks($data)),
            (Mode::Ctr, _) => ctr::Ctr128BE::<$c>::new_from_slices($key, $iv)
                .expect("key and iv length")
                .apply_keystream($data),
        }
    };
}

/// Enciphers or deciphers `data` in place (ECB/CBC: whole blocks; CTR: 128-bit
/// big-endian counter, as the engines and openssl use).
pub fn crypt(alg: CipherAlg, encrypt: bool, key: &[u8], iv: &[u8], data: &mut [u8]) {
    match alg.key_len {
        16 => run!(Aes128, alg, encrypt, key, iv, data),
        24 => run!(Aes192, alg, encrypt, key, iv, data),
        32 => run!(Aes256, alg, encrypt, key, iv, data),
        n => panic!("AES key of {n} bytes"),
    }
}

/// A key expanded once, as a program that encrypts many buffers under one key holds it
/// (Linux's setkey, OpenSSL's EVP context).
#[derive(Clone)]
pub enum Keyed {
    A128(Aes128),
    A192(Aes192),
    A256(Aes256),
}

/// One run over an expanded key `$c`, borrowed (RustCrypto's modes take `&C` as a
/// cipher): a clone per call copied hundreds of bytes of round keys, more than a 16-byte
/// request's AES, which the CPU engine does not do either.
macro_rules! run_keyed {
    ($c:expr, $alg:expr, $encrypt:expr, $iv:expr, $data:expr) => {{
        let iv = cipher::generic_array::GenericArray::from_slice($iv);
        match ($alg.mode, $encrypt) {
            (Mode::Ecb, true) => $c.encrypt_blocks(blocks($data)),
            (Mode::Ecb, false) => $c.decrypt_blocks(blocks($data)),
            (Mode::Cbc, true) => {
                cbc::Encryptor::inner_iv_init($c, iv).encrypt_blocks_mut(blocks($data))
            }
            (Mode::Cbc, false) => {
                cbc::Decryptor::inner_iv_init($c, iv).decrypt_blocks_mut(blocks($data))
            }
            (Mode::Ctr, _) => {
                ctr::Ctr128BE::from_core(ctr::CtrCore::inner_iv_init($c, iv)).apply_keystream($data)
            }
        }
    }};
}

impl Keyed {
    pub fn new(key: &[u8]) -> Keyed {
        match key.len() {
            16 => Keyed::A128(Aes128::new_from_slice(key).expect("key length")),
            24 => Keyed::A192(Aes192::new_from_slice(key).expect("key length")),
            32 => Keyed::A256(Aes256::new_from_slice(key).expect("key length")),
            n => panic!("AES key of {n} bytes"),
        }
    }

    /// As [`crypt`], with the key already expanded.
    pub fn crypt(&self, alg: CipherAlg, encrypt: bool, iv: &[u8], data: &mut [u8]) {
        match self {
            Keyed::A128(c) => run_keyed!(c, alg, encrypt, iv, data),
            Keyed::A192(c) => run_keyed!(c, alg, encrypt, iv, data),
            Keyed::A256(c) => run_keyed!(c, alg, encrypt, iv, data),
        }
    }
}

/// The digest of `data`.
pub fn digest(alg: Algorithm, data: &[u8]) -> Vec<u8> {
    let mut out = [0; MAX_DIGEST];
    let n = digest_into(alg, data, &mut out);
    out[..n].to_vec()
}

/// The digest of `data` in `out`, its length returned; allocates nothing, as a program
/// hashing many messages would not (`speed --host-limit` times this).
pub fn digest_into(alg: Algorithm, data: &[u8], out: &mut [u8; MAX_DIGEST]) -> usize {
    fn put(d: &[u8], out: &mut [u8; MAX_DIGEST]) -> usize {
        out[..d.len()].copy_from_slice(d);
        d.len()
    }
    match alg {
        Algorithm::Md5 => put(&md5::Md5::digest(data), out),
        Algorithm::Sha1 => put(&sha1::Sha1::digest(data), out),
        Algorithm::Sha224 => put(&sha2::Sha224::digest(data), out),
        Algorithm::Sha256 => put(&sha2::Sha256::digest(data), out),
        Algorithm::Sha384 => put(&sha2::Sha384::digest(data), out),
        Algorithm::Sha512 => put(&sha2::Sha512::digest(data), out),
    }
}

/// Longest digest [`digest_into`] writes (SHA-512's).
pub const MAX_DIGEST: usize = 64;

#[cfg(test)]
mod tests {
    use super::*;
    use kat_vectors::{
        ABC, FIPS180_4, FIPS197_C, FIPS197_PT, M448, M896, MILLION, PLAIN, RFC1321, SP800_38A, hex,
    };

    fn bytes(s: &str) -> Vec<u8> {
        let mut out = vec![0; s.len() / 2];
        let n = hex(s, &mut out);
        out.truncate(n);
        out
    }

    /// Every SP 800-38A example of `kat-vectors` and FIPS-197 appendix C, both ways,
    /// with the key expanded per call and once: the reference is itself checked
    /// against the published answers, not only against the engines built on the same
    /// crates.
    #[test]
    fn every_published_cipher_vector() {
        // (name, mode, key, iv, plaintext, ciphertext)
        type Case = (String, Mode, Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>);
        let mut cases: Vec<Case> = SP800_38A
            .iter()
            .map(|&(name, mode, key, iv, ct)| {
                let v = (bytes(key), bytes(iv), bytes(PLAIN), bytes(ct));
                (name.to_string(), mode, v.0, v.1, v.2, v.3)
            })
            .collect();
        for &(name, key, ct) in FIPS197_C {
            let (key, pt, ct) = (bytes(key), bytes(FIPS197_PT), bytes(ct));
            cases.push((name.to_string(), Mode::Ecb, key, vec![0; 16], pt, ct));
        }
        assert_eq!(cases.len(), 11);
        for (name, mode, key, iv, pt, ct) in cases {
            let alg = CipherAlg {
                mode,
                key_len: key.len(),
            };
            let keyed = Keyed::new(&key);
            for (encrypt, from, to) in [(true, &pt, &ct), (false, &ct, &pt)] {
                let mut each = from.clone();
                crypt(alg, encrypt, &key, &iv, &mut each);
                assert_eq!(&each, to, "{name} encrypt={encrypt}");
                let mut once = from.clone();
                keyed.crypt(alg, encrypt, &iv, &mut once);
                assert_eq!(&once, to, "{name} encrypt={encrypt}, key set once");
            }
        }
    }

    /// FIPS 180-4's examples (SHA-1, SHA-256) and RFC 1321's suite (MD5).
    #[test]
    fn every_published_digest() {
        let million = vec![b'a'; MILLION];
        let message = |name: &str| -> &[u8] {
            match name {
                "abc" => ABC,
                "448" => M448,
                "896" => M896,
                "million" => &million,
                other => panic!("no message {other}"),
            }
        };
        let cases = FIPS180_4
            .iter()
            .map(|&(alg, name, want)| (alg, message(name), want))
            .chain(RFC1321.iter().map(|&(m, want)| (Algorithm::Md5, m, want)));
        let mut n = 0;
        for (alg, msg, want) in cases {
            assert_eq!(
                digest(alg, msg),
                bytes(want),
                "{alg:?} of {} bytes",
                msg.len()
            );
            n += 1;
        }
        assert_eq!(n, FIPS180_4.len() + RFC1321.len());
    }
}

/// An AEAD keyed once, as a program sealing many messages under one key holds it
/// (OpenSSL's EVP context, Linux's setkey): RustCrypto's `aes-gcm` and `ccm` with a
/// 12-byte nonce and a 16-byte tag, the speed client's lengths.
pub enum AeadKeyed {
    Gcm128(aes_gcm::Aes128Gcm),
    Gcm192(aes_gcm::AesGcm<Aes192, aes_gcm::aead::consts::U12>),
    Gcm256(aes_gcm::Aes256Gcm),
    Ccm128(ccm::Ccm<Aes128, ccm::consts::U16, ccm::consts::U12>),
    Ccm192(ccm::Ccm<Aes192, ccm::consts::U16, ccm::consts::U12>),
    Ccm256(ccm::Ccm<Aes256, ccm::consts::U16, ccm::consts::U12>),
}

impl AeadKeyed {
    pub fn new(alg: AeadAlg, key: &[u8]) -> AeadKeyed {
        use aes_gcm::KeyInit;
        let k = &key[..alg.key_len];
        match (alg.algorithm, alg.key_len) {
            (AeadAlgorithm::AesGcm, 16) => AeadKeyed::Gcm128(KeyInit::new_from_slice(k).unwrap()),
            (AeadAlgorithm::AesGcm, 24) => AeadKeyed::Gcm192(KeyInit::new_from_slice(k).unwrap()),
            (AeadAlgorithm::AesGcm, _) => AeadKeyed::Gcm256(KeyInit::new_from_slice(k).unwrap()),
            (AeadAlgorithm::AesCcm, 16) => AeadKeyed::Ccm128(KeyInit::new_from_slice(k).unwrap()),
            (AeadAlgorithm::AesCcm, 24) => AeadKeyed::Ccm192(KeyInit::new_from_slice(k).unwrap()),
            (AeadAlgorithm::AesCcm, _) => AeadKeyed::Ccm256(KeyInit::new_from_slice(k).unwrap()),
        }
    }

    /// Seals `data` in place under the 12-byte `nonce`, no AAD; the 16-byte tag.
    pub fn seal(&self, nonce: &[u8; 12], data: &mut [u8]) -> [u8; 16] {
        use aes_gcm::aead::AeadInPlace;
        let n = aes_gcm::aead::generic_array::GenericArray::from_slice(nonce);
        let tag = match self {
            AeadKeyed::Gcm128(a) => a.encrypt_in_place_detached(n, &[], data),
            AeadKeyed::Gcm192(a) => a.encrypt_in_place_detached(n, &[], data),
            AeadKeyed::Gcm256(a) => a.encrypt_in_place_detached(n, &[], data),
            AeadKeyed::Ccm128(a) => a.encrypt_in_place_detached(n, &[], data),
            AeadKeyed::Ccm192(a) => a.encrypt_in_place_detached(n, &[], data),
            AeadKeyed::Ccm256(a) => a.encrypt_in_place_detached(n, &[], data),
        }
        .expect("a message within the mode's limit");
        tag.into()
    }
}

/// An HMAC keyed once: the keyed start of both hashes, cloned per message (what
/// `hmac`'s `reset` keeps, and the CPU engine's sessions keep).
#[derive(Clone)]
pub enum MacKeyed {
    Md5(hmac::Hmac<md5::Md5>),
    Sha1(hmac::Hmac<sha1::Sha1>),
    Sha224(hmac::Hmac<sha2::Sha224>),
    Sha256(hmac::Hmac<sha2::Sha256>),
    Sha384(hmac::Hmac<sha2::Sha384>),
    Sha512(hmac::Hmac<sha2::Sha512>),
}

impl MacKeyed {
    pub fn new(alg: MacAlgorithm, key: &[u8]) -> MacKeyed {
        use hmac::Mac;
        match alg {
            MacAlgorithm::Md5 => MacKeyed::Md5(Mac::new_from_slice(key).unwrap()),
            MacAlgorithm::Sha1 => MacKeyed::Sha1(Mac::new_from_slice(key).unwrap()),
            MacAlgorithm::Sha224 => MacKeyed::Sha224(Mac::new_from_slice(key).unwrap()),
            MacAlgorithm::Sha256 => MacKeyed::Sha256(Mac::new_from_slice(key).unwrap()),
            MacAlgorithm::Sha384 => MacKeyed::Sha384(Mac::new_from_slice(key).unwrap()),
            MacAlgorithm::Sha512 => MacKeyed::Sha512(Mac::new_from_slice(key).unwrap()),
        }
    }

    /// The tag of `data` in `out`, its length returned; the keyed start is kept.
    pub fn tag_into(&self, data: &[u8], out: &mut [u8; MAX_DIGEST]) -> usize {
        use hmac::Mac;
        fn put(d: &[u8], out: &mut [u8; MAX_DIGEST]) -> usize {
            out[..d.len()].copy_from_slice(d);
            d.len()
        }
        macro_rules! tag {
            ($h:expr) => {{
                let mut h = $h.clone();
                h.update(data);
                put(&h.finalize().into_bytes(), out)
            }};
        }
        match self {
            MacKeyed::Md5(h) => tag!(h),
            MacKeyed::Sha1(h) => tag!(h),
            MacKeyed::Sha224(h) => tag!(h),
            MacKeyed::Sha256(h) => tag!(h),
            MacKeyed::Sha384(h) => tag!(h),
            MacKeyed::Sha512(h) => tag!(h),
        }
    }
}
