//! The SEC1 message digest execution unit (MDEUA): MD5, SHA-1 and SHA-256 over whole
//! 64-byte blocks, with INIT, continue and PAD, and a context that can be saved to and
//! restored from memory so that sessions interleave on one engine.
//!
//! SHA-1 and SHA-256 compression come from RustCrypto (`compress` features); the md-5
//! crate does not export its compression function, so MD5's is written out here from
//! RFC 1321 (and checked against md-5 in the tests).

use mmio::talitos::{HASH_BLOCK, MDEU_CONTEXT_SIZE, hdr};
use sha1::digest::generic_array::GenericArray;

/// The algorithms MDEUA runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HashAlg {
    Md5,
    Sha1,
    Sha256,
}

impl HashAlg {
    /// The algorithm a descriptor header selects (`None` for SHA-224, which SEC1 lacks:
    /// upstream runs SHA-256 mode over a software-initialised context instead).
    pub fn from_hdr(h: u32) -> Option<Self> {
        match h & hdr::MDEU_ALG_MASK {
            hdr::MDEU_MD5 => Some(Self::Md5),
            hdr::MDEU_SHA1 => Some(Self::Sha1),
            hdr::MDEU_SHA256 => Some(Self::Sha256),
            _ => None,
        }
    }

    pub fn digest_len(self) -> usize {
        match self {
            Self::Md5 => 16,
            Self::Sha1 => 20,
            Self::Sha256 => 32,
        }
    }

    /// Nominal busy cycles per block: one per round plus sixteen to load the block.
    pub fn cycles_per_block(self) -> u64 {
        match self {
            Self::Md5 | Self::Sha256 => 64 + 16,
            Self::Sha1 => 80 + 16,
        }
    }

    fn initial_state(self) -> [u32; 8] {
        match self {
            Self::Md5 => [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0, 0, 0, 0],
            Self::Sha1 => [
                0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0, 0, 0, 0,
            ],
            Self::Sha256 => [
                0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
                0x5be0cd19,
            ],
        }
    }
}

/// The running state of a hash: chaining words and the bytes hashed so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mdeu {
    pub alg: HashAlg,
    state: [u32; 8],
    count: u64,
}

impl Mdeu {
    /// INIT: the algorithm's initial state.
    pub fn init(alg: HashAlg) -> Self {
        Self {
            alg,
            state: alg.initial_state(),
            count: 0,
        }
    }

    /// Restores a context saved by [`Mdeu::save`] (algorithm from the descriptor).
    pub fn restore(alg: HashAlg, ctx: &[u8; MDEU_CONTEXT_SIZE]) -> Self {
        let word = |i: usize| {
            let b = [ctx[4 * i], ctx[4 * i + 1], ctx[4 * i + 2], ctx[4 * i + 3]];
            match alg {
                HashAlg::Md5 => u32::from_le_bytes(b),
                _ => u32::from_be_bytes(b),
            }
        };
        let mut count = [0u8; 8];
        count.copy_from_slice(&ctx[32..40]);
        Self {
            alg,
            state: core::array::from_fn(word),
            count: u64::from_be_bytes(count),
        }
    }

    /// The context: eight state words in the digest's byte order (little-endian for MD5,
    /// big-endian for SHA), then the byte count as a big-endian u64. Its first digest-size
    /// bytes are the digest once the data is padded, which upstream relies on when it
    /// pads an empty message in software and hashes it without PAD.
    pub fn save(&self) -> [u8; MDEU_CONTEXT_SIZE] {
        let mut ctx = [0u8; MDEU_CONTEXT_SIZE];
        for (i, w) in self.state.iter().enumerate() {
            ctx[4 * i..4 * i + 4].copy_from_slice(&self.word_bytes(*w));
        }
        ctx[32..40].copy_from_slice(&self.count.to_be_bytes());
        ctx
    }

    /// Hashes one whole block.
    pub fn block(&mut self, b: &[u8; HASH_BLOCK]) {
        let ga = GenericArray::from_slice(b);
        match self.alg {
            HashAlg::Md5 => {
                let mut s = [self.state[0], self.state[1], self.state[2], self.state[3]];
                md5_compress(&mut s, b);
                self.state[..4].copy_from_slice(&s);
            }
            HashAlg::Sha1 => {
                let mut s = [0u32; 5];
                s.copy_from_slice(&self.state[..5]);
                sha1::compress(&mut s, core::slice::from_ref(ga));
                self.state[..5].copy_from_slice(&s);
            }
            HashAlg::Sha256 => sha2::compress256(&mut self.state, core::slice::from_ref(ga)),
        }
        self.count = self.count.wrapping_add(HASH_BLOCK as u64);
    }

    /// PAD: hashes the final partial block (`tail.len() < 64`) with the algorithm's
    /// padding and returns the digest (its first [`HashAlg::digest_len`] bytes).
    pub fn finish(mut self, tail: &[u8]) -> [u8; 32] {
        debug_assert!(tail.len() < HASH_BLOCK);
        let bits = self.count.wrapping_add(tail.len() as u64).wrapping_mul(8);
        let mut b = [0u8; HASH_BLOCK];
        b[..tail.len()].copy_from_slice(tail);
        b[tail.len()] = 0x80;
        if tail.len() >= HASH_BLOCK - 8 {
            self.block(&b);
            b = [0; HASH_BLOCK];
        }
        b[56..].copy_from_slice(&match self.alg {
            HashAlg::Md5 => bits.to_le_bytes(),
            _ => bits.to_be_bytes(),
        });
        self.block(&b);
        let mut out = [0u8; 32];
        out.copy_from_slice(&self.save()[..32]);
        out
    }

    fn word_bytes(&self, w: u32) -> [u8; 4] {
        match self.alg {
            HashAlg::Md5 => w.to_le_bytes(),
            _ => w.to_be_bytes(),
        }
    }
}

/// MD5's sine table, T[i] = floor(2^32 * |sin(i + 1)|) (RFC 1321, section 3.4).
#[rustfmt::skip]
const T: [u32; 64] = [
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
];

/// MD5 compression of one block (RFC 1321, section 3.4).
fn md5_compress(s: &mut [u32; 4], block: &[u8; 64]) {
    const S: [u32; 16] = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21];
    let m: [u32; 16] = core::array::from_fn(|i| {
        u32::from_le_bytes([
            block[4 * i],
            block[4 * i + 1],
            block[4 * i + 2],
            block[4 * i + 3],
        ])
    });
    let [mut a, mut b, mut c, mut d] = *s;
    for i in 0..64 {
        let (f, g) = match i / 16 {
            0 => ((b & c) | (!b & d), i),
            1 => ((d & b) | (!d & c), (5 * i + 1) % 16),
            2 => (b ^ c ^ d, (3 * i + 5) % 16),
            _ => (c ^ (b | !d), (7 * i) % 16),
        };
        let t = T[i];
        let rot = S[(i / 16) * 4 + i % 4];
        let tmp = d;
        d = c;
        c = b;
        b = b.wrapping_add(
            a.wrapping_add(f)
                .wrapping_add(t)
                .wrapping_add(m[g])
                .rotate_left(rot),
        );
        a = tmp;
    }
    s[0] = s[0].wrapping_add(a);
    s[1] = s[1].wrapping_add(b);
    s[2] = s[2].wrapping_add(c);
    s[3] = s[3].wrapping_add(d);
}
