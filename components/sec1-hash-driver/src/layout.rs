//! The driver's own DMA memory ("scratch"): where descriptors, saved contexts and
//! buffered blocks live, at fixed offsets from its physical base. The PD maps a region of
//! [`SCRATCH_BYTES`] for it; nothing else uses it.

use digest_service::{MAX_JOINED, MAX_SESSIONS};
use mmio::talitos::{DESC_SIZE, HASH_BLOCK, MAX_DATA_LEN, MDEU_CONTEXT_SIZE};

/// Per-session area: the saved MDEU context, then the buffered block. The engine saves
/// the context here after every descriptor and loads it before the next, so sessions
/// interleave without the CPU touching it.
pub const SLOT_BYTES: usize = 2 * HASH_BLOCK;
const CONTEXT_AT: usize = 0;
const BUFFER_AT: usize = HASH_BLOCK;
const _: () = assert!(MDEU_CONTEXT_SIZE <= BUFFER_AT - CONTEXT_AT);

/// One slot per session, plus one for the self-test (which must not disturb sessions).
pub const SLOTS: usize = MAX_SESSIONS + 1;
/// The self-test's slot.
pub const SELF_TEST_SLOT: usize = MAX_SESSIONS;

/// Descriptors of one chain; a longer update runs as several chains.
pub const DESC_SLOTS: usize = 16;
/// Carry blocks of one chain (blocks straddling segments): one per segment suffices.
pub const CARRY_SLOTS: usize = MAX_JOINED;
/// The self-test's messages.
pub const KAT_BYTES: usize = 2 * HASH_BLOCK;
/// The copy path's buffer (upstream's: one pointer's worth).
pub const BOUNCE_BYTES: usize = MAX_DATA_LEN;

const DESCS_AT: usize = SLOTS * SLOT_BYTES;
const CARRIES_AT: usize = DESCS_AT + DESC_SLOTS * DESC_SIZE;
const KAT_AT: usize = CARRIES_AT + CARRY_SLOTS * HASH_BLOCK;
const BOUNCE_AT: usize = KAT_AT + KAT_BYTES;

/// Bytes of scratch the driver needs.
pub const SCRATCH_BYTES: usize = BOUNCE_AT + BOUNCE_BYTES;
/// Alignment of the scratch base (every area inside is then cache-line aligned).
pub const SCRATCH_ALIGN: u32 = HASH_BLOCK as u32;

/// Physical addresses inside a scratch region based at `base`.
#[derive(Clone, Copy, Debug)]
pub struct Scratch {
    pub base: u32,
}

impl Scratch {
    fn at(self, offset: usize) -> u32 {
        // In range: the constructor checked that base + SCRATCH_BYTES fits in 32 bits.
        self.base + offset as u32
    }

    pub fn context(self, slot: usize) -> u32 {
        self.at(slot * SLOT_BYTES + CONTEXT_AT)
    }

    pub fn buffer(self, slot: usize) -> u32 {
        self.at(slot * SLOT_BYTES + BUFFER_AT)
    }

    pub fn desc(self, i: usize) -> u32 {
        self.at(DESCS_AT + i * DESC_SIZE)
    }

    pub fn carry(self, i: usize) -> u32 {
        self.at(CARRIES_AT + (i % CARRY_SLOTS) * HASH_BLOCK)
    }

    pub fn kat(self) -> u32 {
        self.at(KAT_AT)
    }

    pub fn bounce(self) -> u32 {
        self.at(BOUNCE_AT)
    }
}
