//! The driver as a Cipher engine: sessions of the Cipher service map to device sessions
//! through a small cache, and each request goes to the device by DMA from the client's
//! own segments, finished by the transport's used-buffer interrupt. The engine holds up
//! to [`DATA_SLOTS`] requests (the data queue's places), each of its own session.
//!
//! Device sessions are created on first use, keyed by (mode, key) and kept in a fixed
//! table; virtio-crypto sessions have a direction, so CBC and ECB need two, CTR one for
//! both. Nothing waits for the control queue: a request whose sessions are missing waits
//! in its place ([`Place::NeedsSessions`]) while the control queue creates them, one
//! control request at a time, each answer taken on the interrupt; then the request goes
//! on the data queue. A session closed by its client, or evicted as least recently used
//! when the table is full, is doomed: its device sessions are destroyed as soon as the
//! control queue is free and no request on the data queue still uses them, so no key
//! outlives its session for longer than that.

use crate::device::{CipherReq, CtrlDone, Direction, DmaBuf, VirtioCrypto};
use crate::dma::{DATA_SLOTS, MAX_KEY};
use crate::state::{CACHED_SESSIONS, Ctrl, DOOMED, Entry, Place};
use crate::wire::cipher_algo;
use crate::{Error, TransportError};
use cipher_service::{CipherEngine, ClientData, Finished, Job, Segments, Session, Step, sg};
use mmio::RegisterBus;
use pd_idl::cipher::{CipherError, CipherOp, Mode, Path};

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
            Error::Transport(TransportError::BadChain) => CipherError::TooManySegments,
            _ => CipherError::EngineFault,
        }
    }
}

impl<B: RegisterBus> VirtioCrypto<B> {
    /// The cached (encrypt, decrypt) device sessions for `s`, if any.
    fn cached(&mut self, s: &Session) -> Option<(u64, u64)> {
        let cache = &mut self.engine.cache;
        cache.clock = cache.clock.wrapping_add(1);
        let now = cache.clock;
        let e = cache.entries.iter_mut().flatten().find(|e| e.matches(s))?;
        e.last_use = now;
        Some((e.enc, e.dec))
    }

    /// Whether a request uses or waits for `e`'s pair.
    fn needed(&self, e: &Entry) -> bool {
        self.in_use(e.enc)
            || self.in_use(e.dec)
            || self
                .engine
                .places
                .iter()
                .any(|p| matches!(p, Place::NeedsSessions(s) if e.matches(s)))
    }

    fn in_use(&self, id: u64) -> bool {
        self.engine
            .places
            .iter()
            .any(|p| matches!(p, Place::Posted { ids, .. } if ids.0 == id || ids.1 == id))
    }

    /// Queues `id` for destruction.
    fn doom(&mut self, id: u64) -> Result<(), Error> {
        let free = self.engine.doomed.iter_mut().find(|d| d.is_none());
        // Cannot overflow (see DOOMED); if it did, the device's sessions are lost track
        // of, so the driver stops rather than leak keys silently.
        *free.ok_or(Error::Broken)? = Some(id);
        Ok(())
    }

    fn doom_entry(&mut self, e: &Entry) -> Result<(), Error> {
        self.doom(e.enc)?;
        if e.dec != e.enc {
            self.doom(e.dec)?;
        }
        Ok(())
    }

    /// Puts a created pair in the table, dooming the least recently used pair no request
    /// on the data queue uses if the table is full.
    fn insert(&mut self, mut entry: Entry) -> Result<(), Error> {
        let entries = &self.engine.cache.entries;
        let slot = match entries.iter().position(Option::is_none) {
            Some(i) => i,
            None => {
                let victim = (0..CACHED_SESSIONS)
                    .filter_map(|i| entries[i].map(|e| (i, e)))
                    .filter(|(_, e)| !self.in_use(e.enc) && !self.in_use(e.dec))
                    .min_by_key(|(_, e)| e.last_use);
                // At most DATA_SLOTS pairs are in use, fewer than the table holds.
                let (i, e) = victim.ok_or(Error::Broken)?;
                self.engine.cache.entries[i] = None;
                self.doom_entry(&e)?;
                i
            }
        };
        self.engine.cache.clock = self.engine.cache.clock.wrapping_add(1);
        entry.last_use = self.engine.cache.clock;
        self.engine.cache.entries[slot] = Some(entry);
        Ok(())
    }

    /// Moves the control queue on: takes its answer if the device returned it, then
    /// posts the next control request (a doomed session's destruction first, then the
    /// sessions a waiting place needs). Never waits: it goes round again only when the
    /// device has already answered (QEMU and the model answer on the notify), and each
    /// round takes one answer of a finite list of work.
    fn progress(&mut self) -> Result<(), Error> {
        loop {
            // An orphan pair no request needs any more goes: after its request ended,
            // was cancelled or failed, or once its creation was answered.
            for i in 0..CACHED_SESSIONS {
                if let Some(e) = self.engine.cache.entries[i]
                    && e.orphan
                    && !self.needed(&e)
                {
                    self.engine.cache.entries[i] = None;
                    self.doom_entry(&e)?;
                }
            }
            if !matches!(self.engine.ctrl, Ctrl::Idle) {
                let Some(done) = self.ctrl_poll()? else {
                    return Ok(());
                };
                let ctrl = core::mem::take(&mut self.engine.ctrl);
                match (ctrl, done) {
                    (
                        Ctrl::Creating {
                            mut entry,
                            have_enc,
                        },
                        CtrlDone::Created(Ok(id)),
                    ) => {
                        if have_enc {
                            entry.dec = id;
                        } else {
                            entry.enc = id;
                            entry.dec = id;
                        }
                        if have_enc || entry.mode == Mode::Ctr {
                            self.insert(entry)?;
                        } else {
                            let key = entry.key;
                            let r = self.post_create(
                                algo_of(entry.mode),
                                Direction::Decrypt,
                                &key[..usize::from(entry.key_len)],
                            );
                            match r {
                                Ok(()) => {
                                    self.engine.ctrl = Ctrl::Creating {
                                        entry,
                                        have_enc: true,
                                    }
                                }
                                Err(e) => {
                                    self.doom(entry.enc)?;
                                    self.fail_waiting(&entry, e);
                                }
                            }
                        }
                    }
                    (Ctrl::Creating { entry, have_enc }, CtrlDone::Created(Err(e))) => {
                        if have_enc {
                            self.doom(entry.enc)?;
                        }
                        self.fail_waiting(&entry, e);
                    }
                    // A device that will not destroy a session keeps it; nothing else
                    // to do (it holds no key of ours in this driver any more).
                    (Ctrl::Destroying, CtrlDone::Destroyed(_)) => {}
                    _ => return Err(Error::Transport(TransportError::BadUsedRing)),
                }
                continue;
            }
            let doomed =
                (0..DOOMED).find(|&i| self.engine.doomed[i].is_some_and(|id| !self.in_use(id)));
            if let Some(i) = doomed {
                if let Some(id) = self.engine.doomed[i].take() {
                    self.post_destroy(id)?;
                    self.engine.ctrl = Ctrl::Destroying;
                }
                continue;
            }
            let cache = &self.engine.cache;
            let wanted = self.engine.places.iter().find_map(|p| match p {
                Place::NeedsSessions(s) if !cache.holds(s) => Some(*s),
                _ => None,
            });
            let Some(s) = wanted else {
                return Ok(());
            };
            let entry = Entry {
                mode: s.mode,
                key_len: s.key_len,
                key: s.key,
                enc: 0,
                dec: 0,
                last_use: 0,
                orphan: false,
            };
            match self.post_create(algo_of(s.mode), Direction::Encrypt, s.key()) {
                Ok(()) => {
                    self.engine.ctrl = Ctrl::Creating {
                        entry,
                        have_enc: false,
                    }
                }
                Err(e @ (Error::BadKeySize | Error::Unsupported)) => self.fail_waiting(&entry, e),
                Err(e) => return Err(e),
            }
        }
    }

    /// Every place waiting for `entry`'s sessions fails with `e`.
    fn fail_waiting(&mut self, entry: &Entry, e: Error) {
        for p in &mut self.engine.places {
            if matches!(p, Place::NeedsSessions(s) if entry.matches(s)) {
                *p = Place::Failed(e.into());
            }
        }
    }

    /// Where `job` stands, once the control and data queues have been read: posted on
    /// the data queue when its sessions exist, done when the device returned it.
    fn advance(&mut self, job: &Job<'_>) -> Step {
        let k = job.slot;
        match self.engine.places[k] {
            Place::Free => Step::Pending,
            Place::NeedsSessions(s) => {
                let Some(ids) = self.cached(&s) else {
                    return Step::Pending;
                };
                match self.post(job, ids) {
                    Ok(Some(cbc_next_iv)) => {
                        self.engine.places[k] = Place::Posted { ids, cbc_next_iv };
                        // A device that ran it on the notify has returned it already
                        // (memory only: the used ring read once more).
                        match self.data_poll() {
                            Ok(_) => self.advance(job),
                            Err(e) => self.end(k, Err(e.into())),
                        }
                    }
                    Ok(None) => self.end(k, Ok(job.session.iv)),
                    Err(e) => self.end(k, Err(e)),
                }
            }
            Place::Posted { cbc_next_iv, .. } => match self.data_take(k) {
                None => Step::Pending,
                Some(Ok(())) => self.end(k, Ok(next_iv(job, cbc_next_iv))),
                Some(Err(e)) => self.end(k, Err(e.into())),
            },
            Place::Failed(e) => self.end(k, Err(e)),
        }
    }

    fn end(&mut self, slot: usize, result: Result<[u8; 16], CipherError>) -> Step {
        self.engine.places[slot] = Place::Free;
        // Sessions doomed while this request used them, and orphans it needed, may go
        // now. A device failing here is broken and says so on the next request.
        let _ = self.progress();
        Step::Done(result.map(|next_iv| Finished::new(Path::Dma, next_iv)))
    }

    /// Device sessions currently held.
    pub fn cached_sessions(&self) -> usize {
        self.engine.cache.entries.iter().flatten().count()
    }

    /// Destroys every cached device session, waiting for each: at rest only (bare metal,
    /// tests), with no request in flight.
    pub fn forget_all(&mut self) -> Result<(), Error> {
        for i in 0..CACHED_SESSIONS {
            if let Some(e) = self.engine.cache.entries[i].take() {
                self.destroy_session(e.enc)?;
                if e.dec != e.enc {
                    self.destroy_session(e.dec)?;
                }
            }
        }
        Ok(())
    }
}

impl<B: RegisterBus> CipherEngine for VirtioCrypto<B> {
    fn depth(&self) -> usize {
        DATA_SLOTS
    }

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
        if job.slot >= DATA_SLOTS || !matches!(self.engine.places[job.slot], Place::Free) {
            return Step::Done(Err(CipherError::EngineFault));
        }
        // No CPU fallback: a region the device cannot reach is refused, not bounced.
        if job.data.phys.is_none() {
            return Step::Done(Err(CipherError::UnsupportedPath));
        }
        self.engine.places[job.slot] = Place::NeedsSessions(job.session);
        if let Err(e) = self.progress() {
            return self.end(job.slot, Err(e.into()));
        }
        self.advance(job)
    }

    /// Acknowledges the transport (the line stays up until it is) and reads both used
    /// rings once, whatever is in flight: a control answer may come for a session
    /// destroyed after its last request.
    fn interrupted(&mut self) {
        // A failure leaves the driver broken; each request in flight then hears of it.
        let _ = self
            .ack_interrupt()
            .and_then(|_| self.data_poll())
            .and_then(|_| self.progress());
    }

    fn interrupt(&mut self, job: &Job<'_>) -> Step {
        if self.is_broken() {
            return self.end(job.slot, Err(CipherError::EngineFault));
        }
        self.advance(job)
    }

    fn cancel(&mut self, job: &Job<'_>) {
        self.abandon(job.slot);
        if let Some(p) = self.engine.places.get_mut(job.slot) {
            *p = Place::Free;
        }
        // A device failing here is broken and says so on the next request.
        let _ = self.progress();
    }

    /// No key outlives its session in the device either: the session's device pair, or
    /// the one being created for it, is an orphan, destroyed as soon as no request uses
    /// or waits for it (accepted work runs first; another session with the same key and
    /// mode creates it again).
    fn closed(&mut self, session: &Session) {
        if let Ctrl::Creating { entry, .. } = &mut self.engine.ctrl
            && entry.matches(session)
        {
            entry.orphan = true;
        }
        for e in self.engine.cache.entries.iter_mut().flatten() {
            e.orphan |= e.matches(session);
        }
        // A device that fails here is broken, and says so on the next request.
        let _ = self.progress();
    }
}

impl<B: RegisterBus> VirtioCrypto<B> {
    /// Posts `job` on the data queue in its place with device sessions `(enc, dec)`;
    /// `Ok(None)` if it had no bytes, else the IV a CBC decryption leaves (read now:
    /// in place, the device overwrites it).
    fn post(
        &mut self,
        job: &Job<'_>,
        (enc, dec): (u64, u64),
    ) -> Result<Option<Option<[u8; 16]>>, CipherError> {
        let base = job.data.phys.ok_or(CipherError::UnsupportedPath)?;
        let mut bufs = [DmaBuf::default(); cipher_service::MAX_JOINED];
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
        let (id, dir) = match job.op {
            CipherOp::Encrypt | CipherOp::EncryptNewIv => (enc, Direction::Encrypt),
            CipherOp::Decrypt => (dec, Direction::Decrypt),
        };
        // The device does not hand back the chained IV, so it is computed as cpu-engine
        // does; CBC decrypt's is the last ciphertext block, which in place is gone
        // afterwards: read it now.
        let cbc_next_iv = last_block(&job.segs, &job.data);
        let req = CipherReq {
            session: id,
            algo: algo_of(session.mode),
            dir,
            iv: (session.mode != Mode::Ecb).then_some(&session.iv),
            src: bufs,
            dst: bufs,
        };
        let posted = self.cipher_submit(job.slot, req)?;
        Ok(posted.then_some(cbc_next_iv))
    }
}

/// The IV for the session's next request, once `job` is done.
fn next_iv(job: &Job<'_>, cbc_decrypt_iv: Option<[u8; 16]>) -> [u8; 16] {
    let iv = job.session.iv;
    match (job.session.mode, job.op) {
        (Mode::Ecb, _) => iv,
        (Mode::Cbc, CipherOp::Decrypt) => cbc_decrypt_iv.unwrap_or(iv),
        (Mode::Cbc, CipherOp::Encrypt | CipherOp::EncryptNewIv) => {
            last_block(&job.segs, &job.data).unwrap_or(iv)
        }
        // Next request starts at the next whole block, as Linux's ctr(aes) does.
        (Mode::Ctr, _) => {
            let blocks = u128::from(job.segs.total().div_ceil(16));
            u128::from_be_bytes(iv).wrapping_add(blocks).to_be_bytes()
        }
    }
}

/// The last 16 bytes of the concatenated segments (they may straddle segments).
fn last_block(segs: &Segments, data: &ClientData<'_>) -> Option<[u8; 16]> {
    let total = segs.total() as usize;
    let mut out = [0u8; 16];
    (total >= 16 && sg::gather(segs, data, total - 16, &mut out) == 16).then_some(out)
}
