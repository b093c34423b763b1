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
    BlockCipher, BlockDecrypt, BlockDecryptMut, BlockEncrypt, BlockEncryptMut, InnerIvInit,
    IvState, KeyInit, StreamCipher,
};
use cipher_service::{CipherEngine, Finished, Job, Session, Step, sg};
use pd_idl::cipher::{CipherError, CipherOp, Mode, Path};

/// Bytes processed per private copy: a multiple of the block, small enough for a PD's
/// stack.
pub const CHUNK: usize = 1024;

/// Expanded keys the engine keeps (sessions' keys, expanded once as Linux's setkey does).
pub const CACHED_KEYS: usize = 4;

/// An expanded AES key.
#[derive(Clone)]
enum Schedule {
    A128(Aes128),
    A192(Aes192),
    A256(Aes256),
}

#[derive(Clone)]
struct Cached {
    key_len: u8,
    key: [u8; 32],
    schedule: Schedule,
    last_use: u32,
}

impl Cached {
    fn holds(&self, s: &Session) -> bool {
        // Every byte compared whatever the first difference (no early exit on key bytes).
        let diff = self
            .key
            .iter()
            .zip(&s.key)
            .fold(0u8, |d, (a, b)| d | (a ^ b));
        self.key_len == s.key_len && diff == 0
    }
}

/// The CPU engine. The session carries key and IV; the engine keeps the expansion of
/// the last few keys it used ([`CACHED_KEYS`]), so a session's key is expanded once, not
/// per request, and forgets a key when a session with it closes.
pub struct CpuEngine {
    /// Bytes processed, for the ledger (CPU cipher bytes).
    pub bytes: u64,
    keys: [Option<Cached>; CACHED_KEYS],
    clock: u32,
    /// Key expansions done (a request that found its key expanded did none).
    pub expansions: u64,
    /// The private copy requests are processed in (kept, not zeroed per request).
    buf: [u8; CHUNK],
}

impl Default for CpuEngine {
    fn default() -> Self {
        CpuEngine {
            bytes: 0,
            keys: Default::default(),
            clock: 0,
            expansions: 0,
            buf: [0; CHUNK],
        }
    }
}

impl core::fmt::Debug for CpuEngine {
    // No key material in debug output.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CpuEngine")
            .field("bytes", &self.bytes)
            .field("expansions", &self.expansions)
            .finish_non_exhaustive()
    }
}

impl CpuEngine {
    /// The expanded key of `s`, expanding it (and evicting the least recently used) if
    /// it is not kept.
    fn schedule(&mut self, s: &Session) -> Result<Schedule, CipherError> {
        self.clock = self.clock.wrapping_add(1);
        let now = self.clock;
        if let Some(c) = self.keys.iter_mut().flatten().find(|c| c.holds(s)) {
            c.last_use = now;
            return Ok(c.schedule.clone());
        }
        let key = s.key();
        let schedule = match s.key_len {
            16 => Schedule::A128(Aes128::new(GenericArray::from_slice(key))),
            24 => Schedule::A192(Aes192::new(GenericArray::from_slice(key))),
            32 => Schedule::A256(Aes256::new(GenericArray::from_slice(key))),
            _ => return Err(CipherError::BadKeySize),
        };
        self.expansions += 1;
        let slot = match self.keys.iter().position(Option::is_none) {
            Some(i) => i,
            None => (0..CACHED_KEYS)
                .min_by_key(|&i| self.keys[i].as_ref().map_or(0, |c| c.last_use))
                .unwrap_or(0),
        };
        self.keys[slot] = Some(Cached {
            key_len: s.key_len,
            key: s.key,
            schedule: schedule.clone(),
            last_use: now,
        });
        Ok(schedule)
    }
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
        let schedule = self.schedule(&session);
        let buf = &mut self.buf;
        let result = schedule.and_then(|schedule| match schedule {
            Schedule::A128(c) => run(c, &mut session, job, buf),
            Schedule::A192(c) => run(c, &mut session, job, buf),
            Schedule::A256(c) => run(c, &mut session, job, buf),
        });
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

    /// No key outlives its session here: the expansion goes with it (another open
    /// session with the same key expands it again).
    fn closed(&mut self, session: &Session) {
        for k in &mut self.keys {
            if k.as_ref().is_some_and(|c| c.holds(session)) {
                *k = None;
            }
        }
    }
}

type Block = GenericArray<u8, cipher::consts::U16>;

/// `job` with the expanded key `c`; leaves the session's next IV in `session`.
fn run<C>(
    c: C,
    session: &mut Session,
    job: &Job<'_>,
    buf: &mut [u8; CHUNK],
) -> Result<(), CipherError>
where
    C: BlockCipher<BlockSize = cipher::consts::U16> + BlockEncrypt + BlockDecrypt + Clone,
{
    let iv = GenericArray::from_slice(&session.iv);
    match (session.mode, job.op) {
        (Mode::Ecb, CipherOp::Encrypt) => {
            for_each_chunk(job, buf, |chunk| blocks(chunk, |b| c.encrypt_block(b)));
        }
        (Mode::Ecb, CipherOp::Decrypt) => {
            for_each_chunk(job, buf, |chunk| blocks(chunk, |b| c.decrypt_block(b)));
        }
        (Mode::Cbc, CipherOp::Encrypt) => {
            let mut c = cbc::Encryptor::<C>::inner_iv_init(c, iv);
            for_each_chunk(job, buf, |chunk| blocks(chunk, |b| c.encrypt_block_mut(b)));
            session.iv.copy_from_slice(&c.iv_state());
        }
        (Mode::Cbc, CipherOp::Decrypt) => {
            let mut c = cbc::Decryptor::<C>::inner_iv_init(c, iv);
            for_each_chunk(job, buf, |chunk| blocks(chunk, |b| c.decrypt_block_mut(b)));
            session.iv.copy_from_slice(&c.iv_state());
        }
        (Mode::Ctr, _) => {
            let core = ctr::CtrCore::<C, ctr::flavors::Ctr128BE>::inner_iv_init(c, iv);
            let mut c = ctr::Ctr128BE::<C>::from_core(core);
            // Chunks are whole blocks but the last, so the keystream stays in step.
            for_each_chunk(job, buf, |chunk| c.apply_keystream(chunk));
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
fn for_each_chunk(job: &Job<'_>, buf: &mut [u8; CHUNK], mut f: impl FnMut(&mut [u8])) {
    let total = job.segs.total() as usize;
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
