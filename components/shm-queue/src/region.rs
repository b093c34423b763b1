//! The shared region a queue lives in, and its layout.

use core::marker::PhantomData;
use core::sync::atomic::AtomicU32;

/// Control words are kept a cache line apart (64 bytes on Cortex-A and x86-64).
pub const CACHE_LINE: usize = 64;

/// Bytes before the first slot: tail, head and consumer_signalled, one line each.
pub const HEADER_SIZE: usize = 3 * CACHE_LINE;

pub(crate) const TAIL: usize = 0;
pub(crate) const HEAD: usize = CACHE_LINE;
pub(crate) const SIGNALLED: usize = 2 * CACHE_LINE;

/// Bytes a queue of `capacity` slots of `T` needs.
pub const fn region_size<T>(capacity: u32) -> usize {
    HEADER_SIZE + capacity as usize * core::mem::size_of::<T>()
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

/// A borrowed shared region. Copyable, because every access through it is atomic or
/// volatile: it is how the producer and the consumer of one queue share the same bytes.
#[derive(Clone, Copy)]
pub struct SharedRegion<'a> {
    base: *mut u8,
    len: usize,
    _life: PhantomData<&'a mut [u8]>,
}

// SAFETY: all access through a SharedRegion is atomic (indices) or volatile copies of
// plain-bytes types (slots); the region is shared by design.
unsafe impl Send for SharedRegion<'_> {}
// SAFETY: as above.
unsafe impl Sync for SharedRegion<'_> {}

impl<'a> SharedRegion<'a> {
    /// A region over memory this domain owns exclusively for `'a` (tests, or a region
    /// whose only other user is in another address space).
    pub fn new(bytes: &'a mut [u8]) -> Self {
        SharedRegion {
            base: bytes.as_mut_ptr(),
            len: bytes.len(),
            _life: PhantomData,
        }
    }

    /// A region over memory mapped from elsewhere (a Microkit memory region, a memfd).
    ///
    /// # Safety
    /// `base..base + len` must stay mapped, readable and writable for `'a`, and no Rust
    /// reference to it may exist while queues use it.
    pub unsafe fn from_raw(base: *mut u8, len: usize) -> Self {
        SharedRegion {
            base,
            len,
            _life: PhantomData,
        }
    }

    /// The sub-region `offset..offset + len`, for regions holding several queues.
    pub fn slice(self, offset: usize, len: usize) -> Option<Self> {
        let end = offset.checked_add(len)?;
        (end <= self.len).then(|| SharedRegion {
            // SAFETY: offset + len <= self.len, so the pointer stays in the region.
            base: unsafe { self.base.add(offset) },
            len,
            _life: PhantomData,
        })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn as_ptr(&self) -> *mut u8 {
        self.base
    }

    /// The 32-bit word at `offset`, for a control word beside the queues (e.g. a
    /// peer's incarnation number); `None` if it is outside the region or misaligned.
    /// Atomic access only, as for the queue indices: the peer may write it any time.
    pub fn atomic_u32(&self, offset: usize) -> Option<&'a AtomicU32> {
        let end = offset.checked_add(4)?;
        // SAFETY (of the add): offset + 4 <= len, checked first.
        let ptr = (end <= self.len).then(|| unsafe { self.base.add(offset) })?;
        if !(ptr as usize).is_multiple_of(core::mem::align_of::<AtomicU32>()) {
            return None;
        }
        // SAFETY: in bounds and aligned (checked above); the region stays mapped for 'a
        // (`from_raw`'s contract) and is only ever accessed atomically or volatilely.
        Some(unsafe { &*(ptr as *const AtomicU32) })
    }

    /// Copies `out.len()` bytes at `offset` out of the region into private memory;
    /// `false` (and nothing copied) if they are not all inside it. Volatile: the peer
    /// may write these bytes at any moment, so no Rust reference is ever made to them
    /// (the rule of rust-sel4's externally-shared memory); a peer that scribbles on them
    /// meanwhile spoils only the copy, never this domain's memory safety.
    pub fn read_bytes(&self, offset: usize, out: &mut [u8]) -> bool {
        let Some(src) = self.span(offset, out.len()) else {
            return false;
        };
        // SAFETY: `span` checked the bytes are inside the region, mapped for 'a.
        unsafe { volatile_copy(src, out.as_mut_ptr(), out.len()) };
        true
    }

    /// Copies `data` into the region at `offset`; `false` (and nothing written) if it
    /// does not fit. Volatile, as [`read_bytes`](Self::read_bytes).
    pub fn write_bytes(&self, offset: usize, data: &[u8]) -> bool {
        let Some(dst) = self.span(offset, data.len()) else {
            return false;
        };
        // SAFETY: `span` checked the bytes are inside the region, mapped for 'a.
        unsafe { volatile_copy(data.as_ptr(), dst, data.len()) };
        true
    }

    fn span(&self, offset: usize, len: usize) -> Option<*mut u8> {
        let end = offset.checked_add(len)?;
        // SAFETY (of the add): offset <= end <= len.
        (end <= self.len).then(|| unsafe { self.base.add(offset) })
    }

    /// Checks that a queue of `capacity` slots of `T` fits.
    pub(crate) fn check<T>(&self, capacity: u32) -> Result<(), LayoutError> {
        if capacity == 0 || !capacity.is_power_of_two() {
            return Err(LayoutError::Capacity(capacity));
        }
        if core::mem::align_of::<T>() > CACHE_LINE {
            return Err(LayoutError::SlotAlignment(core::mem::align_of::<T>()));
        }
        if !(self.base as usize).is_multiple_of(CACHE_LINE) {
            return Err(LayoutError::Misaligned(self.base as usize));
        }
        let need = region_size::<T>(capacity);
        if self.len < need {
            return Err(LayoutError::TooSmall {
                need,
                have: self.len,
            });
        }
        Ok(())
    }

    pub(crate) fn word(&self, offset: usize) -> &AtomicU32 {
        debug_assert!(offset + 4 <= HEADER_SIZE);
        // SAFETY: offset is one of the three header words, inside a checked region and
        // 4-byte aligned because the base is line-aligned.
        unsafe { &*(self.base.add(offset) as *const AtomicU32) }
    }

    /// Pointer to slot `index & (capacity - 1)`.
    pub(crate) fn slot<T>(&self, index: u32, capacity: u32) -> *mut T {
        let i = (index & (capacity - 1)) as usize;
        // SAFETY: i < capacity and the region was checked to hold capacity slots.
        unsafe { self.base.add(HEADER_SIZE + i * core::mem::size_of::<T>()) as *mut T }
    }
}

/// Copies `len` bytes with volatile accesses, a machine word at a time where both sides
/// allow it (a byte loop would make every client copy eight times slower).
///
/// # Safety
/// `src` readable and `dst` writable for `len` bytes; the two do not overlap.
unsafe fn volatile_copy(src: *const u8, dst: *mut u8, len: usize) {
    const W: usize = core::mem::size_of::<usize>();
    let mut i = 0;
    // SAFETY (all accesses): i + W <= len or i < len, inside both buffers (contract).
    unsafe {
        if (src as usize) % W == (dst as usize) % W {
            while i < len && !(src as usize + i).is_multiple_of(W) {
                dst.add(i).write_volatile(src.add(i).read_volatile());
                i += 1;
            }
            while i + W <= len {
                let w = src.add(i).cast::<usize>().read_volatile();
                dst.add(i).cast::<usize>().write_volatile(w);
                i += W;
            }
        }
        while i < len {
            dst.add(i).write_volatile(src.add(i).read_volatile());
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_copies_stay_inside_and_keep_every_byte() {
        let mut mem = [0u8; 67];
        let region = SharedRegion::new(&mut mem);
        let data: [u8; 40] = core::array::from_fn(|i| i as u8 + 1);
        for offset in 0..8 {
            assert!(region.write_bytes(offset + 3, &data));
            let mut back = [0u8; 40];
            assert!(region.read_bytes(offset + 3, &mut back));
            assert_eq!(back, data);
        }
        let mut out = [0u8; 8];
        assert!(!region.read_bytes(60, &mut out), "runs past the end");
        assert!(
            !region.write_bytes(usize::MAX - 2, &[1; 4]),
            "offset overflows"
        );
        assert!(region.read_bytes(59, &mut out), "ends exactly at the end");
        assert!(region.read_bytes(67, &mut []), "empty at the end");
    }
}
