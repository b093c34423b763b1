//! Known-answer self-tests at init, on every path the driver serves (chained and copy),
//! in the style of Linux's testmgr: the empty message (software padding), one block
//! padded in hardware, and two-request messages whose final chains the buffered block
//! ahead of the data or restores a saved context. Digests are FIPS 180-4's and
//! RFC 1321's published values (the 896-bit message's from NIST's example pages).

use crate::channel::Fault;
use crate::engine::{HashState, Sec1Hash};
use crate::hw::DmaMemory;
use crate::layout::{KAT_BYTES, SCRATCH_ALIGN, SCRATCH_BYTES, SELF_TEST_SLOT};
use digest_service::{ClientData, DigestValue, Job, from_slice};
use mmio::RegisterBus;
use pd_idl::digest::{Algorithm, DigestOp, HashPath, Segment};
use shm_queue::SharedRegion;

/// Why [`Sec1Hash::init`] refused to serve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitError {
    /// The scratch region is misaligned or does not fit 32-bit DMA addresses.
    Scratch,
    /// Bringing the channel up failed.
    Engine(Fault),
    /// A known-answer test gave the wrong digest or faulted.
    SelfTest(SelfTestError),
}

impl<B: RegisterBus, M: DmaMemory> Sec1Hash<'_, B, M> {
    /// Brings the engine up and runs the known-answer self-tests on every path; serves
    /// only if they pass (as Linux's testmgr gates an algorithm).
    pub fn init(&mut self) -> Result<(), InitError> {
        self.ready = false;
        let base = self.ch.scratch.base;
        if !base.is_multiple_of(SCRATCH_ALIGN)
            || u64::from(base) + SCRATCH_BYTES as u64 > 1 << 32
            || self.scratch_len < SCRATCH_BYTES
        {
            return Err(InitError::Scratch);
        }
        self.ch.bring_up().map_err(InitError::Engine)?;
        run(self).map_err(InitError::SelfTest)?;
        self.ready = true;
        Ok(())
    }
}

/// Which known answer failed, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SelfTestError {
    pub algorithm: Algorithm,
    pub path: HashPath,
    /// Index into the driver's table of known answers.
    pub vector: usize,
    /// The engine's fault, or `None` for a wrong digest.
    pub fault: Option<Fault>,
}

/// A known answer: the message, the bytes sent as an update before the final, the digest.
struct Kat {
    algorithm: Algorithm,
    msg: &'static [u8],
    update: usize,
    digest: &'static str,
}

const ABC: &[u8] = b"abc";
/// FIPS 180-4's 896-bit message.
const M896: &[u8] = b"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
/// RFC 1321's last test message.
const DIGITS: &[u8] =
    b"12345678901234567890123456789012345678901234567890123456789012345678901234567890";

const KATS: &[Kat] = &[
    kat(Algorithm::Md5, b"", 0, "d41d8cd98f00b204e9800998ecf8427e"),
    kat(Algorithm::Md5, ABC, 0, "900150983cd24fb0d6963f7d28e17f72"),
    kat(
        Algorithm::Md5,
        DIGITS,
        16,
        "57edf4a22be3c955ac49da2e2107b67a",
    ),
    kat(
        Algorithm::Md5,
        DIGITS,
        70,
        "57edf4a22be3c955ac49da2e2107b67a",
    ),
    kat(
        Algorithm::Sha1,
        b"",
        0,
        "da39a3ee5e6b4b0d3255bfef95601890afd80709",
    ),
    kat(
        Algorithm::Sha1,
        ABC,
        0,
        "a9993e364706816aba3e25717850c26c9cd0d89d",
    ),
    kat(
        Algorithm::Sha1,
        M896,
        5,
        "a49b2446a02c645bf419f995b67091253a04a259",
    ),
    kat(
        Algorithm::Sha1,
        M896,
        100,
        "a49b2446a02c645bf419f995b67091253a04a259",
    ),
    // SHA-224 loads its own initial context rather than INIT: these catch a wrong one.
    kat(
        Algorithm::Sha224,
        b"",
        0,
        "d14a028c2a3a2bc9476102bb288234c415a2b01f828ea62ac5b3e42f",
    ),
    kat(
        Algorithm::Sha224,
        ABC,
        0,
        "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7",
    ),
    kat(
        Algorithm::Sha224,
        M896,
        5,
        "c97ca9a559850ce97a04a96def6d99a9e0e0e2ab14e6b8df265fc0b3",
    ),
    kat(
        Algorithm::Sha224,
        M896,
        100,
        "c97ca9a559850ce97a04a96def6d99a9e0e0e2ab14e6b8df265fc0b3",
    ),
    kat(
        Algorithm::Sha256,
        b"",
        0,
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    ),
    kat(
        Algorithm::Sha256,
        ABC,
        0,
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    ),
    kat(
        Algorithm::Sha256,
        M896,
        5,
        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
    ),
    kat(
        Algorithm::Sha256,
        M896,
        100,
        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
    ),
];

const fn kat(algorithm: Algorithm, msg: &'static [u8], update: usize, digest: &'static str) -> Kat {
    assert!(msg.len() <= KAT_BYTES && update <= msg.len());
    Kat {
        algorithm,
        msg,
        update,
        digest,
    }
}

/// Whether `digest` is the lower-case hex string `hex`.
fn matches_hex(digest: &[u8], hex: &str) -> bool {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let h = hex.as_bytes();
    h.len() == 2 * digest.len()
        && digest.iter().enumerate().all(|(i, b)| {
            h[2 * i] == DIGITS[usize::from(b >> 4)] && h[2 * i + 1] == DIGITS[usize::from(b & 0xf)]
        })
}

/// Runs every known answer on every path.
pub fn run<B: RegisterBus, M: DmaMemory>(d: &mut Sec1Hash<'_, B, M>) -> Result<(), SelfTestError> {
    for path in [HashPath::Chained, HashPath::Copy] {
        for (vector, k) in KATS.iter().enumerate() {
            let fail = |fault| SelfTestError {
                algorithm: k.algorithm,
                path,
                vector,
                fault,
            };
            let digest = one(d, k, path).map_err(|f| fail(Some(f)))?;
            if !matches_hex(digest.as_bytes(), k.digest) {
                return Err(fail(None));
            }
        }
    }
    Ok(())
}

fn one<B: RegisterBus, M: DmaMemory>(
    d: &mut Sec1Hash<'_, B, M>,
    k: &Kat,
    path: HashPath,
) -> Result<DigestValue, Fault> {
    // The engine reads the message from scratch; the CPU reads the same bytes from a
    // private copy (both views of a "client region" hold the message).
    let at = d.ch.scratch.kat();
    d.ch.mem.write(at, k.msg)?;
    let mut msg = [0u8; KAT_BYTES];
    msg[..k.msg.len()].copy_from_slice(k.msg);
    let data = ClientData {
        region: SharedRegion::new(&mut msg[..k.msg.len()]),
        phys: Some(u64::from(at)),
    };
    let job = |op, offset: usize, len: usize| -> Result<Job<'_>, Fault> {
        let s = [Segment {
            offset: offset as u32,
            len: len as u32,
        }];
        let segs = from_slice(&s, k.msg.len()).map_err(|_| Fault::Dma)?;
        Ok(Job {
            algorithm: k.algorithm,
            path,
            op,
            segs,
            data,
            requests: 1,
        })
    };
    let mut st = HashState::new(SELF_TEST_SLOT);
    if k.update > 0 {
        d.run_polled(&mut st, &job(DigestOp::Update, 0, k.update)?)?;
    }
    let rest = job(DigestOp::Final, k.update, k.msg.len() - k.update)?;
    d.run_polled(&mut st, &rest)?.ok_or(Fault::NotDone)
}
