//! Sessions opened on a key the key store holds (`open_session_by_key`): what every keyed
//! interface shares of it. The interface says which key its call names and builds its
//! session from the fetched bytes; the PD fetches them ([`Calls::fetch_key`]) and says
//! whether a caller may open sessions on raw keys at all ([`Calls::raw_keys`]).
//!
//! [`Calls::fetch_key`]: crate::Calls::fetch_key
//! [`Calls::raw_keys`]: crate::Calls::raw_keys

use pd_idl::keys::KeyAlgorithm;

use crate::ClientData;
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

    /// A key of `bytes` (at most [`MAX_KEY`]): a test's stand-in for a fetched one.
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

/// Where a session's key comes from: a place in the caller's data region (Mac's and
/// Aead's `open_session`, whose keys may be too long for the message words) or the key
/// store (an open by handle). Checked and copied the same way for every interface.
pub enum KeySource {
    Region {
        /// The caller's data region (`None`: the caller is no client).
        data: Option<ClientData<'static>>,
        offset: u32,
        len: u32,
    },
    Store(KeyMaterial),
}

/// Why a key's place was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyPlace {
    /// The caller has no data region (it is no client).
    NoRegion,
    /// The key's bytes are not all inside the region.
    Outside,
}

impl KeySource {
    pub fn len(&self) -> usize {
        match self {
            KeySource::Region { len, .. } => *len as usize,
            KeySource::Store(k) => k.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the key lies where it says (a stored key always does).
    pub fn check(&self) -> Result<(), KeyPlace> {
        match self {
            KeySource::Region { data: None, .. } => Err(KeyPlace::NoRegion),
            KeySource::Region {
                data: Some(d),
                offset,
                len,
            } if !d.holds(*offset as usize, *len as usize) => Err(KeyPlace::Outside),
            _ => Ok(()),
        }
    }

    /// Copies the checked key's first `out.len()` bytes into `out` (private memory).
    pub fn copy_to(&self, out: &mut [u8]) {
        match self {
            KeySource::Region {
                data: Some(d),
                offset,
                ..
            } => {
                // Checked inside the region: the copy cannot fail.
                let inside = d.region.read_bytes(*offset as usize, out);
                debug_assert!(inside);
            }
            KeySource::Region { data: None, .. } => {}
            KeySource::Store(k) => k.copy_to(out),
        }
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
