//! A queue's layout in its shared region: the header's control words and the slots.

use core::sync::atomic::AtomicU32;

use shared_region::SharedRegion;

use crate::Descriptor;

/// Control words are kept a cache line apart (64 bytes on Cortex-A and x86-64).
pub const CACHE_LINE: usize = 64;

/// Bytes before the first slot: tail, head and consumer_signalled, one line each.
pub const HEADER_SIZE: usize = 3 * CACHE_LINE;

pub(crate) const TAIL: usize = 0;
pub(crate) const HEAD: usize = CACHE_LINE;
pub(crate) const SIGNALLED: usize = 2 * CACHE_LINE;

/// Bytes from one slot to the next: `T`'s size rounded up so that no slot straddles a
/// cache line (a power of two below a line), and a slot of a line or more takes whole
/// pairs of lines. Packed 76-byte Cipher requests shared lines with their neighbours, so
/// a client writing one request stalled on the line the driver was reading the one
/// before from: half the client's time at 16 bytes went to one store. Pairs, because
/// x86's spatial prefetcher fetches 64-byte lines in 128-byte pairs: 64-byte requests in
/// 64-byte slots made the driver pull in the neighbouring slot as the client wrote it,
/// and 16-byte requests ran 2.3x slower (224 against 91 ns, `speed --host-limit`).
pub const fn slot_size<T>() -> usize {
    let size = core::mem::size_of::<T>();
    if size >= CACHE_LINE {
        size.next_multiple_of(2 * CACHE_LINE)
    } else {
        size.next_power_of_two()
    }
}

/// Bytes a queue of `capacity` slots of `T` needs.
pub const fn region_size<T>(capacity: u32) -> usize {
    HEADER_SIZE + capacity as usize * slot_size::<T>()
}

/// Why a region cannot hold the queue asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayoutError {
    /// Capacity is zero or not a power of two.
    Capacity(u32),
    /// The region's base is not aligned to a cache line.
    Misaligned(usize),
    /// The region is smaller than [`region_size`].
    TooSmall { need: usize, have: usize },
    /// `T` needs more alignment than a cache line gives.
    SlotAlignment(usize),
}

/// A queue's view of its region: the layout checked once, then the control words and
/// slots reached without a bounds check per access.
pub(crate) trait Slots {
    fn check<T>(&self, capacity: u32) -> Result<(), LayoutError>;
    fn word(&self, offset: usize) -> &AtomicU32;
    fn slot_offset<T>(&self, index: u32, capacity: u32) -> usize;
    fn prefetch_slot<T, const WRITE: bool>(&self, index: u32, capacity: u32);
    fn read_slot<T: Descriptor>(&self, index: u32, capacity: u32) -> T;
    fn read_slot_into<T: Descriptor>(&self, index: u32, capacity: u32, out: &mut T);
    fn write_slot<T: Descriptor>(&self, index: u32, capacity: u32, item: T);
}

impl Slots for SharedRegion<'_> {
    /// Checks that a queue of `capacity` slots of `T` fits.
    fn check<T>(&self, capacity: u32) -> Result<(), LayoutError> {
        if capacity == 0 || !capacity.is_power_of_two() {
            return Err(LayoutError::Capacity(capacity));
        }
        if core::mem::align_of::<T>() > CACHE_LINE {
            return Err(LayoutError::SlotAlignment(core::mem::align_of::<T>()));
        }
        if !(self.as_ptr() as usize).is_multiple_of(CACHE_LINE) {
            return Err(LayoutError::Misaligned(self.as_ptr() as usize));
        }
        let need = region_size::<T>(capacity);
        if self.len() < need {
            return Err(LayoutError::TooSmall {
                need,
                have: self.len(),
            });
        }
        Ok(())
    }

    fn word(&self, offset: usize) -> &AtomicU32 {
        debug_assert!(offset + 4 <= HEADER_SIZE);
        // SAFETY: offset is one of the three header words, inside a checked region and
        // 4-byte aligned because the base is line-aligned.
        unsafe { &*(self.as_ptr().add(offset) as *const AtomicU32) }
    }

    /// Offset of slot `index & (capacity - 1)`.
    #[inline(always)]
    fn slot_offset<T>(&self, index: u32, capacity: u32) -> usize {
        HEADER_SIZE + (index & (capacity - 1)) as usize * slot_size::<T>()
    }

    /// Asks the cache for slot `index`'s first line ahead of use: to read it
    /// (`WRITE = false`: PREFETCHT0), or to write it (PREFETCHW, which takes the line
    /// from the peer's cache for ownership, so that the stores that follow do not wait
    /// for it). x86_64 only; nothing elsewhere, where it is unmeasured. A hint: it reads
    /// and writes no value, so a peer rewriting the slot meanwhile changes nothing.
    #[inline(always)]
    fn prefetch_slot<T, const WRITE: bool>(&self, index: u32, capacity: u32) {
        // In the checked region: a slot below its capacity.
        let line = self
            .as_ptr()
            .wrapping_add(self.slot_offset::<T>(index, capacity));
        // SAFETY: a prefetch accesses no memory the program sees and cannot fault.
        // PREFETCHW is written out: core's `_MM_HINT_ET0` needs the `prfchw` target
        // feature, which the x86_64 baseline lacks, and without it LLVM emitted a read
        // prefetch. Processors without PREFETCHW execute it as a NOP.
        #[cfg(target_arch = "x86_64")]
        unsafe {
            if WRITE {
                core::arch::asm!("prefetchw [{0}]", in(reg) line, options(nostack, preserves_flags, readonly));
            } else {
                core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
                    line.cast::<i8>(),
                );
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = line;
    }

    /// A copy of slot `index` (see `SharedRegion::read_at`).
    #[inline(always)]
    fn read_slot<T: Descriptor>(&self, index: u32, capacity: u32) -> T {
        // SAFETY: the slot is in the checked region, aligned as `slot_size` keeps it.
        unsafe { self.read_at(self.slot_offset::<T>(index, capacity)) }
    }

    /// Slot `index` copied into `out` in place (see `SharedRegion::read_into_at`).
    #[inline(always)]
    fn read_slot_into<T: Descriptor>(&self, index: u32, capacity: u32, out: &mut T) {
        // SAFETY: as `read_slot`.
        unsafe { self.read_into_at(self.slot_offset::<T>(index, capacity), out) }
    }

    /// Writes `item` into slot `index` (see `SharedRegion::write_at`).
    #[inline]
    fn write_slot<T: Descriptor>(&self, index: u32, capacity: u32, item: T) {
        // SAFETY: as `read_slot`.
        unsafe { self.write_at(self.slot_offset::<T>(index, capacity), item) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_slot_straddles_a_cache_line() {
        fn check<T>() {
            let stride = slot_size::<T>();
            assert!(stride >= core::mem::size_of::<T>());
            for i in 0..64 {
                let start = HEADER_SIZE + i * stride;
                let end = start + core::mem::size_of::<T>() - 1;
                assert_eq!(
                    start / CACHE_LINE + (end - start) / CACHE_LINE,
                    end / CACHE_LINE,
                    "slot {i} of a {}-byte item ({stride} apart) straddles a line",
                    core::mem::size_of::<T>()
                );
            }
        }
        check::<[u8; 8]>();
        check::<[u8; 24]>();
        check::<[u8; 33]>();
        check::<[u8; 64]>();
        check::<[u8; 76]>();
        check::<[u8; 130]>();
        assert_eq!(slot_size::<[u8; 24]>(), 32);
        assert_eq!(slot_size::<[u8; 76]>(), 128);
        // A line or more: whole pairs of lines (the spatial prefetcher's unit).
        assert_eq!(slot_size::<[u8; 64]>(), 128);
        assert_eq!(slot_size::<[u8; 130]>(), 256);
    }

    /// Slots of every shape of size (pieces of 16, 8, 4, 2 and 1 bytes): each copy
    /// keeps every byte and writes nothing past its slot.
    #[test]
    fn slot_copies_keep_every_byte_and_stay_in_their_slot() {
        fn check<const N: usize>() {
            const CAP: u32 = 4;
            let stride = slot_size::<[u8; N]>();
            #[repr(C, align(64))]
            struct Mem([u8; 1024]);
            let mut mem = Mem([0xee; 1024]);
            let region = SharedRegion::new(&mut mem.0);
            let item: [u8; N] = core::array::from_fn(|i| i as u8 ^ 0x3c);
            region.write_slot(1, CAP, item);
            let mut back = [0u8; 1024];
            assert!(region.read_bytes(0, &mut back));
            let start = HEADER_SIZE + stride;
            assert!(back[..start].iter().all(|&b| b == 0xee), "{N}: before");
            assert_eq!(back[start..start + N], item, "{N}");
            assert!(back[start + N..].iter().all(|&b| b == 0xee), "{N}: after");
            assert_eq!(region.read_slot::<[u8; N]>(1, CAP), item, "{N}: read");
            let mut into = [0u8; N];
            region.read_slot_into(1, CAP, &mut into);
            assert_eq!(into, item, "{N}: read in place");
        }
        // A size is a const parameter, so the list is a macro's, not a loop's.
        macro_rules! check_sizes {
            ($($n:literal)*) => {
                $(check::<$n>();)*
            };
        }
        check_sizes!(1 2 3 6 7 12 15 16 31 48 64 76 127);
    }
}
