//! A request's scatter-gather list, checked against the client's data region.
//!
//! The same checks as `cipher-service`'s (which has its own copy over the Cipher types),
//! minus the block-length rule: a hash takes any number of bytes.

use pd_idl::digest::{DigestError, Request, Segment};

/// Most segments one request carries (the length of `Request::segs`).
pub const MAX_SEGMENTS: usize = 8;

/// Segments of a request, each known to lie inside the data region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segments {
    segs: [Segment; MAX_SEGMENTS],
    count: usize,
    total: u32,
}

impl Segments {
    pub fn as_slice(&self) -> &[Segment] {
        &self.segs[..self.count]
    }

    /// Bytes in all segments.
    pub fn total(&self) -> u32 {
        self.total
    }
}

/// Checks a request's segments against a data region of `region_len` bytes: count and
/// bounds (with overflow), and a total that fits the response's `bytes_done`.
pub fn validate(request: &Request, region_len: usize) -> Result<Segments, DigestError> {
    let count = usize::from(request.nsegs);
    if count > MAX_SEGMENTS {
        return Err(DigestError::TooManySegments);
    }
    let mut total: u32 = 0;
    for s in &request.segs[..count] {
        let end = s
            .offset
            .checked_add(s.len)
            .ok_or(DigestError::SegmentOutOfRange)?;
        if end as usize > region_len {
            return Err(DigestError::SegmentOutOfRange);
        }
        total = total.checked_add(s.len).ok_or(DigestError::BadRequest)?;
    }
    Ok(Segments {
        segs: request.segs,
        count,
        total,
    })
}

/// Segments built by the driver itself (self-tests), checked like a client's.
pub fn from_slice(segs: &[Segment], region_len: usize) -> Result<Segments, DigestError> {
    let mut request = Request {
        id: 0,
        session: 0,
        op: pd_idl::digest::DigestOp::Update.into(),
        nsegs: u8::try_from(segs.len()).map_err(|_| DigestError::TooManySegments)?,
        reserved: [0; 2],
        segs: [Segment { offset: 0, len: 0 }; MAX_SEGMENTS],
    };
    let n = segs.len().min(MAX_SEGMENTS);
    request.segs[..n].copy_from_slice(&segs[..n]);
    validate(&request, region_len)
}
