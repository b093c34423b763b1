//! A request's scatter-gather list, checked against the client's data region before any
//! engine sees it: written once for every service, since the Cipher and Digest
//! interfaces share one `Segment` type (`pd_idl::common`). Each service maps a
//! [`SegmentError`] to its interface's error and adds its own rules (a block cipher's
//! whole blocks).
//!
//! Checks: at most [`MAX_SEGMENTS`] per request ([`MAX_JOINED`] once a driver joins
//! several requests' lists); each segment inside the region, with overflow
//! checks on `offset + len`; a total that fits the answer's `bytes_done`; and, for a
//! service that writes in place, no two segments overlapping (an overlap would make the
//! result depend on the order an engine visits bytes: the OMAP PIO path and the CPU
//! engine gave different bytes). Assumes nothing of the client: every field is a value
//! it may have scribbled. `no_std`, no heap.
#![no_std]
#![forbid(unsafe_code)]

use pd_idl::common::Segment;

/// Most segments one request carries (the length of a request's `segs`: six, so that a
/// request is one 64-byte cache line).
pub const MAX_SEGMENTS: usize = 6;

/// Most segments a driver's job carries: one request's, or those of several requests of
/// one session joined into one transfer ([`join`]). Apart from [`MAX_SEGMENTS`] so that
/// the wire format's limit does not bound how many requests one DMA start can carry:
/// the segment lists the engines build (EDMA links, STM32 DMA pieces, SEC1 descriptors)
/// are this long.
pub const MAX_JOINED: usize = 16;

/// Why a list of segments is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentError {
    /// More than [`MAX_SEGMENTS`] in a request ([`MAX_JOINED`] in a driver's list).
    TooMany,
    /// A segment reaches past the region (or its end overflows).
    OutOfRange,
    /// The total does not fit a `u32`.
    TooLong,
    /// Two segments share bytes (checked for in-place work only).
    Overlap,
}

/// Segments of a request (or of a job's joined requests), each known to lie inside the
/// data region. Only the first `count` mean anything (equality compares those): a
/// request's list is kept whole, whatever the client left past its count, so that
/// taking it is a fixed-size copy.
///
/// 16-byte aligned with the list first, so that copies of it (into a job, out of a
/// `Result`) are whole vector moves at matching offsets: left to the default layout it
/// sat at odd offsets inside a job, and each copy stalled store-to-load forwarding.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(16))]
pub struct Segments {
    segs: [Segment; MAX_JOINED],
    count: usize,
    total: u32,
}

impl PartialEq for Segments {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice() && self.total == other.total
    }
}

impl Eq for Segments {}

impl Segments {
    /// No segments (what [`check_into`] fills).
    pub const EMPTY: Segments = Segments {
        segs: [Segment { offset: 0, len: 0 }; MAX_JOINED],
        count: 0,
        total: 0,
    };

    pub fn as_slice(&self) -> &[Segment] {
        &self.segs[..self.count]
    }

    /// Bytes in all segments.
    pub fn total(&self) -> u32 {
        self.total
    }

    /// Takes the last segment off the list (and its bytes off the total): a request whose
    /// last segment is no data (a final's output place, a verify's tag) is checked whole,
    /// in one fixed-size copy, then split.
    pub fn pop(&mut self) -> Option<Segment> {
        self.count = self.count.checked_sub(1)?;
        let last = self.segs[self.count];
        self.total -= last.len;
        Some(last)
    }

    /// Takes the last segment off as the place a result of `len` bytes is written (a
    /// digest, a tag): it must hold the result and share no byte with the segments
    /// left, whose bytes the engine reads while it works. `None`: no segment, or one too
    /// short or overlapping; the list means nothing then.
    #[inline]
    pub fn take_output(&mut self, len: usize) -> Option<Segment> {
        let place = self.pop()?;
        ((place.len as usize) >= len && !self.overlaps(&place)).then_some(place)
    }

    /// The list's bytes `from..from + len` of its stream (the segments' bytes in order),
    /// as a list of their own: the pieces a job too large for its client's share is
    /// served in. Clamped to the stream; empty segments are left out.
    pub fn window(&self, from: u32, len: u32) -> Segments {
        let mut out = Segments::EMPTY;
        let (start, end) = (
            from.min(self.total),
            from.saturating_add(len).min(self.total),
        );
        let mut at = 0u32;
        for s in self.as_slice() {
            let (lo, hi) = (at.max(start), (at + s.len).min(end));
            if lo < hi {
                out.segs[out.count] = Segment {
                    offset: s.offset + (lo - at),
                    len: hi - lo,
                };
                out.count += 1;
                out.total += hi - lo;
            }
            at += s.len;
        }
        out
    }

    /// Whether `other` shares a byte with one of the segments (empty ones share none).
    pub fn overlaps(&self, other: &Segment) -> bool {
        // Ends cannot overflow: the list and `other` were checked inside a region.
        let end = u64::from(other.offset) + u64::from(other.len);
        self.as_slice().iter().any(|s| {
            let apart = u64::from(s.offset) + u64::from(s.len) <= u64::from(other.offset)
                || end <= u64::from(s.offset);
            !apart && s.len > 0 && other.len > 0
        })
    }
}

/// Whether the list is checked for overlaps: an in-place service (a cipher writes back
/// where it read) needs disjoint segments; a reader (a hash) does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overlaps {
    Refused,
    Allowed,
}

/// Checks the first `count` of `segs` against a region of `region_len` bytes.
#[inline]
pub fn check(
    segs: &[Segment; MAX_SEGMENTS],
    count: u8,
    region_len: usize,
    overlaps: Overlaps,
) -> Result<Segments, SegmentError> {
    let mut out = Segments::EMPTY;
    check_into(&mut out, segs, count, region_len, overlaps)?;
    Ok(out)
}

/// [`check`], writing the list into `out` (left as it was if refused): a serving loop
/// builds its job in place, where a list returned in a `Result` was copied once per
/// layer it passed through, each copy a chance for a stalled store-to-load forward.
#[inline]
pub fn check_into(
    out: &mut Segments,
    segs: &[Segment; MAX_SEGMENTS],
    count: u8,
    region_len: usize,
    overlaps: Overlaps,
) -> Result<(), SegmentError> {
    let count = usize::from(count);
    if count > MAX_SEGMENTS {
        return Err(SegmentError::TooMany);
    }
    out.total = check_list(&segs[..count], region_len, overlaps)?;
    // The whole request's list, a fixed-size copy: a copy of `count` segments was a call
    // to memcpy per request.
    out.segs[..MAX_SEGMENTS].copy_from_slice(segs);
    out.count = count;
    Ok(())
}

/// The checks of [`check`] on a list of at most [`MAX_JOINED`]; its total.
#[inline]
fn check_list(
    list: &[Segment],
    region_len: usize,
    overlaps: Overlaps,
) -> Result<u32, SegmentError> {
    if list.len() > MAX_JOINED {
        return Err(SegmentError::TooMany);
    }
    let mut total: u32 = 0;
    for s in list {
        let end = s
            .offset
            .checked_add(s.len)
            .ok_or(SegmentError::OutOfRange)?;
        if end as usize > region_len {
            return Err(SegmentError::OutOfRange);
        }
        total = total.checked_add(s.len).ok_or(SegmentError::TooLong)?;
    }
    if overlaps == Overlaps::Refused {
        // A request's at most 15 pairs, no sort and no buffer. A join checks its whole
        // list again (120 pairs at 16, 680 over the growth of a job to 16): checking only
        // the pairs across, for halves known disjoint, cost ~350-650 B of each driver's
        // text, and this ~0.3 us a request on a 650 MHz core against a modelled 22-119 us.
        for (i, a) in list.iter().enumerate() {
            for b in &list[i + 1..] {
                // Ends cannot overflow: checked above.
                let apart = a.offset + a.len <= b.offset || b.offset + b.len <= a.offset;
                if !apart && a.len > 0 && b.len > 0 {
                    return Err(SegmentError::Overlap);
                }
            }
        }
    }
    Ok(total)
}

/// Segments a driver builds itself (self-tests), checked like a client's, up to
/// [`MAX_JOINED`].
pub fn from_slice(
    segs: &[Segment],
    region_len: usize,
    overlaps: Overlaps,
) -> Result<Segments, SegmentError> {
    let total = check_list(segs, region_len, overlaps)?;
    let mut all = [Segment { offset: 0, len: 0 }; MAX_JOINED];
    all[..segs.len()].copy_from_slice(segs);
    Ok(Segments {
        segs: all,
        count: segs.len(),
        total,
    })
}

/// `a` followed by `b` as one list, checked as a request's list is: for a driver that
/// runs several requests as one job.
pub fn join(
    a: &Segments,
    b: &Segments,
    region_len: usize,
    overlaps: Overlaps,
) -> Result<Segments, SegmentError> {
    let (a, b) = (a.as_slice(), b.as_slice());
    if a.len() + b.len() > MAX_JOINED {
        return Err(SegmentError::TooMany);
    }
    let mut all = [Segment { offset: 0, len: 0 }; MAX_JOINED];
    all[..a.len()].copy_from_slice(a);
    all[a.len()..a.len() + b.len()].copy_from_slice(b);
    let count = a.len() + b.len();
    let total = check_list(&all[..count], region_len, overlaps)?;
    Ok(Segments {
        segs: all,
        count,
        total,
    })
}

/// The client requests a joined list of segments carries, in order: (id, bytes).
#[derive(Clone, Copy, Debug)]
pub struct Parts {
    list: [(u32, u32); MAX_JOINED],
    count: usize,
}

impl Parts {
    /// One request: `id`, of `bytes`.
    pub fn one(id: u32, bytes: u32) -> Parts {
        let mut list = [(0, 0); MAX_JOINED];
        list[0] = (id, bytes);
        Parts { list, count: 1 }
    }

    /// Becomes [`one`](Self::one)`(id, bytes)` without clearing the rest: a serving
    /// pass keeps one list for all its jobs, because zeroing 256 bytes per request was
    /// the largest single cost of serving a 16-byte request (~220 of the driver's ~900
    /// instructions a request beside its engine's, `callgrind`).
    pub fn reset(&mut self, id: u32, bytes: u32) {
        self.list[0] = (id, bytes);
        self.count = 1;
    }

    /// Adds a request; false if there is no room (a join has at most
    /// [`MAX_JOINED`] requests, as it has at most that many segments).
    pub fn push(&mut self, id: u32, bytes: u32) -> bool {
        let Some(slot) = self.list.get_mut(self.count) else {
            return false;
        };
        *slot = (id, bytes);
        self.count += 1;
        true
    }

    pub fn as_slice(&self) -> &[(u32, u32)] {
        &self.list[..self.count]
    }

    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

/// The parts listed, not what a [`reset`](Parts::reset) left past them.
impl PartialEq for Parts {
    fn eq(&self, other: &Parts) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Parts {}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use proptest::prelude::*;

    fn seg(offset: u32, len: u32) -> Segment {
        Segment { offset, len }
    }

    #[test]
    fn a_reset_list_is_one_part_and_equals_a_new_one() {
        let mut parts = Parts::one(1, 16);
        assert!(parts.push(2, 32) && parts.push(3, 48));
        parts.reset(9, 64);
        assert_eq!(parts.as_slice(), [(9, 64)]);
        // What the reset left past the first part does not count.
        assert_eq!(parts, Parts::one(9, 64));
        assert!(parts.push(4, 8));
        assert_eq!(parts.as_slice(), [(9, 64), (4, 8)]);
    }

    #[test]
    fn a_window_is_those_bytes_of_the_stream() {
        let l = from_slice(
            &[seg(100, 10), seg(0, 0), seg(200, 20)],
            4096,
            Overlaps::Refused,
        )
        .unwrap();
        assert_eq!(l.window(0, 30).as_slice(), [seg(100, 10), seg(200, 20)]);
        assert_eq!(l.window(5, 10).as_slice(), [seg(105, 5), seg(200, 5)]);
        assert_eq!(l.window(12, 100).as_slice(), [seg(202, 18)]);
        assert_eq!(l.window(12, 100).total(), 18);
        assert!(l.window(30, 16).as_slice().is_empty());
        assert!(l.window(u32::MAX, u32::MAX).as_slice().is_empty());
    }

    proptest! {
        /// Consecutive windows cover the stream exactly, in order.
        #[test]
        fn windows_tile_the_stream(lens in proptest::collection::vec(0u32..100, 1..6), step in 1u32..64) {
            let mut at = 0;
            let segs: std::vec::Vec<Segment> = lens.iter().map(|&l| { let s = seg(at, l); at += l + 3; s }).collect();
            let l = from_slice(&segs, 4096, Overlaps::Refused).unwrap();
            let mut bytes = std::vec::Vec::new();
            let mut from = 0;
            while from < l.total() {
                let w = l.window(from, step);
                prop_assert_eq!(w.total(), step.min(l.total() - from));
                for s in w.as_slice() {
                    bytes.extend(s.offset..s.offset + s.len);
                }
                from += step;
            }
            let whole: std::vec::Vec<u32> = l.as_slice().iter().flat_map(|s| s.offset..s.offset + s.len).collect();
            prop_assert_eq!(bytes, whole);
        }
    }

    #[test]
    fn joined_lists_are_checked_as_one_and_parts_are_bounded() {
        let a = from_slice(&[seg(0, 16)], 64, Overlaps::Refused).unwrap();
        let b = from_slice(&[seg(32, 16)], 64, Overlaps::Refused).unwrap();
        let ab = join(&a, &b, 64, Overlaps::Refused).unwrap();
        assert_eq!(ab.as_slice(), [seg(0, 16), seg(32, 16)]);
        assert_eq!(ab.total(), 32);
        assert_eq!(
            join(&a, &a, 64, Overlaps::Refused),
            Err(SegmentError::Overlap)
        );
        assert!(join(&a, &a, 64, Overlaps::Allowed).is_ok());
        // A request has at most MAX_SEGMENTS; a driver's joined list up to MAX_JOINED.
        let full = from_slice(&[seg(0, 1); MAX_JOINED], 64, Overlaps::Allowed).unwrap();
        assert_eq!(
            join(&full, &a, 64, Overlaps::Allowed),
            Err(SegmentError::TooMany)
        );
        let mut p = Parts::one(7, 16);
        for i in 1..MAX_JOINED as u32 {
            assert!(p.push(i, 1));
        }
        assert!(!p.push(99, 1), "full");
        assert_eq!((p.len(), p.as_slice()[0]), (MAX_JOINED, (7, 16)));
    }

    #[test]
    fn the_last_segment_pops_off_with_its_bytes_and_overlaps_are_seen() {
        let mut l = from_slice(
            &[seg(0, 16), seg(32, 16), seg(50, 8)],
            64,
            Overlaps::Allowed,
        )
        .unwrap();
        assert_eq!(l.pop(), Some(seg(50, 8)));
        assert_eq!(
            (l.as_slice(), l.total()),
            (&[seg(0, 16), seg(32, 16)][..], 32)
        );
        assert!(!l.overlaps(&seg(16, 16)), "touching is apart");
        assert!(l.overlaps(&seg(47, 4)));
        assert!(l.overlaps(&seg(10, 30)), "spanning a gap");
        assert!(!l.overlaps(&seg(5, 0)), "an empty segment shares nothing");
        let mut none = Segments::EMPTY;
        assert_eq!(none.pop(), None);
    }

    #[test]
    fn each_rule_has_its_error() {
        let ok = from_slice(&[seg(0, 16), seg(32, 16)], 64, Overlaps::Refused).unwrap();
        assert_eq!((ok.total(), ok.as_slice().len()), (32, 2));
        assert_eq!(
            from_slice(&[seg(60, 8)], 64, Overlaps::Allowed),
            Err(SegmentError::OutOfRange)
        );
        assert_eq!(
            from_slice(&[seg(u32::MAX - 3, 8)], 64, Overlaps::Allowed),
            Err(SegmentError::OutOfRange)
        );
        assert_eq!(
            from_slice(&[seg(0, 16); MAX_JOINED + 1], 64, Overlaps::Allowed),
            Err(SegmentError::TooMany)
        );
        let big = usize::MAX;
        assert_eq!(
            from_slice(&[seg(0, u32::MAX), seg(0, 2)], big, Overlaps::Allowed),
            Err(SegmentError::TooLong)
        );
        assert_eq!(
            from_slice(&[seg(0, 32), seg(16, 32)], 64, Overlaps::Refused),
            Err(SegmentError::Overlap)
        );
        assert!(from_slice(&[seg(0, 32), seg(16, 32)], 64, Overlaps::Allowed).is_ok());
        // Touching is not overlapping, and an empty segment overlaps nothing.
        assert!(from_slice(&[seg(0, 16), seg(16, 16), seg(8, 0)], 64, Overlaps::Refused).is_ok());
        let mut list = [seg(0, 0); MAX_SEGMENTS];
        list[0] = seg(0, 1);
        assert_eq!(
            check(&list, MAX_SEGMENTS as u8 + 1, 64, Overlaps::Allowed),
            Err(SegmentError::TooMany)
        );
    }

    /// The rules worked out another way: 64-bit sums, and a map of the region's bytes
    /// for overlaps, in the order the checks are made (count, then each segment's end
    /// and the running total in list order, then overlaps).
    fn model(list: &[Segment], region: usize, overlaps: Overlaps) -> Result<u32, SegmentError> {
        if list.len() > MAX_JOINED {
            return Err(SegmentError::TooMany);
        }
        let mut total = 0u64;
        for g in list {
            if u64::from(g.offset) + u64::from(g.len) > region as u64 {
                return Err(SegmentError::OutOfRange);
            }
            total += u64::from(g.len);
            if total > u64::from(u32::MAX) {
                return Err(SegmentError::TooLong);
            }
        }
        if overlaps == Overlaps::Refused {
            let mut seen = std::vec![false; region];
            for g in list {
                for b in g.offset..g.offset + g.len {
                    if core::mem::replace(&mut seen[b as usize], true) {
                        return Err(SegmentError::Overlap);
                    }
                }
            }
        }
        Ok(total as u32)
    }

    proptest! {
        /// Accepted and refused as the model says, with the model's error, both ways
        /// (a check that refused too much fails this as one that let too much through);
        /// offsets near `u32::MAX` make ends overflow.
        #[test]
        fn the_checks_agree_with_a_model(
            list in proptest::collection::vec(
                (prop_oneof![0u32..300, (u32::MAX - 64)..=u32::MAX], 0u32..100),
                0..=MAX_JOINED + 1,
            ),
            region in 0usize..400,
            refused in any::<bool>(),
        ) {
            let overlaps = if refused { Overlaps::Refused } else { Overlaps::Allowed };
            let segs: std::vec::Vec<Segment> = list.iter().map(|&(o, l)| seg(o, l)).collect();
            let got = from_slice(&segs, region, overlaps).map(|s| (s.total(), s.as_slice().len()));
            let want = model(&segs, region, overlaps).map(|t| (t, segs.len()));
            prop_assert_eq!(got, want);
        }
    }
}
