//! The CPU Aead engine: AES-GCM (SP 800-38D) and AES-CCM (SP 800-38C) over RustCrypto's
//! `aes`, `ctr` and `ghash`, behind `aead-service`'s [`AeadEngine`].
//!
//! Each request is one whole message, streamed through one private buffer in pieces:
//! each piece of AAD is copied out of the client's region (volatile copies) and fed to
//! the MAC; each piece of payload is copied out, fed to the MAC and run through the
//! counter mode (in the order the mode says), and written back. Every byte the MAC
//! takes is the byte the counter mode worked on, so a client scribbling on its region
//! meanwhile spoils only its own result. A decrypt of a payload that fits the buffer
//! ([`PRIVATE`], 2 KiB) is opened wholly in private and written back only once its tag
//! verified: no plaintext of a forgery ever reaches the client's region, even for a
//! client reading it while the driver works (one with a key by handle would otherwise
//! have a CTR decryption of any ciphertext, beyond what its key's policy grants). A
//! longer one writes its plaintext back as it goes, as a hardware engine decrypting in
//! place does; if its tag then fails the service zeroes the payload before it answers,
//! which protects a client that reads its payload after the answer, not one that reads
//! it while the driver works. So a message is as long as its mode allows, not as the
//! buffer: what bounds it is SP 800-38C's length field (`aead_service::payload_ok`).
//!
//! Both modes are written here over the primitives, not taken whole from RustCrypto's
//! `aes-gcm` and `ccm`: those want the message in one `&mut [u8]`, which a client's
//! shared region is not (and a private copy of a whole message would bound its length
//! by the PD's memory), and they fix the nonce and tag lengths in the type (GCM's 5
//! tags and CCM's 7 nonces x 7 tags, 162 instances over 3 key sizes); here the lengths
//! are values. The tests check both against CAVP's and SP 800-38C's cases and against
//! `aes-gcm` and `ccm` at every nonce and tag length; tags are compared with `subtle`
//! in constant time.
//!
//! Assumes the service checked the job (segments inside the region and apart, lengths
//! the session's, the payload within its mode's limit). `no_std`, no heap.

use aead_service::{AeadEngine, AeadStep, Job, Key, MAX_NONCE, MAX_TAG};
use aes::cipher::{BlockCipher, BlockEncrypt, BlockSizeUser, InnerIvInit, KeyInit, StreamCipher};
use aes::{Aes128Enc, Aes192Enc, Aes256Enc, Block};
use ghash::GHash;
use ghash::universal_hash::UniversalHash;
use pd_idl::aead::{AeadAlgorithm, AeadError, AeadOp};
use pd_idl::common::Segment;
use subtle::ConstantTimeEq;

/// The private buffer a message streams through: long enough that a piece's fixed costs
/// (two volatile copies, a keystream call) vanish beside its bytes' work, and 128 bytes
/// more, so that each piece of 2 KiB can start where its copy moves whole vectors.
const PIECE: usize = 2048 + 128;

/// The longest payload a decrypt opens wholly in private, writing nothing back before its
/// tag verified.
const PRIVATE: usize = 2048;

/// [`PIECE`] bytes, 16-byte aligned (a piece from an aligned client buffer starts at its
/// start), held as 16-byte words so that zeroing it is a volatile store per 16 bytes,
/// not per byte.
struct Piece([u128; PIECE / 16]);

impl Piece {
    fn bytes(&mut self) -> &mut [u8] {
        zerocopy::IntoBytes::as_mut_bytes(&mut self.0)
    }
}

/// The CPU Aead engine. Nothing per session: the last key used is kept expanded
/// ([`Expanded`]), so a session's messages one after another expand it once; another
/// session's key replaces it (not one per session: with CPU detection an AES-256 key
/// schedule is ~1 KiB, 16 of them past `driver_pd::MAX_STATE`).
pub struct CpuAead {
    /// Payload bytes sealed or opened, for the ledger.
    pub bytes: u64,
    /// Key expansions done (a message that found its key expanded did none).
    pub expansions: u64,
    last: Option<Expanded>,
    buf: Piece,
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
            expansions: 0,
            last: None,
            buf: Piece([0; PIECE / 16]),
            random: None,
            touched: false,
        }
    }
}

/// An AES key's encryption schedule (both modes only encrypt).
enum Schedule {
    A128(Aes128Enc),
    A192(Aes192Enc),
    A256(Aes256Enc),
}

/// The last key used, expanded, with what identifies it. Its bytes are wiped when it
/// goes (replaced, or forgotten at its session's close), its schedule by the `aes`
/// crate's own drop (its `zeroize` feature).
struct Expanded {
    key: [u8; 32],
    key_len: u8,
    schedule: Schedule,
}

impl Expanded {
    fn new(key: &[u8]) -> Option<Expanded> {
        let schedule = match key.len() {
            16 => Schedule::A128(Aes128Enc::new(key.into())),
            24 => Schedule::A192(Aes192Enc::new(key.into())),
            32 => Schedule::A256(Aes256Enc::new(key.into())),
            _ => return None,
        };
        let mut e = Expanded {
            key: [0; 32],
            key_len: key.len() as u8,
            schedule,
        };
        e.key[..key.len()].copy_from_slice(key);
        Some(e)
    }

    /// Whether this is `key`'s, every byte compared whatever the first difference.
    fn holds(&self, key: &[u8]) -> bool {
        usize::from(self.key_len) == key.len() && bool::from(self.key[..key.len()].ct_eq(key))
    }
}

impl Drop for Expanded {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.key);
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
        let result = self.run(key.as_bytes(), job);
        // Every message leaves key-dependent values on the stack (GHASH's H, E(J0), the
        // counter mode's keystream, the CBC-MAC state), which `ghash` does not wipe:
        // the PD scrubs after the pass, as it did before the key was kept.
        self.touched = true;
        AeadStep::Done(result)
    }

    fn closed(&mut self, key: &Key) {
        if self.last.as_ref().is_some_and(|e| e.holds(key.as_bytes())) {
            self.last = None;
        }
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
        let mut tag: [u8; MAX_TAG] = [0; MAX_TAG];
        // The service hands its engine `Encrypt` for a driver-chosen nonce too.
        let decrypt = job.op == AeadOp::Decrypt;
        let msg = Message {
            job,
            nonce,
            decrypt,
            private: decrypt && job.payload.total() as usize <= PRIVATE,
        };
        if !self.last.as_ref().is_some_and(|e| e.holds(key)) {
            // The service took only 16, 24 and 32 bytes.
            self.last = Some(Expanded::new(key).ok_or(AeadError::BadKeySize)?);
            self.expansions += 1;
        }
        let Some(expanded) = &self.last else {
            return Err(AeadError::BadKeySize);
        };
        let buf = self.buf.bytes();
        let gcm_mode = job.algorithm == AeadAlgorithm::AesGcm;
        // The schedule used in place: a copy per message is hundreds of bytes.
        match (&expanded.schedule, gcm_mode) {
            (Schedule::A128(c), true) => gcm(c, &msg, buf, &mut tag),
            (Schedule::A192(c), true) => gcm(c, &msg, buf, &mut tag),
            (Schedule::A256(c), true) => gcm(c, &msg, buf, &mut tag),
            (Schedule::A128(c), false) => ccm(c, &msg, buf, &mut tag),
            (Schedule::A192(c), false) => ccm(c, &msg, buf, &mut tag),
            (Schedule::A256(c), false) => ccm(c, &msg, buf, &mut tag),
        }
        let result = if !msg.decrypt {
            job.data.write_output(job.tag, &tag[..t]);
            Ok(())
        } else {
            let sent: [u8; MAX_TAG] = read_small(job, job.tag);
            if bool::from(tag[..t].ct_eq(&sent[..t])) {
                if msg.private {
                    scatter(job, self.buf.bytes());
                }
                Ok(())
            } else {
                // The service zeroes the payload the decrypt wrote before it answers.
                Err(AeadError::TagMismatch)
            }
        };
        zeroize::Zeroize::zeroize(&mut tag);
        // What passed through the buffer (plaintext, AAD) leaves no copy in the driver:
        // the bytes any piece can have reached (a piece starts up to 15 bytes in), not
        // the whole buffer, whose volatile zeroing by bytes cost a 16-byte message more
        // than its sealing.
        let longest = job.aad.total().max(job.payload.total()) as usize;
        let used = (longest + 16).min(PIECE);
        zeroize::Zeroize::zeroize(&mut self.buf.0[..used.div_ceil(16)]);
        if result.is_ok() {
            self.bytes += u64::from(job.payload.total());
        }
        result
    }
}

/// One message as a mode works it.
struct Message<'j, 'a> {
    job: &'j Job<'a>,
    nonce: &'j [u8],
    decrypt: bool,
    /// Worked wholly in `buf`, written back by the caller if at all ([`PRIVATE`]).
    private: bool,
}

/// The payload's segments copied into `buf`, in order; the bytes copied (the caller
/// checked they fit).
fn gather(job: &Job<'_>, buf: &mut [u8]) -> usize {
    let mut at = 0;
    for s in job.payload.as_slice() {
        let n = s.len as usize;
        let inside = job
            .data
            .region
            .read_bytes(s.offset as usize, &mut buf[at..at + n]);
        debug_assert!(inside);
        at += n;
    }
    at
}

/// `buf` written back over the payload's segments, in order.
fn scatter(job: &Job<'_>, buf: &[u8]) {
    let mut at = 0;
    for s in job.payload.as_slice() {
        let n = s.len as usize;
        job.data.write_output(*s, &buf[at..at + n]);
        at += n;
    }
}

impl Message<'_, '_> {
    /// Runs `f` over the payload: in private (gathered into `buf` and left there), or
    /// streamed through `buf` in pieces, each written back.
    fn payload(&self, buf: &mut [u8], mut f: impl FnMut(&mut [u8])) {
        if self.private {
            let n = gather(self.job, buf);
            f(&mut buf[..n]);
        } else {
            self.job.data.for_each_piece_mut(&self.job.payload, buf, f);
        }
    }

    /// The payload through the counter mode `ctr` and into the MAC, piece by piece, in
    /// the order the mode says: GCM authenticates the ciphertext (`macs_ciphertext`),
    /// CCM the plaintext, so the MAC takes a piece before the keystream when that is
    /// what it comes in as.
    fn crypt_and_mac<M: Blocks>(
        &self,
        buf: &mut [u8],
        ctr: &mut impl StreamCipher,
        mac: &mut Feed<M>,
        macs_ciphertext: bool,
    ) {
        let mac_first = self.decrypt == macs_ciphertext;
        self.payload(buf, |p| {
            if mac_first {
                mac.absorb(p);
                ctr.apply_keystream(p);
            } else {
                ctr.apply_keystream(p);
                mac.absorb(p);
            }
        });
    }

    fn aad_len(&self) -> u64 {
        u64::from(self.job.aad.total())
    }

    fn payload_len(&self) -> u64 {
        u64::from(self.job.payload.total())
    }
}

/// What a MAC does with whole blocks, in order.
trait Blocks {
    fn blocks(&mut self, bytes: &[u8]);
}

/// GHASH takes runs of whole blocks (its `update_padded` pads nothing of them).
impl Blocks for GHash {
    fn blocks(&mut self, bytes: &[u8]) {
        self.update_padded(bytes);
    }
}

/// SP 800-38C's CBC-MAC.
struct CbcMac<'c, C> {
    cipher: &'c C,
    x: Block,
}

impl<C: BlockEncrypt + BlockSizeUser<BlockSize = aes::cipher::consts::U16>> Blocks
    for CbcMac<'_, C>
{
    fn blocks(&mut self, bytes: &[u8]) {
        for b in bytes.chunks_exact(16) {
            self.x.iter_mut().zip(b).for_each(|(x, b)| *x ^= b);
            self.cipher.encrypt_block(&mut self.x);
        }
    }
}

/// A MAC fed bytes in any pieces, keeping the partial block between them; each input
/// the mode's formatting pads is ended by [`pad`](Feed::pad).
struct Feed<M> {
    mac: M,
    part: [u8; 16],
    fill: usize,
}

impl<M: Blocks> Feed<M> {
    fn new(mac: M) -> Self {
        Feed {
            mac,
            part: [0; 16],
            fill: 0,
        }
    }

    fn absorb(&mut self, mut bytes: &[u8]) {
        if self.fill > 0 {
            let n = (16 - self.fill).min(bytes.len());
            self.part[self.fill..self.fill + n].copy_from_slice(&bytes[..n]);
            self.fill += n;
            bytes = &bytes[n..];
            if self.fill < 16 {
                return;
            }
            self.mac.blocks(&self.part);
            self.fill = 0;
        }
        let whole = bytes.len() & !15;
        self.mac.blocks(&bytes[..whole]);
        let rest = &bytes[whole..];
        self.part[..rest.len()].copy_from_slice(rest);
        self.fill = rest.len();
    }

    /// Ends the current input with zeros to a block.
    fn pad(&mut self) {
        if self.fill > 0 {
            self.part[self.fill..].fill(0);
            self.mac.blocks(&self.part);
            self.fill = 0;
        }
    }
}

/// The block ciphers the modes run over: AES of each key size.
trait Aes: BlockCipher + BlockEncrypt + BlockSizeUser<BlockSize = aes::cipher::consts::U16> {}
impl<C: BlockCipher + BlockEncrypt + BlockSizeUser<BlockSize = aes::cipher::consts::U16>> Aes
    for C
{
}

/// GCM (SP 800-38D 7.1, 7.2) with a 96-bit nonce: the counter mode from inc32(J0) over
/// the payload, GHASH over the AAD and the ciphertext, the tag E(J0) ^ S, its first
/// `tag.len()` bytes the session's.
fn gcm<C: Aes>(cipher: &C, msg: &Message<'_, '_>, buf: &mut [u8], tag: &mut [u8; 16]) {
    let mut h = Block::default();
    cipher.encrypt_block(&mut h);
    let mut j0 = Block::default();
    j0[..12].copy_from_slice(msg.nonce);
    j0[15] = 1;
    let mut s0 = j0;
    cipher.encrypt_block(&mut s0);
    let mut ghash = Feed::new(GHash::new(&h));
    let job = msg.job;
    job.data.for_each_piece(&job.aad, buf, |p| ghash.absorb(p));
    ghash.pad();
    j0[15] = 2;
    let mut ctr = ctr::Ctr32BE::<&C>::from_core(ctr::CtrCore::inner_iv_init(cipher, &j0));
    msg.crypt_and_mac(buf, &mut ctr, &mut ghash, true);
    ghash.pad();
    let mut lengths = [0u8; 16];
    lengths[..8].copy_from_slice(&(msg.aad_len() * 8).to_be_bytes());
    lengths[8..].copy_from_slice(&(msg.payload_len() * 8).to_be_bytes());
    ghash.absorb(&lengths);
    let s = ghash.mac.finalize();
    tag.iter_mut()
        .zip(s.iter().zip(s0.iter()))
        .for_each(|(t, (s, e))| *t = s ^ e);
}

/// CCM (SP 800-38C 6.1, 6.2): CBC-MAC over B0, the AAD's encoding and the payload (its
/// plaintext), the counter mode from counter 1 over the payload, the tag the MAC's
/// first `t` bytes under counter 0's keystream. Nonce of 7 to 13 bytes and tag of `t`
/// (even, 4 to 16) checked by the service, and the payload's length within the `q`
/// bytes B0 gives it (`aead_service::payload_ok`).
fn ccm<C: Aes>(cipher: &C, msg: &Message<'_, '_>, buf: &mut [u8], tag: &mut [u8; 16]) {
    let job = msg.job;
    let (n, t) = (msg.nonce.len(), job.tag.len as usize);
    let q = 15 - n;
    // B0 (A.2.1): flags, the nonce, the payload's length in q bytes.
    let mut b0 = Block::default();
    let adata = u8::from(msg.aad_len() > 0) << 6;
    b0[0] = adata | (((t - 2) / 2) as u8) << 3 | (q - 1) as u8;
    b0[1..1 + n].copy_from_slice(msg.nonce);
    let plen = msg.payload_len().to_be_bytes();
    let k = q.min(8);
    b0[16 - k..].copy_from_slice(&plen[8 - k..]);
    let mut mac = Feed::new(CbcMac {
        cipher,
        x: Block::default(),
    });
    mac.absorb(&b0);
    let a = msg.aad_len();
    if a > 0 {
        // A.2.2: below 2^16 - 2^8 in two bytes, else 0xfffe and four (the service's
        // lengths are u32).
        if a < 0xff00 {
            mac.absorb(&(a as u16).to_be_bytes());
        } else {
            mac.absorb(&[0xff, 0xfe]);
            mac.absorb(&(a as u32).to_be_bytes());
        }
        job.data.for_each_piece(&job.aad, buf, |p| mac.absorb(p));
        mac.pad();
    }
    // Counter blocks (A.3): flags q - 1, the nonce, the counter in the last q bytes,
    // which the payload's length keeps from carrying into the nonce.
    let mut a0 = Block::default();
    a0[0] = (q - 1) as u8;
    a0[1..1 + n].copy_from_slice(msg.nonce);
    let mut s0 = a0;
    cipher.encrypt_block(&mut s0);
    a0[15] = 1;
    let mut ctr = ctr::Ctr128BE::<&C>::from_core(ctr::CtrCore::inner_iv_init(cipher, &a0));
    msg.crypt_and_mac(buf, &mut ctr, &mut mac, false);
    mac.pad();
    tag.iter_mut()
        .zip(mac.mac.x.iter().zip(s0.iter()))
        .for_each(|(t, (x, s))| *t = x ^ s);
}
