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
