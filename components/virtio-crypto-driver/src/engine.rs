//! The driver as a Cipher engine: sessions of the Cipher service map to device sessions
//! through a small cache, and each request goes to the device by DMA from the client's
//! own segments, finished by the data queue's used-buffer interrupt.
//!
//! The service's session table belongs to `cipher-service`, which tells an engine nothing
//! when a session opens or closes, so device sessions are created on first use, keyed by
//! (mode, key) and kept in a fixed table; the least recently used pair is destroyed when
//! the table is full, and [`VirtioCrypto::forget`] destroys the pair of a closed session
//! at once (the PD calls it from close_session, so no key outlives its session here).
//! virtio-crypto sessions have a direction, so CBC and ECB need two; CTR uses one for
//! both (encryption and decryption are the same operation).

use crate::device::{Direction, DmaBuf, VirtioCrypto};
use crate::wire::cipher_algo;
use crate::{Error, dma::MAX_KEY};
use cipher_service::{CipherEngine, ClientData, Finished, Job, Segments, Session, Step, sg};
use mmio::RegisterBus;
use pd_idl::cipher::{CipherError, CipherOp, Mode, Path};

/// Device session pairs the driver keeps.
pub const CACHED_SESSIONS: usize = 8;

#[derive(Clone, Copy, Debug)]
struct Entry {
    mode: Mode,
    key_len: u8,
    key: [u8; 32],
    enc: u64,
    dec: u64,
    last_use: u32,
}

impl Entry {
    fn matches(&self, s: &Session) -> bool {
        // Compare every byte whatever the first difference (no early exit on key bytes).
        let diff = self
            .key
            .iter()
            .zip(s.key.iter())
            .fold(0u8, |d, (a, b)| d | (a ^ b));
        self.mode == s.mode && self.key_len == s.key_len && diff == 0
    }
}

/// Device sessions by (mode, key).
#[derive(Debug, Default)]
pub struct SessionCache {
    entries: [Option<Entry>; CACHED_SESSIONS],
    clock: u32,
}

/// The device's algorithm number for a Cipher mode.
pub fn algo_of(mode: Mode) -> u32 {
    match mode {
        Mode::Ecb => cipher_algo::AES_ECB,
        Mode::Cbc => cipher_algo::AES_CBC,
        Mode::Ctr => cipher_algo::AES_CTR,
    }
}

impl From<Error> for CipherError {
    fn from(e: Error) -> Self {
        match e {
            Error::BadKeySize => CipherError::BadKeySize,
            Error::Unsupported => CipherError::UnsupportedMode,
            Error::BadLength => CipherError::BadLength,
            Error::BadChain => CipherError::TooManySegments,
            _ => CipherError::EngineFault,
        }
    }
}

impl<B: RegisterBus> VirtioCrypto<B> {
    /// The (encrypt, decrypt) device sessions for `s`, created if need be.
    fn device_sessions(&mut self, s: &Session) -> Result<(u64, u64), Error> {
        self.cache.clock = self.cache.clock.wrapping_add(1);
        let now = self.cache.clock;
        if let Some(e) = self
            .cache
            .entries
            .iter_mut()
            .flatten()
            .find(|e| e.matches(s))
        {
            e.last_use = now;
            return Ok((e.enc, e.dec));
        }
        let slot = match self.cache.entries.iter().position(Option::is_none) {
            Some(i) => i,
            None => {
                let (i, _) = self
                    .cache
                    .entries
                    .iter()
                    .enumerate()
                    .min_by_key(|(_, e)| e.map(|e| e.last_use))
                    .ok_or(Error::Broken)?;
                self.evict(i)?;
                i
            }
        };
        let algo = algo_of(s.mode);
        let key = s.key();
        let enc = self.create_session(algo, Direction::Encrypt, key)?;
        let dec = if s.mode == Mode::Ctr {
            enc
        } else {
            match self.create_session(algo, Direction::Decrypt, key) {
                Ok(id) => id,
                Err(e) => {
                    let _ = self.destroy_session(enc);
                    return Err(e);
                }
            }
        };
        self.cache.entries[slot] = Some(Entry {
            mode: s.mode,
            key_len: s.key_len,
            key: s.key,
            enc,
            dec,
            last_use: now,
        });
        Ok((enc, dec))
    }

    fn evict(&mut self, i: usize) -> Result<(), Error> {
        if let Some(e) = self.cache.entries[i].take() {
            self.destroy_session(e.enc)?;
            if e.dec != e.enc {
                self.destroy_session(e.dec)?;
            }
        }
        Ok(())
    }

    /// Destroys the device sessions for `session`'s key and mode, if any are cached.
    pub fn forget(&mut self, session: &Session) -> Result<(), Error> {
        match self
            .cache
            .entries
            .iter()
            .position(|e| e.is_some_and(|e| e.matches(session)))
        {
            Some(i) => self.evict(i),
            None => Ok(()),
        }
    }

    /// Destroys every cached device session.
    pub fn forget_all(&mut self) -> Result<(), Error> {
        (0..CACHED_SESSIONS).try_for_each(|i| self.evict(i))
    }

    /// Device sessions currently held.
    pub fn cached_sessions(&self) -> usize {
        self.cache.entries.iter().flatten().count()
    }
}

impl<B: RegisterBus> CipherEngine for VirtioCrypto<B> {
    fn supports(&self, session: &Session) -> Result<(), CipherError> {
        if matches!(session.path, Path::Pio | Path::Cpu) {
            return Err(CipherError::UnsupportedPath);
        }
        if !self.supports_algo(algo_of(session.mode)) {
            return Err(CipherError::UnsupportedMode);
        }
        if usize::from(session.key_len) > MAX_KEY.min(self.info.max_cipher_key_len as usize) {
            return Err(CipherError::BadKeySize);
        }
        Ok(())
    }

    fn start(&mut self, job: &Job<'_>) -> Step {
        match self.submit(job) {
            Ok(true) => Step::Pending,
            Ok(false) => Step::Done(Ok(Finished {
                path: Path::Dma,
                next_iv: job.session.iv,
            })),
            Err(e) => Step::Done(Err(e)),
        }
    }

    fn interrupt(&mut self, job: &Job<'_>) -> Step {
        // The line drops only once acknowledged; a bus error shows in the poll below.
        let _ = self.ack_interrupt();
        match self.cipher_poll() {
            Ok(None) => Step::Pending,
            Ok(Some(Ok(()))) => Step::Done(Ok(Finished {
                path: Path::Dma,
                next_iv: self.next_iv(job),
            })),
            Ok(Some(Err(e))) | Err(e) => Step::Done(Err(e.into())),
        }
    }

    fn cancel(&mut self, _: &Job<'_>) {
        self.abandon();
    }

    /// No key outlives its session in the device either (device sessions are cached by
    /// key and mode; another session with the same key recreates them).
    fn closed(&mut self, session: &Session) {
        // A device that fails here is broken, and says so on the next request.
        let _ = self.forget(session);
    }
}

impl<B: RegisterBus> VirtioCrypto<B> {
    /// Posts `job` on the data queue; `Ok(false)` if it had no bytes.
    fn submit(&mut self, job: &Job<'_>) -> Result<bool, CipherError> {
        // No CPU fallback: a region the device cannot reach is refused, not bounced.
        let base = job.data.phys.ok_or(CipherError::UnsupportedPath)?;
        let mut bufs = [DmaBuf::default(); 8];
        let list = job.segs.as_slice();
        for (b, s) in bufs.iter_mut().zip(list) {
            *b = DmaBuf {
                phys: base
                    .checked_add(u64::from(s.offset))
                    .ok_or(CipherError::SegmentOutOfRange)?,
                len: s.len,
            };
        }
        let bufs = &bufs[..list.len()];
        let session = &job.session;
        let (enc, dec) = self.device_sessions(session)?;
        let (id, dir) = match job.op {
            CipherOp::Encrypt => (enc, Direction::Encrypt),
            CipherOp::Decrypt => (dec, Direction::Decrypt),
        };
        // The device does not hand back the chained IV, so it is computed as cpu-engine
        // does; CBC decrypt's is the last ciphertext block, which in place is gone
        // afterwards: read it now.
        self.cbc_next_iv = last_block(&job.segs, &job.data);
        let iv_arg = (session.mode != Mode::Ecb).then_some(&session.iv);
        Ok(self.cipher_submit(id, algo_of(session.mode), dir, iv_arg, bufs, bufs)?)
    }

    /// The IV for the session's next request, once `job` is done.
    fn next_iv(&self, job: &Job<'_>) -> [u8; 16] {
        let iv = job.session.iv;
        match (job.session.mode, job.op) {
            (Mode::Ecb, _) => iv,
            (Mode::Cbc, CipherOp::Decrypt) => self.cbc_next_iv.unwrap_or(iv),
            (Mode::Cbc, CipherOp::Encrypt) => last_block(&job.segs, &job.data).unwrap_or(iv),
            // Next request starts at the next whole block, as Linux's ctr(aes) does.
            (Mode::Ctr, _) => {
                let blocks = u128::from(job.segs.total().div_ceil(16));
                u128::from_be_bytes(iv).wrapping_add(blocks).to_be_bytes()
            }
        }
    }
}

/// The last 16 bytes of the concatenated segments (they may straddle segments).
fn last_block(segs: &Segments, data: &ClientData<'_>) -> Option<[u8; 16]> {
    let total = segs.total() as usize;
    let mut out = [0u8; 16];
    (total >= 16 && sg::gather(segs, data, total - 16, &mut out) == 16).then_some(out)
}
