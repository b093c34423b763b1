//! Blocks of a scatter-gather list for the PIO path: the request's bytes are the
//! concatenation of its segments, and block `i` may straddle segments. The PIO path
//! moves words between these bytes and the data port; nothing is staged in a buffer
//! beyond the one block on its way to or from the port.

use cipher_service::BLOCK;
use pd_idl::cipher::Segment;

const B: usize = BLOCK as usize;

/// Visits the pieces of `[pos, pos + B)` of the concatenated segments, in order, as
/// (index into `data`, index into the block, length).
fn pieces(segs: &[Segment], pos: usize, mut f: impl FnMut(usize, usize, usize)) {
    let mut start = 0usize;
    for s in segs {
        let (off, len) = (s.offset as usize, s.len as usize);
        let (lo, hi) = (pos.max(start), (pos + B).min(start + len));
        if lo < hi {
            f(off + (lo - start), lo - pos, hi - lo);
        }
        start += len;
        if start >= pos + B {
            break;
        }
    }
}

/// Block at byte `pos` into `out`, zero-padded past the end (a CTR tail); returns the
/// number of request bytes it holds.
pub fn gather(segs: &[Segment], data: &[u8], pos: usize, out: &mut [u8; B]) -> usize {
    *out = [0; B];
    let mut n = 0;
    pieces(segs, pos, |d, b, len| {
        out[b..b + len].copy_from_slice(&data[d..d + len]);
        n += len;
    });
    n
}

/// Writes back the request bytes of the block at `pos` from `block`.
pub fn scatter(segs: &[Segment], data: &mut [u8], pos: usize, block: &[u8; B]) {
    pieces(segs, pos, |d, b, len| {
        data[d..d + len].copy_from_slice(&block[b..b + len]);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_straddle_segments_and_pad() {
        let segs = [
            Segment { offset: 2, len: 5 },
            Segment { offset: 20, len: 0 },
            Segment {
                offset: 10,
                len: 14,
            },
        ];
        let data: [u8; 32] = core::array::from_fn(|i| i as u8);
        let mut b = [0u8; B];
        assert_eq!(gather(&segs, &data, 0, &mut b), 16);
        assert_eq!(&b[..5], &[2, 3, 4, 5, 6]);
        assert_eq!(&b[5..], &[10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
        assert_eq!(gather(&segs, &data, 16, &mut b), 3);
        assert_eq!(b, [21, 22, 23, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        let mut out = [0u8; 32];
        scatter(&segs, &mut out, 16, &[9; B]);
        assert_eq!(&out[21..24], &[9, 9, 9]);
        assert_eq!(out.iter().filter(|&&x| x == 9).count(), 3);
    }
}
