//! A request's scatter-gather list, checked against the client's data region.

use pd_idl::cipher::{CipherError, Mode, Request, Segment};

/// AES block size.
pub const BLOCK: u32 = 16;

/// Segments of a request, each known to lie inside the data region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segments {
    segs: [Segment; 8],
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

    /// Whether every segment starts on an `align`-byte boundary and every segment but the
    /// last is a whole number of blocks: what DMA engines can take as it is.
    pub fn dma_friendly(&self, align: u32) -> bool {
        let segs = self.as_slice();
        segs.iter().all(|s| s.offset % align == 0)
            && segs
                .split_last()
                .is_none_or(|(_, init)| init.iter().all(|s| s.len % BLOCK == 0))
    }
}

/// Checks a request's segments against a data region of `region_len` bytes: count,
/// bounds (with overflow), and for block modes a whole number of blocks in total.
pub fn validate(request: &Request, region_len: usize, mode: Mode) -> Result<Segments, CipherError> {
    let count = usize::from(request.nsegs);
    if count > request.segs.len() {
        return Err(CipherError::TooManySegments);
    }
    let mut total: u32 = 0;
    for s in &request.segs[..count] {
        let end = s
            .offset
            .checked_add(s.len)
            .ok_or(CipherError::SegmentOutOfRange)?;
        if end as usize > region_len {
            return Err(CipherError::SegmentOutOfRange);
        }
        total = total.checked_add(s.len).ok_or(CipherError::BadLength)?;
    }
    if mode != Mode::Ctr && !total.is_multiple_of(BLOCK) {
        return Err(CipherError::BadLength);
    }
    Ok(Segments {
        segs: request.segs,
        count,
        total,
    })
}
