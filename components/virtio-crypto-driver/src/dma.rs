//! The driver's own DMA memory: both virtqueues and the request headers, at fixed offsets.
//!
//! The device reads and writes this memory behind the compiler's back, so it is never
//! borrowed as a Rust slice: every access is a volatile load or store through the raw
//! pointer, naturally aligned (on aarch64 with the MMU off all memory is Device-nGnRnE,
//! where an unaligned access faults). The control queue holds one request at a time, so
//! it needs one set of headers; the data queue holds [`DATA_SLOTS`] requests, each with
//! its own descriptors and headers.

use crate::wire;

pub use virtio_mmio::dma::{ALIGN, DmaArea};

/// Descriptors in the control queue: request, key, result (create) or request, status.
pub const CTRL_QUEUE_SIZE: u16 = 4;
/// Cipher requests the data queue holds at once (the engine's depth).
pub const DATA_SLOTS: usize = cipher_service::MAX_IN_FLIGHT;
/// Descriptors one data request may use: request, IV, its source segments (at most
/// `MAX_SEGMENTS`, 6: the driver does not join requests) and a pad, as many destination
/// segments and a pad, status = 17; the next power of two, with room for a join of
/// up to 13 segments were it ever to join (not `MAX_JOINED`, 16: that needs 37).
pub const SLOT_DESCRIPTORS: u16 = 32;
const _: () = assert!(2 * (cipher_service::MAX_SEGMENTS + 1) + 3 <= SLOT_DESCRIPTORS as usize);
/// Descriptors in the data queue: each slot owns its own fixed range (no free list).
pub const DATA_QUEUE_SIZE: u16 = SLOT_DESCRIPTORS * DATA_SLOTS as u16;
/// Longest key the driver passes (the device's own limit is in its configuration).
pub const MAX_KEY: usize = 64;

/// Byte offsets in the area. Queue parts are aligned as §2.7 requires (descriptor table
/// 16, available ring 2, used ring 4); headers on 16 so every field is naturally aligned.
pub mod layout {
    use super::*;
    pub const CTRL_DESC: usize = 0x000;
    pub const CTRL_AVAIL: usize = CTRL_DESC + wire::desc_bytes(CTRL_QUEUE_SIZE);
    pub const CTRL_USED: usize = 0x080;
    pub const DATA_DESC: usize = 0x100;
    pub const DATA_AVAIL: usize = DATA_DESC + wire::desc_bytes(DATA_QUEUE_SIZE);
    pub const DATA_USED: usize = 0xa40;
    pub const CTRL_REQ: usize = 0xe80;
    pub const CTRL_KEY: usize = 0xee0;
    pub const CTRL_INPUT: usize = 0xf20;
    pub const CTRL_STATUS: usize = 0xf30;
    /// 16 zero bytes the device reads to round a CTR request up to whole blocks.
    pub const PAD_SRC: usize = 0xf40;
    /// The data slots' headers, [`SLOT_BYTES`] each.
    pub const DATA_SLOT: usize = 0xf80;
    pub const SLOT_BYTES: usize = 0x80;
    /// In a slot: the request header, the IV, 16 bytes the device writes the padding's
    /// output to (discarded), the status.
    pub const SLOT_REQ: usize = 0x00;
    pub const SLOT_IV: usize = 0x50;
    pub const SLOT_PAD_DST: usize = 0x60;
    pub const SLOT_STATUS: usize = 0x70;
    /// Bytes the area must have.
    pub const LEN: usize = DATA_SLOT + SLOT_BYTES * DATA_SLOTS;

    /// Where slot `slot`'s header `part` lies.
    pub const fn slot(slot: usize, part: usize) -> usize {
        DATA_SLOT + SLOT_BYTES * slot + part
    }

    const _: () = {
        assert!(CTRL_AVAIL + wire::avail_bytes(CTRL_QUEUE_SIZE) <= CTRL_USED);
        assert!(CTRL_USED + wire::used_bytes(CTRL_QUEUE_SIZE) <= DATA_DESC);
        assert!(DATA_AVAIL + wire::avail_bytes(DATA_QUEUE_SIZE) <= DATA_USED);
        assert!(DATA_USED.is_multiple_of(4));
        assert!(DATA_USED + wire::used_bytes(DATA_QUEUE_SIZE) <= CTRL_REQ);
        assert!(CTRL_REQ + 72 <= CTRL_KEY && CTRL_KEY + MAX_KEY <= CTRL_INPUT);
        assert!(CTRL_INPUT + 16 <= CTRL_STATUS && CTRL_STATUS < PAD_SRC);
        assert!(PAD_SRC + 16 <= DATA_SLOT);
        assert!(SLOT_REQ + 72 <= SLOT_IV && SLOT_STATUS < SLOT_BYTES);
    };
}
