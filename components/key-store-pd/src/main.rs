#![cfg_attr(target_os = "none", no_std, no_main)]
//! The key-store PD: the Keys interface (`idl/keys.idl`) over `key-store`, answered by
//! PPC to its clients and to the drivers that fetch keys for them. It maps no client's
//! memory and no client maps its: key material lives in this PD alone, leaving it only
//! in the message words of a reply to a driver's `fetch` or to an `export` the key's
//! policy allows.
//!
//! * Configuration: the region with `setvar_vaddr="config"`, prefilled by the system
//!   description (`prefill_path`) with the text `key_store::Config` reads. A missing or
//!   rejected file leaves a store nobody may use (every call `NotPermitted`).
//! * Randomness: a session on the Rng driver on the channel with `setvar_id="rng"`
//!   (`driver_pd::rng`); without one, `generate` is `NoRandomness`.
//! * Priority: above every client and driver that calls it, below the Rng driver it
//!   calls (seL4 lets a PD call only up).
//! * A client's end: its supervisor (its parent) calls `ended`; the store wipes its
//!   keys and notifies each driver serving it on that driver's channel, which then
//!   asks `ended_clients` and closes the client's sessions.
//!
//! The reply's message words are this PD's IPC buffer: after a reply that carried key
//! bytes they are overwritten at the next event, the first moment the PD runs again
//! (those past the new call's arguments, which fill the ones before).
use key_store::{Config, KeyStore};
use pd_idl::keys;
use pd_runtime::{Channel, ChannelSet, Handler, MessageInfo, debug_println, ipc, pd_name};
use shared_region::SharedRegion;

/// The longest configuration read (a page).
const MAX_CONFIG: usize = 4096;

struct KeyStorePd {
    store: KeyStore,
    /// Message words the last reply left holding key bytes.
    dirty_words: usize,
}

impl KeyStorePd {
    /// Overwrites the words the last reply left key bytes in, from `from` on (a new
    /// call's arguments fill the ones before it).
    fn wipe_words(&mut self, from: usize) {
        ipc::wipe_words(from, core::mem::take(&mut self.dirty_words));
    }
}

fn config() -> Config {
    let Some(r) = pd_runtime::maybe_memory_region!(config) else {
        debug_println!(
            "{}: no configuration region: nobody may use the store",
            pd_name()
        );
        return Config::EMPTY;
    };
    // SAFETY: mapped for the PD's life; read only through a volatile copy.
    let region = unsafe { SharedRegion::from_raw(r.vaddr, r.size) };
    let mut text = [0u8; MAX_CONFIG];
    let n = region.len().min(MAX_CONFIG);
    if !region.read_bytes(0, &mut text[..n]) {
        return Config::EMPTY;
    }
    match Config::parse(&text[..n]) {
        Ok(c) => c,
        Err(e) => {
            debug_println!(
                "{}: configuration rejected at line {}: {}; nobody may use the store",
                pd_name(),
                e.line,
                e.why
            );
            Config::EMPTY
        }
    }
}

fn init() -> KeyStorePd {
    let config = config();
    let clients = config
        .peers
        .iter()
        .filter(|p| matches!(p, key_store::Peer::Client(_)))
        .count();
    let drivers = config
        .peers
        .iter()
        .filter(|p| matches!(p, key_store::Peer::Driver { .. }))
        .count();
    let random = driver_pd::rng::connect();
    debug_println!(
        "{}: key store for {clients} client(s) and {drivers} driver(s){}{}",
        pd_name(),
        if config.device_key.is_some() {
            ", device key set"
        } else {
            ""
        },
        if random {
            ""
        } else {
            "; no Rng driver: no key generation"
        }
    );
    KeyStorePd {
        store: KeyStore::new(config, pd_runtime::starts(), driver_pd::rng::draw),
        dirty_words: 0,
    }
}

impl Handler for KeyStorePd {
    /// Every client's keys, and the device key.
    const SECRETS: bool = true;

    fn protected(&mut self, channel: Channel, msg: MessageInfo) -> MessageInfo {
        self.wipe_words(msg.count());
        let carries_key = matches!(msg.label(), keys::OP_FETCH | keys::OP_EXPORT);
        // Every call is served as a secret: an import's words are a key, and the frames
        // of any call here may hold one (a fetch's, a derivation's). The test that found
        // it: an import's key words left in this PD's message buffer until the next
        // call overwrote them (system-tests' keys test, kat-keyed's HMAC key).
        let reply = ipc::serve_secret(channel, msg, |caller, m| {
            keys::dispatch(&mut self.store, caller, m)
        });
        if carries_key {
            self.dirty_words = reply.count();
            ipc::reply_is_secret();
        }
        ipc::scrub_stack();
        // A supervisor said a client ended: the drivers serving it are told, and ask.
        for driver in ChannelSet(self.store.take_notices()).iter() {
            driver.notify();
        }
        reply
    }

    fn notified(&mut self, _: ChannelSet) {
        self.wipe_words(0);
    }
}

pd_runtime::protection_domain!(init);
