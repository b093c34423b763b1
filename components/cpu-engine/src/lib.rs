//! The CPU engine: AES-128/192/256 in ECB, CBC and CTR with RustCrypto (which uses AES-NI
//! or the ARMv8 crypto extensions where the CPU has them), behind the same
//! [`CipherEngine`] interface as the hardware engines. It serves boards without an engine
//! and is the real-time reference the speed tool compares the others with.
//!
//! Requests work over a scatter-gather list in the client's shared region, whose
//! segments need not be block-aligned: the request's bytes are copied in pieces of
//! [`CHUNK`] into a private buffer (volatile copies: the client may write its region at
//! any moment), processed there and copied back. The engine finishes every request in
//! [`start`](CipherEngine::start): it has no interrupt.
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
use cipher_service::{CipherEngine, Finished, Job, Session, Step, sg};
use pd_idl::cipher::{CipherError, CipherOp, Mode, Path};

/// Bytes processed per private copy: a multiple of the block, small enough for a PD's
/// stack.
pub const CHUNK: usize = 1024;

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

    fn start(&mut self, job: &Job<'_>) -> Step {
        let mut session = job.session;
        let result = match session.key_len {
            16 => run::<Aes128>(&mut session, job),
            24 => run::<Aes192>(&mut session, job),
            32 => run::<Aes256>(&mut session, job),
            _ => Err(CipherError::BadKeySize),
        };
        Step::Done(result.map(|()| {
            self.bytes += u64::from(job.segs.total());
            Finished {
                path: Path::Cpu,
                next_iv: session.iv,
            }
        }))
    }

    fn interrupt(&mut self, _: &Job<'_>) -> Step {
        // Nothing is ever left in flight.
        Step::Pending
    }

    fn cancel(&mut self, _: &Job<'_>) {}
}

type Block = GenericArray<u8, cipher::consts::U16>;

fn run<C>(session: &mut Session, job: &Job<'_>) -> Result<(), CipherError>
where
    C: BlockCipher<BlockSize = cipher::consts::U16> + BlockEncrypt + BlockDecrypt + KeyInit + Clone,
{
    let key = GenericArray::from_slice(session.key());
    let iv = GenericArray::from_slice(&session.iv);
    match (session.mode, job.op) {
        (Mode::Ecb, CipherOp::Encrypt) => {
            let c = C::new(key);
            for_each_chunk(job, |chunk| blocks(chunk, |b| c.encrypt_block(b)));
        }
        (Mode::Ecb, CipherOp::Decrypt) => {
            let c = C::new(key);
            for_each_chunk(job, |chunk| blocks(chunk, |b| c.decrypt_block(b)));
        }
        (Mode::Cbc, CipherOp::Encrypt) => {
            let mut c = cbc::Encryptor::<C>::new(key, iv);
            for_each_chunk(job, |chunk| blocks(chunk, |b| c.encrypt_block_mut(b)));
            session.iv.copy_from_slice(&c.iv_state());
        }
        (Mode::Cbc, CipherOp::Decrypt) => {
            let mut c = cbc::Decryptor::<C>::new(key, iv);
            for_each_chunk(job, |chunk| blocks(chunk, |b| c.decrypt_block_mut(b)));
            session.iv.copy_from_slice(&c.iv_state());
        }
        (Mode::Ctr, _) => {
            let mut c = ctr::Ctr128BE::<C>::new(key, iv);
            // Chunks are whole blocks but the last, so the keystream stays in step.
            for_each_chunk(job, |chunk| c.apply_keystream(chunk));
            // The next request starts at the next whole block, as Linux's ctr(aes) hands
            // back its IV.
            session.iv = next_counter(&session.iv, job.segs.total());
        }
    }
    Ok(())
}

/// `iv` as a 128-bit big-endian counter advanced by the blocks `len` bytes use.
fn next_counter(iv: &[u8; 16], len: u32) -> [u8; 16] {
    let blocks = u128::from(len.div_ceil(16));
    u128::from_be_bytes(*iv).wrapping_add(blocks).to_be_bytes()
}

/// Calls `f` on the request's bytes, [`CHUNK`] at a time, each copied out of the
/// client's region and back.
fn for_each_chunk(job: &Job<'_>, mut f: impl FnMut(&mut [u8])) {
    let total = job.segs.total() as usize;
    let mut buf = [0u8; CHUNK];
    let mut pos = 0;
    while pos < total {
        let n = (total - pos).min(CHUNK);
        sg::gather(&job.segs, &job.data, pos, &mut buf[..n]);
        f(&mut buf[..n]);
        sg::scatter(&job.segs, &job.data, pos, &buf[..n]);
        pos += n;
    }
}

/// Calls `f` on every 16-byte block of `chunk` (validated: whole blocks for ECB/CBC).
fn blocks(chunk: &mut [u8], mut f: impl FnMut(&mut Block)) {
    for b in chunk.chunks_exact_mut(16) {
        f(Block::from_mut_slice(b));
    }
}
