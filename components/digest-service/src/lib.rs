//! The part of a Digest driver that does not depend on its engine: the session table,
//! validation of every request a client puts in shared memory, and the [`Service`] that
//! turns clients' request queues into work for one engine and its results into
//! responses. Engines plug in through [`DigestEngine`].
//!
//! Engines are event-driven, as `cipher-service`'s: [`DigestEngine::start`] programs
//! the engine and returns, finished (the CPU) or [`DigestStep::Pending`]; the engine's
//! interrupt reaches [`Service::interrupt`] until the request is done. While a request
//! is in flight, calls and notifications are answered and further requests wait in
//! their queues. An engine that [coalesces](DigestEngine::coalesces) takes a session's
//! consecutive queued updates as one job. In flight: a request whose session closes
//! meanwhile is still answered (the work was accepted) and its hash state dropped; a
//! cut-off client's finishes unanswered; an engine error fails the requests of that job
//! and marks its session `Failed`.
//!
//! Guarantees, whatever a client writes into its queues and data region:
//! * every request taken off the queue gets exactly one response: a request is taken
//!   only when there is room for its answer (backpressure, never a dropped answer);
//! * segments are checked against the client's data region before the engine sees them,
//!   so an engine never reads outside it (and never writes it: a hash only reads);
//! * a session is usable only by the client (channel) that opened it;
//! * after its final a session starts a new message (a message that fits one request
//!   is one `Final`: no call, no session set-up per message), and a session whose
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
mod service;
mod sessions;
#[cfg(feature = "testkit")]
pub mod testkit;

pub use calls::Calls;
use segments::validate_into;
pub use segments::{MAX_JOINED, MAX_SEGMENTS, Segments, from_slice, validate};
pub use service::{MAX_COALESCED, Service};
pub use sessions::{MAX_SESSIONS, Session, Sessions, State};

use pd_idl::digest::{Algorithm, DigestError, DigestOp, HashPath};
use shm_queue::SharedRegion;

/// A client's data region as the driver sees it: shared memory the client may write at
/// any moment, reached only by volatile copies ([`SharedRegion::read_bytes`]) or DMA,
/// and where DMA finds it.
#[derive(Clone, Copy)]
pub struct ClientData<'a> {
    pub region: SharedRegion<'a>,
    /// Physical (bus) address of the region's first byte, if it is DMA-reachable; a
    /// driver without it must reach the data with the CPU.
    pub phys: Option<u64>,
}

impl ClientData<'_> {
    pub fn len(&self) -> usize {
        self.region.len()
    }

    pub fn is_empty(&self) -> bool {
        self.region.is_empty()
    }

    /// Calls `f` on the bytes of `segs`, in order, in pieces of at most `buf.len()`
    /// copied into `buf` (private memory: a hash must not read bytes the client may
    /// change under it twice).
    pub fn for_each_piece(&self, segs: &Segments, buf: &mut [u8], mut f: impl FnMut(&[u8])) {
        for s in segs.as_slice() {
            let (mut at, end) = (s.offset as usize, (s.offset + s.len) as usize);
            while at < end {
                let n = (end - at).min(buf.len());
                // Validated segments lie inside the region: the copy cannot fail.
                let inside = self.region.read_bytes(at, &mut buf[..n]);
                debug_assert!(inside);
                f(&buf[..n]);
                at += n;
            }
        }
    }
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
    /// Inlined, so that an engine's fixed-size digest is copied in fixed-size moves, not
    /// through memcpy.
    #[inline]
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

    /// The digest's bytes, zero past its length ([`new`](Self::new) clears them): what
    /// an answer carries, copied in one fixed-size move (a copy of `len` bytes was a
    /// call to memcpy per answer).
    pub fn padded(&self) -> &[u8; MAX_DIGEST] {
        &self.bytes
    }
}

/// One validated request, as an engine runs it.
#[derive(Clone, Copy)]
pub struct Job<'a> {
    pub algorithm: Algorithm,
    pub path: HashPath,
    /// `Final`: hash `segs`, then finish with the digest of everything the session saw.
    pub op: DigestOp,
    pub segs: Segments,
    pub data: ClientData<'a>,
    /// Client requests the job carries: 1, or more when the engine coalesces a
    /// session's consecutive queued updates (and a final after them) into one job
    /// ([`DigestEngine::coalesces`]); `segs` is then all of theirs, in order.
    pub requests: u32,
}

impl<'a> Job<'a> {
    /// A job of nothing over `data`: what a serving pass fills in place, request by
    /// request (a job returned by value was copied through each `Result` it passed).
    pub(crate) fn empty(data: ClientData<'a>) -> Self {
        Job {
            algorithm: Algorithm::Sha256,
            path: HashPath::Auto,
            op: DigestOp::Update,
            segs: Segments::EMPTY,
            data,
            requests: 0,
        }
    }
}

/// Where a request stands after the engine was started or interrupted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DigestStep {
    /// The engine works on it; its interrupt will advance it.
    Pending,
    /// Finished: the digest of a final, nothing for an update.
    Done(Result<Option<Digest>, DigestError>),
}

/// An engine as the service drives it: one request at a time. The service has already
/// checked ownership, session state and segment bounds; the engine hashes.
pub trait DigestEngine {
    /// What the engine keeps per session between requests (buffered partial block,
    /// saved hash context). Cloned when a request goes in flight, so the request can
    /// finish even if its session closes meanwhile.
    type Context: Clone;

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

    /// After a final: `ctx` becomes a fresh context for the session's next message, as
    /// [`open`](Self::open) would make. An engine that can reset its context in place
    /// says so here: replacing a CPU hasher by a new one moved it through memcpy on every
    /// one-shot digest.
    fn restart(
        &mut self,
        slot: usize,
        ctx: &mut Self::Context,
        algorithm: Algorithm,
        path: HashPath,
    ) -> Result<(), DigestError> {
        *ctx = self.open(slot, algorithm, path)?;
        Ok(())
    }

    /// Starts `job` on the session whose context is `ctx`, without waiting. `ctx` may
    /// change only if the step is `Done`; while `Pending`, the service hands the same
    /// context back to [`interrupt`](Self::interrupt).
    /// Whether `job` (one request, as it would run alone) may share a job with the
    /// session's requests queued next to it: consecutive updates (and a final after
    /// them) then run as one job over all their segments, which hashes the same stream
    /// of bytes; each request is still answered on its own. False by default.
    fn coalesces(&self, job: &Job<'_>) -> bool {
        let _ = job;
        false
    }
    fn start(&mut self, ctx: &mut Self::Context, job: &Job<'_>) -> DigestStep;

    /// One of the engine's interrupts arrived while `job` is in flight: advances it.
    /// With nothing to do (a spurious interrupt) it returns `Pending` and changes
    /// nothing, so init code and tests may call it in a bounded poll.
    fn interrupt(&mut self, ctx: &mut Self::Context, job: &Job<'_>) -> DigestStep;

    /// The job in flight took too long (its interrupt never came: the PD's watchdog
    /// says so): stop it and reset the engine for the next. The service answers it
    /// `EngineFault` and marks its session failed.
    fn cancel(&mut self, job: &Job<'_>);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_digest_is_padded_with_zeros_past_its_length() {
        let d = Digest::new(&[0xab; 20]);
        assert_eq!(d.as_bytes(), &[0xab; 20]);
        assert_eq!(d.padded()[..20], [0xab; 20]);
        assert_eq!(d.padded()[20..], [0; MAX_DIGEST - 20]);
        // Longer than any algorithm's: cut, never past the array.
        assert_eq!(Digest::new(&[1; 40]).as_bytes(), &[1; MAX_DIGEST]);
    }
}
