#![cfg_attr(target_os = "none", no_std, no_main)]
//! Demo digest server: SHA-256 sessions opened and closed by PPC (pd-idl's Digest
//! dispatch), data hashed from queued requests whose segments point into the client's
//! data region, where a final's digest is written too. It holds a power grant from the power PD
//! (a nested PPC) while any session is open, as a driver would. A software stand-in for
//! an engine driver: the hashing is RustCrypto's.
use pd_idl::digest::{
    self, Algorithm, DigestError, DigestErrorRaw, DigestOp, HashPath, Request, Response, Segment,
};
use pd_idl::power::{Client as PowerClient, Engine, Grant};
use pd_idl::wire::Caller;
use pd_runtime::ipc::{self, PpcTransport};
use pd_runtime::{
    Channel, ChannelSet, Handler, MemoryRegion, MessageInfo, debug_println, memory_region,
};
use runtime_examples::queues;
use sha2::{Digest as _, Sha256};
use shm_queue::{Consumer, Producer};
use zerocopy::FromZeros;

const CLIENT: Channel = Channel::new(0);
const POWER: Channel = Channel::new(1);
const SESSIONS: usize = 4;

struct Session {
    hash: Sha256,
    finished: bool,
}

struct Hasher {
    data: MemoryRegion,
    rx: Consumer<'static, Request>,
    tx: Producer<'static, Response>,
    sessions: [Option<Session>; SESSIONS],
    power: PowerClient<PpcTransport>,
    grant: Option<Grant>,
    /// The client corrupted its queues: they are served no more.
    cut_off: bool,
}

impl Hasher {
    fn session(
        sessions: &mut [Option<Session>; SESSIONS],
        id: u32,
    ) -> Result<&mut Session, DigestError> {
        let i = (id as usize).wrapping_sub(1);
        sessions
            .get_mut(i)
            .and_then(Option::as_mut)
            .ok_or(DigestError::UnknownSession)
    }

    /// Feeds `len` bytes at `offset` of the client's region, checked against its size,
    /// copied out with volatile reads (the client may write it at any time).
    fn feed(
        data: MemoryRegion,
        hash: &mut Sha256,
        offset: u32,
        len: u32,
    ) -> Result<(), DigestError> {
        let end = offset
            .checked_add(len)
            .ok_or(DigestError::SegmentOutOfRange)?;
        if end as usize > data.size {
            return Err(DigestError::SegmentOutOfRange);
        }
        let mut chunk = [0u8; 1024];
        let mut at = offset as usize;
        while at < end as usize {
            let n = chunk.len().min(end as usize - at);
            for (i, b) in chunk[..n].iter_mut().enumerate() {
                // SAFETY: at + i < data.size, inside the mapped (readable) region.
                *b = unsafe { data.vaddr.add(at + i).read_volatile() };
            }
            hash.update(&chunk[..n]);
            at += n;
        }
        Ok(())
    }

    /// The answer to `req`, over the client's region `data`.
    fn handle(
        data: MemoryRegion,
        sessions: &mut [Option<Session>; SESSIONS],
        req: &Request,
    ) -> Response {
        let mut resp = Response::new_zeroed();
        resp.id = req.id;
        let result = (|| {
            let op = req.op.get().map_err(|_| DigestError::BadRequest)?;
            let segs = req
                .segs
                .get(..usize::from(req.nsegs))
                .ok_or(DigestError::TooManySegments)?;
            let session = Self::session(sessions, req.session)?;
            if session.finished {
                return Err(DigestError::SessionFinished);
            }
            // A final's last segment is where its digest goes, in the client's region,
            // apart from its data (the interface's rule; checked before any hashing).
            let (segs, out) = match op {
                DigestOp::Update => (segs, None),
                DigestOp::Final => {
                    let (out, segs) = segs.split_last().ok_or(DigestError::BadOutput)?;
                    let end = out.offset.checked_add(out.len);
                    if end.is_none_or(|e| e as usize > data.size) {
                        return Err(DigestError::SegmentOutOfRange);
                    }
                    let apart = |s: &Segment| {
                        s.len == 0
                            || s.offset + s.len <= out.offset
                            || out.offset + out.len <= s.offset
                    };
                    if (out.len as usize) < 32 || !segs.iter().all(apart) {
                        return Err(DigestError::BadOutput);
                    }
                    (segs, Some(*out))
                }
            };
            for seg in segs {
                Self::feed(data, &mut session.hash, seg.offset, seg.len)?;
                resp.bytes_done = resp.bytes_done.saturating_add(seg.len);
            }
            if let Some(out) = out {
                session.finished = true;
                let digest = core::mem::take(&mut session.hash).finalize();
                for (i, b) in digest.iter().enumerate() {
                    // SAFETY: inside the mapped region (checked above), mapped writable.
                    unsafe { data.vaddr.add(out.offset as usize + i).write_volatile(*b) };
                }
                resp.digest_len = digest.len() as u8;
            }
            Ok(())
        })();
        resp.status = DigestErrorRaw::from(result);
        resp
    }

    fn drain(&mut self) {
        if self.cut_off {
            return;
        }
        let (data, sessions) = (self.data, &mut self.sessions);
        let served = queues::serve(
            &mut self.rx,
            &mut self.tx,
            |req| Self::handle(data, sessions, req),
            || CLIENT.notify(),
        );
        if let Err(e) = served {
            // A client that corrupts its queues is served no more; its calls still are.
            debug_println!("hasher: the client's queues are corrupt ({e}): cut off");
            self.cut_off = true;
        }
    }
}

impl digest::Server for Hasher {
    fn open_session(
        &mut self,
        _: Caller,
        algorithm: Algorithm,
        _: HashPath,
    ) -> Result<u32, DigestError> {
        if algorithm != Algorithm::Sha256 {
            return Err(DigestError::UnsupportedAlgorithm);
        }
        let free = self.sessions.iter().position(Option::is_none);
        let i = free.ok_or(DigestError::TooManySessions)?;
        if self.grant.is_none() {
            let grant = self
                .power
                .acquire(Engine::Sec1)
                .map_err(|_| DigestError::NoPower)?;
            debug_println!(
                "hasher: first session: engine Sec1 granted by power (generation {}) \
                 over a nested PPC",
                grant.generation
            );
            self.grant = Some(grant);
        }
        self.sessions[i] = Some(Session {
            hash: Sha256::new(),
            finished: false,
        });
        Ok(i as u32 + 1)
    }

    fn close_session(&mut self, _: Caller, session: u32) -> Result<(), DigestError> {
        Self::session(&mut self.sessions, session)?;
        self.sessions[session as usize - 1] = None;
        if self.sessions.iter().all(Option::is_none)
            && let Some(grant) = self.grant.take()
        {
            let released = self.power.release(grant);
            debug_println!("hasher: last session closed: Sec1 released ({released:?})");
        }
        Ok(())
    }

    /// SHA-256 only, the one `open_session` takes.
    fn capabilities(&mut self, _: Caller) -> Result<u64, DigestError> {
        Ok(1 << Algorithm::Sha256 as u8)
    }
}

impl Handler for Hasher {
    fn notified(&mut self, channels: ChannelSet) {
        if channels.contains(CLIENT) {
            self.drain();
        }
    }

    fn protected(&mut self, channel: Channel, msg: MessageInfo) -> MessageInfo {
        ipc::serve(channel, msg, |caller, m| digest::dispatch(self, caller, m))
    }
}

fn init() -> Hasher {
    let data = memory_region!(data);
    let (rx, tx) = queues::side_b(queues::shared(memory_region!(queues)));
    Hasher {
        data,
        rx,
        tx,
        sessions: [const { None }; SESSIONS],
        power: PowerClient::new(PpcTransport(POWER)),
        grant: None,
        cut_off: false,
    }
}

pd_runtime::protection_domain!(init);
