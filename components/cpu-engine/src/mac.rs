//! The CPU Mac engine: HMAC (RFC 2104) with MD5, SHA-1, SHA-224, SHA-256, SHA-384 and
//! SHA-512, RustCrypto's `hmac` over the same hashes as [`crate::hash`], behind
//! `mac-service`'s [`MacEngine`].
//!
//! Each session keeps a keyed `Hmac` (the inner and outer hashes started on the key,
//! and with `hmac`'s `reset` the inner one's keyed start, so the next message begins
//! without hashing the key's pads again), which buffers its own partial block;
//! segments are fed in pieces copied out of the client's region (volatile copies).
//! Every request finishes in `start`: the CPU has no interrupt. The service compares a
//! verify's tag; the engine only computes it.
//!
//! Assumes segments and keys were checked by `mac-service`. `no_std`, no heap.

use hmac::{Hmac, Mac as _};
use mac_service::{BlockKey, Job, MacEngine, MacStep, Tag, block_len};
use pd_idl::mac::{MacAlgorithm, MacError, MacOp};

/// One session's running HMAC.
#[derive(Clone)]
pub enum Keyed {
    Md5(Hmac<md5::Md5>),
    Sha1(Hmac<sha1::Sha1>),
    Sha224(Hmac<sha2::Sha224>),
    Sha256(Hmac<sha2::Sha256>),
    Sha384(Hmac<sha2::Sha384>),
    Sha512(Hmac<sha2::Sha512>),
}

/// Runs `$e` with `$h` bound to the session's HMAC, whatever its hash.
macro_rules! each {
    ($keyed:expr, $h:ident => $e:expr) => {
        match $keyed {
            Keyed::Md5($h) => $e,
            Keyed::Sha1($h) => $e,
            Keyed::Sha224($h) => $e,
            Keyed::Sha256($h) => $e,
            Keyed::Sha384($h) => $e,
            Keyed::Sha512($h) => $e,
        }
    };
}

/// RFC 2104's block key of `key` for `D`: the key, or its hash if longer than a block.
fn block_key<D: digest::Digest>(key: &[u8], block: usize, out: &mut BlockKey) {
    if key.len() <= block {
        out.fill(key.len()).copy_from_slice(key);
    } else {
        out.fill(<D as digest::Digest>::output_size())
            .copy_from_slice(&D::digest(key));
    }
}

impl Keyed {
    fn new(algorithm: MacAlgorithm, key: &[u8]) -> Self {
        // Private, wiped when dropped: the keyed states are all the session keeps.
        let block = &mut BlockKey::default();
        let b = block_len(algorithm);
        // `hmac` takes the block key as it is (never longer than the block), so the
        // session's state is RFC 2104's for the client's key.
        macro_rules! keyed {
            ($variant:ident, $d:ty) => {{
                block_key::<$d>(key, b, block);
                let h = <Hmac<$d> as hmac::Mac>::new_from_slice(block.as_bytes());
                Keyed::$variant(h.expect("HMAC takes a key of any length"))
            }};
        }
        match algorithm {
            MacAlgorithm::Md5 => keyed!(Md5, md5::Md5),
            MacAlgorithm::Sha1 => keyed!(Sha1, sha1::Sha1),
            MacAlgorithm::Sha224 => keyed!(Sha224, sha2::Sha224),
            MacAlgorithm::Sha256 => keyed!(Sha256, sha2::Sha256),
            MacAlgorithm::Sha384 => keyed!(Sha384, sha2::Sha384),
            MacAlgorithm::Sha512 => keyed!(Sha512, sha2::Sha512),
        }
    }

    /// The tag of what the session saw, leaving the keyed start of the next message.
    fn finalize_reset(&mut self) -> Tag {
        use hmac::digest::FixedOutputReset;
        each!(self, h => Tag::new(&h.finalize_fixed_reset()))
    }
}

/// Bytes authenticated per private copy, 16-byte aligned: 1 KiB and the 128 bytes that
/// let a piece of 1 KiB start where its copy moves whole vectors, as the Digest
/// engine's. It was 256 B while each session kept a block key (`MacEngine::Key`), which
/// left no room in `driver_pd::MAX_STATE`; HMAC-SHA-256 of 16 KiB through the PD was
/// 0.82-0.85x in-process with it.
const PIECE: usize = 1024 + 128;

#[repr(C, align(16))]
struct Piece([u8; PIECE]);

/// The CPU Mac engine. Stateless between requests: each session carries its HMAC.
pub struct CpuMac {
    /// Bytes authenticated, for the ledger.
    pub bytes: u64,
    buf: Piece,
    /// A keyed state was worked on since the PD last asked
    /// ([`MacEngine::touched_keys`]).
    touched: bool,
}

impl Default for CpuMac {
    fn default() -> Self {
        CpuMac {
            bytes: 0,
            buf: Piece([0; PIECE]),
            touched: false,
        }
    }
}

impl MacEngine for CpuMac {
    type Context = Keyed;
    /// Nothing: the context is keyed.
    type Key = ();

    /// Every algorithm.
    fn supports(&self, _: MacAlgorithm) -> Result<(), MacError> {
        Ok(())
    }

    fn open(
        &mut self,
        _slot: usize,
        algorithm: MacAlgorithm,
        key: &[u8],
        _: &mut (),
    ) -> Result<Keyed, MacError> {
        Ok(Keyed::new(algorithm, key))
    }

    fn start(&mut self, keyed: &mut Keyed, _: &(), job: &Job<'_>) -> MacStep {
        // The keyed hash states (as good as the key for forging) are copied on the stack.
        self.touched = true;
        job.data.for_each_piece(
            &job.segs,
            &mut self.buf.0,
            |piece| each!(&mut *keyed, h => h.update(piece)),
        );
        self.bytes += u64::from(job.segs.total());
        MacStep::Done(Ok(match job.op {
            MacOp::Update => None,
            MacOp::Final | MacOp::Verify => Some(keyed.finalize_reset()),
        }))
    }

    fn interrupt(&mut self, _: &mut Keyed, _: &Job<'_>) -> MacStep {
        // Nothing is ever left in flight.
        MacStep::Pending
    }

    fn cancel(&mut self, _: &Job<'_>) {}

    fn touched_keys(&mut self) -> bool {
        core::mem::take(&mut self.touched)
    }
}
