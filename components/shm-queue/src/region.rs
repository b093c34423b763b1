//! The shared region a queue lives in, and its layout.

use core::marker::PhantomData;
use core::mem::{MaybeUninit, size_of};
use core::sync::atomic::AtomicU32;

use crate::Descriptor;

/// Control words are kept a cache line apart (64 bytes on Cortex-A and x86-64).
pub const CACHE_LINE: usize = 64;

/// Bytes before the first slot: tail, head and consumer_signalled, one line each.
pub const HEADER_SIZE: usize = 3 * CACHE_LINE;

pub(crate) const TAIL: usize = 0;
pub(crate) const HEAD: usize = CACHE_LINE;
pub(crate) const SIGNALLED: usize = 2 * CACHE_LINE;

/// A 16-byte vector register's type: what the volatile copies and block loads move at
/// once where both sides are 16-byte aligned.
#[cfg(target_arch = "x86_64")]
type Vector = core::arch::x86_64::__m128i;
#[cfg(target_arch = "aarch64")]
type Vector = core::arch::aarch64::uint8x16_t;

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
        unsafe { volatile_copy::<true>(src, out.as_mut_ptr(), out.len()) };
        true
    }

    /// Copies `data` into the region at `offset`; `false` (and nothing written) if it
    /// does not fit. Volatile, as [`read_bytes`](Self::read_bytes).
    pub fn write_bytes(&self, offset: usize, data: &[u8]) -> bool {
        let Some(dst) = self.span(offset, data.len()) else {
            return false;
        };
        // SAFETY: `span` checked the bytes are inside the region, mapped for 'a.
        unsafe { volatile_copy::<false>(data.as_ptr(), dst, data.len()) };
        true
    }

    /// The 16 bytes at `offset`, if they are inside the region and 8-byte aligned (else
    /// `None`: use [`read_bytes`](Self::read_bytes)). Inlined, so a cipher's loop over
    /// blocks keeps them in registers: the CPU engine reads a block, enciphers it and
    /// writes it back with no pass over a private copy. At a 16-byte aligned address one
    /// volatile 16-byte vector load: two 8-byte loads, stored and reloaded as one block
    /// by the cipher, stall store-to-load forwarding (CBC at 16 KiB ran 1.7x slower).
    #[inline]
    pub fn read_block(&self, offset: usize) -> Option<[u8; 16]> {
        let src = self.span(offset, 16)?;
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        if (src as usize).is_multiple_of(16) {
            // SAFETY: inside the region (span) and 16-aligned (checked); any 16 bytes
            // are a valid [u8; 16].
            return Some(unsafe {
                core::mem::transmute::<Vector, [u8; 16]>(src.cast::<Vector>().read_volatile())
            });
        }
        if !(src as usize).is_multiple_of(8) {
            return None;
        }
        // SAFETY: inside the region (span) and 8-aligned (checked).
        let (a, b) = unsafe {
            let p = src.cast::<u64>();
            (p.read_volatile(), p.add(1).read_volatile())
        };
        let mut out = [0u8; 16];
        out[..8].copy_from_slice(&a.to_ne_bytes());
        out[8..].copy_from_slice(&b.to_ne_bytes());
        Some(out)
    }

    /// Writes 16 bytes at `offset` as one volatile 16-byte store (any alignment); `false`
    /// (nothing written) if they are outside the region.
    #[inline]
    pub fn write_block(&self, offset: usize, block: &[u8; 16]) -> bool {
        let Some(dst) = self.span(offset, 16) else {
            return false;
        };
        // SAFETY: inside the region (span); a byte array needs no alignment.
        unsafe { dst.cast::<[u8; 16]>().write_volatile(*block) };
        true
    }

    #[inline]
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
        unsafe { self.base.add(HEADER_SIZE + i * slot_size::<T>()) as *mut T }
    }

    /// Asks the cache for slot `index`'s first line ahead of use: to read it
    /// (`WRITE = false`: PREFETCHT0), or to write it (PREFETCHW, which takes the line
    /// from the peer's cache for ownership, so that the stores that follow do not wait
    /// for it). x86_64 only; nothing elsewhere, where it is unmeasured. A hint: it reads
    /// and writes no value, so a peer rewriting the slot meanwhile changes nothing.
    #[inline(always)]
    pub(crate) fn prefetch_slot<T, const WRITE: bool>(&self, index: u32, capacity: u32) {
        let line = self.slot::<T>(index, capacity).cast::<u8>();
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

    /// A copy of slot `index`: volatile loads of whole 16-byte vectors (then smaller
    /// pieces) into a 16-byte aligned frame ([`copy_slot`]). A plain `read_volatile` of
    /// a descriptor was split field by field, and the first wide read of the copy (the
    /// segment check's) stalled store-to-load forwarding on every request. A caller whose
    /// copy lives on reads into its own ([`read_slot_into`](Self::read_slot_into)): the
    /// copy returned here is moved out of the frame, and may be split again.
    #[inline(always)]
    pub(crate) fn read_slot<T: Descriptor>(&self, index: u32, capacity: u32) -> T {
        let slot = self.slot::<T>(index, capacity);
        let mut frame = Frame::<T>(MaybeUninit::uninit());
        // SAFETY: the slot is in the checked region; the frame holds a T. T is FromBytes,
        // so whatever bytes the producer left are a valid T.
        unsafe {
            copy_slot::<true>(slot.cast(), frame.0.as_mut_ptr().cast(), size_of::<T>(), 16);
            frame.0.assume_init()
        }
    }

    /// Slot `index` copied into `out` in place (see [`read_slot`](Self::read_slot)).
    #[inline(always)]
    pub(crate) fn read_slot_into<T: Descriptor>(&self, index: u32, capacity: u32, out: &mut T) {
        let slot = self.slot::<T>(index, capacity);
        // SAFETY: the slot is in the checked region; `out` is a whole T, and T is
        // FromBytes, so whatever bytes the producer left are a valid T.
        unsafe {
            copy_slot::<true>(
                slot.cast(),
                (out as *mut T).cast(),
                size_of::<T>(),
                align_of::<T>(),
            )
        }
    }

    /// Writes `item` into slot `index` as [`read_slot`](Self::read_slot) reads it: whole
    /// 16-byte volatile stores (then smaller pieces), a handful per slot rather than one
    /// per field (each a store to a line the consumer last read, queued behind its
    /// ownership transfer), from a frame read with plain loads, so that the item can
    /// stay in registers.
    #[inline]
    pub(crate) fn write_slot<T: Descriptor>(&self, index: u32, capacity: u32, item: T) {
        let slot = self.slot::<T>(index, capacity);
        let frame = Frame(MaybeUninit::new(item));
        // SAFETY: the slot is in the checked region; T is IntoBytes (no padding), so
        // every byte of the frame's T is initialised.
        unsafe { copy_slot::<false>(frame.0.as_ptr().cast(), slot.cast(), size_of::<T>(), 16) };
    }
}

/// A descriptor on a 16-byte boundary, so that its copy to or from a slot moves whole
/// vectors (see [`copy_slot`]).
#[repr(C, align(16))]
struct Frame<T>(MaybeUninit<T>);

/// Copies `len` bytes between the shared region and private memory, 16 bytes at a time
/// where both sides are 16-byte aligned (one vector load and store each on x86_64 and
/// aarch64), else a machine word at a time where both sides allow it (a byte loop would
/// make every client copy eight times slower; words instead of vectors made the CPU
/// engine's copies of a 16 KiB request cost 12% of its AES-128-CBC time).
///
/// Only the shared side's accesses are volatile (`FROM_SHARED`: the source is shared,
/// else the destination): the private side is plain memory the compiler may keep in
/// registers. A queue slot's frame, written field by field and read back by volatile
/// word loads, stalled store-to-load forwarding on every answer a driver wrote.
///
/// # Safety
/// `src` readable and `dst` writable for `len` bytes; the two do not overlap; the
/// private side is not shared.
#[inline]
unsafe fn volatile_copy<const FROM_SHARED: bool>(src: *const u8, dst: *mut u8, len: usize) {
    const W: usize = core::mem::size_of::<usize>();
    let mut i = 0;
    // SAFETY (all accesses): i + W <= len or i < len, inside both buffers (contract).
    unsafe {
        if (src as usize) % 16 == (dst as usize) % 16 {
            while i < len && !(src as usize + i).is_multiple_of(16) {
                copy_one::<u8, FROM_SHARED>(src.add(i), dst.add(i), 1, false);
                i += 1;
            }
            i += copy_vectors::<FROM_SHARED>(src.add(i), dst.add(i), len - i);
        }
        if (src as usize + i) % W == (dst as usize + i) % W {
            while i < len && !(src as usize + i).is_multiple_of(W) {
                copy_one::<u8, FROM_SHARED>(src.add(i), dst.add(i), 1, false);
                i += 1;
            }
            while i + W <= len {
                copy_one::<usize, FROM_SHARED>(src.add(i).cast(), dst.add(i).cast(), W, false);
                i += W;
            }
        }
        while i < len {
            copy_one::<u8, FROM_SHARED>(src.add(i), dst.add(i), 1, false);
            i += 1;
        }
    }
}

/// Copies a slot's `len` bytes (`size_of` a descriptor) between the slot and a private
/// copy, volatile on the shared side: whole vectors, then a word, then halves down to a
/// byte, at offsets fixed by `len` and the private side's alignment alone (that only
/// where unaligned access is not free: [`UNALIGNED_IS_FREE`]). The slot is aligned to at
/// least the widest piece (to the smaller of 16 and its size rounded to a power of two:
/// [`slot_size`]); the private side may be less aligned (a descriptor may be).
/// No address is looked at, so the compiler may keep the private copy in registers:
/// [`volatile_copy`]'s alignment test made a frame's address matter, and an answer
/// built field by field in its frame was read back by word loads that stalled
/// store-to-load forwarding.
///
/// # Safety
/// As [`volatile_copy`], and the shared side aligned as said.
#[inline(always)]
unsafe fn copy_slot<const FROM_SHARED: bool>(
    src: *const u8,
    dst: *mut u8,
    len: usize,
    private_align: usize,
) {
    // SAFETY: the caller's contract.
    unsafe { copy_pieces::<FROM_SHARED>(src, dst, len, private_align, UNALIGNED_IS_FREE) }
}

/// [`copy_slot`]'s pieces, with whether unaligned access is free given (so that a test
/// on x86_64 takes the strict targets' pieces too).
///
/// # Safety
/// As [`copy_slot`].
#[inline(always)]
unsafe fn copy_pieces<const FROM_SHARED: bool>(
    src: *const u8,
    dst: *mut u8,
    len: usize,
    private_align: usize,
    unaligned_free: bool,
) {
    let mut i = 0;
    // SAFETY (all): the caller's contract; each rung keeps its pieces at offsets that are
    // multiples of their size (every rung before it moved whole multiples of its own).
    unsafe {
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        rung::<Vector, FROM_SHARED>(src, dst, len, &mut i, private_align, unaligned_free);
        rung::<u64, FROM_SHARED>(src, dst, len, &mut i, private_align, unaligned_free);
        rung::<u32, FROM_SHARED>(src, dst, len, &mut i, private_align, unaligned_free);
        rung::<u16, FROM_SHARED>(src, dst, len, &mut i, private_align, unaligned_free);
        rung::<u8, FROM_SHARED>(src, dst, len, &mut i, private_align, unaligned_free);
    }
}

/// One rung of [`copy_pieces`]' ladder: `V`s from offset `*i` while one fits in `len`,
/// if a `V` is no wider than the private side's alignment or that costs nothing.
///
/// # Safety
/// As [`copy_slot`], with `*i` a multiple of `size_of::<V>()`.
#[inline(always)]
unsafe fn rung<V: Copy, const FROM_SHARED: bool>(
    src: *const u8,
    dst: *mut u8,
    len: usize,
    i: &mut usize,
    private_align: usize,
    unaligned_free: bool,
) {
    let n = size_of::<V>();
    if !(unaligned_free || n <= private_align) {
        return;
    }
    while *i + n <= len {
        // SAFETY: the caller's contract; `*i + n <= len`.
        unsafe {
            copy_one::<V, FROM_SHARED>(
                src.add(*i).cast(),
                dst.add(*i).cast(),
                private_align,
                unaligned_free,
            );
        }
        *i += n;
    }
}

/// Whether a plain access at any alignment is one instruction. On x86_64 it is. On
/// aarch64-unknown-none, the seL4 PDs' target, LLVM assumes strict alignment: an
/// unaligned u64 or vector access was compiled to single-byte loads and shifts (each
/// PD's two region copies were 1.8 KB of code, ~1.1 KB more than with aligned
/// accesses, and every private slot copy was bytes).
/// So there the private side is accessed as aligned, and the callers keep it so.
const UNALIGNED_IS_FREE: bool = cfg!(target_arch = "x86_64");

/// One `V` from `src` to `dst` (see [`volatile_copy`]): volatile on the shared side,
/// plain on the private side, accessed as aligned where `private_align` (a constant
/// wherever this is inlined) says it is aligned for a `V`, else unaligned, which only a
/// target where `unaligned_free` may be asked for (a debug build checks it).
///
/// # Safety
/// Both valid for a `V`, the shared side aligned for it, the private side aligned to
/// `min(align_of::<V>(), private_align)`.
#[inline(always)]
unsafe fn copy_one<V: Copy, const FROM_SHARED: bool>(
    src: *const V,
    dst: *mut V,
    private_align: usize,
    unaligned_free: bool,
) {
    let aligned = align_of::<V>() <= private_align;
    debug_assert!(aligned || unaligned_free, "an unaligned private access");
    // SAFETY: the caller's contract.
    unsafe { store::<V, FROM_SHARED>(dst, load::<V, FROM_SHARED>(src, aligned), aligned) }
}

/// A `V` from `src`: volatile if it is the shared side (`FROM_SHARED`), else a plain
/// read, by dereference where `aligned` (a debug build checks its alignment).
///
/// # Safety
/// `src` valid for a `V`, and aligned for it if shared or `aligned`.
#[inline(always)]
unsafe fn load<V: Copy, const FROM_SHARED: bool>(src: *const V, aligned: bool) -> V {
    // SAFETY: the caller's contract.
    unsafe {
        if FROM_SHARED {
            src.read_volatile()
        } else if aligned {
            *src
        } else {
            src.read_unaligned()
        }
    }
}

/// `v` to `dst`: volatile if it is the shared side (`!FROM_SHARED`), else as [`load`].
///
/// # Safety
/// `dst` valid for a `V`, and aligned for it if shared or `aligned`.
#[inline(always)]
unsafe fn store<V: Copy, const FROM_SHARED: bool>(dst: *mut V, v: V, aligned: bool) {
    // SAFETY: the caller's contract.
    unsafe {
        if !FROM_SHARED {
            dst.write_volatile(v)
        } else if aligned {
            *dst = v
        } else {
            dst.write_unaligned(v)
        }
    }
}

/// Copies the whole 16-byte vectors of `len` bytes between 16-aligned `src` and `dst`,
/// volatile on the shared side; how many bytes (0 where the target has no vectors).
///
/// # Safety
/// As [`volatile_copy`], and both 16-byte aligned.
#[inline(always)]
unsafe fn copy_vectors<const FROM_SHARED: bool>(src: *const u8, dst: *mut u8, len: usize) -> usize {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    {
        let mut i = 0;
        // Four vectors loaded before any is stored: the loads overlap.
        while i + 64 <= len {
            // SAFETY: inside both buffers and 16-aligned (contract).
            unsafe {
                let s = src.add(i).cast::<Vector>();
                let d = dst.add(i).cast::<Vector>();
                let at = |k| load::<Vector, FROM_SHARED>(s.add(k), true);
                let (a, b, c, e) = (at(0), at(1), at(2), at(3));
                for (k, v) in [a, b, c, e].into_iter().enumerate() {
                    store::<Vector, FROM_SHARED>(d.add(k), v, true);
                }
            }
            i += 64;
        }
        while i + 16 <= len {
            // SAFETY: as above.
            unsafe {
                copy_one::<Vector, FROM_SHARED>(src.add(i).cast(), dst.add(i).cast(), 16, false)
            };
            i += 16;
        }
        i
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let _ = (src, dst, len);
        0
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

    /// Every pair of alignments and lengths around the vector copies' edges: bytes
    /// before and after the copy untouched, every byte copied.
    #[test]
    fn vector_copies_keep_every_byte_at_every_alignment() {
        #[repr(C, align(16))]
        struct Mem([u8; 160]);
        let mut mem = Mem([0; 160]);
        let region = SharedRegion::new(&mut mem.0);
        let mut src = Mem([0; 160]);
        for (i, b) in src.0.iter_mut().enumerate() {
            *b = i as u8 ^ 0x5a;
        }
        for from in 0..17 {
            for to in 0..17 {
                for len in [0, 1, 15, 16, 17, 31, 32, 33, 100] {
                    assert!(region.write_bytes(0, &[0; 160]));
                    assert!(region.write_bytes(to, &src.0[from..from + len]));
                    let mut back = Mem([0xff; 160]);
                    assert!(region.read_bytes(0, &mut back.0));
                    assert!(back.0[..to].iter().all(|&b| b == 0), "{from} {to} {len}");
                    assert_eq!(&back.0[to..to + len], &src.0[from..from + len]);
                    assert!(
                        back.0[to + len..].iter().all(|&b| b == 0),
                        "{from} {to} {len}"
                    );
                    let mut out = Mem([0; 160]);
                    assert!(region.read_bytes(to, &mut out.0[from..from + len]));
                    assert_eq!(&out.0[from..from + len], &src.0[from..from + len]);
                }
            }
        }
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
        check::<1>();
        check::<2>();
        check::<3>();
        check::<6>();
        check::<7>();
        check::<12>();
        check::<15>();
        check::<16>();
        check::<31>();
        check::<48>();
        check::<64>();
        check::<76>();
        check::<127>();
    }

    /// The pieces a strict-alignment target (aarch64-unknown-none) takes: none wider
    /// than the private side's alignment (`copy_one`'s debug check) and each at an
    /// aligned address (a debug build checks each dereference), every byte kept, none
    /// written outside, both ways. Fails if `copy_pieces` ignores the alignment.
    #[test]
    fn strict_pieces_keep_to_the_private_alignment() {
        #[repr(C, align(64))]
        struct Buf([u8; 256]);
        for len in [1, 2, 3, 6, 7, 12, 15, 16, 17, 31, 48, 64, 76, 127] {
            for align in [1, 2, 4, 8, 16] {
                let slot = Buf(core::array::from_fn(|i| i as u8 ^ 0x5a));
                let mut private = Buf([0xee; 256]);
                // SAFETY: both inside their buffers (align + len <= 256); the slot is
                // 64-aligned, the private side at offset `align` of a 64-aligned buffer.
                unsafe {
                    let p = private.0.as_mut_ptr().add(align);
                    copy_pieces::<true>(slot.0.as_ptr(), p, len, align, false);
                }
                let copy = &private.0[align..align + len];
                assert_eq!(copy, &slot.0[..len], "{len} B at alignment {align}: read");
                assert!(
                    private.0[..align].iter().all(|&b| b == 0xee),
                    "{len}/{align}"
                );
                assert!(private.0[align + len..].iter().all(|&b| b == 0xee));
                let mut back = Buf([0xee; 256]);
                // SAFETY: as above, the other way.
                unsafe {
                    let p = private.0.as_ptr().add(align);
                    copy_pieces::<false>(p, back.0.as_mut_ptr(), len, align, false);
                }
                assert_eq!(&back.0[..len], &slot.0[..len], "{len}/{align}: written");
                assert!(back.0[len..].iter().all(|&b| b == 0xee), "{len}/{align}");
            }
        }
    }

    #[test]
    fn blocks_are_read_aligned_and_written_anywhere() {
        #[repr(C, align(16))]
        struct Mem([u8; 64]);
        let mut mem = Mem(core::array::from_fn(|i| i as u8));
        let region = SharedRegion::new(&mut mem.0);
        let want = |at: usize| -> [u8; 16] { core::array::from_fn(|i| (at + i) as u8) };
        assert_eq!(region.read_block(16), Some(want(16)), "vector load");
        assert_eq!(region.read_block(8), Some(want(8)), "word pair");
        assert_eq!(region.read_block(4), None, "unaligned: the caller copies");
        assert_eq!(region.read_block(48), Some(want(48)), "ends at the end");
        assert_eq!(region.read_block(56), None, "runs past the end");
        assert!(region.write_block(3, &[7; 16]));
        let mut back = [0u8; 20];
        assert!(region.read_bytes(1, &mut back));
        assert_eq!(back[..2], [1, 2]);
        assert_eq!(back[2..18], [7; 16]);
        assert_eq!(back[18..], [19, 20]);
        assert!(!region.write_block(49, &[0; 16]), "runs past the end");
    }
}
