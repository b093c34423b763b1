//! The known-answer cases the `kat-cipher` client runs, as plain data: every vector of
//! `kat-vectors` on every path, both directions, in the layout the path needs.

use kat_vectors::{CBC_IV, FIPS197_C, FIPS197_PT, PLAIN, SP800_38A, hex};
use pd_idl::cipher::{CipherOp, Mode, Path};

/// Paths a Cipher client asks for, in order (a driver refuses those it lacks at open).
pub const PATHS: [Path; 4] = [Path::Cpu, Path::Pio, Path::Dma, Path::Adaptive];

/// Longest case input.
pub const MAX_INPUT: usize = 256;

/// Where a case's segments lie in the client's data region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Odd offsets, odd lengths, gaps: only PIO and the CPU can take it as it lies.
    Scattered,
    /// Block-aligned offsets, whole blocks, gaps: DMA takes it as it lies.
    Aligned,
}

/// One request: input, expected output, and how to lay it out.
pub struct Case {
    pub name: &'static str,
    pub path: Path,
    pub mode: Mode,
    pub key: [u8; 32],
    pub key_len: u8,
    pub iv: [u8; 16],
    pub op: CipherOp,
    pub input: [u8; MAX_INPUT],
    pub expect: [u8; MAX_INPUT],
    pub len: usize,
    pub layout: Layout,
}

/// Cases per path: FIPS-197 C (3 keys), SP 800-38A (8 vectors), and ECB F.1.1 four
/// times over (256 B, above every calibrated crossover), each encrypt and decrypt.
pub const PER_PATH: usize = 2 * (FIPS197_C.len() + SP800_38A.len() + 1);

fn key(s: &str) -> ([u8; 32], u8) {
    let mut k = [0; 32];
    let n = hex(s, &mut k);
    (k, n as u8)
}

/// Case `i` of `path`, or `None` past the end.
pub fn case(path: Path, i: usize) -> Option<Case> {
    if i >= PER_PATH {
        return None;
    }
    let op = if i.is_multiple_of(2) {
        CipherOp::Encrypt
    } else {
        CipherOp::Decrypt
    };
    let v = i / 2;
    let layout = match path {
        Path::Dma | Path::Adaptive => Layout::Aligned,
        Path::Pio | Path::Cpu => Layout::Scattered,
    };
    let mut plain = [0u8; MAX_INPUT];
    let mut cipher = [0u8; MAX_INPUT];
    let (name, mode, (k, key_len), iv, len) = if v < FIPS197_C.len() {
        let (name, k, ct) = FIPS197_C[v];
        // Twice over (ECB: blocks are independent): DMA engines take no single block
        // (STM32 wants more than 16 bytes).
        for half in 0..2 {
            hex(FIPS197_PT, &mut plain[16 * half..]);
            hex(ct, &mut cipher[16 * half..]);
        }
        (name, Mode::Ecb, key(k), [0; 16], 32)
    } else if v < FIPS197_C.len() + SP800_38A.len() {
        let (name, mode, k, iv, ct) = SP800_38A[v - FIPS197_C.len()];
        hex(PLAIN, &mut plain);
        hex(ct, &mut cipher);
        let mut ivb = [0; 16];
        hex(iv, &mut ivb);
        (name, mode, key(k), ivb, 64)
    } else {
        let (_, mode, k, _, ct) = SP800_38A[0];
        for quarter in 0..4 {
            hex(PLAIN, &mut plain[64 * quarter..]);
            hex(ct, &mut cipher[64 * quarter..]);
        }
        let mut ivb = [0; 16];
        hex(CBC_IV, &mut ivb);
        ("F.1.1 ECB-AES128 x4 (256 B)", mode, key(k), ivb, 256)
    };
    let (input, expect) = match op {
        CipherOp::Encrypt | CipherOp::EncryptNewIv => (plain, cipher),
        CipherOp::Decrypt => (cipher, plain),
    };
    Some(Case {
        name,
        path,
        mode,
        key: k,
        key_len,
        iv,
        op,
        input,
        expect,
        len,
        layout,
    })
}

/// The segments (offset, length) of a `len`-byte case in `layout`: several per request
/// so the scatter-gather path is exercised.
pub fn segments(layout: Layout, len: usize) -> ([(u32, u32); 4], usize) {
    let mut segs = [(0u32, 0u32); 4];
    let len = len as u32;
    match layout {
        Layout::Scattered => {
            // Three pieces at odd offsets with odd lengths.
            let a = 5.min(len);
            let b = (len - a) / 2 + 3;
            let b = b.min(len - a);
            let c = len - a - b;
            let mut at = 3;
            for (i, n) in [a, b, c].into_iter().enumerate() {
                segs[i] = (at, n);
                at += n + 37;
            }
            (segs, 3)
        }
        Layout::Aligned => {
            // Two (or four, for 256 B) whole-block pieces at block-aligned offsets.
            let n = if len >= 128 { 4 } else { 2 };
            let piece = len / n as u32;
            let mut at = 1024;
            for seg in segs.iter_mut().take(n) {
                *seg = (at, piece);
                at += (piece + 48).next_multiple_of(64);
            }
            (segs, n)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_case_is_whole_blocks_and_segments_cover_it() {
        for path in PATHS {
            let mut n = 0;
            while let Some(c) = case(path, n) {
                assert_eq!(c.len % 16, 0, "{}", c.name);
                let (segs, k) = segments(c.layout, c.len);
                assert_eq!(segs[..k].iter().map(|s| s.1 as usize).sum::<usize>(), c.len);
                if c.layout == Layout::Aligned {
                    assert!(segs[..k].iter().all(|s| s.0 % 16 == 0 && s.1 % 16 == 0));
                }
                n += 1;
            }
            assert_eq!(n, PER_PATH);
        }
    }
}
