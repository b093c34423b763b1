//! The CPU Aead engine: AES-GCM (SP 800-38D) with RustCrypto's `aes-gcm`, and AES-CCM
//! (SP 800-38C) written here over RustCrypto's `aes`, behind `aead-service`'s
//! [`AeadEngine`].
//!
//! Each request is one whole message: its AAD and payload are copied out of the
//! client's region (volatile copies) into private buffers, sealed or opened there, and
//! only then is the payload copied back (and an encrypt's tag written): a client
//! scribbling on its region meanwhile spoils only its own result, and a decrypt whose
//! tag does not verify copies nothing back (the service then zeroes the payload in the
//! client's region). The private copy is zeroed after every request.
//!
//! CCM is here, not RustCrypto's `ccm`: that crate fixes the nonce and tag lengths in
//! the type, and the 3 key sizes x 7 nonces x 7 tags SP 800-38C allows are 147
//! instances of it in a PD's flash; here the lengths are values. Its tag is compared
//! with `subtle` in constant time; the tests check it against SP 800-38C's examples,
//! CAVP's cases and the `ccm` crate at every nonce and tag length. GCM's 12..16-byte
//! tags are `aes-gcm`'s type parameter: 15 instances (its compare is constant time).
//!
//! Assumes the service checked the job (segments inside the region and apart, lengths
//! the session's, AAD and payload within the limits). `no_std`, no heap.

use aead_service::{
    AeadEngine, AeadStep, Job, Key, MAX_AAD, MAX_NONCE, MAX_PAYLOAD, MAX_TAG, Segments,
};
use aes::cipher::{BlockEncrypt, BlockSizeUser, KeyInit};
use aes::{Aes128, Aes192, Aes256, Block};
use aes_gcm::aead::AeadInPlace;
use aes_gcm::aead::consts::{U12, U13, U14, U15, U16};
use aes_gcm::aead::generic_array::GenericArray;
use aes_gcm::{AesGcm, TagSize};
use pd_idl::aead::{AeadAlgorithm, AeadError, AeadOp};
use pd_idl::common::Segment;
use subtle::ConstantTimeEq;

/// The CPU Aead engine. Nothing per session: the key is expanded per request (a few
/// tens of nanoseconds beside the message's work), so 16 sessions cost 16 keys.
pub struct CpuAead {
    /// Payload bytes sealed or opened, for the ledger.
    pub bytes: u64,
    payload: [u8; MAX_PAYLOAD],
    aad: [u8; MAX_AAD],
    /// Where driver-chosen nonces come from: the PD's Rng service, if it has one.
    random: Option<fn(&mut [u8]) -> bool>,
    /// A key was expanded since the PD last asked ([`AeadEngine::touched_keys`]).
    touched: bool,
}

impl CpuAead {
    /// The engine drawing the nonces it is asked to choose from `random` (the PD's call
    /// to its Rng service).
    pub fn with_random(random: fn(&mut [u8]) -> bool) -> Self {
        CpuAead {
            random: Some(random),
            ..Self::default()
        }
    }
}

impl Default for CpuAead {
    fn default() -> Self {
        CpuAead {
            bytes: 0,
            payload: [0; MAX_PAYLOAD],
            aad: [0; MAX_AAD],
            random: None,
            touched: false,
        }
    }
}

/// Copies `segs` out of the region into `out`, in order; the bytes copied.
fn gather(job: &Job<'_>, segs: &Segments, out: &mut [u8]) -> usize {
    let mut at = 0;
    for s in segs.as_slice() {
        let n = s.len as usize;
        // Checked inside the region and within the buffer's limit: cannot fail.
        let inside = job
            .data
            .region
            .read_bytes(s.offset as usize, &mut out[at..at + n]);
        debug_assert!(inside);
        at += n;
    }
    at
}

/// Copies `from` back over `segs`, in order.
fn scatter(job: &Job<'_>, segs: &Segments, from: &[u8]) {
    let mut at = 0;
    for s in segs.as_slice() {
        let n = s.len as usize;
        job.data.write_output(*s, &from[at..at + n]);
        at += n;
    }
}

/// `len` bytes of `seg` (the nonce, a decrypt's tag) into a private array.
fn read_small<const N: usize>(job: &Job<'_>, seg: Segment) -> [u8; N] {
    let mut out = [0; N];
    let n = (seg.len as usize).min(N);
    let inside = job
        .data
        .region
        .read_bytes(seg.offset as usize, &mut out[..n]);
    debug_assert!(inside);
    out
}

impl AeadEngine for CpuAead {
    type Context = ();

    /// Both modes, every key size (the service refuses other key lengths).
    fn supports(&self, _: AeadAlgorithm, _: usize) -> Result<(), AeadError> {
        Ok(())
    }

    fn open(&mut self, _: usize, _: AeadAlgorithm, _: &[u8]) -> Result<(), AeadError> {
        Ok(())
    }

    fn start(&mut self, _: &mut (), key: &Key, job: &Job<'_>) -> AeadStep {
        // Every message expands its key: the schedule's moved copies stay on the stack.
        self.touched = true;
        let result = self.run(key.as_bytes(), job);
        AeadStep::Done(result)
    }

    fn interrupt(&mut self, _: &mut (), _: &Job<'_>) -> AeadStep {
        // Nothing is ever left in flight.
        AeadStep::Pending
    }

    fn cancel(&mut self, _: &Job<'_>) {}

    fn random(&mut self, out: &mut [u8]) -> bool {
        self.random.is_some_and(|draw| draw(out))
    }

    fn touched_keys(&mut self) -> bool {
        core::mem::take(&mut self.touched)
    }
}

impl CpuAead {
    fn run(&mut self, key: &[u8], job: &Job<'_>) -> Result<(), AeadError> {
        let nonce: [u8; MAX_NONCE] = read_small(job, job.nonce);
        let nonce = &nonce[..job.nonce.len as usize];
        let t = job.tag.len as usize;
        let mut tag: [u8; MAX_TAG] = match job.op {
            AeadOp::Decrypt => read_small(job, job.tag),
            // The service hands its engine `Encrypt` for a driver-chosen nonce too.
            AeadOp::Encrypt | AeadOp::EncryptNewNonce => [0; MAX_TAG],
        };
        let a = gather(job, &job.aad, &mut self.aad);
        let p = gather(job, &job.payload, &mut self.payload);
        let (aad, buf) = (&self.aad[..a], &mut self.payload[..p]);
        let result = match job.algorithm {
            AeadAlgorithm::AesGcm => gcm(key, nonce, aad, buf, &mut tag[..t], job.op),
            AeadAlgorithm::AesCcm => ccm_keyed(key, nonce, aad, buf, &mut tag[..t], job.op),
        };
        if result.is_ok() {
            scatter(job, &job.payload, buf);
            if job.op == AeadOp::Encrypt {
                job.data.write_output(job.tag, &tag[..t]);
            }
            self.bytes += p as u64;
        }
        // Plaintext (sealed or opened) and AAD leave no copy in the driver.
        zeroize::Zeroize::zeroize(buf);
        zeroize::Zeroize::zeroize(&mut self.aad[..a]);
        result
    }
}

/// CCM under the AES of `key`'s size.
fn ccm_keyed(
    key: &[u8],
    nonce: &[u8],
    aad: &[u8],
    buf: &mut [u8],
    tag: &mut [u8],
    op: AeadOp,
) -> Result<(), AeadError> {
    // The service took only these lengths.
    match key.len() {
        16 => ccm(
            &Aes128::new(GenericArray::from_slice(key)),
            nonce,
            aad,
            buf,
            tag,
            op,
        ),
        24 => ccm(
            &Aes192::new(GenericArray::from_slice(key)),
            nonce,
            aad,
            buf,
            tag,
            op,
        ),
        32 => ccm(
            &Aes256::new(GenericArray::from_slice(key)),
            nonce,
            aad,
            buf,
            tag,
            op,
        ),
        _ => Err(AeadError::BadKeySize),
    }
}

/// GCM of `buf` in place under `key` with tags of `tag.len()` (12 to 16) bytes.
fn gcm(
    key: &[u8],
    nonce: &[u8],
    aad: &[u8],
    buf: &mut [u8],
    tag: &mut [u8],
    op: AeadOp,
) -> Result<(), AeadError> {
    fn sized<T: TagSize>(
        key: &[u8],
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &mut [u8],
        op: AeadOp,
    ) -> Result<(), AeadError> {
        match key.len() {
            16 => keyed::<Aes128, T>(key, nonce, aad, buf, tag, op),
            24 => keyed::<Aes192, T>(key, nonce, aad, buf, tag, op),
            _ => keyed::<Aes256, T>(key, nonce, aad, buf, tag, op),
        }
    }
    fn keyed<C, T>(
        key: &[u8],
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &mut [u8],
        op: AeadOp,
    ) -> Result<(), AeadError>
    where
        C: aes::cipher::BlockCipher + BlockSizeUser<BlockSize = U16> + BlockEncrypt + KeyInit,
        T: TagSize,
    {
        let g = <AesGcm<C, U12, T> as KeyInit>::new_from_slice(key)
            .map_err(|_| AeadError::BadKeySize)?;
        let nonce = GenericArray::from_slice(nonce);
        match op {
            AeadOp::Encrypt | AeadOp::EncryptNewNonce => {
                let t = g
                    .encrypt_in_place_detached(nonce, aad, buf)
                    .map_err(|_| AeadError::MessageTooLong)?;
                tag.copy_from_slice(&t);
                Ok(())
            }
            AeadOp::Decrypt => g
                .decrypt_in_place_detached(nonce, aad, buf, GenericArray::from_slice(tag))
                .map_err(|_| AeadError::TagMismatch),
        }
    }
    match tag.len() {
        12 => sized::<U12>(key, nonce, aad, buf, tag, op),
        13 => sized::<U13>(key, nonce, aad, buf, tag, op),
        14 => sized::<U14>(key, nonce, aad, buf, tag, op),
        15 => sized::<U15>(key, nonce, aad, buf, tag, op),
        16 => sized::<U16>(key, nonce, aad, buf, tag, op),
        _ => Err(AeadError::BadTagLength),
    }
}

/// SP 800-38C's CBC-MAC, fed bytes in order, each input block zero-padded where the
/// formatting function says (after B0 and the AAD's encoding, after the payload).
struct CbcMac<'c, C> {
    cipher: &'c C,
    x: Block,
    fill: usize,
}

impl<C: BlockEncrypt + BlockSizeUser<BlockSize = U16>> CbcMac<'_, C> {
    fn absorb(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.x[self.fill] ^= b;
            self.fill += 1;
            if self.fill == 16 {
                self.cipher.encrypt_block(&mut self.x);
                self.fill = 0;
            }
        }
    }

    /// Ends the current input with zeros to a block.
    fn pad(&mut self) {
        if self.fill > 0 {
            self.cipher.encrypt_block(&mut self.x);
            self.fill = 0;
        }
    }
}

/// CCM of `buf` in place (SP 800-38C 6.1 and 6.2): nonce of 7 to 13 bytes, tag of
/// `tag.len()` (even, 4 to 16), `buf` and `aad` within the service's limits (so the
/// payload's length fits the 2-byte field of a 13-byte nonce, and the AAD's length
/// the 2-byte encoding of A.2.2).
fn ccm<C: BlockEncrypt + BlockSizeUser<BlockSize = U16>>(
    cipher: &C,
    nonce: &[u8],
    aad: &[u8],
    buf: &mut [u8],
    tag: &mut [u8],
    op: AeadOp,
) -> Result<(), AeadError> {
    let (n, t) = (nonce.len(), tag.len());
    if !(7..=13).contains(&n) || !(4..=16).contains(&t) || t & 1 == 1 {
        return Err(AeadError::BadRequest);
    }
    let q = 15 - n;
    // Counter blocks (A.3): flags q - 1, the nonce, the counter in the last q bytes.
    let mut ctr = Block::default();
    ctr[0] = (q - 1) as u8;
    ctr[1..1 + n].copy_from_slice(nonce);
    let keystream = |i: u64| {
        let mut a = ctr;
        // q >= 2 and at most 129 counters: the low 8 bytes (or fewer) hold it.
        let be = i.to_be_bytes();
        let k = q.min(8);
        a[16 - k..].copy_from_slice(&be[8 - k..]);
        cipher.encrypt_block(&mut a);
        a
    };
    let ctr_xor = |buf: &mut [u8]| {
        for (i, chunk) in buf.chunks_mut(16).enumerate() {
            let s = keystream(i as u64 + 1);
            chunk.iter_mut().zip(s.iter()).for_each(|(b, k)| *b ^= k);
        }
    };
    if op == AeadOp::Decrypt {
        ctr_xor(buf);
    }
    // B0 (A.2.1): flags, the nonce, the payload's length in q bytes.
    let mut b0 = Block::default();
    b0[0] = (u8::from(!aad.is_empty()) << 6) | (((t - 2) / 2) as u8) << 3 | (q - 1) as u8;
    b0[1..1 + n].copy_from_slice(nonce);
    let plen = (buf.len() as u64).to_be_bytes();
    let k = q.min(8);
    b0[16 - k..].copy_from_slice(&plen[8 - k..]);
    let mut mac = CbcMac {
        cipher,
        x: Block::default(),
        fill: 0,
    };
    mac.absorb(&b0);
    if !aad.is_empty() {
        // A.2.2: a length below 2^16 - 2^8 in two bytes (the service's limit is).
        mac.absorb(&(aad.len() as u16).to_be_bytes());
        mac.absorb(aad);
        mac.pad();
    }
    mac.absorb(buf);
    mac.pad();
    let s0 = keystream(0);
    let mut want = [0u8; 16];
    for i in 0..t {
        want[i] = mac.x[i] ^ s0[i];
    }
    match op {
        AeadOp::Encrypt | AeadOp::EncryptNewNonce => {
            ctr_xor(buf);
            tag.copy_from_slice(&want[..t]);
            Ok(())
        }
        AeadOp::Decrypt => {
            if bool::from(want[..t].ct_eq(tag)) {
                Ok(())
            } else {
                // The opened payload stays private: the caller copies nothing back
                // and zeroes its buffer.
                Err(AeadError::TagMismatch)
            }
        }
    }
}
