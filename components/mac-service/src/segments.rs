//! A request's scatter-gather list, checked against the client's data region by the
//! shared `segment-list` check, as Digest's. MAC only reads, so segments may overlap; a
//! verify's last segment is its expected tag, checked like the others and set apart.

use pd_idl::common::Segment;
use pd_idl::mac::{MacError, Request};
use segment_list::{Overlaps, SegmentError};

pub use segment_list::{MAX_SEGMENTS, Segments};

use crate::{MAX_TAG, MIN_TAG};

/// Checks a request's segments against a region of `region_len` bytes into `out`;
/// `verify`: the last is the expected tag (at most `tag_len`, at least [`MIN_TAG`]),
/// returned apart from the data. `out` means nothing if refused.
pub(crate) fn validate_into(
    out: &mut Segments,
    request: &Request,
    region_len: usize,
    verify: Option<usize>,
) -> Result<Option<Segment>, MacError> {
    let Some(tag_len) = verify else {
        segment_list::check_into(
            out,
            &request.segs,
            request.nsegs,
            region_len,
            Overlaps::Allowed,
        )
        .map_err(segment_error)?;
        return Ok(None);
    };
    let n = usize::from(request.nsegs);
    if n > MAX_SEGMENTS {
        return Err(MacError::TooManySegments);
    }
    let Some((tag, data)) = request.segs[..n].split_last() else {
        return Err(MacError::BadRequest);
    };
    *out = segment_list::from_slice(data, region_len, Overlaps::Allowed).map_err(segment_error)?;
    segment_list::from_slice(core::slice::from_ref(tag), region_len, Overlaps::Allowed)
        .map_err(segment_error)?;
    let len = tag.len as usize;
    if !(MIN_TAG..=tag_len.min(MAX_TAG)).contains(&len) {
        return Err(MacError::BadRequest);
    }
    Ok(Some(*tag))
}

/// The interface's error for a broken `segment-list` rule.
fn segment_error(e: SegmentError) -> MacError {
    match e {
        SegmentError::TooMany => MacError::TooManySegments,
        SegmentError::OutOfRange => MacError::SegmentOutOfRange,
        // The answer's `bytes_done` could not say how much was authenticated.
        SegmentError::TooLong | SegmentError::Overlap => MacError::BadRequest,
    }
}
