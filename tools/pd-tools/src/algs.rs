//! The algorithm, engine and path names the tools accept, and what they mean in the
//! Cipher, Digest, Aead and Mac interfaces.

use pd_idl::aead::AeadAlgorithm;
use pd_idl::cipher::{Mode, Path};
use pd_idl::digest::{Algorithm, HashPath};
use pd_idl::mac::MacAlgorithm;

/// The ciphers the tools offer, as they name them.
pub const CIPHERS: [&str; 6] = [
    "aes-128-cbc",
    "aes-192-cbc",
    "aes-256-cbc",
    "aes-128-ctr",
    "aes-256-ctr",
    "aes-128-ecb",
];

/// A cipher as the tools name it (`aes-128-cbc`): mode and key length in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CipherAlg {
    pub mode: Mode,
    pub key_len: usize,
}

/// An AES name as openssl spells it (`aes-128-cbc`): the key length in bytes and the
/// mode of `modes` named last.
fn parse_aes<M: Copy>(s: &str, modes: &[(&str, M)]) -> Option<(usize, M)> {
    let mut it = s.split('-');
    let (Some("aes"), Some(bits), Some(mode), None) = (it.next(), it.next(), it.next(), it.next())
    else {
        return None;
    };
    let key_len = match bits {
        "128" => 16,
        "192" => 24,
        "256" => 32,
        _ => return None,
    };
    let &(_, m) = modes.iter().find(|(name, _)| *name == mode)?;
    Some((key_len, m))
}

/// The openssl name of AES with a `key_len`-byte key in `mode` (named by `modes`).
fn aes_name<M: PartialEq>(key_len: usize, mode: M, modes: &[(&str, M)]) -> String {
    let name = modes
        .iter()
        .find(|(_, m)| *m == mode)
        .map_or("?", |(n, _)| n);
    format!("aes-{}-{name}", key_len * 8)
}

/// The cipher modes' names.
const CIPHER_MODES: [(&str, Mode); 3] =
    [("ecb", Mode::Ecb), ("cbc", Mode::Cbc), ("ctr", Mode::Ctr)];

impl CipherAlg {
    pub fn parse(s: &str) -> Result<Self, String> {
        parse_aes(s, &CIPHER_MODES)
            .map(|(key_len, mode)| CipherAlg { mode, key_len })
            .ok_or_else(|| format!("unknown cipher {s:?} (aes-128|192|256-ecb|cbc|ctr)"))
    }

    pub fn name(&self) -> String {
        aes_name(self.key_len, self.mode, &CIPHER_MODES)
    }

    /// Whether the length of the data must be whole blocks (no padding here).
    pub fn whole_blocks(&self) -> bool {
        self.mode != Mode::Ctr
    }
}

/// The AEADs the tools offer, as they name them (openssl's names).
pub const AEADS: [&str; 6] = [
    "aes-128-gcm",
    "aes-192-gcm",
    "aes-256-gcm",
    "aes-128-ccm",
    "aes-192-ccm",
    "aes-256-ccm",
];

/// An AEAD as the tools name it (`aes-128-gcm`): mode and key length in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AeadAlg {
    pub algorithm: AeadAlgorithm,
    pub key_len: usize,
}

/// The AEAD modes' names.
const AEAD_MODES: [(&str, AeadAlgorithm); 2] = [
    ("gcm", AeadAlgorithm::AesGcm),
    ("ccm", AeadAlgorithm::AesCcm),
];

impl AeadAlg {
    pub fn parse(s: &str) -> Result<Self, String> {
        parse_aes(s, &AEAD_MODES)
            .map(|(key_len, algorithm)| AeadAlg { algorithm, key_len })
            .ok_or_else(|| format!("unknown AEAD {s:?} (aes-128|192|256-gcm|ccm)"))
    }

    pub fn name(&self) -> String {
        aes_name(self.key_len, self.algorithm, &AEAD_MODES)
    }
}

/// The HMACs the tools offer, as they name them (`hmac-` and the hash's name).
pub fn mac_alg(s: &str) -> Result<MacAlgorithm, String> {
    s.strip_prefix("hmac-")
        .and_then(|d| digest_alg(d).ok())
        .map(mac_of)
        .ok_or_else(|| format!("unknown HMAC {s:?} (hmac-{})", DIGESTS.join("|")))
}

/// HMAC over a hash.
pub fn mac_of(a: Algorithm) -> MacAlgorithm {
    match a {
        Algorithm::Md5 => MacAlgorithm::Md5,
        Algorithm::Sha1 => MacAlgorithm::Sha1,
        Algorithm::Sha224 => MacAlgorithm::Sha224,
        Algorithm::Sha256 => MacAlgorithm::Sha256,
        Algorithm::Sha384 => MacAlgorithm::Sha384,
        Algorithm::Sha512 => MacAlgorithm::Sha512,
    }
}

/// The hash an HMAC is over.
pub fn hash_of(a: MacAlgorithm) -> Algorithm {
    match a {
        MacAlgorithm::Md5 => Algorithm::Md5,
        MacAlgorithm::Sha1 => Algorithm::Sha1,
        MacAlgorithm::Sha224 => Algorithm::Sha224,
        MacAlgorithm::Sha256 => Algorithm::Sha256,
        MacAlgorithm::Sha384 => Algorithm::Sha384,
        MacAlgorithm::Sha512 => Algorithm::Sha512,
    }
}

pub fn mac_name(a: MacAlgorithm) -> String {
    format!("hmac-{}", digest_name(hash_of(a)))
}

/// The hashes the tools offer, as they name them (every algorithm of the interface).
pub const DIGESTS: [&str; 6] = ["md5", "sha1", "sha224", "sha256", "sha384", "sha512"];

pub fn digest_alg(s: &str) -> Result<Algorithm, String> {
    Algorithm::ALL
        .into_iter()
        .find(|&a| digest_name(a) == s)
        .ok_or_else(|| format!("unknown digest {s:?} ({})", DIGESTS.join(", ")))
}

pub fn digest_name(a: Algorithm) -> &'static str {
    match a {
        Algorithm::Md5 => "md5",
        Algorithm::Sha1 => "sha1",
        Algorithm::Sha224 => "sha224",
        Algorithm::Sha256 => "sha256",
        Algorithm::Sha384 => "sha384",
        Algorithm::Sha512 => "sha512",
    }
}

/// Digest length of each algorithm (the drivers' table, checked against each digest's
/// own output by this module's tests).
pub use kat_vectors::digest_len;

/// An engine the tools can boot a driver PD for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Engine {
    /// RustCrypto in the CPU engine driver PD (board `host`).
    Cpu,
    /// TI OMAP AES model (board `am335x`).
    OmapAes,
    /// ST STM32 CRYP model (board `stm32mp1`).
    Stm32Cryp,
    /// Freescale talitos SEC1 hash model (board `mpc885`).
    Sec1,
}

impl Engine {
    pub fn name(self) -> &'static str {
        match self {
            Engine::Cpu => "cpu",
            Engine::OmapAes => "omap-aes",
            Engine::Stm32Cryp => "stm32-cryp",
            Engine::Sec1 => "sec1",
        }
    }

    /// The board whose cost table prices this engine's ledger.
    pub fn board(self) -> &'static board::Board {
        match self {
            Engine::Cpu => &board::host::BOARD,
            Engine::OmapAes => &board::am335x::BOARD,
            Engine::Stm32Cryp => &board::stm32mp1::BOARD,
            Engine::Sec1 => &board::mpc885::BOARD,
        }
    }

    pub fn ciphers(self) -> bool {
        self != Engine::Sec1
    }

    pub fn digests(self) -> bool {
        matches!(self, Engine::Cpu | Engine::Sec1)
    }

    /// Whether this engine's driver hashes with `alg` (SEC1's MDEU-A lacks SHA-384 and
    /// SHA-512; its driver refuses them at open, and the tools say so before booting).
    pub fn digests_with(self, alg: Algorithm) -> bool {
        match self {
            Engine::Cpu => true,
            Engine::Sec1 => !matches!(alg, Algorithm::Sha384 | Algorithm::Sha512),
            Engine::OmapAes | Engine::Stm32Cryp => false,
        }
    }

    /// `Err` naming the paths there are, if this engine's driver does not offer
    /// `path` (checked before anything boots).
    pub fn check_path(self, path: DataPath, cipher: bool) -> Result<(), String> {
        let paths = self.paths(cipher);
        if paths.contains(&path) {
            return Ok(());
        }
        let names: Vec<&str> = paths.iter().map(|p| p.name()).collect();
        Err(format!(
            "--path {}: the {} driver does not offer it for {}; it offers {}",
            path.name(),
            self.name(),
            if cipher { "ciphers" } else { "hashes" },
            names.join(", ")
        ))
    }

    /// The paths this engine's driver offers for ciphers and for hashes (what its
    /// `open_session` accepts; the drivers' own `supports` checks are the authority).
    pub fn paths(self, cipher: bool) -> &'static [DataPath] {
        match (self, cipher) {
            (Engine::Cpu, true) => &[DataPath::Cpu, DataPath::Adaptive],
            (Engine::Cpu, false) => &[DataPath::Auto],
            (Engine::OmapAes | Engine::Stm32Cryp, true) => {
                &[DataPath::Pio, DataPath::Dma, DataPath::Adaptive]
            }
            (Engine::Sec1, false) => &[DataPath::Auto, DataPath::Chained, DataPath::Copy],
            _ => &[],
        }
    }
}

/// A data path as the tools name it; cipher paths and hash paths share the option.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DataPath {
    Pio,
    Dma,
    Adaptive,
    Cpu,
    /// SEC1: chained descriptors over the buffered block and the client's data.
    Chained,
    /// SEC1: the old strategy, buffered block and data copied into one buffer.
    Copy,
    /// A hash engine's own default (chained where it can).
    Auto,
}

impl DataPath {
    pub fn name(self) -> &'static str {
        match self {
            DataPath::Pio => "pio",
            DataPath::Dma => "dma",
            DataPath::Adaptive => "adaptive",
            DataPath::Cpu => "cpu",
            DataPath::Chained => "chained",
            DataPath::Copy => "copy",
            DataPath::Auto => "auto",
        }
    }

    pub fn cipher(self) -> Option<Path> {
        match self {
            DataPath::Pio => Some(Path::Pio),
            DataPath::Dma => Some(Path::Dma),
            DataPath::Adaptive => Some(Path::Adaptive),
            DataPath::Cpu => Some(Path::Cpu),
            _ => None,
        }
    }

    pub fn hash(self) -> Option<HashPath> {
        match self {
            DataPath::Auto => Some(HashPath::Auto),
            DataPath::Chained => Some(HashPath::Chained),
            DataPath::Copy => Some(HashPath::Copy),
            _ => None,
        }
    }

    /// `--path`'s values for ciphers (`cipher`) or for hashes: each tool offers only
    /// the paths of its own kind, in its help and in what it accepts.
    pub fn parser(cipher: bool) -> impl clap::builder::TypedValueParser<Value = DataPath> {
        use clap::ValueEnum;
        use clap::builder::TypedValueParser;
        let names: Vec<&'static str> = DataPath::value_variants()
            .iter()
            .filter(|p| p.cipher().is_some() == cipher)
            .map(|p| p.name())
            .collect();
        clap::builder::PossibleValuesParser::new(names)
            .map(|s: String| DataPath::parse(&s).expect("a path name"))
    }

    pub fn parse(s: &str) -> Option<DataPath> {
        <DataPath as clap::ValueEnum>::from_str(s, true).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cipher_names_parse_and_print_back() {
        for s in CIPHERS {
            assert_eq!(CipherAlg::parse(s).unwrap().name(), s);
        }
        assert!(CipherAlg::parse("aes-100-cbc").is_err());
        assert!(CipherAlg::parse("des-128-cbc").is_err());
        assert!(!CipherAlg::parse("aes-128-ctr").unwrap().whole_blocks());
    }

    #[test]
    fn aead_and_mac_names_parse_and_print_back() {
        for s in AEADS {
            assert_eq!(AeadAlg::parse(s).unwrap().name(), s);
        }
        assert!(AeadAlg::parse("aes-128-cbc").is_err());
        for a in MacAlgorithm::ALL {
            assert_eq!(mac_alg(&mac_name(a)), Ok(a));
            assert_eq!(mac_of(hash_of(a)), a);
        }
        assert!(mac_alg("sha256").is_err());
    }

    #[test]
    fn digest_names_parse_and_print_back() {
        for s in DIGESTS {
            let a = digest_alg(s).unwrap();
            assert_eq!(digest_name(a), s);
            assert_eq!(digest_len(a), computed_len(a));
        }
        assert_eq!(DIGESTS.len(), Algorithm::ALL.len());
        assert!(digest_alg("sha3").is_err());
    }

    /// The length from the digest's own output, not a table.
    fn computed_len(a: Algorithm) -> usize {
        crate::refcrypto::digest(a, b"").len()
    }
}
