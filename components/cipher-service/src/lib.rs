//! The part of a Cipher driver that does not depend on its engine: the session table,
//! validation of every request a client puts in shared memory, and the [`Service`] that
//! turns clients' request queues into work for one engine and its results into
//! responses. Engines plug in through [`CipherEngine`].
//!
//! Engines are event-driven, as Tock's `crypt` / `handle_interrupt` and sDDF's drivers:
//! [`CipherEngine::start`] programs the engine and returns at once, finished
//! ([`Step::Done`], the CPU engine) or [`Step::Pending`]; the engine's interrupt then
//! reaches [`Service::interrupt`], which advances the request (a PIO block, a DMA
//! completion) until it is done. Nothing here waits for a device. While requests are in
//! flight the PD keeps answering calls and notifications. An engine holds as many
//! requests as its [`CipherEngine::depth`] (one for the OMAP, STM32 and CPU engines;
//! virtio-crypto's data queue holds several), at most one per session, since each of a
//! session's requests starts from the IV the one before leaves; further requests stay in
//! their clients' queues until a place frees. An engine that [coalesces](CipherEngine::coalesces)
//! takes a session's consecutive queued requests as one job (one transfer, one context
//! load), each request still answered on its own.
//!
//! Guarantees, whatever a client writes into its queues and data region:
//! * every request taken off the queue gets exactly one response: a request is taken
//!   only when its answer has room beside the answers its client is already owed
//!   (backpressure, never a dropped answer);
//! * segments are checked against the client's data region before the engine sees them,
//!   so an engine never touches memory outside it; the region is reached only by
//!   volatile copies ([`ClientData`]), so a client scribbling on it mid-request spoils
//!   only its own result;
//! * a session is usable only by the client (channel) that opened it;
//! * corrupt queue indices stop service to that client with [`QueueError::Corrupt`]
//!   (the driver cuts it off) and affect no other client.
//!
//! In flight, defined here and tested: a request whose session is closed meanwhile is
//! still answered with its result (the work was accepted), but the session's IV is not
//! kept; a request of a client cut off meanwhile finishes and its answer is dropped (its
//! queues are broken); an engine error fails the requests of that job alone (one, or
//! the several of one session it carried: `EngineFault`, or `NoPower` for a gated
//! engine) and the engine is reset for the next.
//!
//! Assumes the data region stays mapped while the driver runs. `no_std`, no heap.
#![no_std]
// The library has no unsafe code; only the host-only testkit (raw test memory) does.
#![deny(unsafe_code)]

mod segments;
mod service;
mod sessions;
pub mod sg;
#[cfg(feature = "testkit")]
extern crate std;
#[cfg(feature = "testkit")]
#[allow(unsafe_code)]
pub mod testkit;

/// A client's data region as the driver sees it: shared memory the client may write at
/// any moment, reached only through volatile copies (see [`sg`]), and where DMA finds it.
#[derive(Clone, Copy)]
pub struct ClientData<'a> {
    pub region: SharedRegion<'a>,
    /// Physical (bus) address of the region's first byte, if it is DMA-reachable; a
    /// driver without it must use its CPU path.
    pub phys: Option<u64>,
}

impl ClientData<'_> {
    pub fn len(&self) -> usize {
        self.region.len()
    }

    pub fn is_empty(&self) -> bool {
        self.region.is_empty()
    }
}

pub use segment_list::{MAX_JOINED, MAX_SEGMENTS};
use segments::validate_into;
pub use segments::{BLOCK, Segments, validate};
pub use service::{MAX_COALESCED, Service, Stopped};
pub use sessions::{MAX_SESSIONS, Session, Sessions};

use pd_idl::cipher::{CipherError, CipherOp, Path};
use shm_queue::SharedRegion;

/// Most requests an engine can hold at once (see [`CipherEngine::depth`]).
pub const MAX_IN_FLIGHT: usize = 4;

/// One validated request, as an engine runs it.
#[derive(Clone, Copy)]
pub struct Job<'a> {
    /// The session as it was when the request started: key, mode, path and the IV to
    /// begin with.
    pub session: Session,
    /// The session's id, as its client named it.
    pub session_id: u32,
    pub op: CipherOp,
    pub segs: Segments,
    pub data: ClientData<'a>,
    /// Which of the engine's places (`0..depth`) the job holds while in flight: an
    /// engine holding several keeps their state apart by it; one at a time ignores it.
    pub slot: usize,
    /// Client requests the job carries: 1, or more when the engine coalesces
    /// consecutive requests of one session into one transfer
    /// ([`CipherEngine::coalesces`]); `segs` is then all of theirs, in order.
    pub requests: u32,
}

/// A request the engine finished.
///
/// The IV is held as one 128-bit scalar: as a byte array it was split by the compiler
/// into pieces of whatever widths the modes and the `Result` around it touched (the
/// error's two bytes overlapped it; CTR read it as a counter), each piece stored on its
/// own and read back whole, a stalled store-to-load forward on every request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(16))]
pub struct Finished {
    /// How the data moved.
    pub path: Path,
    /// The next IV's bytes, in memory order (`u128::from_ne_bytes`).
    next_iv: u128,
}

impl Finished {
    pub fn new(path: Path, next_iv: [u8; 16]) -> Self {
        Finished {
            path,
            next_iv: u128::from_ne_bytes(next_iv),
        }
    }

    /// The IV for the session's next request (CBC: the last ciphertext block; CTR: the
    /// counter after the last block used; ECB: unchanged).
    pub fn next_iv(&self) -> [u8; 16] {
        self.next_iv.to_ne_bytes()
    }
}

impl<'a> Job<'a> {
    /// A job of nothing over `data`: what a serving pass fills in place, request by
    /// request (a job returned by value was copied through each `Result` it passed).
    pub(crate) fn empty(data: ClientData<'a>) -> Self {
        Job {
            session: Session::EMPTY,
            session_id: 0,
            op: CipherOp::Encrypt,
            segs: Segments::EMPTY,
            data,
            slot: 0,
            requests: 0,
        }
    }
}

/// Where a request stands after the engine was started or interrupted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The engine works on it; its interrupt will advance it.
    Pending,
    Done(Result<Finished, CipherError>),
}

/// An engine as the service drives it.
pub trait CipherEngine {
    /// How many requests the engine can hold at once (1 unless overridden; the service
    /// uses at most [`MAX_IN_FLIGHT`]). Each gets its own [`Job::slot`].
    fn depth(&self) -> usize {
        1
    }
    /// Whether `job` (one request, as it would run alone) may share a job with the
    /// session's requests queued next to it: consecutive requests of one session then
    /// run as one job (one DMA transfer, one context load), each still answered on its
    /// own. An engine that says yes for two requests must give their joined job the
    /// bytes each would have got alone, and on a forced path the same path. False by
    /// default.
    fn coalesces(&self, job: &Job<'_>) -> bool {
        let _ = job;
        false
    }

    /// Refuses what this engine cannot do (`UnsupportedMode`, `UnsupportedPath`, ...),
    /// at open time, so requests never fail for a reason known up front.
    fn supports(&self, session: &Session) -> Result<(), CipherError>;

    /// Starts `job`: programs the engine and returns without waiting for it.
    fn start(&mut self, job: &Job<'_>) -> Step;

    /// The engine's interrupt arrived: called once per interrupt, before the jobs in
    /// flight are asked about it ([`interrupt`](Self::interrupt)), and also when none is.
    /// An engine whose device must be acknowledged whatever the interrupt was for
    /// (virtio's transport, whose control answers may come with nothing in flight) does
    /// it here. Nothing by default.
    fn interrupted(&mut self) {}

    /// One of the engine's interrupts arrived while `job` is in flight (the service asks
    /// for each job in flight in turn): reads the engine's status, does what it asks
    /// (the next PIO block, the end of a DMA transfer) and says where the job stands. A
    /// call with nothing to do (a spurious or shared interrupt, or news for another
    /// job) returns `Pending` and changes nothing, so init code may also call it in a
    /// bounded poll.
    fn interrupt(&mut self, job: &Job<'_>) -> Step;

    /// The job in flight took too long (its interrupt never came: the PD's watchdog
    /// says so): stop it and reset the engine for the next. The service answers it
    /// `EngineFault`.
    fn cancel(&mut self, job: &Job<'_>);

    /// The engine lost what it held (it was gated, or reset by someone else): an engine
    /// that keeps a session's key and IV loaded between jobs forgets it held them.
    /// Nothing by default.
    fn context_lost(&mut self) {}
    /// `session` was closed (by its client, or because the client was cut off): an
    /// engine that keeps state per key (virtio-crypto's device sessions) forgets it, so
    /// no key outlives its session. Nothing by default.
    fn closed(&mut self, session: &Session) {
        let _ = session;
    }
}

/// Runs `job` to the end by polling [`CipherEngine::interrupt`] at most `polls` times:
/// for init code (self-test, calibration) and tests, which may not wait for interrupt
/// notifications; a handler never calls it. `Err(EngineFault)` if the engine never
/// finished (the job is then cancelled).
pub fn run_polled<E: CipherEngine + ?Sized>(
    engine: &mut E,
    job: &Job<'_>,
    polls: u32,
) -> Result<Finished, CipherError> {
    let mut step = engine.start(job);
    // BOUNDED POLL (init code and tests only, as the docs say).
    for _ in 0..polls {
        match step {
            Step::Done(result) => return result,
            Step::Pending => {
                engine.interrupted();
                step = engine.interrupt(job);
            }
        }
    }
    match step {
        Step::Done(result) => result,
        Step::Pending => {
            engine.cancel(job);
            Err(CipherError::EngineFault)
        }
    }
}
