//! The Aead interface (AES-GCM of SP 800-38D, AES-CCM of SP 800-38C) as an instance of
//! `queued-service`: sessions opened by call with an algorithm, a key taken from the
//! client's data region (as Mac's), and the nonce and tag lengths of every message of
//! the session; one request seals or opens one whole message. Here is what is Aead's
//! own: the engine trait ([`AeadEngine`]), the job it runs ([`Job`]), the session
//! ([`Session`]), the key's memory ([`Key`], wiped when dropped) and [`Aead`], which
//! tells the one service how a request is checked and answered.
//!
//! A request's segments are, in order, the nonce, `naad` of AAD, the payload (worked in
//! place) and the tag: where an encrypt writes it, what a decrypt checks. Nothing may
//! overlap. A decrypt's tag is checked by the engine in constant time; on a mismatch
//! the service, whatever the engine, overwrites the payload segments with zeros before
//! it answers `TagMismatch`, so no plaintext (nor the ciphertext the client sent)
//! stays where the client reads its answer.
//!
//! A message is as long as its mode allows (GCM: any the u32 lengths express; CCM: what
//! its nonce leaves B0 to count, [`payload_ok`]), not as an engine's buffer: an engine
//! streams it through whatever private memory it has. Not yet: init/update/final, for
//! a message spread over several requests.
//! Nonce reuse is the client's to avoid: the driver does not track nonces.
//!
//! Assumes the data region stays mapped while the driver runs. `no_std`, no heap.
#![no_std]
#![forbid(unsafe_code)]

#[cfg(test)]
extern crate std;

mod interface;

pub use interface::{Aead, DECRYPT, ENCRYPT, Flight, Open};
pub use queued_service::{ClientData, MAX_SESSIONS};
pub use segment_list::Segments;

use pd_idl::aead::{AeadAlgorithm, AeadError, AeadOp};
use pd_idl::common::Segment;
use zeroize::Zeroize;

/// A Aead driver's service: the one `queued-service` over an AEAD engine.
pub type Service<'a, E> = queued_service::Service<'a, Aead<E>>;
/// An Aead driver's sessions, over its engine's context `C`.
pub type Sessions<C> = queued_service::Sessions<Session<C>>;
/// Where a job stands after the engine was started or interrupted.
pub type AeadStep = queued_service::Step<(), AeadError>;

/// Longest tag of either mode.
pub const MAX_TAG: usize = 16;
/// Longest nonce (CCM's 13; GCM's is 12).
pub const MAX_NONCE: usize = 13;

/// Whether a mode takes this nonce length: GCM 96 bits (SP 800-38D's recommended
/// length, the only one without GHASH over the IV), CCM 7 to 13 bytes (SP 800-38C A.1).
pub const fn nonce_ok(algorithm: AeadAlgorithm, len: usize) -> bool {
    match algorithm {
        AeadAlgorithm::AesGcm => len == 12,
        AeadAlgorithm::AesCcm => 7 <= len && len <= 13,
    }
}

/// Whether a mode takes a payload of `len` bytes under nonces of `nonce_len`: CCM's B0
/// counts it in the q = 15 - `nonce_len` bytes the nonce leaves (SP 800-38C A.2.1), so
/// a 13-byte nonce takes at most 65,535 bytes; GCM takes any u32 length (its limit,
/// 2^39 - 256 bits, is past it).
pub const fn payload_ok(algorithm: AeadAlgorithm, nonce_len: usize, len: u32) -> bool {
    match algorithm {
        AeadAlgorithm::AesGcm => true,
        AeadAlgorithm::AesCcm => {
            let q_bits = 8 * (15 - nonce_len as u32);
            q_bits >= 32 || len < 1 << q_bits
        }
    }
}

/// Whether a mode takes this tag length: GCM 12 to 16 bytes (SP 800-38D 5.2.1.2; its
/// 8- and 4-byte tags, allowed only under limits on message length and count, are
/// refused), CCM even lengths 4 to 16 (SP 800-38C A.1).
pub const fn tag_ok(algorithm: AeadAlgorithm, len: usize) -> bool {
    match algorithm {
        AeadAlgorithm::AesGcm => 12 <= len && len <= 16,
        AeadAlgorithm::AesCcm => 4 <= len && len <= 16 && len & 1 == 0,
    }
}

/// A session's AES key (16, 24 or 32 bytes) in the driver's memory, wiped when dropped.
/// Neither `Clone` nor `Copy`.
#[derive(Default)]
pub struct Key {
    bytes: [u8; 32],
    len: u8,
}

impl Key {
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }

    /// The first `len` bytes to fill (at most 32).
    pub fn fill(&mut self, len: usize) -> &mut [u8] {
        self.bytes.zeroize();
        let len = len.min(32);
        self.len = len as u8;
        &mut self.bytes[..len]
    }
}

impl Drop for Key {
    fn drop(&mut self) {
        self.bytes.zeroize();
        self.len.zeroize();
    }
}

impl core::fmt::Debug for Key {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Key({} bytes)", self.len)
    }
}

/// One open session.
#[derive(Debug)]
pub struct Session<C> {
    pub algorithm: AeadAlgorithm,
    pub nonce_len: u8,
    pub tag_len: u8,
    /// Messages sealed or opened.
    pub messages: u64,
    pub key: Key,
    /// What the engine keeps for this session between requests.
    pub engine: C,
    /// What requests may do (`ENCRYPT`, `DECRYPT`): both on a raw key, what the key
    /// store granted on a key by handle.
    pub usage: u8,
}

impl<C: Clone> queued_service::Carries for Session<C> {
    type Context = C;
    fn context(&mut self) -> &mut C {
        &mut self.engine
    }
}

/// One checked request, as an engine runs it: every segment inside the region, none
/// overlapping another, the nonce and tag of the session's lengths, the payload within
/// its mode's limit ([`payload_ok`]).
#[derive(Clone, Copy)]
pub struct Job<'a> {
    pub algorithm: AeadAlgorithm,
    pub op: AeadOp,
    pub nonce: Segment,
    pub aad: Segments,
    pub payload: Segments,
    /// Encrypt: where the tag is written. Decrypt: the tag to check, which the engine
    /// copies once and compares in constant time.
    pub tag: Segment,
    pub data: ClientData<'a>,
}

/// An engine as the service drives it: one request at a time. The service has already
/// checked ownership, segment bounds and lengths; the engine seals or opens. On a
/// decrypt whose tag does not verify it answers `TagMismatch` having written nothing;
/// the service then zeroes the payload.
pub trait AeadEngine {
    /// What the engine keeps per session between requests. Cloned when a request goes
    /// in flight.
    type Context: Clone;

    /// Refuses what this engine cannot do (`UnsupportedAlgorithm`) from the algorithm
    /// and key length alone, before the PD takes the engine's power.
    fn supports(&self, algorithm: AeadAlgorithm, key_len: usize) -> Result<(), AeadError>;

    /// At open: a fresh context for the session keyed with `key` (private memory).
    fn open(
        &mut self,
        slot: usize,
        algorithm: AeadAlgorithm,
        key: &[u8],
    ) -> Result<Self::Context, AeadError>;

    /// Starts `job` (tags of `tag_len` bytes) on the session whose key is `key`,
    /// without waiting.
    fn start(&mut self, ctx: &mut Self::Context, key: &Key, job: &Job<'_>) -> AeadStep;

    /// One of the engine's interrupts arrived while `job` is in flight: advances it.
    fn interrupt(&mut self, ctx: &mut Self::Context, job: &Job<'_>) -> AeadStep;

    /// The job in flight took too long: stop it and reset the engine.
    fn cancel(&mut self, job: &Job<'_>);

    /// Whether the engine worked on key material on the stack since last asked (a
    /// software engine's key schedule, whose moved copies no code of ours names): the PD
    /// then scrubs its stack. Clears what it reports. False by default: a hardware
    /// engine keeps its key in its registers.
    fn touched_keys(&mut self) -> bool {
        false
    }

    /// A session whose key is `key` closed: an engine keeping anything of its key (a
    /// software engine's expanded key) forgets it. Nothing by default.
    fn closed(&mut self, key: &Key) {
        let _ = key;
    }

    /// Fills `out` with random bytes for a nonce the driver chooses
    /// (`EncryptNewNonce`), from the PD's Rng service: whether it could. None by
    /// default: an engine whose PD has no Rng service.
    fn random(&mut self, out: &mut [u8]) -> bool {
        let _ = out;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_are_the_standards() {
        let gcm: std::vec::Vec<_> = (0..20)
            .filter(|&n| nonce_ok(AeadAlgorithm::AesGcm, n))
            .collect();
        assert_eq!(gcm, [12]);
        let ccm: std::vec::Vec<_> = (0..20)
            .filter(|&n| nonce_ok(AeadAlgorithm::AesCcm, n))
            .collect();
        assert_eq!(ccm, [7, 8, 9, 10, 11, 12, 13]);
        let gcm: std::vec::Vec<_> = (0..20)
            .filter(|&n| tag_ok(AeadAlgorithm::AesGcm, n))
            .collect();
        assert_eq!(gcm, [12, 13, 14, 15, 16]);
        let ccm: std::vec::Vec<_> = (0..20)
            .filter(|&n| tag_ok(AeadAlgorithm::AesCcm, n))
            .collect();
        assert_eq!(ccm, [4, 6, 8, 10, 12, 14, 16]);
    }

    #[test]
    fn a_key_holds_what_was_filled_and_shows_no_bytes() {
        let mut k = Key::default();
        k.fill(16).copy_from_slice(&[7; 16]);
        assert_eq!(k.as_bytes(), &[7; 16]);
        assert_eq!(k.fill(40).len(), 32);
        assert_eq!(std::format!("{k:?}"), "Key(32 bytes)");
    }
}
