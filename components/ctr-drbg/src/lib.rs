//! CTR_DRBG as NIST SP 800-90A (rev. 1) §10.2 defines it, over AES-256 (security
//! strength 256, seedlen 384 bits), with the block-cipher derivation function (§10.3.2,
//! what the Rng service runs: its entropy input is raw, health-tested samples of any
//! length) or without it (full-entropy input of exactly seedlen, as CAVP's "no df"
//! vectors give it). The CAVP vectors (AES-256, use df and no df, prediction resistance
//! on and off) are this crate's tests (`tests/cavp.rs`).
//!
//! What this crate does not do is find entropy: [`Drbg::instantiate`] and
//! [`Drbg::reseed`] take it, and [`Drbg::generate`] refuses with
//! [`DrbgError::ReseedRequired`] once the reseed interval has passed, so the caller (the
//! Rng service, which owns the source and its health tests) decides where entropy comes
//! from and what happens when there is none. Prediction resistance is the caller's too:
//! SP 800-90A's generate with prediction resistance is a reseed followed by a generate
//! with no additional input ([`Drbg::generate_resistant`]).
//!
//! The working state (Key, V) is wiped when the value is dropped (`zeroize`), and the
//! AES key schedule of each generate lives only for that call. A DRBG moved out of an
//! `Option` leaves its bytes behind; `Option<Drbg>::zeroize` after the move wipes them
//! (the zeroize crate writes over the whole `Option`), which is how the Rng service moves
//! one between a session and a job. Assumes a CPU AES (the
//! `aes` crate picks its constant-time implementation). `no_std`, no heap.
#![no_std]
#![forbid(unsafe_code)]

use aes::Aes256;
use cipher::{BlockEncrypt, KeyInit, generic_array::GenericArray};
use zeroize::Zeroize;

/// AES-256's key: the DRBG's Key.
pub const KEY_LEN: usize = 32;
/// AES's block: the DRBG's V and its output block.
pub const BLOCK_LEN: usize = 16;
/// seedlen = keylen + outlen (Table 3).
pub const SEED_LEN: usize = KEY_LEN + BLOCK_LEN;
/// max_number_of_bits_per_request (Table 3: 2^19 bits for AES): one generate's output.
pub const MAX_REQUEST: usize = 1 << 16;
/// reseed_interval's upper bound (Table 3: 2^48 generates).
pub const MAX_RESEED_INTERVAL: u64 = 1 << 48;
/// Longest additional input or personalization string taken (Table 3 allows 2^35
/// bits; the service's are at most a request's worth).
pub const MAX_INPUT: usize = 1 << 16;
/// Shortest entropy input with the derivation function: the security strength's
/// worth of bytes (the service passes more when a sample carries less than a bit per
/// bit).
pub const MIN_ENTROPY_LEN: usize = KEY_LEN;

/// Whether seed material passes through the derivation function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Df {
    /// Block_Cipher_df: entropy input of any length (at least [`MIN_ENTROPY_LEN`]), a
    /// nonce, inputs of any length.
    Use,
    /// No derivation function: entropy input of exactly [`SEED_LEN`] full-entropy bytes,
    /// no nonce, inputs of at most [`SEED_LEN`].
    No,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrbgError {
    /// The reseed interval has passed: reseed before the next generate (§9.3.1 step 6).
    ReseedRequired,
    /// More output than one generate may return ([`MAX_REQUEST`]).
    RequestTooLong,
    /// Entropy input of the wrong length for the mode (see [`Df`]).
    BadEntropyLength,
    /// An additional input or personalization string longer than the mode takes.
    InputTooLong,
    /// A reseed interval of 0 or over [`MAX_RESEED_INTERVAL`].
    BadInterval,
}

/// One DRBG instance: its working state and its counter.
pub struct Drbg {
    key: [u8; KEY_LEN],
    v: [u8; BLOCK_LEN],
    /// Generates since the last (re)seed, plus one (§10.2.1.3.1 sets it to 1).
    reseed_counter: u64,
    interval: u64,
    df: Df,
}

impl Zeroize for Drbg {
    /// Wipes the working state where it lies (it cannot generate again until
    /// instantiated anew: its counter says a reseed is due).
    fn zeroize(&mut self) {
        self.key.zeroize();
        self.v.zeroize();
        self.reseed_counter = u64::MAX;
    }
}

impl Drop for Drbg {
    fn drop(&mut self) {
        self.zeroize();
    }
}

impl core::fmt::Debug for Drbg {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "Drbg({:?}, {} of {} generates)",
            self.df,
            self.reseed_counter - 1,
            self.interval
        )
    }
}

impl Drbg {
    /// Instantiate (§10.2.1.3.1 without, §10.2.1.3.2 with the df), reseeding after
    /// `interval` generates.
    pub fn instantiate(
        df: Df,
        entropy: &[u8],
        nonce: &[u8],
        personalization: &[u8],
        interval: u64,
    ) -> Result<Self, DrbgError> {
        if interval == 0 || interval > MAX_RESEED_INTERVAL {
            return Err(DrbgError::BadInterval);
        }
        check_entropy(df, entropy)?;
        check_input(df, personalization)?;
        let mut drbg = Drbg {
            key: [0; KEY_LEN],
            v: [0; BLOCK_LEN],
            reseed_counter: 1,
            interval,
            df,
        };
        // Without the df there is no nonce (§10.2.1.3.1).
        let mut seed = match df {
            Df::Use => seed_material(df, &[entropy, nonce, personalization]),
            Df::No => seed_material(df, &[entropy, personalization]),
        };
        drbg.update(&seed);
        seed.zeroize();
        Ok(drbg)
    }

    /// Reseed (§10.2.1.4).
    pub fn reseed(&mut self, entropy: &[u8], additional: &[u8]) -> Result<(), DrbgError> {
        check_entropy(self.df, entropy)?;
        check_input(self.df, additional)?;
        let mut seed = seed_material(self.df, &[entropy, additional]);
        self.update(&seed);
        seed.zeroize();
        self.reseed_counter = 1;
        Ok(())
    }

    /// Whether the next generate needs a reseed first.
    pub fn needs_reseed(&self) -> bool {
        self.reseed_counter > self.interval
    }

    /// Generates since the last (re)seed.
    pub fn generates_since_seed(&self) -> u64 {
        self.reseed_counter - 1
    }

    /// Generate (§10.2.1.5) into `out`.
    pub fn generate(&mut self, out: &mut [u8], additional: &[u8]) -> Result<(), DrbgError> {
        let mut at = 0;
        self.generate_into(out.len(), additional, |block| {
            out[at..at + block.len()].copy_from_slice(block);
            at += block.len();
        })
    }

    /// Generate with prediction resistance (§9.3.1 step 7): reseed from `entropy` and
    /// `additional`, then generate with no additional input.
    pub fn generate_resistant(
        &mut self,
        out: &mut [u8],
        entropy: &[u8],
        additional: &[u8],
    ) -> Result<(), DrbgError> {
        if out.len() > MAX_REQUEST {
            return Err(DrbgError::RequestTooLong);
        }
        self.reseed(entropy, additional)?;
        self.generate(out, &[])
    }

    /// Generate (§10.2.1.5) of `len` bytes handed to `sink` a block (the last one
    /// shorter) at a time, so a caller writing into memory it must copy to piecewise (a
    /// client's shared region) needs no buffer of the request's length.
    pub fn generate_into(
        &mut self,
        len: usize,
        additional: &[u8],
        mut sink: impl FnMut(&[u8]),
    ) -> Result<(), DrbgError> {
        if len > MAX_REQUEST {
            return Err(DrbgError::RequestTooLong);
        }
        if self.needs_reseed() {
            return Err(DrbgError::ReseedRequired);
        }
        check_input(self.df, additional)?;
        let mut input = [0u8; SEED_LEN];
        if !additional.is_empty() {
            input = seed_material(self.df, &[additional]);
            self.update(&input);
        }
        let aes = Aes256::new(GenericArray::from_slice(&self.key));
        let mut block = GenericArray::default();
        let mut left = len;
        while left > 0 {
            increment(&mut self.v);
            block.copy_from_slice(&self.v);
            aes.encrypt_block(&mut block);
            let n = left.min(BLOCK_LEN);
            sink(&block[..n]);
            left -= n;
        }
        block.zeroize();
        drop(aes);
        self.update(&input);
        input.zeroize();
        self.reseed_counter += 1;
        Ok(())
    }

    /// CTR_DRBG_Update (§10.2.1.2).
    fn update(&mut self, provided: &[u8; SEED_LEN]) {
        let aes = Aes256::new(GenericArray::from_slice(&self.key));
        let mut temp = [0u8; SEED_LEN];
        for chunk in temp.chunks_exact_mut(BLOCK_LEN) {
            increment(&mut self.v);
            let block = GenericArray::from_mut_slice(chunk);
            block.copy_from_slice(&self.v);
            aes.encrypt_block(block);
        }
        for (t, p) in temp.iter_mut().zip(provided) {
            *t ^= p;
        }
        self.key.copy_from_slice(&temp[..KEY_LEN]);
        self.v.copy_from_slice(&temp[KEY_LEN..]);
        temp.zeroize();
    }
}

fn check_entropy(df: Df, entropy: &[u8]) -> Result<(), DrbgError> {
    let ok = match df {
        Df::Use => entropy.len() >= MIN_ENTROPY_LEN && entropy.len() <= MAX_INPUT,
        Df::No => entropy.len() == SEED_LEN,
    };
    ok.then_some(()).ok_or(DrbgError::BadEntropyLength)
}

fn check_input(df: Df, input: &[u8]) -> Result<(), DrbgError> {
    let max = match df {
        Df::Use => MAX_INPUT,
        Df::No => SEED_LEN,
    };
    (input.len() <= max)
        .then_some(())
        .ok_or(DrbgError::InputTooLong)
}

/// The seedlen bytes the parts make: through Block_Cipher_df, or (no df) the parts
/// XORed, each padded with zeros (§10.2.1.3.1: entropy input XOR personalization).
fn seed_material(df: Df, parts: &[&[u8]]) -> [u8; SEED_LEN] {
    match df {
        Df::Use => block_cipher_df(parts),
        Df::No => {
            let mut seed = [0u8; SEED_LEN];
            for part in parts {
                for (s, p) in seed.iter_mut().zip(part.iter()) {
                    *s ^= p;
                }
            }
            seed
        }
    }
}

/// V = (V + 1) mod 2^128 (ctr_len = blocklen).
fn increment(v: &mut [u8; BLOCK_LEN]) {
    for b in v.iter_mut().rev() {
        *b = b.wrapping_add(1);
        if *b != 0 {
            break;
        }
    }
}

/// Block_Cipher_df (§10.3.2) of the concatenation of `parts`, returning seedlen bytes.
fn block_cipher_df(parts: &[&[u8]]) -> [u8; SEED_LEN] {
    let input_len: usize = parts.iter().map(|p| p.len()).sum();
    // S = L || N || input || 0x80, zero-padded to whole blocks; fed to BCC after IV.
    let mut header = [0u8; 8];
    header[..4].copy_from_slice(&(input_len as u32).to_be_bytes());
    header[4..].copy_from_slice(&(SEED_LEN as u32).to_be_bytes());
    let df_key: [u8; KEY_LEN] = core::array::from_fn(|i| i as u8);
    let aes = Aes256::new(GenericArray::from_slice(&df_key));
    let mut temp = [0u8; SEED_LEN];
    for (i, chunk) in temp.chunks_exact_mut(BLOCK_LEN).enumerate() {
        let mut iv = [0u8; BLOCK_LEN];
        iv[..4].copy_from_slice(&(i as u32).to_be_bytes());
        let mut bcc = Bcc::new(&aes);
        bcc.absorb(&iv);
        bcc.absorb(&header);
        for p in parts {
            bcc.absorb(p);
        }
        bcc.absorb(&[0x80]);
        chunk.copy_from_slice(&bcc.finish());
    }
    let aes = Aes256::new(GenericArray::from_slice(&temp[..KEY_LEN]));
    let mut x = GenericArray::clone_from_slice(&temp[KEY_LEN..]);
    let mut out = [0u8; SEED_LEN];
    for chunk in out.chunks_exact_mut(BLOCK_LEN) {
        aes.encrypt_block(&mut x);
        chunk.copy_from_slice(&x);
    }
    temp.zeroize();
    x.zeroize();
    out
}

/// BCC (§10.3.3) fed in pieces: CBC-MAC with a zero IV, the last block zero-padded.
struct Bcc<'a> {
    aes: &'a Aes256,
    chain: GenericArray<u8, cipher::consts::U16>,
    fill: usize,
}

impl<'a> Bcc<'a> {
    fn new(aes: &'a Aes256) -> Self {
        Bcc {
            aes,
            chain: GenericArray::default(),
            fill: 0,
        }
    }

    fn absorb(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let n = (BLOCK_LEN - self.fill).min(bytes.len());
            for (c, b) in self.chain[self.fill..self.fill + n].iter_mut().zip(bytes) {
                *c ^= b;
            }
            self.fill += n;
            bytes = &bytes[n..];
            if self.fill == BLOCK_LEN {
                self.aes.encrypt_block(&mut self.chain);
                self.fill = 0;
            }
        }
    }

    fn finish(mut self) -> [u8; BLOCK_LEN] {
        // The zero padding XORs nothing in: only the last block's encryption is left.
        if self.fill != 0 {
            self.aes.encrypt_block(&mut self.chain);
        }
        let out = self.chain.into();
        self.chain.zeroize();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v_wraps_as_a_128_bit_counter() {
        let mut v = [0xff; BLOCK_LEN];
        increment(&mut v);
        assert_eq!(v, [0; BLOCK_LEN]);
        let mut v = [0; BLOCK_LEN];
        v[15] = 0xff;
        increment(&mut v);
        assert_eq!(v[14..], [1, 0]);
    }

    #[test]
    fn the_interval_forces_a_reseed_and_the_reseed_clears_it() {
        let mut d = Drbg::instantiate(Df::Use, &[7; 32], &[1; 16], &[], 2).unwrap();
        let mut out = [0; 16];
        d.generate(&mut out, &[]).unwrap();
        d.generate(&mut out, &[]).unwrap();
        assert_eq!(d.generate(&mut out, &[]), Err(DrbgError::ReseedRequired));
        d.reseed(&[8; 32], &[]).unwrap();
        assert_eq!(d.generates_since_seed(), 0);
        assert!(d.generate(&mut out, &[]).is_ok());
    }

    #[test]
    fn lengths_outside_the_mode_are_refused() {
        assert_eq!(
            Drbg::instantiate(Df::No, &[0; 32], &[], &[], 1).err(),
            Some(DrbgError::BadEntropyLength)
        );
        assert_eq!(
            Drbg::instantiate(Df::Use, &[0; 31], &[], &[], 1).err(),
            Some(DrbgError::BadEntropyLength)
        );
        assert_eq!(
            Drbg::instantiate(Df::No, &[0; 48], &[], &[0; 49], 1).err(),
            Some(DrbgError::InputTooLong)
        );
        assert_eq!(
            Drbg::instantiate(Df::Use, &[0; 32], &[], &[], 0).err(),
            Some(DrbgError::BadInterval)
        );
        let mut d = Drbg::instantiate(Df::Use, &[0; 32], &[], &[], 10).unwrap();
        assert_eq!(
            d.generate_into(MAX_REQUEST + 1, &[], |_| {}),
            Err(DrbgError::RequestTooLong)
        );
    }

    #[test]
    fn output_handed_out_in_pieces_is_the_buffered_output() {
        let mut a = Drbg::instantiate(Df::Use, &[3; 40], &[4; 16], b"p", 10).unwrap();
        let mut b = Drbg::instantiate(Df::Use, &[3; 40], &[4; 16], b"p", 10).unwrap();
        let mut whole = [0u8; 37];
        a.generate(&mut whole, b"x").unwrap();
        let mut pieces = [0u8; 37];
        let mut at = 0;
        b.generate_into(37, b"x", |p| {
            pieces[at..at + p.len()].copy_from_slice(p);
            at += p.len();
        })
        .unwrap();
        assert_eq!(whole, pieces);
        assert_ne!(whole, [0; 37]);
    }
}
