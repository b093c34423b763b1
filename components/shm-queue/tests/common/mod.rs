//! Test support: cache-line-aligned memory to put queues in.

#![allow(dead_code)]

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

#[repr(C, align(64))]
#[derive(Clone, Copy)]
pub struct Line([u8; 64]);

/// `bytes` rounded up to whole cache lines, zeroed, line-aligned.
pub fn aligned(bytes: usize) -> Vec<Line> {
    vec![Line([0; 64]); bytes.div_ceil(64)]
}

pub fn as_bytes(lines: &mut [Line]) -> &mut [u8] {
    // SAFETY: Line is 64 plain bytes with no padding.
    unsafe { std::slice::from_raw_parts_mut(lines.as_mut_ptr().cast(), lines.len() * 64) }
}

/// A descriptor shaped like the real ones: an id, a few fields, a checksum to catch torn
/// or mixed-up slots.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout)]
pub struct Item {
    pub seq: u64,
    pub offset: u32,
    pub len: u32,
    pub check: u64,
}

impl Item {
    pub fn new(seq: u64) -> Self {
        let offset = (seq as u32).wrapping_mul(2654435761);
        let len = (seq >> 3) as u32;
        Item {
            seq,
            offset,
            len,
            check: seq ^ ((offset as u64) << 32 | len as u64) ^ 0x5a5a_5a5a_5a5a_5a5a,
        }
    }

    pub fn is_intact(&self) -> bool {
        *self == Item::new(self.seq)
    }
}

/// Byte offsets of the control words, as the crate docs lay them out; a test playing a
/// hostile peer writes them directly.
pub const TAIL: usize = 0;
pub const HEAD: usize = 64;
