//! What the device must produce, computed with RustCrypto on the CPU, and the random
//! numbers the checks draw (xorshift64*: deterministic, so a failure can be replayed).

use aes::{Aes128, Aes192, Aes256};
use cipher::generic_array::GenericArray;
use cipher::{
    BlockCipher, BlockDecrypt, BlockDecryptMut, BlockEncrypt, BlockEncryptMut, KeyInit, KeyIvInit,
    StreamCipher,
};
use pd_idl::cipher::{CipherOp, Mode};

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform enough in `0..n` for test data.
    pub fn below(&mut self, n: u32) -> u32 {
        ((self.next() >> 32) % u64::from(n.max(1))) as u32
    }

    pub fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            let v = self.next().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }
}

/// Transforms `buf` in place as the Cipher interface defines it, starting from `iv`;
/// returns the IV the next request of the session must use.
pub fn expect(mode: Mode, op: CipherOp, key: &[u8], iv: [u8; 16], buf: &mut [u8]) -> [u8; 16] {
    match key.len() {
        16 => run::<Aes128>(mode, op, key, iv, buf),
        24 => run::<Aes192>(mode, op, key, iv, buf),
        _ => run::<Aes256>(mode, op, key, iv, buf),
    }
}

fn last_block(buf: &[u8]) -> [u8; 16] {
    let mut b = [0; 16];
    b.copy_from_slice(&buf[buf.len() - 16..]);
    b
}

fn run<C>(mode: Mode, op: CipherOp, key: &[u8], iv: [u8; 16], buf: &mut [u8]) -> [u8; 16]
where
    C: BlockCipher<BlockSize = cipher::consts::U16> + BlockEncrypt + BlockDecrypt + KeyInit + Clone,
{
    let blocks = buf.chunks_exact_mut(16);
    match (mode, op) {
        (Mode::Ecb, CipherOp::Encrypt | CipherOp::EncryptNewIv) => {
            let c = C::new_from_slice(key).unwrap();
            blocks.for_each(|b| c.encrypt_block(GenericArray::from_mut_slice(b)));
            iv
        }
        (Mode::Ecb, CipherOp::Decrypt) => {
            let c = C::new_from_slice(key).unwrap();
            blocks.for_each(|b| c.decrypt_block(GenericArray::from_mut_slice(b)));
            iv
        }
        (Mode::Cbc, CipherOp::Encrypt | CipherOp::EncryptNewIv) => {
            let mut c = cbc::Encryptor::<C>::new_from_slices(key, &iv).unwrap();
            blocks.for_each(|b| c.encrypt_block_mut(GenericArray::from_mut_slice(b)));
            last_block(buf)
        }
        (Mode::Cbc, CipherOp::Decrypt) => {
            let next = last_block(buf);
            let mut c = cbc::Decryptor::<C>::new_from_slices(key, &iv).unwrap();
            buf.chunks_exact_mut(16)
                .for_each(|b| c.decrypt_block_mut(GenericArray::from_mut_slice(b)));
            next
        }
        (Mode::Ctr, _) => {
            ctr::Ctr128BE::<C>::new_from_slices(key, &iv)
                .unwrap()
                .apply_keystream(buf);
            let used = buf.len().div_ceil(16) as u128;
            u128::from_be_bytes(iv).wrapping_add(used).to_be_bytes()
        }
    }
}
