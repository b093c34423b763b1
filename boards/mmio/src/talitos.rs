//! Freescale talitos SEC1 (MPC885 SEC 1.2), as used by Linux `talitos.c`: the global and
//! channel registers and the in-memory descriptor.
//!
//! Registers are 64 bits wide on the chip; the driver reaches their halves at `X` (high)
//! and `X_LO` (low). Only channel 0 is modelled; its registers sit where upstream computes
//! them for SEC1: `TALITOS_CH_BASE_OFFSET + TALITOS1_CH_STRIDE * (ch + 1)`.

use crate::bit;
use static_assertions::const_assert_eq;
use zerocopy::big_endian::{U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// Size of the register window (mpc885 device tree: `reg = <0x20000 0x8000>`).
pub const WINDOW: usize = 0x8000;

/// Interrupt mask. On SEC1 a set bit *masks* its source (reset value: all masked).
pub const IMR: usize = 0x1008;
pub const IMR_LO: usize = 0x100c;
/// Interrupt status (RO).
pub const ISR: usize = 0x1010;
pub const ISR_LO: usize = 0x1014;
/// Interrupt clear (write 1 to clear the ISR bit).
pub const ICR: usize = 0x1018;
pub const ICR_LO: usize = 0x101c;
/// Master control.
pub const MCR: usize = 0x1030;
/// MCR: software reset of the whole SEC1 (self-clearing).
pub const MCR_SWR: u32 = 0x0100_0000;

/// ISR/IMR/ICR bits, `ISR1_FORMAT` layout: channel 0 done and error.
pub mod isr {
    use super::*;
    pub const CH0_DONE: u32 = bit(28);
    pub const CH0_ERR: u32 = bit(29);
    /// Transfer error acknowledge: a master access hit no memory.
    pub const TEA_ERR: u32 = 0x40;
    /// What `TALITOS1_IMR_INIT` unmasks for the channels (all four, done and error).
    pub const INIT: u32 = (0xf << 28) | (0xf << 16);
}

/// Channel 0 register base.
pub const CH0: usize = 0x1000 + 0x1000;

/// Channel configuration, low half.
pub const CCCR_LO: usize = CH0 + 0xc;
pub mod cccr {
    use super::*;
    /// Channel reset (self-clearing).
    pub const RESET: u32 = bit(0);
    /// Channel-done interrupt enable.
    pub const CDIE: u32 = bit(1);
    /// Notification type: 0 = per descriptor with DONE_NOTIFY.
    pub const NT: u32 = bit(2);
    /// Fetch the next descriptor (`next_desc`) when one completes.
    pub const NE: u32 = bit(3);
    /// Write DONE back into the descriptor header.
    pub const CDWE: u32 = bit(4);
}

/// Channel pointer status, low half: error bits (RO, cleared by channel reset).
pub const CCPSR_LO: usize = CH0 + 0x14;
pub mod ccpsr {
    /// Master data transfer error: a pointer hit no DMA-reachable memory.
    pub const MDTE: u32 = 0x2000;
    /// Fetch pointer zero.
    pub const FPZ: u32 = 0x0800;
    /// Illegal descriptor header (unknown descriptor type).
    pub const IDH: u32 = 0x0400;
    /// Invalid execution unit selected.
    pub const IEU: u32 = 0x0200;
    /// Execution unit error (a zero-length or partial-block hash, a bad context length).
    pub const EU: u32 = 0x0100;
    /// Gather length error: a pointer longer than [`super::MAX_DATA_LEN`].
    pub const GRL: u32 = 0x0040;
}

/// Current descriptor pointer, low half (RO).
pub const CDPR_LO: usize = CH0 + 0x44;
/// Fetch FIFO, low half: writing a descriptor's address starts the channel on it.
pub const FF_LO: usize = CH0 + 0x4c;

/// Longest data a SEC1 pointer may carry (`TALITOS1_MAX_DATA_LEN`).
pub const MAX_DATA_LEN: usize = 32768;

/// MDEU context for MD5/SHA-1/SHA-256 (`TALITOS_MDEU_CONTEXT_SIZE_MD5_SHA1_SHA256`):
/// 8 state words in the digest's byte order (so its head is the digest once padded), then
/// the byte count so far as a big-endian u64.
pub const MDEU_CONTEXT_SIZE: usize = 0x28;

/// Hash block size of the MDEU algorithms.
pub const HASH_BLOCK: usize = 64;

/// Descriptor header bits (`DESC_HDR_*`), as host-order values of the big-endian word.
pub mod hdr {
    use super::*;
    /// Written back by the channel when the descriptor is done (top byte all ones).
    pub const DONE: u32 = 0xff00_0000;
    /// Primary execution unit select, bits 31:28.
    pub const SEL0_MASK: u32 = 0xf000_0000;
    pub const SEL0_MDEUA: u32 = 0x3000_0000;
    /// MDEU mode bits.
    pub const MDEU_CONT: u32 = 0x0800_0000;
    pub const MDEU_INIT: u32 = 0x0100_0000;
    pub const MDEU_HMAC: u32 = 0x0080_0000;
    pub const MDEU_PAD: u32 = 0x0040_0000;
    pub const MDEU_ALG_MASK: u32 = 0x0030_0000;
    pub const MDEU_SHA1: u32 = 0x0000_0000;
    pub const MDEU_SHA256: u32 = 0x0010_0000;
    pub const MDEU_MD5: u32 = 0x0020_0000;
    pub const MDEU_SHA224: u32 = 0x0030_0000;
    /// Descriptor type, bits 7:3.
    pub const TYPE_MASK: u32 = 0xf8;
    pub const TYPE_COMMON_NONSNOOP_NO_AFEU: u32 = 2 << 3;
    /// Data flows in (read by the engine).
    pub const DIR_INBOUND: u32 = bit(1);
    /// Raise the channel-done interrupt when this descriptor completes.
    pub const DONE_NOTIFY: u32 = bit(0);
}

/// Pointer slots of a hash descriptor (`common_nonsnoop_hash` in upstream).
pub mod slot {
    /// Hash context in (used when INIT is clear).
    pub const CONTEXT_IN: usize = 1;
    /// HMAC key (unused here).
    pub const HMAC_KEY: usize = 2;
    /// Data in.
    pub const DATA_IN: usize = 3;
    /// Digest out (PAD set) or context out (PAD clear).
    pub const OUT: usize = 5;
}

/// A SEC1 pointer: `{ res: be16, len1: be16, ptr: be32 }`.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[repr(C)]
pub struct Ptr {
    pub res: U16,
    pub len: U16,
    pub ptr: U32,
}

impl Ptr {
    pub fn new(phys: u32, len: u16) -> Self {
        Self {
            res: U16::ZERO,
            len: U16::new(len),
            ptr: U32::new(phys),
        }
    }
}

/// The descriptor as the SEC1 channel fetches it (64 bytes).
///
/// Linux's `struct talitos_desc` puts a software copy `hdr` in front of this and hands
/// the channel the address of its `hdr1`, which is this struct's `hdr`; DONE is written
/// back here. `next_desc` (SEC1 only) is followed when CCCR.NE is set and it is non-zero.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[repr(C)]
pub struct Desc {
    pub hdr: U32,
    pub ptr: [Ptr; 7],
    pub next_desc: U32,
}

/// Bytes the channel fetches per descriptor.
pub const DESC_SIZE: usize = 64;
const_assert_eq!(core::mem::size_of::<Ptr>(), 8);
const_assert_eq!(core::mem::size_of::<Desc>(), DESC_SIZE);
const_assert_eq!(core::mem::align_of::<Desc>(), 1);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptor_fields_are_big_endian() {
        let mut d = Desc {
            hdr: U32::new(hdr::SEL0_MDEUA | hdr::MDEU_MD5),
            ..Desc::default()
        };
        d.ptr[slot::DATA_IN] = Ptr::new(0x1234_5678, 0x0102);
        let b = d.as_bytes();
        assert_eq!(&b[0..4], &[0x30, 0x20, 0, 0]);
        assert_eq!(
            &b[4 + 8 * 3..4 + 8 * 4],
            &[0, 0, 1, 2, 0x12, 0x34, 0x56, 0x78]
        );
        let back = Desc::read_from_bytes(b).unwrap();
        assert_eq!(back, d);
    }
}
