//! [`VolatileMmio`]: the register bus of real hardware (a mapped device frame on seL4).

use crate::{BusFault, RegisterBus, check_offset};
use core::ptr::NonNull;

/// Volatile 32-bit accesses to a device's register window mapped at `base`.
///
/// Offsets are bounds- and alignment-checked against the window length; an access to a
/// gated device is not detectable here (the CPU takes an external abort, which seL4
/// reports as a fault of this PD).
#[derive(Debug)]
pub struct VolatileMmio {
    base: NonNull<u32>,
    len: usize,
}

impl VolatileMmio {
    /// A bus over the `len`-byte register window mapped at `base`.
    ///
    /// # Safety
    /// `base` must be 4-byte aligned and point at `len` bytes of device memory mapped
    /// (uncached, as Microkit maps a device region) into this address space for as long
    /// as the returned value lives, and nothing else may assume that memory is ordinary
    /// RAM. Several `VolatileMmio` over one window are allowed (accesses are volatile),
    /// but the driver then owns the ordering of their accesses.
    pub unsafe fn new(base: *mut u8, len: usize) -> Self {
        let base = NonNull::new(base.cast::<u32>()).expect("device window at null");
        debug_assert!(base.as_ptr().is_aligned());
        Self { base, len }
    }

    /// The window length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the window is empty (no register can be accessed).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl RegisterBus for VolatileMmio {
    fn read32(&mut self, offset: usize) -> Result<u32, BusFault> {
        check_offset(offset, self.len)?;
        // SAFETY: the offset is in bounds and aligned (checked above); `new`'s contract
        // makes the window device memory valid for volatile access.
        Ok(unsafe { self.base.as_ptr().add(offset / 4).read_volatile() })
    }

    fn write32(&mut self, offset: usize, value: u32) -> Result<(), BusFault> {
        check_offset(offset, self.len)?;
        // SAFETY: as in `read32`.
        unsafe { self.base.as_ptr().add(offset / 4).write_volatile(value) };
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_writes_plain_memory() {
        let mut words = [0u32; 4];
        {
            // SAFETY: `words` outlives `bus` and is only reached through it meanwhile.
            let mut bus = unsafe { VolatileMmio::new(words.as_mut_ptr().cast(), 16) };
            bus.write32(8, 0xdead_beef).unwrap();
            bus.modify32(8, 0xff, 0x1).unwrap();
            assert_eq!(bus.read32(8), Ok(0xdead_be01));
            assert_eq!(bus.read32(16), Err(BusFault::OutOfWindow { offset: 16 }));
            assert_eq!(bus.write32(3, 0), Err(BusFault::Misaligned { offset: 3 }));
        }
        assert_eq!(words[2], 0xdead_be01);
    }
}
