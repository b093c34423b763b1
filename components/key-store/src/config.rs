//! What the system description says of the store's peers: a text file the Microkit
//! tool prefills into a read-only region (`prefill_path`), one peer per line, written
//! by the system's meta script (tools/sdfgen-crypto) or by hand beside a host system.
//!
//! ```text
//! # channel numbers are the store's own ends
//! client 1 create import use raw quota=4
//! client 2 use quota=2
//! driver 5 0=1 3=2
//! supervisor 9 1=1
//! device-key 000102030405060708090a0b0c0d0e0f
//! ```
//!
//! `client C rights.. quota=N`: the client on the store's channel `C` (its badge: the
//! owner of every key it makes), what it may do (`create`: generate and derive;
//! `import`: import raw or wrapped; `use`: have drivers fetch its keys; `raw`: open
//! driver sessions on its own key bytes) and how many keys it may hold at once.
//! `driver D K=C..`: the driver on the store's channel `D` serves, on its own channel
//! `K`, the store's client `C`; a driver may fetch keys only of the clients named so.
//! `K=raw` instead names a client of the driver that is none of the store's and may
//! open sessions on raw keys (a known-answer client of published vectors); any other
//! client of a driver that has a store may not.
//! `supervisor S K=C..`: the PD on the store's channel `S` is the parent of the store's
//! client `C` (its child `K`): Microkit sends a PD's faults to its parent, the one PD
//! that knows when it has ended for good. Its `ended(K)` wipes `C`'s keys and tells
//! the drivers serving `C`.
//! `device-key HEX`: the key-encryption key `import_wrapped` unwraps under, the stand-in
//! for a key fused into the SoC (a real store reads it from OTP, never from a file).
//! `key C ALGORITHMS USAGES HEX [floor=N]`: a key provisioned for client `C` at start
//! (`ed25519-verify verify,export` and 64 hex digits: verified boot's public key, with
//! the rollback floor it enforces). Only public verify keys: a secret in a text file is
//! no secret; secrets come wrapped (`import_wrapped`).
//!
//! Anything else (an unknown word, a channel past 62, a client named twice, a driver
//! mapping a client not declared) rejects the whole file: a store misconfigured serves
//! no one rather than serving wrongly.

/// Channels a PD has (Microkit's 62).
pub const CHANNELS: usize = 62;
/// Most client channels one driver has (a driver PD serves at most this many).
pub const DRIVER_CLIENTS: usize = 62;

/// What a client may do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rights {
    pub create: bool,
    pub import: bool,
    pub uses: bool,
    pub raw: bool,
    pub quota: u8,
}

/// One of the store's channels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Peer {
    #[default]
    Nobody,
    Client(Rights),
    /// A driver; `clients[k]`: the store's channel of the client on the driver's
    /// channel `k` (`u8::MAX`: none of the store's); `raw`: bit `k` for a client of
    /// the driver's that is none of the store's and may use raw keys.
    Driver {
        clients: [u8; DRIVER_CLIENTS],
        raw: u64,
    },
    /// A parent of clients; `children[k]`: the store's channel of its child `k`
    /// (`u8::MAX`: none of the store's clients).
    Supervisor {
        children: [u8; DRIVER_CLIENTS],
    },
}

/// Keys the configuration may provision.
pub const MAX_PROVISIONED: usize = 4;

/// A key the configuration provisions (a public verify key).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Provisioned {
    pub owner: u8,
    pub algorithms: u32,
    pub usage: u8,
    pub key: [u8; 32],
    pub floor: u32,
}

/// The parsed file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub peers: [Peer; CHANNELS],
    pub device_key: Option<[u8; 16]>,
    pub keys: [Option<Provisioned>; MAX_PROVISIONED],
}

/// Why a file was rejected: the line (from 1) and what was wrong there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rejected {
    pub line: usize,
    pub why: &'static str,
}

impl Config {
    /// A store nobody may use (what a PD without a configuration serves).
    pub const EMPTY: Config = Config {
        peers: [Peer::Nobody; CHANNELS],
        device_key: None,
        keys: [None; MAX_PROVISIONED],
    };

    /// Parses `text` (a prefilled region: its tail past the file is zeros, ignored).
    pub fn parse(text: &[u8]) -> Result<Config, Rejected> {
        let end = text.iter().position(|&b| b == 0).unwrap_or(text.len());
        let text = core::str::from_utf8(&text[..end]).map_err(|_| Rejected {
            line: 0,
            why: "not UTF-8",
        })?;
        let mut config = Config::EMPTY;
        // Drivers' lines are checked against the clients once all are read.
        for (n, line) in text.lines().enumerate() {
            let reject = |why| Rejected { line: n + 1, why };
            let line = line.split('#').next().unwrap_or("");
            let mut words = line.split_ascii_whitespace();
            let Some(kind) = words.next() else { continue };
            match kind {
                "client" | "driver" | "supervisor" => {
                    let ch = channel(words.next()).ok_or(reject("bad channel"))?;
                    if config.peers[ch] != Peer::Nobody {
                        return Err(reject("channel named twice"));
                    }
                    config.peers[ch] = if kind == "client" {
                        Peer::Client(rights(words).ok_or(reject("bad right or quota"))?)
                    } else {
                        let (clients, raw) = served(words).ok_or(reject("bad K=C mapping"))?;
                        match kind {
                            "driver" => Peer::Driver { clients, raw },
                            _ if raw != 0 => return Err(reject("a supervisor's child is raw")),
                            _ => Peer::Supervisor { children: clients },
                        }
                    };
                }
                "device-key" => {
                    let key = words
                        .next()
                        .and_then(hex16)
                        .ok_or(reject("device-key: 32 hex digits"))?;
                    if words.next().is_some() || config.device_key.is_some() {
                        return Err(reject("device-key given twice"));
                    }
                    config.device_key = Some(key);
                }
                "key" => {
                    let slot = config
                        .keys
                        .iter_mut()
                        .find(|k| k.is_none())
                        .ok_or(reject("more provisioned keys than the store holds"))?;
                    *slot = Some(provisioned(words).ok_or(reject(
                        "key: C ed25519-verify verify[,export] HEX64 [floor=N]",
                    ))?);
                }
                _ => return Err(reject("unknown line")),
            }
        }
        let owners_declared = config
            .keys
            .iter()
            .flatten()
            .all(|k| matches!(config.peers[usize::from(k.owner)], Peer::Client(_)));
        if !owners_declared {
            return Err(Rejected {
                line: 0,
                why: "a key is provisioned for a client the file does not declare",
            });
        }
        for peer in &config.peers {
            let (Peer::Driver { clients, .. } | Peer::Supervisor { children: clients }) = peer
            else {
                continue;
            };
            let undeclared = clients
                .iter()
                .any(|&c| c != u8::MAX && !matches!(config.peers[usize::from(c)], Peer::Client(_)));
            if undeclared {
                return Err(Rejected {
                    line: 0,
                    why: "a driver or supervisor names a client the file does not declare",
                });
            }
        }
        Ok(config)
    }

    pub fn client(&self, ch: u32) -> Option<Rights> {
        match self.peers.get(ch as usize)? {
            Peer::Client(r) => Some(*r),
            _ => None,
        }
    }

    /// The store's channel of the client a driver on `driver` serves on its channel
    /// `k`: `None` if `driver` is no driver or serves no client of ours there.
    pub fn client_of(&self, driver: u32, k: u8) -> Option<u32> {
        match self.peers.get(driver as usize)? {
            Peer::Driver { clients, .. } => {
                let c = *clients.get(usize::from(k))?;
                (c != u8::MAX).then_some(u32::from(c))
            }
            _ => None,
        }
    }

    /// The store's channel of the supervisor on `supervisor`'s child `k`.
    pub fn child_of(&self, supervisor: u32, k: u8) -> Option<u32> {
        match self.peers.get(supervisor as usize)? {
            Peer::Supervisor { children } => {
                let c = *children.get(usize::from(k))?;
                (c != u8::MAX).then_some(u32::from(c))
            }
            _ => None,
        }
    }

    pub fn is_driver(&self, ch: u32) -> bool {
        matches!(self.peers.get(ch as usize), Some(Peer::Driver { .. }))
    }

    /// Bit `k` for each client of the driver on `driver` that may open sessions on raw
    /// keys: a client of the store's with the `raw` right, or one named `K=raw`.
    pub fn raw_keys(&self, driver: u32) -> Option<u64> {
        let Some(Peer::Driver { clients, raw }) = self.peers.get(driver as usize) else {
            return None;
        };
        let mapped = clients
            .iter()
            .enumerate()
            .filter(|&(_, &c)| c != u8::MAX && self.client(u32::from(c)).is_some_and(|r| r.raw));
        Some(mapped.fold(*raw, |bits, (k, _)| bits | 1 << k))
    }
}

fn channel(word: Option<&str>) -> Option<usize> {
    word?.parse::<usize>().ok().filter(|&c| c < CHANNELS)
}

fn rights<'a>(words: impl Iterator<Item = &'a str>) -> Option<Rights> {
    let mut r = Rights::default();
    for w in words {
        match w {
            "create" => r.create = true,
            "import" => r.import = true,
            "use" => r.uses = true,
            "raw" => r.raw = true,
            _ => r.quota = w.strip_prefix("quota=")?.parse().ok()?,
        }
    }
    Some(r)
}

fn served<'a>(words: impl Iterator<Item = &'a str>) -> Option<([u8; DRIVER_CLIENTS], u64)> {
    let mut clients = [u8::MAX; DRIVER_CLIENTS];
    let mut raw = 0u64;
    for w in words {
        let (k, c) = w.split_once('=')?;
        let k = channel(Some(k))?;
        if clients[k] != u8::MAX || raw & 1 << k != 0 {
            return None;
        }
        match c {
            "raw" => raw |= 1 << k,
            c => clients[k] = channel(Some(c))? as u8,
        }
    }
    Some((clients, raw))
}

fn hex16(word: &str) -> Option<[u8; 16]> {
    hex(word)
}

fn hex<const N: usize>(word: &str) -> Option<[u8; N]> {
    let digits = word.as_bytes();
    if digits.len() != 2 * N {
        return None;
    }
    let mut key = [0u8; N];
    for (byte, pair) in key.iter_mut().zip(digits.chunks(2)) {
        let s = core::str::from_utf8(pair).ok()?;
        *byte = u8::from_str_radix(s, 16).ok()?;
    }
    Some(key)
}

/// `C ed25519-verify USAGES HEX [floor=N]`: the one kind of key a file may hold in the
/// clear (a public one), with the usages it may have (verify, and export so that its
/// owner can verify with it).
fn provisioned<'a>(mut words: impl Iterator<Item = &'a str>) -> Option<Provisioned> {
    use pd_idl::key_bits::{algorithm, usage as bit};
    use pd_idl::keys::{KeyAlgorithm, KeyUsage};
    let owner = channel(words.next())? as u8;
    if words.next()? != "ed25519-verify" {
        return None;
    }
    let mut usage = 0u8;
    for u in words.next()?.split(',') {
        usage |= bit(match u {
            "verify" => KeyUsage::Verify,
            "export" => KeyUsage::Export,
            _ => return None,
        });
    }
    let key = hex::<32>(words.next()?)?;
    let floor = match words.next() {
        Some(w) => w.strip_prefix("floor=")?.parse().ok()?,
        None => 0,
    };
    if words.next().is_some() || usage & bit(KeyUsage::Verify) == 0 {
        return None;
    }
    Some(Provisioned {
        owner,
        algorithms: algorithm(KeyAlgorithm::Ed25519Verify),
        usage,
        key,
        floor,
    })
}
