//! A driver's own DMA memory: what its queues and headers live in, at offsets the driver
//! fixes.
//!
//! The device reads and writes this memory behind the compiler's back, so it is never
//! borrowed as a Rust slice: every access is a volatile load or store through the raw
//! pointer, naturally aligned (on aarch64 with the MMU off all memory is Device-nGnRnE,
//! where an unaligned access faults).

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

    /// Whether the area holds `len` bytes, [`ALIGN`]ed on both sides of the bus.
    pub fn usable(&self, len: usize) -> bool {
        self.len >= len
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
