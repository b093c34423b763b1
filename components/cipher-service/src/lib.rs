//! The Cipher interface as an instance of `queued-service`: AES sessions whose requests
//! encrypt or decrypt segments of the client's data region in place, the IV carried
//! over from request to request. Here is what is Cipher's own: the engine trait every
//! AES engine implements ([`CipherEngine`]), the job it runs ([`Job`]) and what it
//! hands back ([`Finished`]), the session ([`Session`]: key, mode, path, the next IV),
//! and [`Cipher`], which tells the one service how a request is checked (whole blocks
//! for ECB and CBC, segments never overlapping, since the work is in place), which
//! queued requests may join one job, and how an answer is built. `sg` gathers a piece
//! of a request's stream for engines that compute on the CPU.
//!
//! Engines are event-driven, as Tock's `crypt` / `handle_interrupt` and sDDF's drivers:
//! [`CipherEngine::start`] programs the engine and returns at once, finished (the CPU
//! engine) or pending; the engine's interrupt then advances the job (a PIO block, a DMA
//! completion) until it is done. An engine holds as many jobs as its
//! [`CipherEngine::depth`] (one for the OMAP, STM32 and CPU engines; virtio-crypto's
//! data queue holds several), at most one per session, since each of a session's
//! requests starts from the IV the one before leaves. An engine that
//! [coalesces](CipherEngine::coalesces) takes a session's consecutive queued requests
//! as one job (one transfer, one context load), each request still answered on its own.
//!
//! In flight (the service's rules, tested here in `tests/in_flight.rs`): a request whose
//! session is closed meanwhile is still answered but its IV is not kept; an engine
//! error fails the requests of that job alone (`EngineFault`, or `NoPower` for a gated
//! engine) and the engine is reset for the next.
//!
//! Assumes the data region stays mapped while the driver runs. `no_std`, no heap.
#![no_std]
#![forbid(unsafe_code)]

mod interface;
mod segments;
pub mod sg;
#[cfg(feature = "testkit")]
extern crate std;
#[cfg(feature = "testkit")]
pub mod testkit;

pub use interface::Cipher;
pub use queued_service::{
    ClientData, MAX_COALESCED, MAX_IN_FLIGHT, MAX_JOINED, MAX_SEGMENTS, MAX_SESSIONS, PARK_FROM,
    Stopped,
};
pub use segments::{BLOCK, Segments, validate};

use pd_idl::cipher::{CipherError, CipherOp, Mode, OpenSessionArgs, Path};
use pd_idl::wire::Caller;

/// A Cipher driver's service: the one `queued-service` over a Cipher engine.
pub type Service<'a, E> = queued_service::Service<'a, Cipher<E>>;
/// A Cipher driver's sessions.
pub type Sessions = queued_service::Sessions<Session>;
/// Where a job stands after the engine was started or interrupted.
pub type Step = queued_service::Step<Finished, CipherError>;

/// One open session: the engine context that is saved here and loaded into the engine
/// for each request, so sessions of different clients interleave.
///
/// IV and key first, at 16-byte-aligned offsets of a 16-byte-aligned struct: every copy
/// of a session (into a job, out of a finished one) is then whole 16-byte moves. Left to
/// the default layout the IV sat at an odd offset and was copied in overlapping 2- and
/// 8-byte pieces, and reading it back stalled store-to-load forwarding on every request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(16))]
pub struct Session {
    /// The IV for the next request (chaining carries over between requests).
    pub iv: [u8; 16],
    pub key: [u8; 32],
    pub owner: Caller,
    pub mode: Mode,
    pub path: Path,
    pub key_len: u8,
    /// What requests may do ([`ENCRYPT`], [`DECRYPT`]): both on a raw key, what the key
    /// store granted on a key by handle.
    pub usage: u8,
}

/// A session's usages, as the Keys interface numbers them (bit `v` for `KeyUsage` `v`).
pub const ENCRYPT: u8 = pd_idl::key_bits::usage(pd_idl::keys::KeyUsage::Encrypt);
pub const DECRYPT: u8 = pd_idl::key_bits::usage(pd_idl::keys::KeyUsage::Decrypt);

/// What a session opens from: the call's arguments, and the usages it may have.
#[derive(Clone, Copy, Debug)]
pub struct Open {
    pub args: OpenSessionArgs,
    pub usage: u8,
}

/// A session on the client's own key bytes does what it asks.
impl From<OpenSessionArgs> for Open {
    fn from(args: OpenSessionArgs) -> Self {
        Open {
            args,
            usage: ENCRYPT | DECRYPT,
        }
    }
}

impl Session {
    /// A session of nothing: no key, owned by nobody (what a job is filled from).
    pub const EMPTY: Session = Session {
        iv: [0; 16],
        key: [0; 32],
        owner: Caller(0),
        mode: Mode::Ecb,
        path: Path::Adaptive,
        key_len: 0,
        usage: 0,
    };

    pub fn key(&self) -> &[u8] {
        &self.key[..usize::from(self.key_len).min(32)]
    }

    /// What opens this session again (for its owner).
    pub fn open_args(&self) -> Open {
        Open {
            args: OpenSessionArgs {
                mode: self.mode,
                path: self.path,
                key_len: self.key_len,
                key: self.key,
                iv: self.iv,
            },
            usage: self.usage,
        }
    }

    /// Whether this session's key is `key_len` bytes of `key` (an engine's cached key
    /// state, say): every byte compared whatever the first difference, so the time
    /// says nothing about where keys differ.
    pub fn has_key(&self, key_len: u8, key: &[u8; 32]) -> bool {
        let diff = self.key.iter().zip(key).fold(0u8, |d, (a, b)| d | (a ^ b));
        self.key_len == key_len && diff == 0
    }
}

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
    /// `EncryptNewIv`: where the drawn IV is written (the job's op is `Encrypt` for the
    /// engine, which finds the IV in `session`).
    pub new_iv: Option<pd_idl::common::Segment>,
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
    /// One request's job outside a serving pass (a driver's self-test or calibration,
    /// an engine's own tests): `op` of session `session` over `segs` of `data`, slot 0.
    pub fn one(session: Session, op: CipherOp, segs: Segments, data: ClientData<'a>) -> Self {
        Job {
            session,
            session_id: 0,
            op,
            segs,
            data,
            slot: 0,
            requests: 1,
            new_iv: None,
        }
    }

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
            new_iv: None,
        }
    }
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

    /// Whether a request too large for its client's share of the engine may be served
    /// in pieces, each a job of its own (the IV carried between them as between
    /// requests): for an engine whose jobs end on its interrupt, so that a piece's end
    /// serves the clients again. False by default (an engine that finishes at once
    /// shares by whole requests).
    fn splits(&self) -> bool {
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

    /// Whether this engine can be given randomness of its own ([`random`](Self::random)):
    /// a hardware engine's PD has none, and `EncryptNewIv` is refused before anything
    /// else (and its code left out of that PD).
    const RANDOM: bool = false;

    /// Fills `out` with random bytes for an IV the driver chooses (`EncryptNewIv`):
    /// whether it could.
    fn random(&mut self, out: &mut [u8]) -> bool {
        let _ = out;
        false
    }

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
    /// Whether the engine worked on key material on the stack since last asked (a
    /// software engine's key expansion, whose temporaries no code of ours names): the
    /// PD then scrubs its stack. Clears what it reports. False by default: a hardware
    /// engine takes its key from the session into its registers.
    fn touched_keys(&mut self) -> bool {
        false
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
