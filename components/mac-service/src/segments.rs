//! A request's scatter-gather list, checked against the client's data region by the
//! shared `segment-list` check, as Digest's. MAC only reads, so data segments may
//! overlap; the last segment of a verify (its expected tag) or of a final (where its
//! tag is written) is checked like the others and set apart. A final's place may share
//! no byte with its data: a tag written over it would make what the client reads back
//! depend on when the engine read its data.

use pd_idl::common::Segment;
use pd_idl::mac::{MacError, Request};
use segment_list::{PlaceError, SegmentError};

pub use segment_list::{MAX_SEGMENTS, Segments};

use crate::{MAX_TAG, MIN_TAG};

/// What a request's last segment is, beside the data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Last {
    /// Data like the others (an update).
    Data,
    /// A verify's expected tag, of a tag this long: at least [`MIN_TAG`], at most it.
    Expected(usize),
    /// A final's output place, for a tag this long: at least it.
    Output(usize),
}

/// Checks a request's segments against a region of `region_len` bytes into `out` (the
/// data); the last one apart, if `last` says it is no data. `out` means nothing if
/// refused.
pub(crate) fn validate_into(
    out: &mut Segments,
    request: &Request,
    region_len: usize,
    last: Last,
) -> Result<Option<Segment>, MacError> {
    let output = match last {
        Last::Output(tag_len) => Some(tag_len),
        Last::Data | Last::Expected(_) => None,
    };
    let place =
        segment_list::check_output_into(out, &request.segs, request.nsegs, region_len, output)
            .map_err(segment_error)?;
    let Last::Expected(tag_len) = last else {
        return Ok(place);
    };
    let tag = out.pop().ok_or(MacError::BadRequest)?;
    if !(MIN_TAG..=tag_len.min(MAX_TAG)).contains(&(tag.len as usize)) {
        return Err(MacError::BadRequest);
    }
    Ok(Some(tag))
}

/// The interface's error for a broken `segment-list` rule.
fn segment_error(e: PlaceError) -> MacError {
    match e {
        PlaceError::Output => MacError::BadOutput,
        PlaceError::Segments(SegmentError::TooMany) => MacError::TooManySegments,
        PlaceError::Segments(SegmentError::OutOfRange) => MacError::SegmentOutOfRange,
        // The answer's `bytes_done` could not say how much was authenticated.
        PlaceError::Segments(SegmentError::TooLong | SegmentError::Overlap) => MacError::BadRequest,
    }
}
