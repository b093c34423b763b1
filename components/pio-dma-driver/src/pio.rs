//! A PIO job's progress through the engine, a block per interrupt: which block goes in
//! next, gathered from the job's segments, and where the one coming back goes. How the
//! engine signals each (its interrupt and status bits) is the register half's.

use cipher_service::{BLOCK, Job, sg};

/// Blocks written into the engine and read back so far, of `blocks` (a partial last
/// block goes in zero-padded and comes back trimmed to the segments).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Blocks {
    sent: usize,
    got: usize,
    blocks: usize,
}

const N: usize = BLOCK as usize;

impl Blocks {
    /// None of `job`'s blocks moved yet.
    pub fn of(job: &Job<'_>) -> Blocks {
        Blocks {
            sent: 0,
            got: 0,
            blocks: (job.segs.total() as usize).div_ceil(N),
        }
    }

    /// The next block for the engine, counted as sent; `None` once all are in.
    pub fn next_in(&mut self, job: &Job<'_>) -> Option<[u8; N]> {
        if self.all_in() {
            return None;
        }
        let mut block = [0u8; N];
        sg::gather(&job.segs, &job.data, self.sent * N, &mut block);
        self.sent += 1;
        Some(block)
    }

    /// `block`, read back from the engine, to its place in `job`'s segments.
    pub fn put_out(&mut self, job: &Job<'_>, block: &[u8; N]) {
        sg::scatter(&job.segs, &job.data, self.got * N, block);
        self.got += 1;
    }

    pub fn all_in(&self) -> bool {
        self.sent == self.blocks
    }

    /// Whether the last block is back.
    pub fn done(&self) -> bool {
        self.got == self.blocks
    }
}
