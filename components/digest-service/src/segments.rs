//! A request's scatter-gather list, checked against the client's data region by the
//! shared `segment-list` check. A hash only reads, so data segments may overlap; a
//! final's last segment is where its digest is written, so it may share no byte with
//! them (a digest written over its own data would make the bytes a client reads back
//! depend on when the engine read them).

use pd_idl::digest::{DigestError, Request, Segment};
use segment_list::{Overlaps, SegmentError};

pub use segment_list::{MAX_JOINED, MAX_SEGMENTS, Segments};

/// Checks a request's segments against a data region of `region_len` bytes: count and
/// bounds (with overflow), and a total that fits the response's `bytes_done`. `output`:
/// the request is a final of a digest that long, and its last segment, returned apart
/// from the data, is where it goes.
pub fn validate(
    request: &Request,
    region_len: usize,
    output: Option<usize>,
) -> Result<(Segments, Option<Segment>), DigestError> {
    let mut segs = Segments::EMPTY;
    let out = validate_into(&mut segs, request, region_len, output)?;
    Ok((segs, out))
}

/// [`validate`] into `out` (see `segment_list::check_into`); `out` means nothing if
/// refused.
#[inline]
pub(crate) fn validate_into(
    out: &mut Segments,
    request: &Request,
    region_len: usize,
    output: Option<usize>,
) -> Result<Option<Segment>, DigestError> {
    segment_list::check_into(
        out,
        &request.segs,
        request.nsegs,
        region_len,
        Overlaps::Allowed,
    )
    .map_err(segment_error)?;
    let Some(digest_len) = output else {
        return Ok(None);
    };
    // Checked whole, then split: the place is inside the region like any segment.
    out.take_output(digest_len)
        .map(Some)
        .ok_or(DigestError::BadOutput)
}

/// Segments built by the driver itself (self-tests), checked like a client's.
pub fn from_slice(segs: &[Segment], region_len: usize) -> Result<Segments, DigestError> {
    segment_list::from_slice(segs, region_len, Overlaps::Allowed).map_err(segment_error)
}

/// The interface's error for a broken `segment-list` rule.
pub(crate) fn segment_error(e: SegmentError) -> DigestError {
    match e {
        SegmentError::TooMany => DigestError::TooManySegments,
        SegmentError::OutOfRange => DigestError::SegmentOutOfRange,
        // The answer's `bytes_done` could not say how much was hashed.
        SegmentError::TooLong | SegmentError::Overlap => DigestError::BadRequest,
    }
}
