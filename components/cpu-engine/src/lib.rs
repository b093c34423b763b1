//! The CPU engine: AES-128/192/256 in ECB, CBC and CTR with RustCrypto (which uses AES-NI
//! or the ARMv8 crypto extensions where the CPU has them), behind the same
//! [`CipherEngine`] interface as the hardware engines. It serves boards without an engine
//! and is the real-time reference the speed tool compares the others with.
//!
//! Requests work in place over a scatter-gather list whose segments need not be
//! block-aligned: a block that straddles two segments is gathered into a 16-byte buffer,
//! processed and scattered back; every other block is processed where it lies.
//!
//! Assumes segments were validated by `cipher-service` (inside the region; a whole number
//! of blocks in total for ECB and CBC). `no_std`, no heap.
//!
//! The Digest side is module [`hash`] ([`hash::CpuDigest`]).
#![no_std]
#![forbid(unsafe_code)]

pub mod hash;

use aes::{Aes128, Aes192, Aes256};
use cipher::generic_array::GenericArray;
use cipher::{
    BlockCipher, BlockDecrypt, BlockDecryptMut, BlockEncrypt, BlockEncryptMut, IvState, KeyInit,
    KeyIvInit, StreamCipher,
};
use cipher_service::{CipherEngine, ClientData, Segments, Session};
use pd_idl::cipher::{CipherError, CipherOp, Mode, Path};

/// The CPU engine. Stateless between requests: the session carries key and IV.
#[derive(Debug, Default)]
pub struct CpuEngine {
    /// Bytes processed, for the ledger (CPU cipher bytes).
    pub bytes: u64,
}

impl CipherEngine for CpuEngine {
    fn supports(&self, session: &Session) -> Result<(), CipherError> {
        match session.path {
            Path::Adaptive | Path::Cpu => Ok(()),
            Path::Pio | Path::Dma => Err(CipherError::UnsupportedPath),
        }
    }

    fn crypt(
        &mut self,
        session: &mut Session,
        op: CipherOp,
        segs: &Segments,
        data: &mut ClientData<'_>,
    ) -> Result<Path, CipherError> {
        let data = &mut *data.bytes;
        match session.key_len {
            16 => run::<Aes128>(session, op, segs, data),
            24 => run::<Aes192>(session, op, segs, data),
            32 => run::<Aes256>(session, op, segs, data),
            _ => return Err(CipherError::BadKeySize),
        }
        self.bytes += u64::from(segs.total());
        Ok(Path::Cpu)
    }
}

type Block = GenericArray<u8, cipher::consts::U16>;

fn run<C>(session: &mut Session, op: CipherOp, segs: &Segments, data: &mut [u8])
where
    C: BlockCipher<BlockSize = cipher::consts::U16> + BlockEncrypt + BlockDecrypt + KeyInit + Clone,
{
    let key = GenericArray::from_slice(session.key());
    let iv = GenericArray::from_slice(&session.iv);
    match (session.mode, op) {
        (Mode::Ecb, CipherOp::Encrypt) => {
            let c = C::new(key);
            for_each_block(segs, data, |b| c.encrypt_block(b));
        }
        (Mode::Ecb, CipherOp::Decrypt) => {
            let c = C::new(key);
            for_each_block(segs, data, |b| c.decrypt_block(b));
        }
        (Mode::Cbc, CipherOp::Encrypt) => {
            let mut c = cbc::Encryptor::<C>::new(key, iv);
            for_each_block(segs, data, |b| c.encrypt_block_mut(b));
            session.iv.copy_from_slice(&c.iv_state());
        }
        (Mode::Cbc, CipherOp::Decrypt) => {
            let mut c = cbc::Decryptor::<C>::new(key, iv);
            for_each_block(segs, data, |b| c.decrypt_block_mut(b));
            session.iv.copy_from_slice(&c.iv_state());
        }
        (Mode::Ctr, _) => {
            let mut c = ctr::Ctr128BE::<C>::new(key, iv);
            for s in segs.as_slice() {
                c.apply_keystream(&mut data[s.offset as usize..(s.offset + s.len) as usize]);
            }
            // The next request starts at the next whole block, as Linux's ctr(aes) hands
            // back its IV.
            let next = next_counter(&session.iv, segs.total());
            session.iv = next;
        }
    }
}

/// `iv` as a 128-bit big-endian counter advanced by the blocks `len` bytes use.
fn next_counter(iv: &[u8; 16], len: u32) -> [u8; 16] {
    let blocks = u128::from(len.div_ceil(16));
    u128::from_be_bytes(*iv).wrapping_add(blocks).to_be_bytes()
}

/// Calls `f` on every 16-byte block of the concatenated segments, in order: in place
/// where a block lies inside one segment, through a gathered copy where it straddles.
fn for_each_block(segs: &Segments, data: &mut [u8], mut f: impl FnMut(&mut Block)) {
    let mut carry = [0u8; 16];
    let mut carried = 0usize;
    // Where the carried bytes came from, to scatter them back.
    let mut pieces: [(usize, usize); 16] = [(0, 0); 16];
    let mut npieces = 0;
    for s in segs.as_slice() {
        let (mut at, end) = (s.offset as usize, (s.offset + s.len) as usize);
        if carried > 0 {
            let take = (16 - carried).min(end - at);
            carry[carried..carried + take].copy_from_slice(&data[at..at + take]);
            pieces[npieces] = (at, take);
            npieces += 1;
            carried += take;
            at += take;
            if carried == 16 {
                f(Block::from_mut_slice(&mut carry));
                let mut from = 0;
                for &(p, n) in &pieces[..npieces] {
                    data[p..p + n].copy_from_slice(&carry[from..from + n]);
                    from += n;
                }
                carried = 0;
                npieces = 0;
            }
        }
        while end - at >= 16 {
            f(Block::from_mut_slice(&mut data[at..at + 16]));
            at += 16;
        }
        if at < end {
            let n = end - at;
            carry[..n].copy_from_slice(&data[at..end]);
            pieces[0] = (at, n);
            npieces = 1;
            carried = n;
        }
    }
    debug_assert_eq!(carried, 0, "validated: a whole number of blocks");
}
