//! The one service every queued interface is an instance of. A driver PD serves an
//! interface (Cipher, Digest, ...) by handing a [`Service`] its clients' queues; the
//! interface says what is its own through [`Interface`]: its request, response and
//! session types, how a request is checked and becomes a job, which requests may join
//! one job, how its engine is started and interrupted, and how an answer is built.
//! Everything else is written here, once: the serving pass with its backpressure, the
//! session table, joining (coalescing) of a session's queued requests, the requests in
//! flight, the watchdog, and what a client cut off or gone leaves behind.
//!
//! A request's way, from the PD's notification to the engine and back:
//! [`Service::serve_batch`] copies each request out of the client's queue, has the
//! interface [check](Interface::check) it into a job over the session it names, lets
//! followers of the same session [join](Interface::join) it, and
//! [starts](Interface::start) it. The engine finishes it at once (its answers are
//! staged in the client's response queue right there) or later: its interrupt reaches
//! [`Service::interrupt`], which returns what finished as a value ([`Landed`]) for the
//! PD to deliver. Nothing here waits for a device.
//!
//! Guarantees, whatever a client writes into its queues and data region:
//! * every request taken off a queue gets exactly one answer: a request is taken only
//!   when its answer has room beside the answers its client is already owed
//!   (backpressure, never a dropped answer);
//! * a request is checked against the client's data region before its engine sees it
//!   (`segment-list`), and the region is reached only by volatile copies
//!   ([`ClientData`]), so a client scribbling on it mid-request spoils only its own
//!   result;
//! * a session answers only the client (channel) that opened it, and its id carries
//!   the driver's incarnation, so an id of a dead incarnation is `ServerRestarted`;
//! * corrupt queue indices stop service to that client (`QueueError::Corrupt`: the PD
//!   cuts it off) and to no other.
//!
//! In flight, defined here and tested (cipher-service's `tests/in_flight.rs`): a request
//! whose session closes meanwhile is still answered (the work was accepted) but its
//! session keeps nothing of it; a request of a client cut off finishes unanswered; an
//! engine error fails the requests of that job alone; the watchdog's
//! [`expire`](Service::expire) cancels what is in flight and answers it `EngineFault`.
//!
//! Assumes the data region stays mapped while the driver runs and one thread (a PD).
//! `no_std`, no heap.
#![no_std]
#![cfg_attr(not(feature = "testkit"), forbid(unsafe_code))]
// The test kit alone owns raw memory (a region DMA models reach by address).
#![cfg_attr(feature = "testkit", deny(unsafe_code))]

#[cfg(feature = "testkit")]
extern crate std;

mod carried;
mod keys;
mod landed;
mod service;
mod sessions;
#[cfg(feature = "testkit")]
pub mod testkit;

pub use carried::{Carried, Carries};
pub use keys::{KeyMaterial, KeyPlace, KeyRefusal, KeySource, KeyUse, MAX_KEY, Unkeyed};
pub use landed::{Landed, LandedJob};
pub use segment_list::{MAX_JOINED, MAX_SEGMENTS, Parts, Segments};
pub use service::{
    MAX_COALESCED, MIN_PIECE, NoParking, PARK_FROM, Park, Parked, Parking, REQUEST_COST, Service,
    Stopped,
};
pub use sessions::{MAX_SESSIONS, Sessions};

use pd_idl::wire::{self, Caller, ErrorCode, Message, ProtocolError};
use pd_trace::{Kind, Trace};
use shared_region::SharedRegion;
use shm_queue::Descriptor;

/// Most requests an engine holds at once (see [`Interface::depth`]).
pub const MAX_IN_FLIGHT: usize = 4;

/// A client's data region as the driver sees it: shared memory the client may write at
/// any moment, reached only through volatile copies ([`SharedRegion::read_bytes`] and
/// the like) or DMA, and where DMA finds it.
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

    /// Whether `len` bytes at `offset` lie inside the region (overflow checked): where a
    /// call says its argument is, as a key's place.
    pub fn holds(&self, offset: usize, len: usize) -> bool {
        offset.checked_add(len).is_some_and(|end| end <= self.len())
    }

    /// Zeroes `segs` (checked inside the region), in pieces: no buffer as long as a
    /// payload. Aead's answer to a tag that failed: no plaintext is left behind.
    pub fn zero(&self, segs: &Segments) {
        const ZEROS: [u8; 64] = [0; 64];
        for s in segs.as_slice() {
            let (mut at, end) = (s.offset as usize, (s.offset + s.len) as usize);
            while at < end {
                let n = (end - at).min(ZEROS.len());
                let inside = self.region.write_bytes(at, &ZEROS[..n]);
                debug_assert!(inside);
                at += n;
            }
        }
    }

    /// Writes an answer's bytes (a digest, a tag) at the place a request named for them,
    /// which its check found inside the region and at least this long. Written for every
    /// engine by the interface's `finish`, before the answer is built: the client reads
    /// them when it sees the answer.
    #[inline]
    pub fn write_output(&self, place: pd_idl::common::Segment, bytes: &[u8]) {
        let inside = self.region.write_bytes(place.offset as usize, bytes);
        debug_assert!(inside && bytes.len() <= place.len as usize);
    }

    /// Calls `f` on the bytes of `segs`, in order, in pieces of at most `buf.len()`
    /// copied into `buf` (private memory: an engine must not read bytes the client may
    /// change under it twice). A piece starts where in `buf` its copy moves whole
    /// vectors and is whole 128-byte blocks but the last ([`aligned_like`]), so it may be
    /// up to 142 bytes shorter than `buf` (15 of skew, 127 to a whole block).
    pub fn for_each_piece(&self, segs: &Segments, buf: &mut [u8], mut f: impl FnMut(&[u8])) {
        self.pieces::<false>(segs, buf, |p| f(p));
    }

    /// As [`for_each_piece`](Self::for_each_piece), working each piece in place: `f`
    /// changes the private copy, which is then written back where it came from (an
    /// engine that streams a payload through a buffer shorter than it).
    pub fn for_each_piece_mut(&self, segs: &Segments, buf: &mut [u8], f: impl FnMut(&mut [u8])) {
        self.pieces::<true>(segs, buf, f);
    }

    fn pieces<const BACK: bool>(
        &self,
        segs: &Segments,
        buf: &mut [u8],
        mut f: impl FnMut(&mut [u8]),
    ) {
        for s in segs.as_slice() {
            let (mut at, end) = (s.offset as usize, (s.offset + s.len) as usize);
            while at < end {
                let piece = aligned_like(self.region.as_ptr() as usize + at, buf);
                let n = (end - at).min(piece.len());
                // Checked segments lie inside the region: the copies cannot fail.
                let inside = self.region.read_bytes(at, &mut piece[..n]);
                f(&mut piece[..n]);
                let back = !BACK || self.region.write_bytes(at, &piece[..n]);
                debug_assert!(inside && back);
                at += n;
            }
        }
    }
}

/// The part of `buf` from where its address is `shared`'s modulo 16, cut to whole
/// 128-byte blocks (if `buf` is longer than that): the volatile copies move 16-byte
/// vectors only between sides equally aligned, else machine words (a client's buffer
/// at an odd offset copied into a buffer's start: GCM over 16 KiB spent 2.1 us of 16 in
/// copies), and a hash (SHA-512's blocks are 128 bytes) or a counter mode fed whole
/// blocks keeps no partial block between pieces.
fn aligned_like(shared: usize, buf: &mut [u8]) -> &mut [u8] {
    let skew = shared.wrapping_sub(buf.as_ptr() as usize) % 16;
    let whole = (buf.len().saturating_sub(skew)) & !127;
    if whole > 0 {
        &mut buf[skew..skew + whole]
    } else {
        buf
    }
}

/// Where a job stands after its engine was started or interrupted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step<T, E> {
    /// The engine works on it; its interrupt will advance it.
    Pending,
    Done(Result<T, E>),
}

/// Why the service refuses a request or a call, before the interface's own reasons:
/// each interface says which of its errors each is ([`Interface::refuse`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// No live session of the caller has this id.
    UnknownSession,
    /// The id is of an earlier incarnation of this driver: its session died with it.
    ServerRestarted,
    /// The caller holds its share of the session table.
    TooManySessions,
    /// The engine did not finish: the watchdog cancelled the job, or (only
    /// [`Service::begin`] meets this) it had no place for it.
    EngineFault,
    /// A call from a channel that is no client of this PD (or one cut off).
    NotAClient,
    /// The power manager did not grant the engine.
    NoPower,
}

/// Writes what every queued interface takes from its IDL module the same way: the
/// three calls' numbers and the queues' capacity (`OP_OPEN_SESSION`, `OP_CLOSE_SESSION`,
/// `OP_CAPABILITIES`, `CAPACITY`), [`Interface::header`] (every request has `id` and
/// `session`) and [`Interface::refuse`] for an error enum that names each refusal as
/// every queued interface's IDL does (`UnknownSession`, `ServerRestarted`,
/// `TooManySessions`, `EngineFault`, `NoPower`; a stranger's call is `BadRequest`), so
/// that they are written once however many interfaces there are. Used inside the
/// `impl Interface` block: `queued_service::from_idl!(pd_idl::mac, MacError);`.
#[macro_export]
macro_rules! from_idl {
    // A keyed interface (its sessions hold keys): also `KEYED`, `OP_OPEN_BY_KEY` and
    // [`Interface::refuse_key`], for an error enum naming each key refusal as the keyed
    // interfaces' IDL does (`UnknownKey`, `KeyNotPermitted`, `RawKeysForbidden`,
    // `NoKeyStore`).
    ($($idl:ident)::+, $error:ident, keyed) => {
        $crate::from_idl!($($idl)::+, $error);
        const KEYED: bool = true;
        const OP_OPEN_BY_KEY: u64 = $($idl)::+::OP_OPEN_SESSION_BY_KEY;

        fn refuse_key(refusal: $crate::KeyRefusal) -> $error {
            match refusal {
                $crate::KeyRefusal::UnknownKey => $error::UnknownKey,
                $crate::KeyRefusal::NotPermitted => $error::KeyNotPermitted,
                $crate::KeyRefusal::RawKeysForbidden => $error::RawKeysForbidden,
                $crate::KeyRefusal::NoKeyStore => $error::NoKeyStore,
            }
        }
    };
    ($($idl:ident)::+, $error:ident) => {
        const OP_OPEN_SESSION: u64 = $($idl)::+::OP_OPEN_SESSION;
        const OP_CLOSE_SESSION: u64 = $($idl)::+::OP_CLOSE_SESSION;
        const OP_CAPABILITIES: u64 = $($idl)::+::OP_CAPABILITIES;
        const CAPACITY: u32 = $($idl)::+::REQUEST_QUEUE_CAPACITY;

        fn header(request: &Self::Request) -> (u32, u32) {
            (request.id, request.session)
        }

        fn refuse(refusal: $crate::Refusal) -> $error {
            match refusal {
                $crate::Refusal::UnknownSession => $error::UnknownSession,
                $crate::Refusal::ServerRestarted => $error::ServerRestarted,
                $crate::Refusal::TooManySessions => $error::TooManySessions,
                $crate::Refusal::EngineFault => $error::EngineFault,
                $crate::Refusal::NotAClient => $error::BadRequest,
                $crate::Refusal::NoPower => $error::NoPower,
            }
        }
    };
}

/// What an interface supplies to the one [`Service`]. Implemented by a marker type
/// over the interface's engine trait (cipher-service's `Cipher<E>`, digest-service's
/// `Digest<E>`); every function takes the engine explicitly, so a service's
/// `engine` field is the engine itself.
pub trait Interface: Sized {
    /// The engine behind the service (anything implementing the interface's engine
    /// trait).
    type Engine;
    /// The queued request and its answer (the IDL's queue items).
    type Request: Descriptor + 'static;
    type Response: Descriptor + 'static;
    /// The interface's error enum (the IDL's).
    type Error: Copy + core::fmt::Debug + ErrorCode;
    /// What the service keeps per open session.
    type Session;
    /// One checked request (or several joined), as its engine runs it.
    type Job<'a>;
    /// What the engine hands back for a job that succeeded.
    type Done: Copy;
    /// The `open_session` call's arguments as they travel (the IDL's
    /// `OpenSessionArgs`).
    type OpenCall: serde::de::DeserializeOwned + hubpack::SerializedSize;
    /// What a session is opened from: the call's arguments, with the caller's data
    /// region where the interface reads an argument there ([`Interface::open_args`]).
    type Open;
    /// The `open_session_by_key` call's arguments, for an interface whose sessions
    /// hold a key ([`Unkeyed`] for one whose do not).
    type ByKey: serde::de::DeserializeOwned + hubpack::SerializedSize;

    /// The IDL's numbers of the three calls every queued interface has.
    const OP_OPEN_SESSION: u64;
    const OP_CLOSE_SESSION: u64;
    const OP_CAPABILITIES: u64;
    /// The IDL's `open_session_by_key` number; 0 for an interface without it.
    const OP_OPEN_BY_KEY: u64 = 0;
    /// Whether sessions hold a key: a caller the system allows keys by handle only is
    /// then refused `open_session` ([`KeyRefusal::RawKeysForbidden`]).
    const KEYED: bool = false;
    /// Slots in each of the interface's queues (the IDL's capacities).
    const CAPACITY: u32;
    /// Whether the engine writes client data (a cipher works in place): the PD then
    /// refuses a client whose data region is mapped read-only.
    const WRITES_DATA: bool;

    /// The interface's error for `refusal`.
    fn refuse(refusal: Refusal) -> Self::Error;
    /// A request's id and the session it names.
    fn header(request: &Self::Request) -> (u32, u32);

    /// How many jobs the engine holds at once (1 unless the engine says more; at most
    /// [`MAX_IN_FLIGHT`]). Each gets its own slot, `0..depth`.
    fn depth(engine: &Self::Engine) -> usize {
        let _ = engine;
        1
    }

    /// A job of nothing over `data`: what a serving pass fills in place, request by
    /// request (a job returned by value was copied through each `Result` it passed).
    fn empty_job(data: ClientData<'_>) -> Self::Job<'_>;
    /// Checks `request` of `caller` (its op, its session, its segments against the
    /// data region) and writes it into `job` as a job for engine slot `slot`; `job`
    /// means nothing if refused. The session is looked up with
    /// [`Sessions::get_mut`].
    fn check<'a>(
        engine: &Self::Engine,
        sessions: &mut Sessions<Self::Session>,
        caller: Caller,
        request: &Self::Request,
        job: &mut Self::Job<'a>,
        slot: usize,
    ) -> Result<(), Self::Error>;
    /// Bytes the job's (last joined) request covers, as its answer reports them.
    fn bytes(job: &Self::Job<'_>) -> u32;

    /// Whether `job` (one request, as it would run alone) may have the session's
    /// requests queued behind it join it. False by default.
    fn coalesces(engine: &Self::Engine, job: &Self::Job<'_>) -> bool {
        let _ = (engine, job);
        false
    }
    /// Joins `next` into `job` (which began with `first`) if it may run in the same
    /// transfer, returning `next`'s bytes; `job` is unchanged if not. An engine that
    /// joins must give each request the bytes it would have got alone.
    fn join<'a>(
        engine: &Self::Engine,
        job: &mut Self::Job<'a>,
        first: &Self::Request,
        next: &Self::Request,
    ) -> Option<u32> {
        let _ = (engine, job, first, next);
        None
    }

    /// Where the service keeps requests it serves in pieces: [`NoParking`] for an
    /// interface that never splits, [`Park`] for one that does.
    type Parking: Parking<Self>;

    /// Whether `job` (one request) may be served in pieces ([`split`](Self::split)),
    /// each a job of its own on the session, when it is larger than its client's share
    /// of the engine: a large request then cannot hold a light client's short ones
    /// behind it for its whole length (deficit round robin by engine work cuts jobs to
    /// the quantum, as it charges them). Only for work whose state carries from piece
    /// to piece as it does from request to request (a block cipher's IV), on an engine
    /// that finishes jobs on its interrupt (a piece ends in an event that serves the
    /// clients again). False by default.
    fn splits(engine: &Self::Engine, job: &Self::Job<'_>) -> bool {
        let _ = (engine, job);
        false
    }
    /// Narrows `job` (as [`check`](Self::check) wrote it) to its bytes `from..from +
    /// most`, rounded down to what the engine takes whole (at least one unit); returns
    /// the piece's bytes. Called only where [`splits`](Self::splits) said yes.
    fn split(job: &mut Self::Job<'_>, from: u32, most: u32) -> u32 {
        let _ = (job, from, most);
        unreachable!("split is called only where splits says yes")
    }

    /// Starts `job` of `caller` on the engine without waiting for it.
    fn start(
        engine: &mut Self::Engine,
        sessions: &mut Sessions<Self::Session>,
        caller: Caller,
        job: &mut Self::Job<'_>,
    ) -> Step<Self::Done, Self::Error>;
    /// The engine's interrupt arrived: once per interrupt, before the jobs in flight are
    /// asked about it, and also when none is (a device acknowledged whatever the
    /// interrupt was for). Nothing by default.
    fn interrupted(engine: &mut Self::Engine) {
        let _ = engine;
    }
    /// One of the engine's interrupts arrived while `job` is in flight: advances it. With
    /// nothing to do (a spurious interrupt, news for another job) it returns `Pending`
    /// and changes nothing, so init code and tests may call it in a bounded poll.
    fn interrupt(
        engine: &mut Self::Engine,
        job: &mut Self::Job<'_>,
    ) -> Step<Self::Done, Self::Error>;
    /// The job took too long (the watchdog says so): stop it and reset the engine.
    fn cancel(engine: &mut Self::Engine, job: &Self::Job<'_>);
    /// The job ended with `result`: moves its session on, if it is still open (its
    /// lookup fails otherwise).
    fn finish(
        engine: &mut Self::Engine,
        sessions: &mut Sessions<Self::Session>,
        caller: Caller,
        job: &mut Self::Job<'_>,
        result: &Result<Self::Done, Self::Error>,
    );
    /// The answer to request `id` of `bytes` that ended with `result`; `last`: whether
    /// it is the last request of its job (a digest goes to the final alone).
    fn answer(
        id: u32,
        bytes: u32,
        result: &Result<Self::Done, Self::Error>,
        last: bool,
    ) -> Self::Response;
    /// How an answer goes in the PD's trace: its kind and argument (the error code of a
    /// refusal).
    fn outcome(response: &Self::Response) -> (Kind, u32);

    /// Refuses an `open_session` known to fail, before the PD takes power for it.
    fn precheck(engine: &Self::Engine, args: &Self::Open) -> Result<(), Self::Error> {
        let _ = (engine, args);
        Ok(())
    }
    /// A new session of `caller` in table slot `slot` (fixed for its life: an engine
    /// keeping per-session state in its own memory indexes it by this).
    fn open(
        engine: &mut Self::Engine,
        caller: Caller,
        slot: usize,
        args: Self::Open,
    ) -> Result<Self::Session, Self::Error>;
    /// `session` closed (by its client, or because the client was cut off): an engine
    /// keeping state per key forgets it, and what of the session does not wipe itself
    /// when dropped is wiped here (it is dropped where it lies next). Nothing by default.
    fn closed(engine: &mut Self::Engine, session: &mut Self::Session) {
        let _ = (engine, session);
    }
    /// Whether the engine worked on key material on the stack since last asked (see
    /// cipher-service's `CipherEngine::touched_keys`): the PD then scrubs its stack
    /// after the event. False by default.
    fn touched_keys(engine: &mut Self::Engine) -> bool {
        let _ = engine;
        false
    }
    /// `job` is done with (answered, or left over from a serving pass): what it copied
    /// of its session that does not wipe itself (a key) is wiped. Nothing by default.
    fn forget(job: &mut Self::Job<'_>) {
        let _ = job;
    }
    /// The engine was (re)powered: it may have been gated meanwhile and lost what it
    /// held (keys, IVs). Nothing by default.
    fn powered_on(engine: &mut Self::Engine) {
        let _ = engine;
    }
    /// The [`Open`](Interface::Open) value of an `open_session` call whose caller has
    /// `data` as its data region (`None`: no client), for an interface whose call names
    /// a place there (Mac's and Aead's keys, too long for the message words).
    fn open_args(call: Self::OpenCall, data: Option<ClientData<'static>>) -> Self::Open;
    /// What the engine offers, as the `capabilities` call answers it: bit `v` for the
    /// algorithm (or mode) of value `v` that `open_session` would not refuse as
    /// unsupported (the IDL says with which key size and path).
    fn offers(engine: &Self::Engine) -> u64;
    /// The interface's error for a keyed open refused ([`KeyRefusal`]); an interface
    /// without keys never meets one.
    fn refuse_key(refusal: KeyRefusal) -> Self::Error {
        let _ = refusal;
        Self::refuse(Refusal::NotAClient)
    }
    /// The key an `open_session_by_key` call names, and for what.
    fn key_use(call: &Self::ByKey) -> KeyUse {
        let _ = call;
        unreachable!("no open_session_by_key without OP_OPEN_BY_KEY")
    }
    /// The [`Open`](Interface::Open) value of an `open_session_by_key` call, on the
    /// bytes the key store gave (`key.usage`: what the session may do); the key wipes
    /// itself wherever it is dropped.
    fn open_by_key(call: Self::ByKey, key: KeyMaterial) -> Self::Open {
        let _ = (call, key);
        unreachable!("no open_session_by_key without OP_OPEN_BY_KEY")
    }
    /// A call of the interface's own, beyond the three every queued interface has
    /// (Rng's `health` and `draw`), from `caller`: its reply, or `None` for an op the
    /// interface does not know (answered `UnknownOp`). It may change the engine and the
    /// caller's sessions as a request would, finishing at once (a call cannot wait for
    /// an interrupt). None by default.
    fn call(
        engine: &mut Self::Engine,
        sessions: &mut Sessions<Self::Session>,
        caller: Caller,
        msg: &Message,
    ) -> Option<Message> {
        let _ = (engine, sessions, caller, msg);
        None
    }
}

/// The bits of `values` for which `offered` holds: an [`Interface::offers`] over an
/// IDL enum's `ALL`.
pub fn offered<T: Copy>(values: &[T], value: impl Fn(T) -> u8, offered: impl Fn(T) -> bool) -> u64 {
    values.iter().filter(|&&v| offered(v)).fold(0, |bits, &v| {
        bits | 1u64.checked_shl(u32::from(value(v))).unwrap_or(0)
    })
}

/// `close_session`'s one argument, as every queued interface's IDL declares it (each
/// service's tests call it through the IDL's own client stub).
#[derive(serde::Deserialize, hubpack::SerializedSize)]
struct CloseSession {
    session: u32,
}

/// `capabilities`' arguments: none.
#[derive(serde::Deserialize, hubpack::SerializedSize)]
struct NoArgs {}

/// Decodes one call of interface `I` and runs it on `calls`. Every queued interface's
/// calls are the same three, `open_session` (with the interface's own arguments),
/// `close_session` and `capabilities`, so their dispatch is written once here rather than as a `Server`
/// adapter per interface; a malformed call (unknown op, too few or too many words, a
/// value its type does not allow) is a protocol error, as the IDL's `dispatch` answers.
pub fn dispatch<I: Interface>(calls: &mut impl Calls<I>, caller: Caller, msg: &Message) -> Message {
    let open = if msg.label == I::OP_OPEN_SESSION {
        match wire::decode_args::<I::OpenCall>(msg) {
            Ok(_) if I::KEYED && !calls.raw_keys(caller) => {
                Err(I::refuse_key(KeyRefusal::RawKeysForbidden))
            }
            Ok(call) => Ok(I::open_args(call, calls.data(caller))),
            Err(e) => return Message::protocol_error(e),
        }
    } else if I::OP_OPEN_BY_KEY != 0 && msg.label == I::OP_OPEN_BY_KEY {
        match wire::decode_args::<I::ByKey>(msg) {
            // The fetched bytes are wiped as soon as the open's arguments hold them.
            Ok(call) => calls
                .fetch_key(caller, I::key_use(&call))
                .map(|key| I::open_by_key(call, key))
                .map_err(I::refuse_key),
            Err(e) => return Message::protocol_error(e),
        }
    } else if msg.label == I::OP_CLOSE_SESSION {
        return match wire::decode_args::<CloseSession>(msg) {
            Ok(c) => wire::reply(calls.close(caller, c.session)),
            Err(e) => Message::protocol_error(e),
        };
    } else if msg.label == I::OP_CAPABILITIES {
        return match wire::decode_args::<NoArgs>(msg) {
            Ok(NoArgs {}) => wire::reply(calls.capabilities(caller)),
            Err(e) => Message::protocol_error(e),
        };
    } else {
        return calls
            .other(caller, msg)
            .unwrap_or_else(|| Message::protocol_error(ProtocolError::UnknownOp));
    };
    // One open for both ways in: a second call site cost the size-optimised PDs a
    // second inlined copy of the PD's open (904 B of OMAP's flash).
    wire::reply(open.and_then(|args| calls.open(caller, args)))
}

/// The calls every queued interface has, as the PD answers them (power, trace and the
/// table around [`Service::open`] and [`Service::close`]).
pub trait Calls<I: Interface> {
    fn open(&mut self, caller: Caller, args: I::Open) -> Result<u32, I::Error>;
    fn close(&mut self, caller: Caller, session: u32) -> Result<(), I::Error>;
    /// What the engine offers ([`Interface::offers`]).
    fn capabilities(&mut self, caller: Caller) -> Result<u64, I::Error>;
    /// The caller's data region, for a call whose argument lies there because it does
    /// not fit the message words (Mac's key, up to 1 KiB); `None` for a caller that is
    /// no client, and by default (an interface whose calls carry all they need).
    fn data(&self, caller: Caller) -> Option<ClientData<'static>> {
        let _ = caller;
        None
    }
    /// The key `key` names, fetched from the key store for `caller` (who must be a
    /// client); by default there is none.
    fn fetch_key(&mut self, caller: Caller, key: KeyUse) -> Result<KeyMaterial, KeyRefusal> {
        let _ = (caller, key);
        Err(KeyRefusal::NoKeyStore)
    }
    /// Whether `caller` may open sessions on its own key bytes (by default, yes: a
    /// system with no key store has no other way).
    fn raw_keys(&self, caller: Caller) -> bool {
        let _ = caller;
        true
    }
    /// Any other call: the interface's own ([`Interface::call`]), `None` if unknown.
    fn other(&mut self, caller: Caller, msg: &Message) -> Option<Message> {
        let _ = (caller, msg);
        None
    }
}

/// Records `response`, given to `caller`, in `trace`.
pub fn record<I: Interface>(trace: &Trace<'_>, caller: Caller, response: &I::Response) {
    if !trace.is_mapped() {
        return;
    }
    let (kind, arg) = I::outcome(response);
    trace.record(kind, if kind == Kind::Refused { arg } else { caller.0 });
}

#[cfg(test)]
mod tests {
    use super::aligned_like;

    #[test]
    fn a_piece_is_aligned_as_its_source_and_whole_blocks() {
        let mut buf = [0u8; 2048 + 128];
        let base = buf.as_ptr() as usize;
        for shared in 0x1000..0x1000 + 32 {
            let piece = aligned_like(shared, &mut buf);
            let at = piece.as_ptr() as usize;
            assert_eq!(at % 16, shared % 16, "vectors on both sides");
            assert_eq!(piece.len() % 128, 0, "whole blocks");
            assert!(piece.len() >= 2048 && at - base < 16);
        }
        // A buffer too short to shift is used as it is.
        let mut short = [0u8; 40];
        assert_eq!(aligned_like(3, &mut short).len(), 40);
    }
}
