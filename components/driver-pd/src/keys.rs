//! A driver PD's keys by handle: the key store on the channel whose end here has
//! `setvar_id="keys"` (the store at a higher priority, answering by calls alone). A
//! client's `open_session_by_key` becomes one `fetch` here, naming the client by this
//! PD's channel to it; the store answers with the bytes only if that client owns the key
//! and its policy allows the use. At [`connect`] the PD asks which of its clients may
//! still open sessions on raw keys; with no store in the system every client may (there
//! is no other way), with one that does not answer none may (fail closed).
//!
//! A PD's binary calls [`connect`] before `DriverPd::start` if it is to serve keys by
//! handle (cpu-cipher, omap-aes): one that never does leaves the statics below at their
//! first values, the compiler folds them, and none of this is in its image (2.3 KiB of
//! a size-optimised driver's flash). Such a driver answers `NoKeyStore` and lets every
//! client use raw keys whatever its system says; it says so at start if the system gave
//! it a store.
//!
//! The key's bytes cross this PD's message words: they are overwritten as soon as the
//! reply is decoded, and the decoded copy is wiped when the session has taken it.

use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use pd_idl::keys::{self, KeysError};
use pd_idl::wire::{CallError, Caller, Transport};
use pd_runtime::ipc::PpcTransport;
use pd_runtime::{Channel, ChannelSet, debug_println, pd_name};
use queued_service::{KeyMaterial, KeyRefusal, KeyUse};

/// The key store's channel (`u32::MAX`: none).
static CHANNEL: AtomicU32 = AtomicU32::new(u32::MAX);
/// Bit `c`: client channel `c` may open sessions on raw keys.
static RAW: AtomicU64 = AtomicU64::new(u64::MAX);

/// The key store's channel, if `connect` found one.
fn channel() -> Option<Channel> {
    u8::try_from(CHANNEL.load(Ordering::Relaxed))
        .ok()
        .map(Channel::new)
}

fn store() -> Option<keys::Client<PpcTransport>> {
    Some(keys::Client::new(PpcTransport(channel()?)))
}

/// At init: finds the key store, if the system gives one, and asks it which clients
/// may use raw keys.
pub fn connect() {
    let Some(ch) = pd_runtime::maybe_var!(keys).and_then(|v| u8::try_from(v).ok()) else {
        return;
    };
    CHANNEL.store(u32::from(ch), Ordering::Relaxed);
    let raw = mask_call(keys::OP_RAW_KEYS);
    debug_println!(
        "{}: keys by handle from the key store on channel {ch}; raw keys allowed to clients {raw:x?}",
        pd_name()
    );
    RAW.store(raw.unwrap_or(0), Ordering::Relaxed);
}

/// One of the store's calls that take nothing and answer a mask of the driver's client
/// channels (`raw_keys`, `ended_clients`); `None` if refused or unanswered. Made by
/// hand, not through the generated stubs: the reply is one `u64` (label 0, its hubpack
/// bytes, little-endian, in word 0), and the stubs' generic decode cost omap-aes flash
/// it does not have (220 B for `ended_clients` alone).
#[inline(never)]
fn mask_call(op: u64) -> Option<u64> {
    let reply = PpcTransport(channel()?)
        .call(&pd_idl::wire::Message::empty(op))
        .ok()?;
    (reply.label == 0 && reply.words == 1).then(|| u64::from_le(reply.mrs[0]))
}

/// Says so if the system gives this PD a key store its binary never connected to (its
/// clients' keys by handle are then `NoKeyStore`, and raw keys are allowed to all).
pub fn warn_if_unconnected() {
    if pd_runtime::PRINTS && channel().is_none() && pd_runtime::maybe_var!(keys).is_some() {
        debug_println!(
            "{}: the system gives a key store, but this driver's binary does not serve keys by handle",
            pd_name()
        );
    }
}

/// The driver's client channels (bit each) whose clients a supervisor said ended, if
/// `channels` has the key store's notification: one `ended_clients` call. 0 otherwise,
/// and always in a driver with no store.
pub fn ended(channels: ChannelSet) -> u64 {
    match channel() {
        Some(ch) if channels.contains(ch) => mask_call(keys::OP_ENDED_CLIENTS).unwrap_or(0),
        _ => 0,
    }
}

/// Whether `caller` may open a session on its own key bytes.
pub fn raw_allowed(caller: Caller) -> bool {
    RAW.load(Ordering::Relaxed)
        .checked_shr(caller.0)
        .is_some_and(|bits| bits & 1 != 0)
}

/// The key `key` names, of the client on `caller`: one `fetch` call.
pub fn fetch(caller: Caller, key: KeyUse) -> Result<KeyMaterial, KeyRefusal> {
    let mut store = store().ok_or(KeyRefusal::NoKeyStore)?;
    let client = u8::try_from(caller.0).map_err(|_| KeyRefusal::UnknownKey)?;
    let fetched = store.fetch(client, key.handle, key.algorithm, key.usage);
    // The reply's words held the bytes; the decoded copy is all that is left.
    pd_runtime::ipc::wipe_words(0, pd_runtime::MSG_WORDS);
    match fetched {
        Ok(mut f) => {
            let material = KeyMaterial::from_words(&f.bytes, f.head as u8, (f.head >> 8) as u8);
            zeroize::Zeroize::zeroize(&mut f.bytes);
            material.ok_or(KeyRefusal::UnknownKey)
        }
        // A store that restarted lost its keys, this one with them.
        Err(CallError::Server(KeysError::UnknownKey | KeysError::ServerRestarted)) => {
            Err(KeyRefusal::UnknownKey)
        }
        // The store's other refusals of a fetch are all of its policy.
        Err(CallError::Server(_)) => Err(KeyRefusal::NotPermitted),
        Err(e) => {
            debug_println!("{}: key store: {e:?}", pd_name());
            Err(KeyRefusal::NoKeyStore)
        }
    }
}
