//! The Cipher engine's state, kept inside the device ([`crate::VirtioCrypto`]): the cache
//! of device sessions by (mode, key), what each of the engine's places (data queue slots)
//! holds, what the control queue is doing, and the device sessions awaiting destruction.
//! `engine` moves it; the device only carries it.

use cipher_service::Session;
use pd_idl::cipher::{CipherError, Mode};

use crate::dma::DATA_SLOTS;

/// Device session pairs the driver keeps.
pub const CACHED_SESSIONS: usize = 8;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub(crate) mode: Mode,
    pub(crate) key_len: u8,
    pub(crate) key: [u8; 32],
    pub(crate) enc: u64,
    pub(crate) dec: u64,
    pub(crate) last_use: u32,
    /// Its session closed: destroyed once no request uses or waits for it (swept in
    /// `progress`).
    pub(crate) orphan: bool,
}

impl Entry {
    pub(crate) fn matches(&self, s: &Session) -> bool {
        self.mode == s.mode && s.has_key(self.key_len, &self.key)
    }
}

/// Device sessions by (mode, key).
#[derive(Debug, Default)]
pub struct SessionCache {
    pub(crate) entries: [Option<Entry>; CACHED_SESSIONS],
    pub(crate) clock: u32,
}

/// Where one of the engine's places (a data queue slot) stands.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) enum Place {
    #[default]
    Free,
    /// Waits for the device sessions of this session's key and mode.
    NeedsSessions(Session),
    /// On the data queue with these device sessions (never destroyed while it is), and
    /// the last ciphertext block read before an in-place CBC decryption overwrote it.
    Posted {
        ids: (u64, u64),
        cbc_next_iv: Option<[u8; 16]>,
    },
    /// Failed before reaching the data queue.
    Failed(CipherError),
}

/// What the engine has on the control queue.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) enum Ctrl {
    #[default]
    Idle,
    /// Creating `entry`'s sessions: the encrypt one, then (`have_enc`) the decrypt one.
    Creating {
        entry: Entry,
        have_enc: bool,
    },
    Destroying,
}

/// Device sessions whose destruction waits; bounded: creations start only when every
/// doomed session not in use is destroyed, so at most the places' pairs, a full table's
/// pairs and one evicted pair are ever doomed at once.
pub(crate) const DOOMED: usize = 2 * (CACHED_SESSIONS + DATA_SLOTS + 1);

/// The Cipher engine's state inside [`VirtioCrypto`].
#[derive(Debug, Default)]
pub(crate) struct EngineState {
    pub(crate) cache: SessionCache,
    pub(crate) places: [Place; DATA_SLOTS],
    pub(crate) ctrl: Ctrl,
    pub(crate) doomed: [Option<u64>; DOOMED],
}

impl SessionCache {
    pub(crate) fn holds(&self, s: &Session) -> bool {
        self.entries.iter().flatten().any(|e| e.matches(s))
    }
}
