//! Memory a peer may write at any time: a region shared between protection domains
//! that do not trust each other (a queue pair, a client's data region, a trace). A
//! [`SharedRegion`] is reached only by atomic words and volatile copies, never by a
//! Rust reference, so a peer scribbling on it spoils only the copy a domain makes, never
//! that domain's memory safety (the rule of rust-sel4's externally-shared memory).
//!
//! The copies move whole 16-byte vectors where both sides allow it, then machine words,
//! volatile on the shared side only, so that the private side may stay in registers:
//! what every queue slot, client segment and engine block goes through.
//!
//! At the bottom of the crate graph (zerocopy only): the IDL, the boards, the runtime
//! and the queues build on it. Assumes the region stays mapped for its lifetime `'a`.
//! `no_std`.
#![no_std]
#![deny(unsafe_op_in_unsafe_fn)]

use core::marker::PhantomData;
use core::mem::{MaybeUninit, size_of};
use core::sync::atomic::AtomicU32;

use zerocopy::{FromBytes, Immutable, IntoBytes};

/// A 16-byte vector register's type: what the volatile copies and block loads move at
/// once where both sides are 16-byte aligned.
#[cfg(target_arch = "x86_64")]
type Vector = core::arch::x86_64::__m128i;
#[cfg(target_arch = "aarch64")]
type Vector = core::arch::aarch64::uint8x16_t;

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

    /// A copy of the `T` at `offset`: volatile loads of whole 16-byte vectors (then
    /// smaller pieces) into a 16-byte aligned frame. A plain `read_volatile` of a
    /// descriptor was split field by field, and the first wide read of the copy stalled
    /// store-to-load forwarding on every request. A caller whose copy lives on reads
    /// into its own ([`read_into_at`](Self::read_into_at)): the copy returned here is
    /// moved out of the frame, and may be split again.
    ///
    /// # Safety
    /// `offset..offset + size_of::<T>()` inside the region, at an address aligned to the
    /// smaller of 16 and `size_of::<T>()` rounded up to a power of two (a queue slot is).
    #[inline(always)]
    pub unsafe fn read_at<T: FromBytes>(&self, offset: usize) -> T {
        let mut frame = Frame::<T>(MaybeUninit::uninit());
        // SAFETY: the caller's contract; the frame holds a T, and T is FromBytes, so
        // whatever bytes the peer left are a valid T.
        unsafe {
            let src = self.base.add(offset);
            copy_slot::<true>(src, frame.0.as_mut_ptr().cast(), size_of::<T>(), 16);
            frame.0.assume_init()
        }
    }

    /// The `T` at `offset` copied into `out` in place (see [`read_at`](Self::read_at)).
    ///
    /// # Safety
    /// As [`read_at`](Self::read_at).
    #[inline(always)]
    pub unsafe fn read_into_at<T: FromBytes + IntoBytes>(&self, offset: usize, out: &mut T) {
        // SAFETY: the caller's contract; `out` is a whole T, and T is FromBytes.
        unsafe {
            let src = self.base.add(offset);
            copy_slot::<true>(src, (out as *mut T).cast(), size_of::<T>(), align_of::<T>())
        }
    }

    /// Writes `item` at `offset` as [`read_at`](Self::read_at) reads it: whole 16-byte
    /// volatile stores (then smaller pieces), a handful per item rather than one per
    /// field (each a store to a line the peer last read, queued behind its ownership
    /// transfer), from a frame read with plain loads, so that the item can stay in
    /// registers.
    ///
    /// # Safety
    /// As [`read_at`](Self::read_at).
    #[inline]
    pub unsafe fn write_at<T: IntoBytes + Immutable>(&self, offset: usize, item: T) {
        let frame = Frame(MaybeUninit::new(item));
        // SAFETY: the caller's contract; T is IntoBytes (no padding), so every byte of
        // the frame's T is initialised.
        unsafe {
            let dst = self.base.add(offset);
            copy_slot::<false>(frame.0.as_ptr().cast(), dst, size_of::<T>(), 16)
        }
    }
}

/// An item on a 16-byte boundary, so that its copy to or from the region moves whole
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
