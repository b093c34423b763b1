//! A request's scatter-gather list, checked against the client's data region by the
//! shared `segment-list` check, plus the block rule of ECB and CBC. A cipher works in
//! place, so its segments must not overlap.

use pd_idl::cipher::{CipherError, Mode, Request};
use segment_list::{Overlaps, SegmentError, check_into};

pub use segment_list::Segments;

/// AES block size.
pub const BLOCK: u32 = 16;

/// Checks a request's segments against a data region of `region_len` bytes: count,
/// bounds (with overflow), no overlap, and for block modes a whole number of blocks.
pub fn validate(request: &Request, region_len: usize, mode: Mode) -> Result<Segments, CipherError> {
    let mut segs = Segments::EMPTY;
    validate_into(&mut segs, request, region_len, mode)?;
    Ok(segs)
}

/// [`validate`] into `out` (see `segment_list::check_into`); `out` means nothing if
/// refused.
#[inline]
pub(crate) fn validate_into(
    out: &mut Segments,
    request: &Request,
    region_len: usize,
    mode: Mode,
) -> Result<(), CipherError> {
    check_into(
        out,
        &request.segs,
        request.nsegs,
        region_len,
        Overlaps::Refused,
    )
    .map_err(segment_error)?;
    if mode != Mode::Ctr && !out.total().is_multiple_of(BLOCK) {
        return Err(CipherError::BadLength);
    }
    Ok(())
}

/// The interface's error for a broken `segment-list` rule.
pub(crate) fn segment_error(e: SegmentError) -> CipherError {
    match e {
        SegmentError::TooMany => CipherError::TooManySegments,
        SegmentError::OutOfRange => CipherError::SegmentOutOfRange,
        SegmentError::TooLong => CipherError::BadLength,
        SegmentError::Overlap => CipherError::OverlappingSegments,
    }
}
