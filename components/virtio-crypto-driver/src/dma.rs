//! The driver's own DMA memory: both virtqueues and the request headers, at fixed offsets.
//!
//! The device reads and writes this memory behind the compiler's back, so it is never
//! borrowed as a Rust slice: every access is a volatile load or store through the raw
//! pointer, naturally aligned (on aarch64 with the MMU off all memory is Device-nGnRnE,
//! where an unaligned access faults). The control queue holds one request at a time, so
//! it needs one set of headers; the data queue holds [`DATA_SLOTS`] requests, each with
//! its own descriptors and headers.

use crate::wire;

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

/// Alignment the area must have (the descriptor tables need 16; 64 keeps each part on
/// its own cache line boundary).
pub const ALIGN: usize = 64;

/// DMA-reachable memory owned by the driver.
#[derive(Debug)]
pub struct DmaArea {
    base: *mut u8,
    phys: u64,
    len: usize,
}

impl DmaArea {
    /// The area of `len` bytes mapped at `base`, which the device sees at `phys`.
    ///
    /// # Safety
    /// `base..base + len` must be mapped read-write for as long as the driver lives, used
    /// by nothing but this driver and its device, and be the memory the device reaches at
    /// `phys` (identity-mapped RAM, or a Microkit region with its `phys_addr`).
    pub unsafe fn new(base: *mut u8, phys: u64, len: usize) -> Self {
        Self { base, phys, len }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub(crate) fn usable(&self) -> bool {
        self.len >= layout::LEN
            && (self.base as usize).is_multiple_of(ALIGN)
            && self.phys.is_multiple_of(ALIGN as u64)
            && self.phys.checked_add(self.len as u64).is_some()
    }

    /// The device's address of byte `off`.
    pub fn phys(&self, off: usize) -> u64 {
        self.phys + off as u64
    }

    fn at<T>(&self, off: usize) -> *mut T {
        assert!(off + size_of::<T>() <= self.len, "DMA area offset {off:#x}");
        debug_assert!(off.is_multiple_of(align_of::<T>()));
        // In bounds (checked above); `new`'s contract makes it valid memory.
        self.base.wrapping_add(off).cast()
    }

    pub fn read_u16(&self, off: usize) -> u16 {
        // SAFETY: in bounds and aligned (`at`); memory valid by `new`'s contract.
        u16::from_le(unsafe { self.at::<u16>(off).read_volatile() })
    }

    pub fn write_u16(&mut self, off: usize, v: u16) {
        // SAFETY: as in `read_u16`.
        unsafe { self.at::<u16>(off).write_volatile(v.to_le()) }
    }

    pub fn read_u32(&self, off: usize) -> u32 {
        // SAFETY: as in `read_u16`.
        u32::from_le(unsafe { self.at::<u32>(off).read_volatile() })
    }

    /// Copies `src` to `off` with byte stores (any alignment, never torn beyond a byte).
    pub fn write_bytes(&mut self, off: usize, src: &[u8]) {
        let p = self.bytes(off, src.len(), "write");
        for (i, b) in src.iter().enumerate() {
            // SAFETY: in bounds (`bytes`).
            unsafe { p.add(i).write_volatile(*b) }
        }
    }

    pub fn read_bytes(&self, off: usize, dst: &mut [u8]) {
        let p = self.bytes(off, dst.len(), "read");
        for (i, b) in dst.iter_mut().enumerate() {
            // SAFETY: in bounds (`bytes`).
            *b = unsafe { p.add(i).read_volatile() };
        }
    }

    pub fn fill(&mut self, off: usize, len: usize, v: u8) {
        let p = self.bytes(off, len, "fill");
        for i in 0..len {
            // SAFETY: in bounds (`bytes`).
            unsafe { p.add(i).write_volatile(v) }
        }
    }

    /// The first of `len` bytes at `off`, all inside the area (else a panic naming the
    /// access, `what`).
    fn bytes(&self, off: usize, len: usize, what: &str) -> *mut u8 {
        let p = self.at::<u8>(off);
        assert!(off + len <= self.len, "DMA area {what} {off:#x}+{len}");
        p
    }
}
