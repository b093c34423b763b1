//! The part of a Cipher driver that does not depend on its engine: the session table,
//! validation of every request a client puts in shared memory, and the loop that turns a
//! client's request queue into responses. Engines plug in through [`CipherEngine`].
//!
//! Guarantees, whatever a client writes into its queues and data region:
//! * every request taken off the queue gets exactly one response: a request is taken
//!   only when there is room for its answer (backpressure, never a dropped answer);
//! * segments are checked against the client's data region before the engine sees them,
//!   so an engine never touches memory outside it;
//! * a session is usable only by the client (channel) that opened it;
//! * corrupt queue indices stop service to that client with [`QueueError::Corrupt`]
//!   (the driver cuts it off) and affect no other client.
//!
//! Assumes the data region stays mapped while the driver runs. `no_std`, no heap.
#![no_std]
// The library has no unsafe code; only the host-only testkit (raw test memory) does.
#![deny(unsafe_code)]

mod segments;
mod sessions;
#[cfg(feature = "testkit")]
extern crate std;
#[cfg(feature = "testkit")]
#[allow(unsafe_code)]
pub mod testkit;

/// A client's data region as the driver sees it: its bytes, and where DMA finds them.
pub struct ClientData<'a> {
    pub bytes: &'a mut [u8],
    /// Physical (bus) address of `bytes[0]`, if the region is DMA-reachable; a driver
    /// without it must use its CPU path.
    pub phys: Option<u64>,
}

pub use segments::{BLOCK, Segments, validate};
pub use sessions::{MAX_SESSIONS, Session, Sessions};

use pd_idl::cipher::{CipherError, CipherErrorRaw, CipherOp, Path, Request, Response};
use pd_idl::wire::Caller;
use shm_queue::{Consumer, Producer, QueueError};

/// An engine as the service drives it.
pub trait CipherEngine {
    /// Refuses what this engine cannot do (`UnsupportedMode`, `UnsupportedPath`, ...),
    /// at open time, so requests never fail for a reason known up front.
    fn supports(&self, session: &Session) -> Result<(), CipherError>;

    /// Encrypts or decrypts `segs` of `data` in place, updating the session's IV for the
    /// next request; returns the path the data took.
    fn crypt(
        &mut self,
        session: &mut Session,
        op: CipherOp,
        segs: &Segments,
        data: &mut ClientData<'_>,
    ) -> Result<Path, CipherError>;
}

/// Serves what is waiting in one client's request queue. Returns how many requests were
/// answered, or `Corrupt` if the client broke its queues.
pub fn serve<E: CipherEngine>(
    engine: &mut E,
    sessions: &mut Sessions,
    caller: Caller,
    requests: &mut Consumer<'_, Request>,
    responses: &mut Producer<'_, Response>,
    data: &mut ClientData<'_>,
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
pub fn handle<E: CipherEngine>(
    engine: &mut E,
    sessions: &mut Sessions,
    caller: Caller,
    request: &Request,
    data: &mut ClientData<'_>,
) -> Response {
    let mut response = Response {
        id: request.id,
        status: CipherErrorRaw::OK,
        path: Path::Adaptive.into(),
        reserved: 0,
        bytes_done: 0,
    };
    let result = (|| -> Result<(Path, u32), CipherError> {
        let op = request.op.get().map_err(|_| CipherError::BadRequest)?;
        let session = sessions.get_mut(caller, request.session)?;
        let segs = validate(request, data.bytes.len(), session.mode)?;
        let path = engine.crypt(session, op, &segs, data)?;
        Ok((path, segs.total()))
    })();
    match result {
        Ok((path, bytes)) => {
            response.path = path.into();
            response.bytes_done = bytes;
        }
        Err(e) => response.status = e.into(),
    }
    response
}
