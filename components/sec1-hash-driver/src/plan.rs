//! The chaining strategy of the talitos chaining change as a plain function over plain data: which bytes of
//! an update go to the engine from where, and which few the CPU must copy.
//!
//! The stream of an update is the session's buffered bytes followed by the client's
//! segments. The MDEU continues a hash only from whole blocks, so every descriptor but the
//! padded last one covers a multiple of 64 bytes, and SEC1 has no scatter-gather, so a
//! descriptor covers one contiguous range of at most 32768 bytes. Hence:
//! * the buffered bytes are topped up to one block from the client's data (at most 63
//!   bytes copied) and hashed by a descriptor of their own, chained ahead of the rest;
//! * each segment's whole blocks are hashed where they lie: one descriptor per 32768
//!   bytes, no copy;
//! * a block that straddles two segments is gathered into a small carry block (at most
//!   64 bytes copied per unaligned segment boundary: none for one segment or for
//!   block-aligned segments, the common case of page-sized pieces);
//! * the stream's tail stays buffered for the next update (at most 64 bytes copied): its
//!   partial block, or one whole block when it ends on a block boundary, as upstream
//!   keeps, so that the final always has data to pad.
//!
//! So an update copies at most two blocks (plus one per unaligned segment boundary), and a
//! final pads in hardware. [`Step::Keep`] steps come after every hashing step.

use mmio::talitos::{HASH_BLOCK, MAX_DATA_LEN};
use pd_idl::digest::Segment;

/// Where a (partly) buffered block lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Block {
    /// The session's own buffer (its partial block between updates).
    Buffer,
    /// The `n`-th carry block of this update (for blocks straddling segments).
    Carry(usize),
}

/// One thing to do, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Copy `len` client bytes at `offset` into `into`, at byte `at` of the block.
    Gather {
        offset: u32,
        len: usize,
        into: Block,
        at: usize,
    },
    /// Hash the first `len` bytes of a block (`pad`: and finish).
    HashBlock { block: Block, len: usize, pad: bool },
    /// Hash `len` client bytes at `offset`, where they lie (`pad`: and finish).
    HashClient { offset: u32, len: usize, pad: bool },
    /// Copy `len` client bytes at `offset` into the session buffer at `at`: kept for the
    /// next update. Comes after every hashing step.
    Keep { offset: u32, len: usize, at: usize },
    /// Finish a hash that saw no bytes at all (SEC1 cannot pad an empty message: the
    /// driver hashes a software-padded block instead, as upstream's
    /// `talitos_handle_buggy_hash` does).
    HashEmpty,
}

/// How an update divides its stream of `nbytes` (buffered + new).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Split {
    /// Bytes hashed now (a multiple of the block unless `last`).
    pub to_hash: usize,
    /// Bytes kept buffered for the next update.
    pub later: usize,
}

/// Upstream's rule (`ahash_process_req`): an update that does not exceed one block only
/// buffers; otherwise hash all but the partial tail, or all but one block.
pub fn split(nbuf: usize, total: usize, last: bool) -> Split {
    let nbytes = nbuf + total;
    let later = if last {
        0
    } else if nbytes <= HASH_BLOCK {
        nbytes
    } else if !nbytes.is_multiple_of(HASH_BLOCK) {
        nbytes % HASH_BLOCK
    } else {
        HASH_BLOCK
    };
    Split {
        to_hash: nbytes - later,
        later,
    }
}

/// Plans an update (or the final, `last`) of a session holding `nbuf` buffered bytes
/// (`nbuf <= 64`) over `segs`; calls `step` for each step in order, stopping at its first
/// error. Returns the bytes buffered afterwards.
pub fn chained<E>(
    nbuf: usize,
    segs: &[Segment],
    last: bool,
    mut step: impl FnMut(Step) -> Result<(), E>,
) -> Result<usize, E> {
    debug_assert!(nbuf <= HASH_BLOCK);
    let total: usize = segs.iter().map(|s| s.len as usize).sum();
    let Split { to_hash, later } = split(nbuf, total, last);
    if to_hash == 0 && last {
        step(Step::HashEmpty)?;
        return Ok(0);
    }
    // The block being assembled, and how full it is.
    let mut carry = (nbuf > 0).then_some((Block::Buffer, nbuf));
    let mut carries = 0;
    // Stream position of the next byte (buffered bytes come first).
    let mut pos = nbuf;
    let ends = |pos: usize| last && pos == to_hash;
    if nbuf == HASH_BLOCK && to_hash >= HASH_BLOCK {
        step(Step::HashBlock {
            block: Block::Buffer,
            len: HASH_BLOCK,
            pad: ends(HASH_BLOCK),
        })?;
        carry = None;
    }
    for s in segs {
        let (mut off, len) = (s.offset, s.len as usize);
        let mut hashable = len.min(to_hash.saturating_sub(pos));
        if let Some((block, filled)) = carry.filter(|_| hashable > 0) {
            let n = (HASH_BLOCK - filled).min(hashable);
            step(Step::Gather {
                offset: off,
                len: n,
                into: block,
                at: filled,
            })?;
            (off, hashable, pos) = (off + n as u32, hashable - n, pos + n);
            carry = Some((block, filled + n));
            if filled + n == HASH_BLOCK || ends(pos) {
                let pad = ends(pos);
                step(Step::HashBlock {
                    block,
                    len: filled + n,
                    pad,
                })?;
                carry = None;
            }
        }
        if carry.is_none() && hashable > 0 {
            // Whole blocks where they lie; the final also takes its partial tail so.
            let mut direct = if ends(pos + hashable) {
                hashable
            } else {
                hashable - hashable % HASH_BLOCK
            };
            while direct > 0 {
                let n = direct.min(MAX_DATA_LEN);
                (direct, hashable, pos) = (direct - n, hashable - n, pos + n);
                step(Step::HashClient {
                    offset: off,
                    len: n,
                    pad: ends(pos),
                })?;
                off += n as u32;
            }
            if hashable > 0 {
                // A partial block before the segment ends: it continues in the next.
                let block = Block::Carry(carries);
                carries += 1;
                step(Step::Gather {
                    offset: off,
                    len: hashable,
                    into: block,
                    at: 0,
                })?;
                (off, pos) = (off + hashable as u32, pos + hashable);
                carry = Some((block, hashable));
                hashable = 0;
            }
        }
        debug_assert_eq!(hashable, 0);
        let rest = (s.offset as usize + len) - off as usize;
        if rest > 0 {
            step(Step::Keep {
                offset: off,
                len: rest,
                at: pos - to_hash,
            })?;
            pos += rest;
        }
    }
    // A final whose buffered bytes are all there is (no client bytes after them).
    if let Some((block, filled)) = carry.filter(|_| last) {
        step(Step::HashBlock {
            block,
            len: filled,
            pad: true,
        })?;
    }
    Ok(later)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    /// Runs a plan over a fake region and returns (hashed bytes in order, kept buffer,
    /// bytes copied by the CPU), checking each step's rules on the way.
    fn run(
        buffered: &[u8],
        region: &[u8],
        segs: &[Segment],
        last: bool,
    ) -> (Vec<u8>, Vec<u8>, usize) {
        let mut buffer = [0u8; HASH_BLOCK];
        buffer[..buffered.len()].copy_from_slice(buffered);
        let mut carries = [[0u8; HASH_BLOCK]; digest_service::MAX_JOINED];
        let (mut hashed, mut copied, mut padded, mut kept_started) = (Vec::new(), 0, false, false);
        let bytes = |o: u32, n: usize| &region[o as usize..o as usize + n];
        let later = chained(buffered.len(), segs, last, |s| {
            assert!(!padded, "nothing after the padded step");
            let check = |len: usize, pad: bool| {
                assert!(
                    pad || len.is_multiple_of(HASH_BLOCK),
                    "unpadded descriptors are whole blocks"
                );
                assert!(len <= MAX_DATA_LEN && len > 0);
            };
            match s {
                Step::Gather {
                    offset,
                    len,
                    into,
                    at,
                } => {
                    assert!(!kept_started);
                    let b = match into {
                        Block::Buffer => &mut buffer,
                        Block::Carry(i) => &mut carries[i],
                    };
                    b[at..at + len].copy_from_slice(bytes(offset, len));
                    copied += len;
                }
                Step::HashBlock { block, len, pad } => {
                    assert!(!kept_started);
                    check(len, pad);
                    padded = pad;
                    let b = match block {
                        Block::Buffer => &buffer,
                        Block::Carry(i) => &carries[i],
                    };
                    hashed.extend_from_slice(&b[..len]);
                }
                Step::HashClient { offset, len, pad } => {
                    assert!(!kept_started);
                    check(len, pad);
                    padded = pad;
                    hashed.extend_from_slice(bytes(offset, len));
                }
                Step::Keep { offset, len, at } => {
                    kept_started = true;
                    buffer[at..at + len].copy_from_slice(bytes(offset, len));
                    copied += len;
                }
                Step::HashEmpty => padded = true,
            }
            Ok::<_, ()>(())
        })
        .unwrap();
        assert_eq!(padded, last, "the final, and only it, pads");
        (hashed, buffer[..later].to_vec(), copied)
    }

    /// Segments of the given lengths laid out apart in a region holding `msg`.
    fn layout(msg: &[u8], lens: &[usize]) -> (Vec<u8>, Vec<Segment>) {
        let (mut region, mut segs, mut from) = (Vec::new(), Vec::new(), 0);
        for &n in lens {
            region.extend_from_slice(&[0xee; 5]);
            segs.push(Segment {
                offset: region.len() as u32,
                len: n as u32,
            });
            region.extend_from_slice(&msg[from..from + n]);
            from += n;
        }
        (region, segs)
    }

    fn check(nbuf: usize, lens: &[usize], last: bool) -> usize {
        let msg: Vec<u8> = (0..nbuf + lens.iter().sum::<usize>())
            .map(|i| i as u8)
            .collect();
        let (region, segs) = layout(&msg[nbuf..], lens);
        let (hashed, kept, copied) = run(&msg[..nbuf], &region, &segs, last);
        let Split { to_hash, .. } = split(nbuf, msg.len() - nbuf, last);
        assert_eq!(
            hashed,
            msg[..to_hash],
            "stream order, nothing twice or lost"
        );
        assert_eq!(kept, msg[to_hash..], "the tail is kept");
        assert!(kept.len() <= HASH_BLOCK);
        copied
    }

    #[test]
    fn one_segment_copies_at_most_two_blocks() {
        for nbuf in 0..=HASH_BLOCK {
            for len in (0..300).chain([32768, 32768 + 64, 70_001]) {
                for last in [false, true] {
                    let copied = check(nbuf, &[len], last);
                    assert!(copied <= 2 * HASH_BLOCK, "{nbuf} + {len}: {copied}");
                }
            }
        }
    }

    #[test]
    fn segments_straddling_blocks_are_gathered() {
        for nbuf in [0, 1, 63, 64] {
            for k in 0..=200 {
                for last in [false, true] {
                    let copied = check(nbuf, &[k, 200 - k], last);
                    assert!(copied <= 3 * HASH_BLOCK);
                    if k % HASH_BLOCK == 0 && nbuf % HASH_BLOCK == 0 && !last {
                        // Block-aligned pieces: only the kept block is copied.
                        assert!(copied <= HASH_BLOCK, "{nbuf} {k}: {copied}");
                    }
                }
            }
        }
        check(5, &[1, 2, 61, 64, 65, 3, 0, 7], true);
        check(5, &[1, 2, 61, 64, 65, 3, 0, 7], false);
    }

    #[test]
    fn page_updates_copy_one_block() {
        // The talitos chaining change's workload: page-sized updates keep one block each.
        let copied = check(HASH_BLOCK, &[4096], false);
        assert_eq!(copied, HASH_BLOCK);
    }

    #[test]
    fn empty_and_tiny_messages() {
        let mut steps = Vec::new();
        chained(0, &[], true, |s| {
            steps.push(s);
            Ok::<_, ()>(())
        })
        .unwrap();
        assert_eq!(steps, [Step::HashEmpty]);
        assert_eq!(
            split(3, 61, false),
            Split {
                to_hash: 0,
                later: 64
            }
        );
        assert_eq!(
            split(3, 62, false),
            Split {
                to_hash: 64,
                later: 1
            }
        );
        assert_eq!(
            split(64, 64, false),
            Split {
                to_hash: 64,
                later: 64
            }
        );
    }
}
