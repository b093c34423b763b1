//! The CPU Digest engine: MD5, SHA-1, SHA-224, SHA-256, SHA-384 and SHA-512 with
//! RustCrypto (SHA-NI or the ARMv8 SHA extensions where the CPU has them), behind the same [`DigestEngine`] interface as
//! the hardware engines.
//!
//! Each session keeps a RustCrypto hasher, which buffers its own partial block; segments
//! are fed in pieces of [`PIECE`] bytes copied out of the client's shared region
//! (volatile copies: the client may write it at any moment). Every request finishes in
//! `start`: the CPU has no interrupt. Paths: the CPU has no descriptors to chain, so it
//! takes `Auto` and refuses `Chained` and `Copy`, which name hardware strategies.
//!
//! Assumes segments were validated by `digest-service`. `no_std`, no heap.

use digest::Digest as _;
use digest_service::{DigestEngine, DigestStep, DigestValue, Job};
use pd_idl::digest::{Algorithm, DigestError, DigestOp, HashPath};

/// One session's running hash.
#[derive(Clone, Debug)]
pub enum Hasher {
    Md5(md5::Md5),
    Sha1(sha1::Sha1),
    Sha224(sha2::Sha224),
    Sha256(sha2::Sha256),
    Sha384(sha2::Sha384),
    Sha512(sha2::Sha512),
}

impl Hasher {
    fn update(&mut self, bytes: &[u8]) {
        match self {
            Hasher::Md5(h) => h.update(bytes),
            Hasher::Sha1(h) => h.update(bytes),
            Hasher::Sha224(h) => h.update(bytes),
            Hasher::Sha256(h) => h.update(bytes),
            Hasher::Sha384(h) => h.update(bytes),
            Hasher::Sha512(h) => h.update(bytes),
        }
    }

    /// The digest so far; the session's hasher restarts (the service refuses further
    /// data after a final anyway).
    fn finalize(&mut self) -> DigestValue {
        match self {
            Hasher::Md5(h) => DigestValue::new(&h.finalize_reset()),
            Hasher::Sha1(h) => DigestValue::new(&h.finalize_reset()),
            Hasher::Sha224(h) => DigestValue::new(&h.finalize_reset()),
            Hasher::Sha256(h) => DigestValue::new(&h.finalize_reset()),
            Hasher::Sha384(h) => DigestValue::new(&h.finalize_reset()),
            Hasher::Sha512(h) => DigestValue::new(&h.finalize_reset()),
        }
    }
}

/// Bytes hashed per private copy: 16 whole SHA-256 blocks (8 of SHA-512's 128-byte
/// blocks, so no piece leaves a partial block behind) per call into the hasher (the
/// copy, vector by vector, overlaps little with the compression, so fewer, longer
/// calls win), and 128 bytes more, so that a piece of 1 KiB can start where its copy
/// moves whole vectors ([`queued_service::ClientData::for_each_piece`]).
const PIECE: usize = 1024 + 128;

/// The private copy a request is hashed from: 16-byte aligned, so the copy out of an
/// aligned client buffer moves whole vectors.
#[repr(C, align(16))]
struct Piece([u8; PIECE]);

impl Default for Piece {
    fn default() -> Self {
        Piece([0; PIECE])
    }
}

/// The CPU Digest engine. Stateless between requests: each session carries its hasher.
#[derive(Default)]
pub struct CpuDigest {
    /// Bytes hashed, for the ledger (CPU digest bytes).
    pub bytes: u64,
    /// The private copy, kept rather than zeroed per request (a 16-byte digest spent
    /// 6% of its time clearing it).
    buf: Piece,
}

impl core::fmt::Debug for CpuDigest {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CpuDigest")
            .field("bytes", &self.bytes)
            .finish_non_exhaustive()
    }
}

impl CpuDigest {
    fn feed(&mut self, hasher: &mut Hasher, job: &Job<'_>) {
        job.data
            .for_each_piece(&job.segs, &mut self.buf.0, |piece| hasher.update(piece));
        self.bytes += u64::from(job.segs.total());
    }
}

impl DigestEngine for CpuDigest {
    type Context = Hasher;

    /// Every algorithm, on the one path a CPU has.
    fn supports(&self, _: Algorithm, path: HashPath) -> Result<(), DigestError> {
        match path {
            HashPath::Auto => Ok(()),
            _ => Err(DigestError::UnsupportedPath),
        }
    }

    fn open(
        &mut self,
        _slot: usize,
        algorithm: Algorithm,
        path: HashPath,
    ) -> Result<Hasher, DigestError> {
        self.supports(algorithm, path)?;
        Ok(match algorithm {
            Algorithm::Md5 => Hasher::Md5(md5::Md5::new()),
            Algorithm::Sha1 => Hasher::Sha1(sha1::Sha1::new()),
            Algorithm::Sha224 => Hasher::Sha224(sha2::Sha224::new()),
            Algorithm::Sha256 => Hasher::Sha256(sha2::Sha256::new()),
            Algorithm::Sha384 => Hasher::Sha384(sha2::Sha384::new()),
            Algorithm::Sha512 => Hasher::Sha512(sha2::Sha512::new()),
        })
    }

    fn restart(
        &mut self,
        slot: usize,
        hasher: &mut Hasher,
        algorithm: Algorithm,
        path: HashPath,
    ) -> Result<(), DigestError> {
        // In place (see the trait); a session keeps its algorithm, and a mismatch cannot
        // happen, but would get the right hasher all the same.
        match (hasher, algorithm) {
            (Hasher::Md5(h), Algorithm::Md5) => digest::Digest::reset(h),
            (Hasher::Sha1(h), Algorithm::Sha1) => digest::Digest::reset(h),
            (Hasher::Sha224(h), Algorithm::Sha224) => digest::Digest::reset(h),
            (Hasher::Sha256(h), Algorithm::Sha256) => digest::Digest::reset(h),
            (Hasher::Sha384(h), Algorithm::Sha384) => digest::Digest::reset(h),
            (Hasher::Sha512(h), Algorithm::Sha512) => digest::Digest::reset(h),
            (h, _) => *h = self.open(slot, algorithm, path)?,
        }
        Ok(())
    }

    fn start(&mut self, hasher: &mut Hasher, job: &Job<'_>) -> DigestStep {
        self.feed(hasher, job);
        DigestStep::Done(Ok(match job.op {
            DigestOp::Update => None,
            DigestOp::Final => Some(hasher.finalize()),
        }))
    }

    fn interrupt(&mut self, _: &mut Hasher, _: &Job<'_>) -> DigestStep {
        // Nothing is ever left in flight.
        DigestStep::Pending
    }

    fn cancel(&mut self, _: &Job<'_>) {}
}
