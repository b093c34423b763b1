//! In-process RustCrypto, the reference the tests compare against and the host limit
//! `speed --host-limit` measures beside the isolated driver.

use aes::{Aes128, Aes192, Aes256};
use cipher::{
    BlockDecrypt, BlockDecryptMut, BlockEncrypt, BlockEncryptMut, KeyInit, KeyIvInit, StreamCipher,
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

/// The digest of `data`.
pub fn digest(alg: Algorithm, data: &[u8]) -> Vec<u8> {
    match alg {
        Algorithm::Md5 => md5::Md5::digest(data).to_vec(),
        Algorithm::Sha1 => sha1::Sha1::digest(data).to_vec(),
        Algorithm::Sha256 => sha2::Sha256::digest(data).to_vec(),
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
        assert_eq!(
            crate::hexfmt::encode(&digest(Algorithm::Sha256, b"abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
