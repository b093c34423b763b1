//! A request's scatter-gather list, checked against the client's data region by the
//! shared `segment-list` check, as Digest's. MAC only reads, so data segments may
//! overlap; the last segment of a verify (its expected tag) or of a final (where its
//! tag is written) is checked like the others and set apart. A final's place may share
//! no byte with its data: a tag written over it would make what the client reads back
//! depend on when the engine read its data.

use pd_idl::common::Segment;
use pd_idl::mac::{MacError, Request};
use segment_list::{Overlaps, SegmentError};

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
    segment_list::check_into(
        out,
        &request.segs,
        request.nsegs,
        region_len,
        Overlaps::Allowed,
    )
    .map_err(segment_error)?;
    let len_ok =
        |seg: &Segment, ok: core::ops::RangeInclusive<usize>| ok.contains(&(seg.len as usize));
    match last {
        Last::Data => Ok(None),
        Last::Expected(tag_len) => {
            let tag = out.pop().ok_or(MacError::BadRequest)?;
            if !len_ok(&tag, MIN_TAG..=tag_len.min(MAX_TAG)) {
                return Err(MacError::BadRequest);
            }
            Ok(Some(tag))
        }
        Last::Output(tag_len) => out
            .take_output(tag_len)
            .map(Some)
            .ok_or(MacError::BadOutput),
    }
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
