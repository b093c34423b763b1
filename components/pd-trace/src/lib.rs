//! A PD's trace (the driver PDs' and the power manager's): a count per kind of event and a ring of its last events, kept in
//! a memory region (`setvar_vaddr="trace"`) that a debug tool and tests read from
//! outside the PD, while it runs or after it crashed. Hubris's `counted_ringbuf!` is the
//! model: typed events, a counter per kind that never wraps back, a fixed ring that
//! overwrites its oldest entry; readers look at counts, not log text.
//!
//! Why not the `ringbuf` crate: its indices live inside its own struct in the PD's
//! private memory with a layout that is not part of its interface, and this ring must
//! be read by another process through shared memory. The layout here is fixed
//! ([`Layout`]), every word is written atomically, and each entry carries its sequence
//! number last, so a reader never takes a half-written entry for a whole one.
//!
//! Assumes one writer (the PD's single thread). `no_std`, no heap.
#![no_std]
#![deny(unsafe_code)]

use core::sync::atomic::{AtomicU32, Ordering};
use shared_region::SharedRegion;

/// Declares [`Kind`] and [`KINDS`] from one list, so that no kind can be missing from
/// the counters: each kind's value is its index in [`KINDS`] (checked at compile time).
macro_rules! kinds {
    ($($(#[$doc:meta])* $name:ident = $value:literal,)*) => {
        /// What a PD records: one meaning per kind.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(u32)]
        pub enum Kind {
            $($(#[$doc])* $name = $value,)*
        }

        /// Kinds, in order (a counter each).
        pub const KINDS: [Kind; [$(Kind::$name),*].len()] = [$(Kind::$name),*];

        const _: () = {
            let mut i = 0;
            while i < KINDS.len() {
                assert!(KINDS[i] as usize == i, "a kind's value is its index in KINDS");
                i += 1;
            }
        };
    };
}

kinds! {
    /// A Cipher request finished, by the path its data took (arg: client).
    DonePio = 0,
    DoneDma = 1,
    DoneCpu = 2,
    /// A request was answered with an error (arg: the interface's error code).
    Refused = 3,
    /// An interrupt was handled (arg: channel).
    Interrupt = 4,
    /// A call was answered while a request was in flight (arg: caller).
    CallWhileBusy = 5,
    /// A client's notification arrived while a request was in flight (arg: client).
    NotifiedWhileBusy = 6,
    /// A driver took its power grant (arg 0).
    PowerAcquire = 7,
    /// A driver gave its grant back (arg 0).
    PowerRelease = 8,
    /// A client broke its queues and was cut off (arg: client).
    CutOff = 9,
    SessionOpened = 10,
    SessionClosed = 11,
    /// The PD started (arg: its incarnation).
    Started = 12,
    /// A Digest request finished (its answer names no path; arg: client).
    Hashed = 13,
    /// Sessions of this many clients (arg) were open at once, a new peak.
    ClientsAtOnce = 14,
    /// The power manager ungated an engine (arg: engine).
    PowerOn = 15,
    /// The power manager's autosuspend gated an engine (arg: its clock, ms).
    Gated = 16,
    /// A child faulted; its grants were revoked and it was restarted (arg: child).
    Revoked = 17,
    /// The driver calibrated its PIO/DMA crossover at init (arg: the bytes from which
    /// AES-128-CBC requests go DMA).
    Calibrated = 18,
    /// A client came back as a new incarnation; the old one's sessions closed (arg:
    /// client).
    ClientBack = 19,
    /// The power manager granted an engine to a driver (arg: the grant's generation).
    Granted = 20,
    /// The power manager took a grant back, released by its driver (arg: its clock, ms).
    TakenBack = 21,
    /// A Mac request finished: a tag computed, or a verify answered (arg: client).
    MacDone = 22,
    /// An Aead request finished: a message sealed or opened (arg: client).
    AeadDone = 23,
    /// An Rng request finished: random bytes written, or a reseed (arg: client).
    Filled = 24,
    /// The entropy source failed a health test or its own error check; the Rng service
    /// fails closed until it passes a fresh start-up test (arg: the `HealthTest`, or 3
    /// for the device's own error).
    EntropyFailure = 25,
    /// A driver asked the key store for a key, for a session its client opens by handle
    /// (arg: the client's channel): one call beside the client's open.
    KeyFetched = 26,
}

impl Kind {
    pub fn from_u32(v: u32) -> Option<Kind> {
        KINDS.get(v as usize).copied()
    }
}

/// Entries in the ring.
pub const RING: usize = 64;

/// The region's words: `MAGIC`, the entry count so far, whether a request is in
/// flight, a counter per [`Kind`], the last argument recorded per [`Kind`] (so a value
/// recorded once at init outlives the ring), then [`RING`] entries of (sequence + 1,
/// kind, arg): entry `i` holds event `seq` with `seq % RING == i`; a sequence word of 0
/// is empty.
pub struct Layout;

impl Layout {
    /// "TRC" and the number of kinds: the layout depends on it (a counter and a last
    /// argument per kind), so a reader built with other kinds refuses the region
    /// rather than read counters at the wrong offsets.
    pub const MAGIC: u32 = 0x5452_4300 | KINDS.len() as u32;
    const MAGIC_AT: usize = 0;
    const WRITTEN_AT: usize = 4;
    const BUSY_AT: usize = 8;
    const COUNTERS_AT: usize = 16;
    const LAST_AT: usize = Self::COUNTERS_AT + 4 * KINDS.len();
    const RING_AT: usize = Self::LAST_AT + 4 * KINDS.len();
    const ENTRY: usize = 12;
    /// Bytes the trace needs.
    pub const BYTES: usize = Self::RING_AT + Self::ENTRY * RING;
}

/// The PD's writer over its trace region.
pub struct Trace<'a> {
    region: Option<SharedRegion<'a>>,
}

impl<'a> Trace<'a> {
    /// A trace over `region` (`None`, or a region too small: nothing is recorded).
    pub fn new(region: Option<SharedRegion<'a>>) -> Self {
        let region = region.filter(|r| r.len() >= Layout::BYTES);
        if let Some(r) = region {
            word(r, Layout::MAGIC_AT).store(Layout::MAGIC, Ordering::Release);
        }
        Trace { region }
    }

    /// Whether events are recorded (the PD maps a trace region): a caller may skip
    /// working out an event nobody will read.
    #[inline]
    pub fn is_mapped(&self) -> bool {
        self.region.is_some()
    }

    /// Records one event: its counter, then the next ring entry.
    pub fn record(&self, kind: Kind, arg: u32) {
        let Some(r) = self.region else {
            return;
        };
        word(r, Layout::LAST_AT + 4 * kind as usize).store(arg, Ordering::Relaxed);
        word(r, Layout::COUNTERS_AT + 4 * kind as usize).fetch_add(1, Ordering::Release);
        let seq = word(r, Layout::WRITTEN_AT).fetch_add(1, Ordering::Relaxed);
        let at = Layout::RING_AT + Layout::ENTRY * (seq as usize % RING);
        // The sequence word goes last: a reader that sees it sees the entry.
        word(r, at).store(0, Ordering::Release);
        word(r, at + 4).store(kind as u32, Ordering::Relaxed);
        word(r, at + 8).store(arg, Ordering::Relaxed);
        word(r, at).store(seq.wrapping_add(1), Ordering::Release);
    }

    /// Publishes whether a request is in flight.
    pub fn set_busy(&self, busy: bool) {
        if let Some(r) = self.region {
            word(r, Layout::BUSY_AT).store(u32::from(busy), Ordering::Release);
        }
    }
}

fn word<'a>(r: SharedRegion<'a>, at: usize) -> &'a AtomicU32 {
    r.atomic_u32(at)
        .expect("inside the trace layout, word-aligned")
}

/// One event, as read back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub seq: u32,
    pub kind: Kind,
    pub arg: u32,
}

/// A trace as a reader sees it (a copy of the region's bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    pub written: u32,
    pub busy: bool,
    pub counts: [u32; KINDS.len()],
    /// The last argument recorded of each kind.
    pub last: [u32; KINDS.len()],
    /// The ring's entries, oldest first.
    pub ring: [Option<Entry>; RING],
}

impl Snapshot {
    /// Reads a trace from a copy of its region; `None` if no PD wrote one there.
    pub fn parse(bytes: &[u8]) -> Option<Snapshot> {
        let w = |at: usize| -> Option<u32> {
            Some(u32::from_ne_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
        };
        if bytes.len() < Layout::BYTES || w(Layout::MAGIC_AT)? != Layout::MAGIC {
            return None;
        }
        let written = w(Layout::WRITTEN_AT)?;
        let mut counts = [0; KINDS.len()];
        let mut last = [0; KINDS.len()];
        for i in 0..KINDS.len() {
            counts[i] = w(Layout::COUNTERS_AT + 4 * i)?;
            last[i] = w(Layout::LAST_AT + 4 * i)?;
        }
        let mut ring = [None; RING];
        let first = written.saturating_sub(RING as u32);
        for (slot, seq) in ring.iter_mut().zip(first..written) {
            let at = Layout::RING_AT + Layout::ENTRY * (seq as usize % RING);
            // An entry being rewritten, or of another lap, is left out.
            if w(at)? == seq.wrapping_add(1) {
                *slot = Kind::from_u32(w(at + 4)?).map(|kind| Entry {
                    seq,
                    kind,
                    arg: w(at + 8).unwrap_or(0),
                });
            }
        }
        Some(Snapshot {
            written,
            busy: w(Layout::BUSY_AT)? != 0,
            counts,
            last,
            ring,
        })
    }

    pub fn count(&self, kind: Kind) -> u32 {
        self.counts[kind as usize]
    }

    /// The argument of the last event of `kind`, if there was one.
    pub fn last(&self, kind: Kind) -> Option<u32> {
        (self.count(kind) > 0).then_some(self.last[kind as usize])
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec;

    #[repr(C, align(64))]
    struct Mem([u8; Layout::BYTES + 64]);

    #[test]
    fn counts_and_the_last_events_read_back_in_order() {
        let mut mem = Mem([0; Layout::BYTES + 64]);
        let trace = Trace::new(Some(SharedRegion::new(&mut mem.0)));
        for i in 0..(RING as u32 + 10) {
            trace.record(
                if i % 2 == 0 {
                    Kind::DonePio
                } else {
                    Kind::DoneDma
                },
                i,
            );
        }
        trace.record(Kind::CutOff, 3);
        trace.set_busy(true);
        let snap = Snapshot::parse(&mem.0).expect("a trace");
        assert_eq!(snap.written, RING as u32 + 11);
        assert!(snap.busy);
        assert_eq!(snap.count(Kind::DonePio), 37);
        assert_eq!(snap.count(Kind::DoneDma), 37);
        assert_eq!(snap.count(Kind::CutOff), 1);
        let ring: vec::Vec<Entry> = snap.ring.iter().flatten().copied().collect();
        assert_eq!(ring.len(), RING, "the ring keeps the last RING events");
        assert_eq!(ring[0].seq, 11, "oldest first");
        assert_eq!(
            ring.last(),
            Some(&Entry {
                seq: RING as u32 + 10,
                kind: Kind::CutOff,
                arg: 3
            })
        );
        assert!(ring.windows(2).all(|w| w[1].seq == w[0].seq + 1));
        // The last argument of each kind outlives the ring.
        assert_eq!(snap.last(Kind::DonePio), Some(RING as u32 + 8));
        assert_eq!(snap.last(Kind::CutOff), Some(3));
        assert_eq!(snap.last(Kind::Calibrated), None, "never recorded");
    }

    #[test]
    fn no_region_records_nothing_and_a_blank_region_is_no_trace() {
        Trace::new(None).record(Kind::DonePio, 0);
        let mut small = [0u8; 16];
        Trace::new(Some(SharedRegion::new(&mut small))).record(Kind::DonePio, 0);
        assert_eq!(small, [0; 16], "too small: left alone");
        assert_eq!(Snapshot::parse(&[0; Layout::BYTES]), None);
        let mut torn = Mem([0; Layout::BYTES + 64]);
        let trace = Trace::new(Some(SharedRegion::new(&mut torn.0)));
        trace.record(Kind::DonePio, 1);
        // An entry whose sequence word does not match (being rewritten) is dropped.
        torn.0[Layout::RING_AT] = 0;
        let snap = Snapshot::parse(&torn.0).unwrap();
        assert_eq!(snap.count(Kind::DonePio), 1);
        assert!(snap.ring.iter().all(Option::is_none));
    }

    /// A region written by a build with another number of kinds (its counters at other
    /// offsets) is no trace to this one.
    #[test]
    fn a_region_of_another_kind_count_is_refused() {
        let mut mem = Mem([0; Layout::BYTES + 64]);
        Trace::new(Some(SharedRegion::new(&mut mem.0))).record(Kind::MacDone, 1);
        assert_eq!(Snapshot::parse(&mem.0).unwrap().count(Kind::MacDone), 1);
        let fewer = Layout::MAGIC - 2;
        mem.0[..4].copy_from_slice(&fewer.to_ne_bytes());
        assert_eq!(Snapshot::parse(&mem.0), None);
    }
}
