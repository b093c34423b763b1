//! The CPU Digest engine: MD5, SHA-1 and SHA-256 with RustCrypto (SHA-NI or the ARMv8
//! SHA extensions where the CPU has them), behind the same [`DigestEngine`] interface as
//! the hardware engines.
//!
//! Each session keeps a RustCrypto hasher, which buffers its own partial block; segments
//! are fed where they lie in the client's region, so nothing is copied. Paths: the CPU has
//! no descriptors to chain, so it takes `Auto` and refuses `Chained` and `Copy`, which
//! name hardware strategies.
//!
//! Assumes segments were validated by `digest-service`. `no_std`, no heap.

use digest::Digest as _;
use digest_service::{ClientData, Digest, DigestEngine, Segments, Session};
use pd_idl::digest::{Algorithm, DigestError, HashPath};

/// One session's running hash.
#[derive(Clone, Debug)]
pub enum Hasher {
    Md5(md5::Md5),
    Sha1(sha1::Sha1),
    Sha256(sha2::Sha256),
}

impl Hasher {
    fn update(&mut self, bytes: &[u8]) {
        match self {
            Hasher::Md5(h) => h.update(bytes),
            Hasher::Sha1(h) => h.update(bytes),
            Hasher::Sha256(h) => h.update(bytes),
        }
    }

    /// The digest so far; the session's hasher restarts (the service refuses further
    /// data after a final anyway).
    fn finalize(&mut self) -> Digest {
        match self {
            Hasher::Md5(h) => Digest::new(&h.finalize_reset()),
            Hasher::Sha1(h) => Digest::new(&h.finalize_reset()),
            Hasher::Sha256(h) => Digest::new(&h.finalize_reset()),
        }
    }
}

/// The CPU Digest engine. Stateless between requests: each session carries its hasher.
#[derive(Debug, Default)]
pub struct CpuDigest {
    /// Bytes hashed, for the ledger (CPU digest bytes).
    pub bytes: u64,
}

impl CpuDigest {
    fn feed(&mut self, hasher: &mut Hasher, segs: &Segments, data: &ClientData<'_>) {
        for s in segs.as_slice() {
            hasher.update(&data.bytes[s.offset as usize..(s.offset + s.len) as usize]);
        }
        self.bytes += u64::from(segs.total());
    }
}

impl DigestEngine for CpuDigest {
    type Context = Hasher;

    fn open(
        &mut self,
        _slot: usize,
        algorithm: Algorithm,
        path: HashPath,
    ) -> Result<Hasher, DigestError> {
        if path != HashPath::Auto {
            return Err(DigestError::UnsupportedPath);
        }
        Ok(match algorithm {
            Algorithm::Md5 => Hasher::Md5(md5::Md5::new()),
            Algorithm::Sha1 => Hasher::Sha1(sha1::Sha1::new()),
            Algorithm::Sha256 => Hasher::Sha256(sha2::Sha256::new()),
        })
    }

    fn update(
        &mut self,
        session: &mut Session<Hasher>,
        segs: &Segments,
        data: &ClientData<'_>,
    ) -> Result<(), DigestError> {
        self.feed(&mut session.engine, segs, data);
        Ok(())
    }

    fn finish(
        &mut self,
        session: &mut Session<Hasher>,
        segs: &Segments,
        data: &ClientData<'_>,
    ) -> Result<Digest, DigestError> {
        self.feed(&mut session.engine, segs, data);
        Ok(session.engine.finalize())
    }
}
