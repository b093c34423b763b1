//! The part of a Digest driver that does not depend on its engine: the session table,
//! validation of every request a client puts in shared memory, and the loop that turns a
//! client's request queue into responses. Engines plug in through [`DigestEngine`].
//!
//! Guarantees, whatever a client writes into its queues and data region:
//! * every request taken off the queue gets exactly one response: a request is taken
//!   only when there is room for its answer (backpressure, never a dropped answer);
//! * segments are checked against the client's data region before the engine sees them,
//!   so an engine never reads outside it (and never writes it: a hash only reads);
//! * a session is usable only by the client (channel) that opened it;
//! * a finished session takes no more data (`SessionFinished`), and a session whose
//!   engine failed mid-request answers `EngineFault` rather than a wrong digest;
//! * corrupt queue indices stop service to that client with [`QueueError::Corrupt`]
//!   (the driver cuts it off) and affect no other client.
//!
//! Assumes the data region stays mapped while the driver runs. `no_std`, no heap.
#![no_std]
#![cfg_attr(not(feature = "testkit"), forbid(unsafe_code))]
// The test kit alone owns raw memory (a region DMA models reach by address).
#![cfg_attr(feature = "testkit", deny(unsafe_code))]

#[cfg(feature = "testkit")]
extern crate std;

mod calls;
mod segments;
mod sessions;
#[cfg(feature = "testkit")]
pub mod testkit;

pub use calls::Calls;
pub use segments::{MAX_SEGMENTS, Segments, from_slice, validate};
pub use sessions::{MAX_SESSIONS, Session, Sessions, State};

use pd_idl::digest::{
    Algorithm, DigestError, DigestErrorRaw, DigestOp, HashPath, Request, Response,
};
use pd_idl::wire::Caller;
use shm_queue::{Consumer, Producer, QueueError};

/// A client's data region as the driver sees it: its bytes, and where DMA finds them.
#[derive(Clone, Copy, Debug)]
pub struct ClientData<'a> {
    pub bytes: &'a [u8],
    /// Physical (bus) address of `bytes[0]`, if the region is DMA-reachable; a driver
    /// without it must reach the data with the CPU.
    pub phys: Option<u64>,
}

/// Longest digest of the interface's algorithms (SHA-256).
pub const MAX_DIGEST: usize = 32;

/// Digest length of each algorithm.
pub const fn digest_len(algorithm: Algorithm) -> usize {
    match algorithm {
        Algorithm::Md5 => 16,
        Algorithm::Sha1 => 20,
        Algorithm::Sha256 => 32,
    }
}

/// A finished digest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Digest {
    bytes: [u8; MAX_DIGEST],
    len: u8,
}

impl Digest {
    /// `bytes` must be at most [`MAX_DIGEST`] long (longer is cut: no algorithm has one).
    pub fn new(bytes: &[u8]) -> Self {
        let n = bytes.len().min(MAX_DIGEST);
        let mut d = Digest {
            bytes: [0; MAX_DIGEST],
            len: n as u8,
        };
        d.bytes[..n].copy_from_slice(&bytes[..n]);
        d
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

/// An engine as the service drives it. The service has already checked ownership,
/// session state and segment bounds; the engine hashes.
pub trait DigestEngine {
    /// What the engine keeps per session between requests (buffered partial block,
    /// saved hash context).
    type Context;

    /// At open time: refuses what this engine cannot do (`UnsupportedAlgorithm`,
    /// `UnsupportedPath`, `EngineFault` for an engine that failed its self-test), so
    /// requests never fail for a reason known up front; otherwise a fresh context.
    /// `slot` is the session's index in the table (below [`MAX_SESSIONS`]), fixed for
    /// its life, for engines that keep per-session state in their own memory.
    fn open(
        &mut self,
        slot: usize,
        algorithm: Algorithm,
        path: HashPath,
    ) -> Result<Self::Context, DigestError>;

    /// Hashes `segs` of `data`, in order, into the session.
    fn update(
        &mut self,
        session: &mut Session<Self::Context>,
        segs: &Segments,
        data: &ClientData<'_>,
    ) -> Result<(), DigestError>;

    /// Hashes `segs` of `data` and finishes: the digest of everything the session saw.
    fn finish(
        &mut self,
        session: &mut Session<Self::Context>,
        segs: &Segments,
        data: &ClientData<'_>,
    ) -> Result<Digest, DigestError>;
}

/// Serves what is waiting in one client's request queue. Returns how many requests were
/// answered, or `Corrupt` if the client broke its queues.
pub fn serve<E: DigestEngine>(
    engine: &mut E,
    sessions: &mut Sessions<E::Context>,
    caller: Caller,
    requests: &mut Consumer<'_, Request>,
    responses: &mut Producer<'_, Response>,
    data: &ClientData<'_>,
) -> Result<usize, QueueError> {
    let room = responses.free()? as usize;
    let mut answered = 0;
    while answered < room {
        let request = match requests.dequeue() {
            Ok(r) => r,
            Err(QueueError::Empty) => break,
            Err(e) => return Err(e),
        };
        let response = handle(engine, sessions, caller, &request, data);
        // Room was reserved above and only this loop produces: cannot be full.
        responses.enqueue(response)?;
        answered += 1;
    }
    Ok(answered)
}

/// One request to its response.
pub fn handle<E: DigestEngine>(
    engine: &mut E,
    sessions: &mut Sessions<E::Context>,
    caller: Caller,
    request: &Request,
    data: &ClientData<'_>,
) -> Response {
    let mut response = Response {
        id: request.id,
        status: DigestErrorRaw::OK,
        digest_len: 0,
        reserved: 0,
        bytes_done: 0,
        digest: [0; MAX_DIGEST],
    };
    let result = (|| -> Result<(u32, Option<Digest>), DigestError> {
        let op = request.op.get().map_err(|_| DigestError::BadRequest)?;
        let session = sessions.get_mut(caller, request.session)?;
        match session.state {
            State::Open => {}
            State::Finished => return Err(DigestError::SessionFinished),
            State::Failed => return Err(DigestError::EngineFault),
        }
        let segs = validate(request, data.bytes.len())?;
        let result = match op {
            DigestOp::Update => engine.update(session, &segs, data).map(|()| None),
            DigestOp::Final => engine.finish(session, &segs, data).map(Some),
        };
        session.state = match (&result, op) {
            (Err(_), _) => State::Failed,
            (Ok(_), DigestOp::Final) => State::Finished,
            (Ok(_), DigestOp::Update) => State::Open,
        };
        let digest = result?;
        session.bytes += u64::from(segs.total());
        Ok((segs.total(), digest))
    })();
    match result {
        Ok((bytes, digest)) => {
            response.bytes_done = bytes;
            if let Some(d) = digest {
                response.digest_len = d.len;
                response.digest[..usize::from(d.len)].copy_from_slice(d.as_bytes());
            }
        }
        Err(e) => response.status = e.into(),
    }
    response
}
