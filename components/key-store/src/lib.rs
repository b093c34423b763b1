//! The key store: key material kept in the store's own memory and named by handle, the
//! Keys interface (`idl/keys.idl`) served over it. A client makes keys (generate from
//! the DRBG, import raw or wrapped under the device key, derive with HKDF-SHA-256) and
//! gets handles; a driver fetches a key's bytes for a session its client opens by
//! handle, and only if the key's policy allows that algorithm and those usages.
//!
//! Who is who comes from the system description ([`Config`]): the store knows its
//! peers by its own channels to them (the badge seL4 delivers with each call), so a
//! handle is looked up among its caller's keys only ([`session_table`] checks the owner
//! on every lookup) and another client's handle is `UnknownKey`, never another key. A
//! driver names its client by the driver's own channel to it; the configuration says
//! which of the store's clients that is, so a driver fetches only its own clients' keys.
//!
//! Every copy of key material the store keeps is wiped ([`zeroize`]) when the key is
//! destroyed, when its owner is forgotten (a client's death), and when the store is
//! dropped. Keys live for the system's run: nothing here persists (see ARCHITECTURE.md,
//! Keys, for what a persistent store would need).
//!
//! Assumes one thread (a PD) and a trusted configuration. `no_std`, no heap.
#![no_std]
#![forbid(unsafe_code)]

pub mod config;

pub use config::{Config, Peer, Rejected, Rights};

use pd_idl::key_words;
use pd_idl::keys::{Attributes, KeyAlgorithm, KeyBytes, KeyUsage, KeysError, Policy};
use pd_idl::wire::Caller;
use session_table::Table;
use zeroize::Zeroize;

/// Keys the store holds at once, of all clients (the session table's most).
pub const CAPACITY: usize = 16;
/// The longest key (an HMAC key of SHA-256's block).
pub const MAX_KEY: usize = 64;
/// The longest wrapped key: the longest key and RFC 3394's 8-byte check.
pub const MAX_WRAPPED: usize = MAX_KEY + 8;

pub use pd_idl::key_bits::{algorithm, usage};

const AES: u32 = algorithm(KeyAlgorithm::AesEcb)
    | algorithm(KeyAlgorithm::AesCbc)
    | algorithm(KeyAlgorithm::AesCtr)
    | algorithm(KeyAlgorithm::AesGcm)
    | algorithm(KeyAlgorithm::AesCcm);
const SECRET: u32 = algorithm(KeyAlgorithm::HmacMd5)
    | algorithm(KeyAlgorithm::HmacSha1)
    | algorithm(KeyAlgorithm::HmacSha224)
    | algorithm(KeyAlgorithm::HmacSha256)
    | algorithm(KeyAlgorithm::HmacSha384)
    | algorithm(KeyAlgorithm::HmacSha512)
    | algorithm(KeyAlgorithm::HkdfSha256);
const VERIFY_KEY: u32 = algorithm(KeyAlgorithm::Ed25519Verify);
const EXPORT: u8 = usage(KeyUsage::Export);
const DERIVE: u8 = usage(KeyUsage::Derive);

/// Checks `policy` and `len` as a key is made: one family of algorithms (AES; HMAC and
/// HKDF secrets; a verify key), the usages that family can have, a length it takes.
pub fn check_policy(policy: &Policy, len: usize) -> Result<(), KeysError> {
    let (algs, use_) = (policy.algorithms, policy.usage);
    let (family, usages, lens) = if algs != 0 && algs & !AES == 0 {
        (
            AES,
            usage(KeyUsage::Encrypt) | usage(KeyUsage::Decrypt),
            16..=32,
        )
    } else if algs != 0 && algs & !SECRET == 0 {
        (
            SECRET,
            usage(KeyUsage::Sign) | usage(KeyUsage::Verify) | DERIVE,
            1..=MAX_KEY,
        )
    } else if algs == VERIFY_KEY {
        (VERIFY_KEY, usage(KeyUsage::Verify), 32..=32)
    } else {
        return Err(KeysError::BadPolicy);
    };
    if use_ == 0 || use_ & !(usages | EXPORT) != 0 {
        return Err(KeysError::BadPolicy);
    }
    // A derive usage needs HKDF among the algorithms, and HKDF a derive usage.
    let hkdf = algs & algorithm(KeyAlgorithm::HkdfSha256) != 0;
    if family == SECRET && hkdf != (use_ & DERIVE != 0) {
        return Err(KeysError::BadPolicy);
    }
    if !lens.contains(&len) || (family == AES && !matches!(len, 16 | 24 | 32)) {
        return Err(KeysError::BadKeySize);
    }
    Ok(())
}

/// One key: its policy and bytes (and a provisioned verify key's rollback floor). Wiped
/// where it lies when it leaves the table.
struct Key {
    policy: Policy,
    len: u8,
    bytes: [u8; MAX_KEY],
    floor: u32,
    /// Made from the configuration: it outlives its owner's incarnations.
    provisioned: bool,
}

impl Key {
    fn wipe(&mut self) {
        self.bytes.as_mut_slice().zeroize();
        self.len = 0;
    }

    fn bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

/// The store: its keys, its configuration, where it draws randomness.
pub struct KeyStore {
    keys: Table<Key, CAPACITY>,
    config: Config,
    /// Fills its argument from the store's DRBG (at most 32 bytes a call); false if it
    /// could not.
    draw: fn(&mut [u8]) -> bool,
    /// Keys wiped since start (destroyed, forgotten, dropped): what the ledger counts.
    pub wiped: u32,
    /// The incarnation each client channel last said hello with (0: none yet).
    incarnations: [u32; config::CHANNELS],
    /// The handles of the configuration's provisioned keys, in its order.
    provisioned: [Option<(Caller, u32)>; config::MAX_PROVISIONED],
    /// Per driver channel of the store's: bit `k` for its client channels whose client
    /// ended since it last asked (`ended_clients`).
    ended: [u64; config::CHANNELS],
    /// Store channels of drivers to notify of an ended client ([`take_notices`]).
    ///
    /// [`take_notices`]: KeyStore::take_notices
    notices: u64,
}

impl KeyStore {
    /// An empty store of incarnation `incarnation` (its handles carry it: a restarted
    /// store's handles never name a key of its predecessors', which died with it).
    /// The configuration's provisioned keys are made first, outside any client's
    /// quota.
    pub fn new(config: Config, incarnation: u32, draw: fn(&mut [u8]) -> bool) -> Self {
        let mut keys = Table::starting_at(incarnation);
        keys.set_quota(CAPACITY);
        let mut store = KeyStore {
            keys,
            config,
            draw,
            wiped: 0,
            incarnations: [0; config::CHANNELS],
            provisioned: [None; config::MAX_PROVISIONED],
            ended: [0; config::CHANNELS],
            notices: 0,
        };
        for (i, p) in store.config.keys.into_iter().enumerate() {
            let Some(p) = p else { continue };
            let owner = Caller(u32::from(p.owner));
            let policy = Policy {
                algorithms: p.algorithms,
                usage: p.usage,
                reserved: [0; 3],
            };
            let made = store.keys.open(owner, KeysError::StoreFull, |_| {
                let mut bytes = [0; MAX_KEY];
                bytes[..32].copy_from_slice(&p.key);
                Ok(Key {
                    policy,
                    len: 32,
                    bytes,
                    floor: p.floor,
                    provisioned: true,
                })
            });
            store.provisioned[i] = made.ok().map(|h| (owner, h));
        }
        store
    }

    /// Keys held now, of every client.
    pub fn held(&self) -> usize {
        self.keys.open_count()
    }

    /// Wipes every key `client` made (it died: a new incarnation starts with none); the
    /// keys the system provisioned for it stay, as the system's.
    pub fn forget(&mut self, client: Caller) -> usize {
        let n = self.keys.close_where(client, |k| !k.provisioned, Key::wipe);
        self.wiped += n as u32;
        n
    }

    /// The store channels of the drivers to notify that a client of theirs ended (bit
    /// per channel), cleared: the PD notifies each after the call that ended it.
    pub fn take_notices(&mut self) -> u64 {
        core::mem::take(&mut self.notices)
    }

    /// The rights of a client caller, or `NotPermitted` for any other.
    fn rights(&self, caller: Caller) -> Result<Rights, KeysError> {
        self.config.client(caller.0).ok_or(KeysError::NotPermitted)
    }

    /// Puts a new key of `caller`'s, after its right and quota, made by `fill` (which
    /// writes the bytes; an error from it leaves nothing behind).
    fn make(
        &mut self,
        caller: Caller,
        right: impl Fn(&Rights) -> bool,
        policy: Policy,
        len: u8,
        fill: impl FnOnce(&mut [u8]) -> Result<(), KeysError>,
    ) -> Result<u32, KeysError> {
        let rights = self.rights(caller)?;
        if !right(&rights) {
            return Err(KeysError::NotPermitted);
        }
        check_policy(&policy, usize::from(len))?;
        if self.keys.owned_by(caller) >= usize::from(rights.quota) {
            return Err(KeysError::QuotaExceeded);
        }
        // Made in its slot, never on the stack and moved there: a move would leave a
        // copy of the bytes behind.
        let policy = Policy {
            reserved: [0; 3],
            ..policy
        };
        let handle = self.keys.open(caller, KeysError::StoreFull, |_| {
            Ok(Key {
                policy,
                len,
                bytes: [0; MAX_KEY],
                floor: 0,
                provisioned: false,
            })
        })?;
        let (_, key) = self
            .keys
            .get_mut(caller, handle)
            .map_err(|_| KeysError::StoreFull)?;
        if let Err(e) = fill(&mut key.bytes[..usize::from(len)]) {
            let _ = self.keys.close_with(caller, handle, Key::wipe);
            return Err(e);
        }
        Ok(handle)
    }

    fn key(&self, owner: Caller, handle: u32) -> Result<&Key, KeysError> {
        self.keys
            .get(owner, handle)
            .map_err(|_| KeysError::UnknownKey)
    }
}

impl pd_idl::keys::Server for KeyStore {
    fn generate(&mut self, caller: Caller, policy: Policy, len: u8) -> Result<u32, KeysError> {
        let draw = self.draw;
        self.make(
            caller,
            |r| r.create,
            policy,
            len,
            |out| {
                for piece in out.chunks_mut(32) {
                    if !draw(piece) {
                        return Err(KeysError::NoRandomness);
                    }
                }
                Ok(())
            },
        )
    }

    fn import(
        &mut self,
        caller: Caller,
        policy: Policy,
        len: u8,
        mut key: [u64; 8],
    ) -> Result<u32, KeysError> {
        let made = self.make(
            caller,
            |r| r.import,
            policy,
            len,
            |out| {
                key_words::unpack(&key, out);
                Ok(())
            },
        );
        key.zeroize();
        made
    }

    fn import_wrapped(
        &mut self,
        caller: Caller,
        policy: Policy,
        len: u8,
        mut wrapped: [u64; 9],
    ) -> Result<u32, KeysError> {
        let kek = self.config.device_key;
        // RFC 3394 wraps whole 8-byte blocks: the key must be a multiple of 8 too.
        let key_len = usize::from(len)
            .checked_sub(8)
            .filter(|n| *n <= MAX_KEY && n % 8 == 0 && *n >= 16)
            .ok_or(KeysError::BadKeySize)?;
        let made = self.make(
            caller,
            |r| r.import,
            policy,
            key_len as u8,
            |out| {
                let kek = aes_kw::KekAes128::from(kek.ok_or(KeysError::UnwrapFailed)?);
                let mut w = [0u8; MAX_WRAPPED];
                key_words::unpack(&wrapped, &mut w[..key_len + 8]);
                let unwrapped = kek.unwrap(&w[..key_len + 8], out);
                w.zeroize();
                unwrapped.map_err(|_| KeysError::UnwrapFailed)
            },
        );
        wrapped.zeroize();
        made
    }

    fn derive(
        &mut self,
        caller: Caller,
        base: u32,
        policy: Policy,
        len: u8,
        info_len: u8,
        info: [u8; 32],
    ) -> Result<u32, KeysError> {
        let info = info
            .get(..usize::from(info_len))
            .ok_or(KeysError::BadRequest)?;
        let from = self.key(caller, base)?;
        if from.policy.algorithms & algorithm(KeyAlgorithm::HkdfSha256) == 0
            || from.policy.usage & DERIVE == 0
        {
            return Err(KeysError::NotPermitted);
        }
        let hkdf = hkdf::Hkdf::<sha2::Sha256>::new(None, from.bytes());
        self.make(
            caller,
            |r| r.create,
            policy,
            len,
            |out| hkdf.expand(info, out).map_err(|_| KeysError::BadKeySize),
        )
    }

    fn destroy(&mut self, caller: Caller, handle: u32) -> Result<(), KeysError> {
        self.keys
            .close_with(caller, handle, Key::wipe)
            .map_err(|_| KeysError::UnknownKey)?;
        self.wiped += 1;
        Ok(())
    }

    fn attributes(&mut self, caller: Caller, handle: u32) -> Result<Attributes, KeysError> {
        let key = self.key(caller, handle)?;
        Ok(Attributes {
            policy: key.policy,
            len: key.len,
            owner: caller.0 as u8,
            reserved: [0; 2],
            floor: key.floor,
        })
    }

    fn export(&mut self, caller: Caller, handle: u32) -> Result<KeyBytes, KeysError> {
        let key = self.key(caller, handle)?;
        if key.policy.usage & EXPORT == 0 {
            return Err(KeysError::NotPermitted);
        }
        Ok(key_bytes(key, key.policy.usage))
    }

    fn fetch(
        &mut self,
        caller: Caller,
        client: u8,
        handle: u32,
        alg: KeyAlgorithm,
        wants: u8,
    ) -> Result<KeyBytes, KeysError> {
        let owner = self
            .config
            .client_of(caller.0, client)
            .ok_or(KeysError::NotPermitted)?;
        if !self.config.client(owner).is_some_and(|r| r.uses) {
            return Err(KeysError::NotPermitted);
        }
        let key = self.key(Caller(owner), handle)?;
        let allowed = key.policy.usage & !EXPORT;
        if key.policy.algorithms & algorithm(alg) == 0 || wants == 0 || wants & !allowed != 0 {
            return Err(KeysError::NotPermitted);
        }
        Ok(key_bytes(key, wants))
    }

    fn provisioned(&mut self, caller: Caller, index: u8) -> Result<u32, KeysError> {
        self.provisioned
            .iter()
            .flatten()
            .filter(|(owner, _)| *owner == caller)
            .nth(usize::from(index))
            .map(|(_, h)| *h)
            .ok_or(KeysError::UnknownKey)
    }

    fn hello(&mut self, caller: Caller, incarnation: u32) -> Result<u32, KeysError> {
        self.rights(caller)?;
        let known = &mut self.incarnations[caller.0 as usize];
        if *known == incarnation {
            return Ok(0);
        }
        *known = incarnation;
        Ok(self.forget(caller) as u32)
    }

    fn raw_keys(&mut self, caller: Caller) -> Result<u64, KeysError> {
        self.config
            .raw_keys(caller.0)
            .ok_or(KeysError::NotPermitted)
    }

    fn ended(&mut self, caller: Caller, child: u8) -> Result<u32, KeysError> {
        let client = self
            .config
            .child_of(caller.0, child)
            .ok_or(KeysError::NotPermitted)?;
        // Every driver serving it: bit `k` on its channel `k` where that client is.
        for (d, peer) in self.config.peers.iter().enumerate() {
            let Peer::Driver { clients, .. } = peer else {
                continue;
            };
            for (k, _) in clients
                .iter()
                .enumerate()
                .filter(|(_, c)| u32::from(**c) == client)
            {
                self.ended[d] |= 1 << k;
                self.notices |= 1 << d;
            }
        }
        Ok(self.forget(Caller(client)) as u32)
    }

    fn ended_clients(&mut self, caller: Caller) -> Result<u64, KeysError> {
        if !self.config.is_driver(caller.0) {
            return Err(KeysError::NotPermitted);
        }
        Ok(core::mem::take(&mut self.ended[caller.0 as usize]))
    }
}

fn key_bytes(key: &Key, usage: u8) -> KeyBytes {
    KeyBytes {
        head: u64::from(key.len) | u64::from(usage) << 8,
        bytes: key_words::pack(key.bytes()),
    }
}

impl Drop for KeyStore {
    fn drop(&mut self) {
        for owner in 0..config::CHANNELS as u32 {
            self.wiped += self.keys.close_all_with(Caller(owner), Key::wipe) as u32;
        }
    }
}
