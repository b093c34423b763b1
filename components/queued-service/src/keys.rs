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

/// Key bytes fetched for one session's open, and the usages granted: wiped when
/// dropped, so the copy on the driver's stack lives only as long as the open.
pub struct KeyMaterial {
    len: u8,
    bytes: [u8; MAX_KEY],
    /// The usages the store granted (all those asked for).
    pub usage: u8,
}

impl KeyMaterial {
    /// `None` if `bytes` is longer than [`MAX_KEY`].
    pub fn new(bytes: &[u8], usage: u8) -> Option<Self> {
        let mut k = KeyMaterial {
            len: u8::try_from(bytes.len())
                .ok()
                .filter(|&n| usize::from(n) <= MAX_KEY)?,
            bytes: [0; MAX_KEY],
            usage,
        };
        k.bytes[..bytes.len()].copy_from_slice(bytes);
        Some(k)
    }

    pub fn bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

impl Drop for KeyMaterial {
    fn drop(&mut self) {
        self.bytes.as_mut_slice().zeroize();
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
