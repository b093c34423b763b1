//! crypto-pd's interfaces, generated at build time by `idlc` from the `*.idl` files beside
//! this crate (build.rs writes them into OUT_DIR; nobody edits generated code).
//!
//! * [`power`]: engines granted to drivers for whole sessions (calls only).
//! * [`cipher`]: AES sessions (calls) and encrypt/decrypt requests (queues).
//! * [`digest`]: hash sessions (calls) and update/final requests (queues).
//! * [`mac`]: HMAC sessions keyed at open (calls) and update/final/verify requests
//!   (queues).
//! * [`aead`]: AES-GCM and AES-CCM sessions keyed at open and one-message
//!   encrypt/decrypt requests (queues).
//! * [`rng`]: per-client DRBG sessions (calls, with the source's health) and fill
//!   requests (queues).
//! * [`keys`]: the key store's handles, policies and drivers' fetches (calls only).
//! * [`regbus`]: register access over calls to a device PD standing in for silicon.
//! * [`serial`]: the console: each PD's lines, queued to the serial driver PD.
//!
//! Each module has the interface's types (zerocopy `#[repr(C)]` descriptors, enums and
//! their checked raw forms), a `Server` trait with a `dispatch` function, a `Client` stub,
//! and the queue capacities. [`wire`] is the hand-written message layer they share.
//!
//! Assumes both ends of a queue have the same byte order (they share a CPU). `no_std`.
#![no_std]

pub mod wire;

pub mod common {
    include!(concat!(env!("OUT_DIR"), "/common.rs"));
}

pub mod power {
    include!(concat!(env!("OUT_DIR"), "/power.rs"));
}

pub mod cipher {
    include!(concat!(env!("OUT_DIR"), "/cipher.rs"));
}

pub mod digest {
    include!(concat!(env!("OUT_DIR"), "/digest.rs"));
}

pub mod mac {
    include!(concat!(env!("OUT_DIR"), "/mac.rs"));
}

pub mod aead {
    include!(concat!(env!("OUT_DIR"), "/aead.rs"));
}

pub mod rng {
    include!(concat!(env!("OUT_DIR"), "/rng.rs"));
}

pub mod keys {
    include!(concat!(env!("OUT_DIR"), "/keys.rs"));
}

pub mod regbus {
    include!(concat!(env!("OUT_DIR"), "/regbus.rs"));
}

pub mod serial {
    include!(concat!(env!("OUT_DIR"), "/serial.rs"));

    /// Bytes one [`LinePiece`] carries (its `bytes`), for the writers that cut lines
    /// into pieces and the driver that bounds them.
    pub const PIECE_BYTES: usize = 61;
    static_assertions::const_assert_eq!(core::mem::size_of::<LinePiece>(), 2 + PIECE_BYTES);
}

// A driver takes a request only when it can queue the answer; with at least as many
// response slots as request slots, a client that drains its responses never stalls it.
static_assertions::const_assert!(cipher::RESPONSE_QUEUE_CAPACITY >= cipher::REQUEST_QUEUE_CAPACITY);
static_assertions::const_assert!(digest::RESPONSE_QUEUE_CAPACITY >= digest::REQUEST_QUEUE_CAPACITY);
static_assertions::const_assert!(mac::RESPONSE_QUEUE_CAPACITY >= mac::REQUEST_QUEUE_CAPACITY);
static_assertions::const_assert!(aead::RESPONSE_QUEUE_CAPACITY >= aead::REQUEST_QUEUE_CAPACITY);
static_assertions::const_assert!(rng::RESPONSE_QUEUE_CAPACITY >= rng::REQUEST_QUEUE_CAPACITY);

/// The one way a request is built from a segment list, written once for every queued
/// interface (they share the descriptor's shape). `nsegs` is the count given, not the
/// count that fits: a list longer than the descriptor's array reaches the driver as
/// such and is refused (`TooManySegments`), never cut short and answered as if whole.
macro_rules! segment_request {
    ($module:ident, $op:ident) => {
        impl $module::Request {
            /// Request `id` of `session` over `segs`, each (offset, length) in the
            /// client's data region.
            pub fn over(id: u32, session: u32, op: $module::$op, segs: &[(u32, u32)]) -> Self {
                let mut request = <Self as zerocopy::FromZeros>::new_zeroed();
                request.id = id;
                request.session = session;
                request.op = op.into();
                request.nsegs = u8::try_from(segs.len()).unwrap_or(u8::MAX);
                for (d, &(offset, len)) in request.segs.iter_mut().zip(segs) {
                    *d = common::Segment { offset, len };
                }
                request
            }
        }
    };
}
segment_request!(cipher, CipherOp);
segment_request!(digest, DigestOp);
segment_request!(mac, MacOp);
segment_request!(rng, RngOp);

impl aead::Request {
    /// Request `id` of `session` sealing or opening one message: its nonce, AAD,
    /// payload and tag segments, each (offset, length) in the client's data region.
    /// Counts are the ones given, as [`cipher::Request::over`]'s: too many segments
    /// reach the driver as such and are refused (`TooManySegments`).
    pub fn message(
        id: u32,
        session: u32,
        op: aead::AeadOp,
        nonce: (u32, u32),
        aad: &[(u32, u32)],
        payload: &[(u32, u32)],
        tag: (u32, u32),
    ) -> Self {
        let mut request = <Self as zerocopy::FromZeros>::new_zeroed();
        request.id = id;
        request.session = session;
        request.op = op.into();
        request.naad = u8::try_from(aad.len()).unwrap_or(u8::MAX);
        let all = core::iter::once(&nonce)
            .chain(aad)
            .chain(payload)
            .chain(core::iter::once(&tag));
        let n = 2 + aad.len() + payload.len();
        request.nsegs = u8::try_from(n).unwrap_or(u8::MAX);
        for (d, &(offset, len)) in request.segs.iter_mut().zip(all) {
            *d = common::Segment { offset, len };
        }
        request
    }
}

impl mac::MacAlgorithm {
    /// The tag's length: its hash's digest. Here, so that the service and the vectors'
    /// users share one table.
    pub const fn tag_len(self) -> usize {
        match self {
            mac::MacAlgorithm::Md5 => 16,
            mac::MacAlgorithm::Sha1 => 20,
            mac::MacAlgorithm::Sha224 => 28,
            mac::MacAlgorithm::Sha256 => 32,
            mac::MacAlgorithm::Sha384 => 48,
            mac::MacAlgorithm::Sha512 => 64,
        }
    }
}

/// Key material as the Keys interface carries it: little-endian words (see
/// `keys::KeyBytes`).
pub mod key_words {
    /// The first `8 * N` bytes of `bytes` as `N` little-endian words, zero past its end.
    pub fn pack<const N: usize>(bytes: &[u8]) -> [u64; N] {
        let mut words = [0u64; N];
        for (i, b) in bytes.iter().take(8 * N).enumerate() {
            words[i / 8] |= u64::from(*b) << (8 * (i % 8));
        }
        words
    }

    /// Fills `out` from the little-endian `words` (zeros past them).
    pub fn unpack(words: &[u64], out: &mut [u8]) {
        for (i, o) in out.iter_mut().enumerate() {
            *o = words.get(i / 8).map_or(0, |w| (w >> (8 * (i % 8))) as u8);
        }
    }
}

/// A key's usages and algorithms as a `keys::Policy` holds them: bit `v` for the
/// `KeyUsage` (`KeyAlgorithm`) of value `v`. Every side names the bits through these.
pub mod key_bits {
    use crate::keys::{KeyAlgorithm, KeyUsage, Policy};

    pub const fn usage(u: KeyUsage) -> u8 {
        1 << u as u8
    }

    pub const fn algorithm(a: KeyAlgorithm) -> u32 {
        1 << a as u8
    }

    /// The policy allowing `algorithms` and `usages`.
    pub fn policy(algorithms: &[KeyAlgorithm], usages: &[KeyUsage]) -> Policy {
        Policy {
            algorithms: algorithms.iter().fold(0, |b, a| b | algorithm(*a)),
            usage: usages.iter().fold(0, |b, u| b | usage(*u)),
            reserved: [0; 3],
        }
    }
}
