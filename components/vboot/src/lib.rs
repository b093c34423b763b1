//! Verified boot: the manifest that describes a boot image, and the check that an image
//! matches it.
//!
//! A manifest is the hubpack encoding of a [`ManifestBody`] (image name, length, SHA-256,
//! version) followed by a 64-byte Ed25519 signature over exactly those encoded bytes.
//! [`check`] answers "verified" or exactly why not, in an order chosen so that nothing
//! an attacker controls is acted on before the signature is known good:
//!
//! 1. the manifest decodes (`CorruptManifest` otherwise);
//! 2. the signature verifies under the trusted key (`BadSignature`);
//! 3. the version is not below the rollback floor (`Rollback`);
//! 4. the image holds as many bytes as the manifest says (`TruncatedImage`); an image
//!    that is a whole file holds no more ([`check_whole`], `TrailingData`);
//! 5. the SHA-256 of those bytes, computed by the caller's digest engine (on a board,
//!    the Digest driver PD), equals the manifest's (`DigestMismatch`).
//!
//! [`check`] takes the image's container as holding *at least* the image: a boot
//! region is sized for the largest image, and what lies past the signed length is never
//! loaded as the image. A file is the image whole: whoever uses it uses every byte, so
//! a byte past the signed length is unsigned content and [`check_whole`] refuses it.
//!
//! Assumes the verifying key is trusted (built into the verifier's image). `no_std`.
#![no_std]
#![forbid(unsafe_code)]

use ed25519_dalek::{Signature, VerifyingKey};
use hubpack::SerializedSize;
use serde::{Deserialize, Serialize};

/// Longest image name.
pub const NAME_MAX: usize = 32;
pub const SIGNATURE_LEN: usize = 64;
/// Bytes of an encoded manifest: the body and its signature.
pub const MANIFEST_LEN: usize = ManifestBody::MAX_SIZE + SIGNATURE_LEN;

/// What a manifest says about an image.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, SerializedSize)]
pub struct ManifestBody {
    /// Format marker and version of this layout.
    pub magic: [u8; 4],
    pub name_len: u8,
    pub name: [u8; NAME_MAX],
    /// Image length in bytes.
    pub length: u64,
    pub sha256: [u8; 32],
    /// Monotonic image version, checked against a rollback floor.
    pub version: u32,
}

pub const MAGIC: [u8; 4] = *b"PDV1";

impl ManifestBody {
    /// A body for `name` (truncated to [`NAME_MAX`] bytes).
    pub fn new(name: &str, length: u64, sha256: [u8; 32], version: u32) -> Self {
        let n = name.len().min(NAME_MAX);
        let mut buf = [0; NAME_MAX];
        buf[..n].copy_from_slice(&name.as_bytes()[..n]);
        ManifestBody {
            magic: MAGIC,
            name_len: n as u8,
            name: buf,
            length,
            sha256,
            version,
        }
    }

    pub fn name(&self) -> &[u8] {
        &self.name[..usize::from(self.name_len).min(NAME_MAX)]
    }

    /// The bytes the signature covers.
    pub fn encode(&self) -> [u8; ManifestBody::MAX_SIZE] {
        let mut out = [0; ManifestBody::MAX_SIZE];
        // Fixed-size fields only: the encoding always fills MAX_SIZE exactly.
        let n = hubpack::serialize(&mut out, self).expect("fixed-size body");
        debug_assert_eq!(n, out.len());
        out
    }
}

/// A manifest: its body, signed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Manifest {
    pub body: ManifestBody,
    pub signature: [u8; SIGNATURE_LEN],
}

impl Manifest {
    pub fn encode(&self) -> [u8; MANIFEST_LEN] {
        let mut out = [0; MANIFEST_LEN];
        out[..ManifestBody::MAX_SIZE].copy_from_slice(&self.body.encode());
        out[ManifestBody::MAX_SIZE..].copy_from_slice(&self.signature);
        out
    }

    /// Decodes a manifest: exactly [`MANIFEST_LEN`] bytes, the right magic, a sane name.
    pub fn decode(bytes: &[u8]) -> Result<Self, VbootError> {
        if bytes.len() != MANIFEST_LEN {
            return Err(VbootError::CorruptManifest);
        }
        let (body, rest) = hubpack::deserialize::<ManifestBody>(&bytes[..ManifestBody::MAX_SIZE])
            .map_err(|_| VbootError::CorruptManifest)?;
        if !rest.is_empty() || body.magic != MAGIC || usize::from(body.name_len) > NAME_MAX {
            return Err(VbootError::CorruptManifest);
        }
        let mut signature = [0; SIGNATURE_LEN];
        signature.copy_from_slice(&bytes[ManifestBody::MAX_SIZE..]);
        Ok(Manifest { body, signature })
    }
}

/// Why an image is not verified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VbootError {
    /// The manifest cannot be decoded.
    CorruptManifest,
    /// The signature does not verify under the trusted key (or the key is malformed).
    BadSignature,
    /// The image's version is below the rollback floor.
    Rollback { version: u32, floor: u32 },
    /// The image holds fewer bytes than the manifest says.
    TruncatedImage { have: u64, want: u64 },
    /// A whole image ([`check_whole`]) holds more bytes than the manifest signs.
    TrailingData { have: u64, want: u64 },
    /// The image's SHA-256 is not the manifest's.
    DigestMismatch,
    /// The digest engine failed (the string says which way).
    Digest(&'static str),
}

impl core::fmt::Display for VbootError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            VbootError::CorruptManifest => f.write_str("corrupt manifest"),
            VbootError::BadSignature => f.write_str("bad signature"),
            VbootError::Rollback { version, floor } => {
                write!(f, "rollback: version {version} is below the floor {floor}")
            }
            VbootError::TruncatedImage { have, want } => {
                write!(f, "truncated image: {have} bytes, manifest says {want}")
            }
            VbootError::TrailingData { have, want } => {
                write!(f, "trailing data: {have} bytes, manifest signs {want}")
            }
            VbootError::DigestMismatch => f.write_str("digest mismatch"),
            VbootError::Digest(why) => write!(f, "digest engine failed: {why}"),
        }
    }
}

/// Checks an image against a manifest. `image_len` is how many bytes the image holds;
/// `sha256(n)` hashes its first `n` bytes (called only once everything else checked out).
pub fn check(
    manifest: &[u8],
    trusted_key: &[u8; 32],
    floor: u32,
    image_len: u64,
    sha256: impl FnOnce(u64) -> Result<[u8; 32], &'static str>,
) -> Result<ManifestBody, VbootError> {
    hashed(precheck(manifest, trusted_key, floor, image_len)?, sha256)
}

/// [`check`] for an image that is its container whole (a file): refuses bytes past
/// the signed length too (`TrailingData`), before hashing.
pub fn check_whole(
    manifest: &[u8],
    trusted_key: &[u8; 32],
    floor: u32,
    image_len: u64,
    sha256: impl FnOnce(u64) -> Result<[u8; 32], &'static str>,
) -> Result<ManifestBody, VbootError> {
    let body = precheck(manifest, trusted_key, floor, image_len)?;
    if image_len != body.length {
        return Err(VbootError::TrailingData {
            have: image_len,
            want: body.length,
        });
    }
    hashed(body, sha256)
}

/// Step 5 with the caller's engine: `body` once its image's digest matches.
fn hashed(
    body: ManifestBody,
    sha256: impl FnOnce(u64) -> Result<[u8; 32], &'static str>,
) -> Result<ManifestBody, VbootError> {
    let digest = sha256(body.length).map_err(VbootError::Digest)?;
    compare(&body, &digest)?;
    Ok(body)
}

/// Steps 1-4 of [`check`]: everything but the image's digest. A verifier whose digest
/// engine answers asynchronously (a Digest driver PD over queues) calls this, hashes the
/// first `body.length` bytes, then calls [`compare`].
pub fn precheck(
    manifest: &[u8],
    trusted_key: &[u8; 32],
    floor: u32,
    image_len: u64,
) -> Result<ManifestBody, VbootError> {
    let m = Manifest::decode(manifest)?;
    let key = VerifyingKey::from_bytes(trusted_key).map_err(|_| VbootError::BadSignature)?;
    key.verify_strict(&m.body.encode(), &Signature::from_bytes(&m.signature))
        .map_err(|_| VbootError::BadSignature)?;
    if m.body.version < floor {
        return Err(VbootError::Rollback {
            version: m.body.version,
            floor,
        });
    }
    if image_len < m.body.length {
        return Err(VbootError::TruncatedImage {
            have: image_len,
            want: m.body.length,
        });
    }
    Ok(m.body)
}

/// Step 5 of [`check`]: the image's SHA-256 against the (already verified) manifest's.
pub fn compare(body: &ManifestBody, sha256: &[u8; 32]) -> Result<(), VbootError> {
    if *sha256 == body.sha256 {
        Ok(())
    } else {
        Err(VbootError::DigestMismatch)
    }
}
