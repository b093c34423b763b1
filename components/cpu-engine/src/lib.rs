//! The CPU engine: AES-128/192/256 in ECB, CBC and CTR with RustCrypto (which uses AES-NI
//! or the ARMv8 crypto extensions where the CPU has them), behind the same
//! [`CipherEngine`] interface as the hardware engines. It serves boards without an engine
//! and is the real-time reference the speed tool compares the others with.
//!
//! Requests work over a scatter-gather list in the client's shared region, whose
//! segments need not be block-aligned, and only through volatile accesses (the client
//! may write its region at any moment). CBC encryption enciphers each block where it
//! lies (one volatile load and store per block); the other modes copy the request's
//! bytes in pieces of [`CHUNK`] into a private buffer, process them there and copy them
//! back. The engine finishes every request in [`start`](CipherEngine::start): it has no
//! interrupt.
//!
//! Assumes segments were validated by `cipher-service` (inside the region; a whole number
//! of blocks in total for ECB and CBC). `no_std`, no heap.
//!
//! The Digest side is module [`hash`] ([`hash::CpuDigest`]), the Mac side module [`mac`]
//! ([`mac::CpuMac`]), the Aead side module [`aead`] ([`aead::CpuAead`]).
#![no_std]
#![forbid(unsafe_code)]

pub mod aead;
pub mod hash;
pub mod mac;

use aes::{Aes128, Aes192, Aes256};
use cipher::consts::U16;
use cipher::generic_array::GenericArray;
use cipher::inout::InOutBuf;
use cipher::{
    BlockBackend, BlockCipher, BlockClosure, BlockDecrypt, BlockDecryptMut, BlockEncrypt,
    BlockSizeUser, InnerIvInit, IvState, KeyInit, StreamCipher,
};
use cipher_service::{CipherEngine, Finished, Job, Session, Step, sg};
use pd_idl::cipher::{CipherError, CipherOp, Mode, Path};

/// Bytes processed per private copy: a multiple of the block. Small pieces let the
/// copies overlap the cipher (when CBC encryption still went through the copy, 256
/// bytes ran 16 KiB a few percent faster than 128, 512 or 1024).
pub const CHUNK: usize = 256;

/// Expanded keys the engine keeps (sessions' keys, expanded once as Linux's setkey does),
/// the least recently used evicted: up to this many sessions with keys of their own keep
/// theirs expanded; more, taking turns, re-expand in turn. Not one per session the table
/// holds (16): RustCrypto's AES types with CPU detection hold ~1 KiB each, and the
/// engine, built in the PD's init and moved onto its event loop's stack, would take
/// 16.7 KiB; the seL4 image's CPU driver then overflowed its 32 KiB stack at start-up
/// (`driver_pd::MAX_STATE` now refuses such a driver at build time).
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

/// A cached key leaves nothing behind: its bytes are wiped here, its expansion by the
/// `aes` crate's own drop (its `zeroize` feature), whether it was forgotten at a close
/// or evicted for another key.
impl Drop for Cached {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.key);
    }
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
#[derive(Default)]
pub struct CpuEngine {
    /// Bytes processed, for the ledger (CPU cipher bytes).
    pub bytes: u64,
    keys: [Option<Cached>; CACHED_KEYS],
    clock: u32,
    /// Key expansions done (a request that found its key expanded did none).
    pub expansions: u64,
    /// The private copy of the modes that use one, kept rather than set up per request.
    buf: Chunk,
    /// The request's IV as it runs (see `start`).
    iv: Iv,
    /// Where driver-chosen IVs come from (`EncryptNewIv`): the PD's Rng service, if any.
    random: Option<fn(&mut [u8]) -> bool>,
    /// A key was expanded since the PD last asked ([`CipherEngine::touched_keys`]).
    expanded: bool,
}

/// An IV on a 16-byte boundary: read and written as one vector.
#[derive(Default)]
#[repr(C, align(16))]
struct Iv([u8; 16]);

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
    /// The engine drawing the IVs it is asked to choose from `random` (the PD's call to
    /// its Rng service).
    pub fn with_random(random: fn(&mut [u8]) -> bool) -> Self {
        CpuEngine {
            random: Some(random),
            ..Self::default()
        }
    }

    /// Where the expanded key of `s` is kept, expanding it (and evicting the least
    /// recently used) if it is not. Used in place, not copied: an expansion is hundreds
    /// of bytes, and copying it per request cost more than a 16-byte request's AES.
    fn schedule(&mut self, s: &Session) -> Result<usize, CipherError> {
        self.clock = self.clock.wrapping_add(1);
        let now = self.clock;
        let slot = match self
            .keys
            .iter()
            .position(|c| c.as_ref().is_some_and(|c| c.holds(s)))
        {
            Some(i) => i,
            None => {
                let key = s.key();
                let schedule = match s.key_len {
                    16 => Schedule::A128(Aes128::new(GenericArray::from_slice(key))),
                    24 => Schedule::A192(Aes192::new(GenericArray::from_slice(key))),
                    32 => Schedule::A256(Aes256::new(GenericArray::from_slice(key))),
                    _ => return Err(CipherError::BadKeySize),
                };
                self.expansions += 1;
                // The expansion's temporaries (the key among them) are on the stack.
                self.expanded = true;
                let slot = match self.keys.iter().position(Option::is_none) {
                    Some(i) => i,
                    None => (0..CACHED_KEYS)
                        .min_by_key(|&i| self.keys[i].as_ref().map_or(0, |c| c.last_use))
                        .unwrap_or(0),
                };
                self.keys[slot] = Some(Cached {
                    key_len: s.key_len,
                    key: s.key,
                    schedule,
                    last_use: now,
                });
                slot
            }
        };
        if let Some(cached) = self.keys[slot].as_mut() {
            cached.last_use = now;
        }
        Ok(slot)
    }
}

impl CipherEngine for CpuEngine {
    const RANDOM: bool = true;

    fn touched_keys(&mut self) -> bool {
        core::mem::take(&mut self.expanded)
    }

    fn random(&mut self, out: &mut [u8]) -> bool {
        self.random.is_some_and(|draw| draw(out))
    }

    fn supports(&self, session: &Session) -> Result<(), CipherError> {
        match session.path {
            Path::Adaptive | Path::Cpu => Ok(()),
            Path::Pio | Path::Dma => Err(CipherError::UnsupportedPath),
        }
    }

    fn start(&mut self, job: &Job<'_>) -> Step {
        let slot = match self.schedule(&job.session) {
            Ok(slot) => slot,
            Err(e) => return Step::Done(Err(e)),
        };
        // The chain runs in the engine's own IV, not a local: the modes reach a local
        // IV in different widths (CBC's whole block, CTR's counter), so the compiler
        // split it into sixteen bytes, each stored on its own and gathered again for the
        // answer (the stalled forwards took half the engine's time at 16 B).
        self.iv.0 = job.session.iv;
        let (buf, iv) = (&mut self.buf, &mut self.iv.0);
        match self.keys[slot].as_ref().map(|k| &k.schedule) {
            Some(Schedule::A128(c)) => run(c, iv, job, buf),
            Some(Schedule::A192(c)) => run(c, iv, job, buf),
            Some(Schedule::A256(c)) => run(c, iv, job, buf),
            // `schedule` fills the slot it names.
            None => return Step::Done(Err(CipherError::EngineFault)),
        }
        self.bytes += u64::from(job.segs.total());
        Step::Done(Ok(Finished::new(Path::Cpu, self.iv.0)))
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

type Block = GenericArray<u8, U16>;

/// `job` with the expanded key `c`, from `iv`; leaves the session's next IV in `iv`.
///
/// CBC encryption runs where the blocks lie ([`CbcEncrypt`]). The other modes, which the
/// backend runs several blocks at once, copy each piece of the request into `buf` and
/// run it through the mode's slice API, the loop RustCrypto's in-process callers use
/// (the whole loop inside the cipher's AES-NI or ARMv8 backend).
fn run<C>(c: &C, iv: &mut [u8; 16], job: &Job<'_>, buf: &mut Chunk)
where
    C: BlockCipher<BlockSize = U16> + BlockEncrypt + BlockDecrypt,
{
    let (segs, data, buf) = (&job.segs, &job.data, &mut buf.0[..]);
    match (job.session.mode, job.op) {
        // The service hands its engine `Encrypt` for a driver-chosen IV too.
        (Mode::Ecb, CipherOp::Encrypt | CipherOp::EncryptNewIv) => {
            sg::transform(segs, data, buf, |p| c.encrypt_blocks_inout(blocks(p)));
        }
        (Mode::Ecb, CipherOp::Decrypt) => {
            sg::transform(segs, data, buf, |p| c.decrypt_blocks_inout(blocks(p)));
        }
        (Mode::Cbc, CipherOp::Encrypt | CipherOp::EncryptNewIv) => {
            c.encrypt_with_backend(CbcEncrypt { job, iv })
        }
        (Mode::Cbc, CipherOp::Decrypt) => {
            let mut c = cbc::Decryptor::<&C>::inner_iv_init(c, GenericArray::from_slice(iv));
            sg::transform(segs, data, buf, |p| c.decrypt_blocks_inout_mut(blocks(p)));
            iv.copy_from_slice(&c.iv_state());
        }
        (Mode::Ctr, _) => {
            let core = ctr::CtrCore::<&C, ctr::flavors::Ctr128BE>::inner_iv_init(
                c,
                GenericArray::from_slice(iv),
            );
            let mut c = ctr::Ctr128BE::<&C>::from_core(core);
            // Pieces are whole blocks but the last, so the keystream stays in step.
            sg::transform(segs, data, buf, |p| c.apply_keystream(p));
            // The next request starts at the next whole block, as Linux's ctr(aes) hands
            // back its IV.
            *iv = next_counter(iv, job.segs.total());
        }
    }
}

/// CBC encryption of a job's blocks where they lie in the client's region: each block
/// is loaded (one volatile vector load), XORed with the chain, enciphered and stored
/// back, the whole loop inside the cipher's backend (AES-NI, ARMv8 AES) with the round
/// keys and the chain in registers. CBC encryption is one serial chain of AES
/// latencies, so the loads and stores cost nothing beside it: 16 KiB in ~14.5 us, the
/// `cbc` crate in process ~14.7 us. A per-block call into the cipher instead, or the
/// block loop out of line, ran 1.4-1.8x slower (the chain went through memory).
struct CbcEncrypt<'j, 'a> {
    job: &'j Job<'a>,
    /// The chain: the IV in, the last ciphertext block out.
    iv: &'j mut [u8; 16],
}

impl BlockSizeUser for CbcEncrypt<'_, '_> {
    type BlockSize = U16;
}

impl BlockClosure for CbcEncrypt<'_, '_> {
    #[inline(always)]
    fn call<B: BlockBackend<BlockSize = U16>>(self, backend: &mut B) {
        // The chain moves as whole blocks (`from`/`into`, the XOR over the block in
        // place): indexed byte by byte into a fresh block and copied with
        // `copy_from_slice`, it ended the loop as sixteen bytes stored one by one, and
        // the next IV's whole read stalled store-to-load forwarding on every request. (A
        // `u128` chain ran 1 KiB ~9% slower: it moved between vector and integer
        // registers every block.)
        let mut chain = Block::from(*self.iv);
        sg::transform_blocks(&self.job.segs, &self.job.data, |b| {
            let mut x = Block::from(*b);
            for (x, c) in x.iter_mut().zip(chain.iter()) {
                *x ^= c;
            }
            backend.proc_block_inplace(&mut x);
            chain = x;
            *b = x.into();
        });
        *self.iv = chain.into();
    }
}

/// The whole blocks of `piece` (validated: ECB and CBC requests are whole blocks, and
/// [`CHUNK`] is, so every piece is).
fn blocks(piece: &mut [u8]) -> InOutBuf<'_, '_, Block> {
    InOutBuf::from(piece).into_chunks().0
}

/// The private copy a request is processed in: 16-byte aligned, so the copies in and
/// out of an aligned client buffer move whole vectors.
#[repr(C, align(16))]
struct Chunk([u8; CHUNK]);

impl Default for Chunk {
    fn default() -> Self {
        Chunk([0; CHUNK])
    }
}

/// `iv` as a 128-bit big-endian counter advanced by the blocks `len` bytes use.
fn next_counter(iv: &[u8; 16], len: u32) -> [u8; 16] {
    let blocks = u128::from(len.div_ceil(16));
    u128::from_be_bytes(*iv).wrapping_add(blocks).to_be_bytes()
}
