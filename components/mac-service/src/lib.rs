//! The Mac interface (HMAC, RFC 2104) as an instance of `queued-service`: sessions
//! opened by call with an algorithm and a key taken from the client's data region, fed
//! by update requests over segments of that region, and ended by a final (the tag is
//! written into that region where its last segment says, as Digest's digest: an inline
//! tag made the answer two cache lines) or a verify (the expected tag is the request's last segment; the
//! answer is only `Ok` or `MacMismatch`, never the computed tag). Here is what is Mac's
//! own: the engine trait ([`MacEngine`]), the job it runs ([`Job`]), the session
//! ([`Session`]: algorithm, state, the key, the engine's context), the keys' memory
//! ([`Secret`], wiped when dropped) and [`Mac`], which tells the one service how a
//! request is checked and answered.
//!
//! A session authenticates messages one after another under its key: after a final or a
//! verify (matched or not) it starts the next message, as a Digest session does, so a
//! message that fits one request is one request, no call (`SessionFinished` is no
//! longer answered). The key is copied out of the client's region at open, at most
//! [`MAX_KEY`] bytes, by volatile copies, into private memory wiped after the open; the
//! session keeps what its engine needs of it ([`MacEngine::Key`]: RFC 2104's block key,
//! the key or its hash if longer than the block, at most [`MAX_BLOCK`] bytes, for an
//! engine that loads it per request; nothing for one whose context is keyed), wiped
//! when the session closes or its client dies (the table drops it). A verify is
//! compared here, in constant time (`subtle`), whatever the engine.
//!
//! Assumes the data region stays mapped while the driver runs. `no_std`, no heap.
#![no_std]
#![forbid(unsafe_code)]

#[cfg(any(test, feature = "testkit"))]
extern crate std;

mod interface;
mod segments;
#[cfg(feature = "testkit")]
pub mod testkit;

pub use interface::{Flight, Mac, Open, SIGN, VERIFY};
pub use queued_service::{ClientData, MAX_SESSIONS};
pub use segments::{MAX_SEGMENTS, Segments};

use pd_idl::mac::{MacAlgorithm, MacError, MacOp};
use zeroize::Zeroize;

/// A Mac driver's service: the one `queued-service` over a Mac engine.
pub type Service<'a, E> = queued_service::Service<'a, Mac<E>>;
/// A Mac driver's sessions, over its engine's context `C` and kept key `K`.
pub type Sessions<C, K = BlockKey> = queued_service::Sessions<Session<C, K>>;
/// Where a job stands after the engine was started or interrupted: finished, with the
/// computed tag of a final or verify, nothing for an update.
pub type MacStep = queued_service::Step<Option<Tag>, MacError>;

/// Longest key a session takes: keys longer than a block are hashed first (RFC 2104),
/// so length buys nothing past it; bounded so the copy at open is a fixed buffer.
pub const MAX_KEY: usize = 1024;
/// Longest block of the interface's hashes (SHA-384, SHA-512).
pub const MAX_BLOCK: usize = 128;
/// Longest tag (HMAC-SHA-512).
pub const MAX_TAG: usize = 64;
/// Shortest tag a verify compares: 80 bits, RFC 2104's lower bound for a truncated
/// tag (RFC 4231's case 5 truncates every SHA-2 tag to 128).
pub const MIN_TAG: usize = 10;

/// Tag length of each algorithm (its hash's digest).
pub const fn tag_len(algorithm: MacAlgorithm) -> usize {
    algorithm.tag_len()
}

/// Block length of each algorithm's hash: a longer key is hashed first.
pub const fn block_len(algorithm: MacAlgorithm) -> usize {
    match algorithm {
        MacAlgorithm::Sha384 | MacAlgorithm::Sha512 => 128,
        _ => 64,
    }
}

/// Key bytes in the driver's memory, wiped when dropped. Neither `Clone` nor `Copy`, so
/// the service makes no copies of its own (a move may leave one on the stack: Rust
/// promises nothing about those).
pub struct Secret<const N: usize> {
    bytes: [u8; N],
    len: usize,
}

/// A key as the client gave it, copied out of its region at open.
pub type ClientKey = Secret<MAX_KEY>;
/// RFC 2104's block key: the key, or its hash if longer than the block.
pub type BlockKey = Secret<MAX_BLOCK>;

impl<const N: usize> Default for Secret<N> {
    fn default() -> Self {
        Secret {
            bytes: [0; N],
            len: 0,
        }
    }
}

impl<const N: usize> Secret<N> {
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    /// The first `len` bytes to fill (at most `N`; longer is cut: no key of the
    /// interface is).
    pub fn fill(&mut self, len: usize) -> &mut [u8] {
        self.bytes.zeroize();
        self.len = len.min(N);
        &mut self.bytes[..self.len]
    }
}

impl<const N: usize> Secret<N> {
    /// Zeroes the bytes where they lie.
    pub fn wipe(&mut self) {
        self.bytes.zeroize();
        self.len.zeroize();
    }
}

impl<const N: usize> Drop for Secret<N> {
    fn drop(&mut self) {
        self.wipe();
    }
}

impl<const N: usize> core::fmt::Debug for Secret<N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Secret({} bytes)", self.len)
    }
}

/// A computed tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tag {
    bytes: [u8; MAX_TAG],
    len: u8,
}

impl Tag {
    /// `bytes` must be at most [`MAX_TAG`] long (longer is cut: no algorithm has one).
    pub fn new(bytes: &[u8]) -> Self {
        let n = bytes.len().min(MAX_TAG);
        let mut t = Tag {
            bytes: [0; MAX_TAG],
            len: n as u8,
        };
        t.bytes[..n].copy_from_slice(&bytes[..n]);
        t
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

/// Where a session is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Takes updates, then a final or a verify, then the next message's.
    Open,
    /// The engine failed in the middle of one of its requests: its state is unknown,
    /// further requests are `EngineFault`.
    Failed,
}

/// One open session.
#[derive(Debug)]
pub struct Session<C, K = BlockKey> {
    pub algorithm: MacAlgorithm,
    pub state: State,
    /// Bytes authenticated so far.
    pub bytes: u64,
    /// What the engine keeps of the key ([`MacEngine::Key`]): the block key, for an
    /// engine that loads it per request (a hardware engine with no context of its own);
    /// nothing for one whose context is keyed. Wiped where it lies when the session
    /// goes (the table drops a closed session in its slot).
    pub key: K,
    /// What the engine keeps for this session between requests.
    pub engine: C,
    /// What requests may do (`interface::SIGN`, `interface::VERIFY`): both on a raw
    /// key, what the key store granted on a key by handle.
    pub usage: u8,
}

impl<C: Clone, K> queued_service::Carries for Session<C, K> {
    type Context = C;
    fn context(&mut self) -> &mut C {
        &mut self.engine
    }
}

/// One checked request, as an engine runs it.
#[derive(Clone, Copy)]
pub struct Job<'a> {
    pub algorithm: MacAlgorithm,
    /// `Final` and `Verify`: authenticate `segs`, then finish with the tag of everything
    /// the session saw (the service, not the engine, compares a verify's).
    pub op: MacOp,
    /// The data (a verify's without its tag segment).
    pub segs: Segments,
    pub data: ClientData<'a>,
}

/// An engine as the service drives it: one request at a time. The service has already
/// checked ownership, session state, segment bounds and the key's size; the engine
/// authenticates.
pub trait MacEngine {
    /// What the engine keeps per session between requests (the keyed hash states).
    /// Cloned when a request goes in flight, so it can finish if its session closes.
    type Context: Clone;

    /// What a session keeps of its key for the engine, beside the context: a
    /// [`BlockKey`] for an engine that loads the key per request; `()` for one whose
    /// context is keyed (16 sessions' block keys are 2.3 KiB of a PD's state, which
    /// `driver_pd::MAX_STATE` bounds). Wiped when dropped.
    type Key: Default;

    /// Refuses what this engine cannot do (`UnsupportedAlgorithm`) from the algorithm
    /// alone: the PD asks before it takes the engine's power, so a refused open costs
    /// no grant and no work. [`open`](Self::open) still refuses the same.
    fn supports(&self, algorithm: MacAlgorithm) -> Result<(), MacError>;

    /// At open: `key` is the client's key (1 to [`MAX_KEY`] bytes, private memory);
    /// keeps what it needs of it in `kept` and returns a fresh keyed context.
    /// `slot` is the session's index in the table, fixed for its life.
    fn open(
        &mut self,
        slot: usize,
        algorithm: MacAlgorithm,
        key: &[u8],
        kept: &mut Self::Key,
    ) -> Result<Self::Context, MacError>;

    /// Starts `job` on the session whose context is `ctx` and kept key `key`, without
    /// waiting. `ctx` may change only if the step is `Done`; after a `Final` or `Verify`
    /// is done it must be the keyed start of a new message (the session's next).
    fn start(&mut self, ctx: &mut Self::Context, key: &Self::Key, job: &Job<'_>) -> MacStep;

    /// One of the engine's interrupts arrived while `job` is in flight: advances it.
    /// With nothing to do it returns `Pending` and changes nothing.
    fn interrupt(&mut self, ctx: &mut Self::Context, job: &Job<'_>) -> MacStep;

    /// The job in flight took too long: stop it and reset the engine.
    fn cancel(&mut self, job: &Job<'_>);

    /// Whether the engine worked on key material on the stack since last asked (a
    /// software engine's key schedule, whose moved copies no code of ours names): the PD
    /// then scrubs its stack. Clears what it reports. False by default: a hardware
    /// engine keeps its key in its registers.
    fn touched_keys(&mut self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_holds_what_was_filled_and_no_more() {
        let mut k = ClientKey::default();
        k.fill(3).copy_from_slice(b"key");
        assert_eq!(k.as_bytes(), b"key");
        // A refill clears the bytes past the new length.
        k.fill(1)[0] = 7;
        assert_eq!(k.as_bytes(), &[7]);
        assert_eq!(
            k.fill(MAX_KEY + 5).len(),
            MAX_KEY,
            "cut, never past the array"
        );
        assert_eq!(
            std::format!("{k:?}"),
            "Secret(1024 bytes)",
            "no bytes in Debug"
        );
    }

    #[test]
    fn tags_and_blocks_match_the_hashes() {
        let tags: std::vec::Vec<_> = MacAlgorithm::ALL.iter().map(|a| tag_len(*a)).collect();
        assert_eq!(tags, [16, 20, 32, 28, 48, 64]);
        assert!(MacAlgorithm::ALL.iter().all(|a| block_len(*a) <= MAX_BLOCK));
        assert_eq!(Tag::new(&[1; 80]).as_bytes(), &[1; MAX_TAG]);
    }
}
