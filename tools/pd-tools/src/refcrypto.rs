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

use crate::algs::CipherAlg;

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
    let mut out = [0; 32];
    let n = digest_into(alg, data, &mut out);
    out[..n].to_vec()
}

/// The digest of `data` in `out`, its length returned; allocates nothing, as a program
/// hashing many messages would not (`speed --host-limit` times this).
pub fn digest_into(alg: Algorithm, data: &[u8], out: &mut [u8; 32]) -> usize {
    fn put(d: &[u8], out: &mut [u8; 32]) -> usize {
        out[..d.len()].copy_from_slice(d);
        d.len()
    }
    match alg {
        Algorithm::Md5 => put(&md5::Md5::digest(data), out),
        Algorithm::Sha1 => put(&sha1::Sha1::digest(data), out),
        Algorithm::Sha256 => put(&sha2::Sha256::digest(data), out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SP 800-38A F.2.1 (CBC-AES128 encrypt, first block) and FIPS 180-4 "abc".
    #[test]
    fn published_answers() {
        let key = crate::hexfmt::decode("2b7e151628aed2a6abf7158809cf4f3c").unwrap();
        let iv = crate::hexfmt::decode("000102030405060708090a0b0c0d0e0f").unwrap();
        let mut b = crate::hexfmt::decode("6bc1bee22e409f96e93d7e117393172a").unwrap();
        let alg = CipherAlg::parse("aes-128-cbc").unwrap();
        crypt(alg, true, &key, &iv, &mut b);
        assert_eq!(
            crate::hexfmt::encode(&b),
            "7649abac8119b246cee98e9b12e9197d"
        );
        crypt(alg, false, &key, &iv, &mut b);
        assert_eq!(
            crate::hexfmt::encode(&b),
            "6bc1bee22e409f96e93d7e117393172a"
        );
        // The same with the key expanded once, for each mode against the per-call path.
        let keyed = Keyed::new(&key);
        for name in ["aes-128-ecb", "aes-128-cbc", "aes-128-ctr"] {
            let alg = CipherAlg::parse(name).unwrap();
            let (mut once, mut each) = (b.clone(), b.clone());
            keyed.crypt(alg, true, &iv, &mut once);
            crypt(alg, true, &key, &iv, &mut each);
            assert_eq!(once, each, "{name}");
            keyed.crypt(alg, false, &iv, &mut once);
            assert_eq!(once, b, "{name} round trip");
        }
        assert_eq!(
            crate::hexfmt::encode(&digest(Algorithm::Sha256, b"abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
