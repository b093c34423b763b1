//! Sessions opened on a key the key store holds (`open_session_by_key`): what every keyed
//! interface shares of it. The interface says which key its call names and builds its
//! session from the fetched bytes; the PD fetches them ([`Calls::fetch_key`]) and says
//! whether a caller may open sessions on raw keys at all ([`Calls::raw_keys`]).
//!
//! [`Calls::fetch_key`]: crate::Calls::fetch_key
//! [`Calls::raw_keys`]: crate::Calls::raw_keys

use pd_idl::keys::KeyAlgorithm;
use zeroize::Zeroize;

/// The most key bytes the key store hands a driver (an HMAC key of SHA-256's block).
pub const MAX_KEY: usize = 64;

/// Which key a session wants, and for what: the key store checks the key's policy
/// allows `algorithm` and every bit of `usage` (bit `v` per `KeyUsage` value `v`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyUse {
    pub handle: u32,
    pub algorithm: KeyAlgorithm,
    pub usage: u8,
}

/// Key bytes fetched for one session's open, as the Keys interface carries them
/// (little-endian words), and the usages granted: wiped when dropped, so the copy on
/// the driver's stack lives only as long as the open. Kept as words and unpacked once,
/// where the session takes them ([`KeyMaterial::copy_to`]): one loop less in a
/// size-optimised driver.
pub struct KeyMaterial {
    len: u8,
    words: [u64; MAX_KEY / 8],
    /// The usages the store granted (all those asked for).
    pub usage: u8,
}

impl KeyMaterial {
    /// A key of `len` bytes, the first of `words`; `None` past [`MAX_KEY`].
    pub fn from_words(words: &[u64; MAX_KEY / 8], len: u8, usage: u8) -> Option<Self> {
        (usize::from(len) <= MAX_KEY).then_some(KeyMaterial {
            len,
            words: *words,
            usage,
        })
    }

    /// A key of `bytes` (at most [`MAX_KEY`]), for tests and raw imports.
    pub fn new(bytes: &[u8], usage: u8) -> Option<Self> {
        let len = u8::try_from(bytes.len()).ok()?;
        Self::from_words(&pd_idl::key_words::pack(bytes), len, usage)
    }

    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Writes the key's first `out.len()` bytes (zeros past its end) into `out`.
    pub fn copy_to(&self, out: &mut [u8]) {
        pd_idl::key_words::unpack(&self.words, out);
    }
}

impl Drop for KeyMaterial {
    fn drop(&mut self) {
        self.words.zeroize();
    }
}

/// Why a keyed session did not open, before the engine saw anything: each keyed
/// interface's IDL names each of these (`UnknownKey`, `KeyNotPermitted`,
/// `RawKeysForbidden`, `NoKeyStore`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyRefusal {
    /// The store has no key of this client's with that handle.
    UnknownKey,
    /// The key's policy does not allow the algorithm or a usage asked for.
    NotPermitted,
    /// The system allows this client keys by handle only.
    RawKeysForbidden,
    /// The system gives this driver no key store (or it did not answer).
    NoKeyStore,
}

/// The `open_session_by_key` arguments of an interface that has none (its sessions hold
/// no key): nothing decodes into it, as no op number leads there.
#[derive(serde::Deserialize, hubpack::SerializedSize)]
pub enum Unkeyed {}
