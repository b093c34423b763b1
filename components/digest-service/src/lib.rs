//! The Digest interface as an instance of `queued-service`: hash sessions fed by
//! update and final requests over segments of the client's data region, a final's
//! digest written into that region at the place its last segment names (the answer
//! only says how long it is: a 16-byte answer, four to a cache line, where an inline
//! SHA-512 digest made it two lines). Here is what is Digest's own: the engine trait every
//! hash engine implements ([`DigestEngine`]), the job it runs ([`Job`]) and the digest
//! it hands back ([`DigestValue`]), the session ([`Session`]: algorithm, path, progress
//! and the engine's context), and [`Digest`], which tells the one service how a request
//! is checked (a hash only reads, so segments may overlap), which queued updates may
//! join one job, and how an answer is built.
//!
//! Engines are event-driven, as `cipher-service`'s: [`DigestEngine::start`] programs the
//! engine and returns, finished (the CPU) or pending; the engine's interrupt advances
//! the job until it is done. A session's context is cloned while its job is in flight,
//! so the job can finish even if its session closes meanwhile. After its final a
//! session starts a new message with the engine's fresh state (a message that fits one
//! request is one `Final`: no call, no session set-up per message); a session whose
//! engine failed mid-request answers `EngineFault` rather than a wrong digest.
//!
//! Assumes the data region stays mapped while the driver runs. `no_std`, no heap.
#![no_std]
#![forbid(unsafe_code)]

#[cfg(feature = "testkit")]
extern crate std;

mod interface;
mod segments;
#[cfg(feature = "testkit")]
pub mod testkit;

pub use interface::{Digest, Flight};
pub use queued_service::{ClientData, MAX_COALESCED, MAX_SESSIONS};
pub use segments::{MAX_JOINED, MAX_SEGMENTS, Segments, from_slice, validate};

use pd_idl::digest::{Algorithm, DigestError, DigestOp, HashPath};

/// A Digest driver's service: the one `queued-service` over a Digest engine.
pub type Service<'a, E> = queued_service::Service<'a, Digest<E>>;
/// A Digest driver's sessions, over its engine's context `C`.
pub type Sessions<C> = queued_service::Sessions<Session<C>>;
/// Where a job stands after the engine was started or interrupted: finished, with the
/// digest of a final and nothing for an update.
pub type DigestStep = queued_service::Step<Option<DigestValue>, DigestError>;

/// Where a session is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Takes updates and a final; after its final it starts a new message (so a client
    /// hashes one message after another, each a single final request, with no call).
    Open,
    /// The engine failed in the middle of one of its requests, so its hash state is
    /// unknown; further requests are `EngineFault`.
    Failed,
}

/// One open session.
#[derive(Clone, Debug)]
pub struct Session<C> {
    pub algorithm: Algorithm,
    pub path: HashPath,
    /// Bytes hashed so far (every accepted update and final).
    pub bytes: u64,
    pub state: State,
    /// What the engine keeps for this session between requests.
    pub engine: C,
}

impl<C: Clone> queued_service::Carries for Session<C> {
    type Context = C;
    fn context(&mut self) -> &mut C {
        &mut self.engine
    }
}

/// Longest digest of the interface's algorithms (SHA-512).
pub const MAX_DIGEST: usize = 64;

// The lengths are the published algorithms' (FIPS 180-4, RFC 1321): kept once, with the
// vectors, which every Digest engine's tests and the test client PDs check against.
pub use kat_vectors::{block_len, digest_len};

/// A finished digest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DigestValue {
    bytes: [u8; MAX_DIGEST],
    len: u8,
}

impl DigestValue {
    /// `bytes` must be at most [`MAX_DIGEST`] long (longer is cut: no algorithm has one).
    /// Inlined, so that an engine's fixed-size digest is copied in fixed-size moves, not
    /// through memcpy.
    #[inline]
    pub fn new(bytes: &[u8]) -> Self {
        let n = bytes.len().min(MAX_DIGEST);
        let mut d = DigestValue {
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

/// An engine as the service drives it: one request at a time. The service has already
/// checked ownership, session state and segment bounds; the engine hashes.
pub trait DigestEngine {
    /// What the engine keeps per session between requests (buffered partial block,
    /// saved hash context). Cloned when a request goes in flight, so the request can
    /// finish even if its session closes meanwhile.
    type Context: Clone;

    /// Refuses what this engine cannot do (`UnsupportedAlgorithm`, `UnsupportedPath`)
    /// from the arguments alone: the PD asks before it takes the engine's power, so a
    /// refused open costs no grant and no work. What it offers, as Linux's algorithm
    /// registration says it. [`open`](Self::open) still refuses the same, and more.
    fn supports(&self, algorithm: Algorithm, path: HashPath) -> Result<(), DigestError>;

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

    /// Whether `job` (one request, as it would run alone) may share a job with the
    /// session's requests queued next to it: consecutive updates (and a final after
    /// them) then run as one job over all their segments, which hashes the same stream
    /// of bytes; each request is still answered on its own. False by default.
    fn coalesces(&self, job: &Job<'_>) -> bool {
        let _ = job;
        false
    }

    /// Starts `job` on the session whose context is `ctx`, without waiting. `ctx` may
    /// change only if the step is `Done`; while `Pending`, the service hands a copy of
    /// the context back to [`interrupt`](Self::interrupt).
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
    fn a_digest_keeps_its_length() {
        let d = DigestValue::new(&[0xab; 20]);
        assert_eq!(d.as_bytes(), &[0xab; 20]);
        // Longer than any algorithm's: cut, never past the array.
        assert_eq!(
            DigestValue::new(&[1; MAX_DIGEST + 8]).as_bytes(),
            &[1; MAX_DIGEST]
        );
    }
}
