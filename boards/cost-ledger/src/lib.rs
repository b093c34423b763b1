//! Cost ledger: counters of hardware-visible events, and the cost tables that turn them
//! into modelled time.
//!
//! Device models (crate `engine-models`) count what the silicon would do: register reads
//! and writes, PIO data words, DMA channel starts, descriptors and bytes, interrupts, power
//! transitions and engine busy cycles. Drivers add what only they know: the bytes they copy
//! with the CPU, the bytes a CPU engine processes, and the start of each client request.
//! A board's [`CostTable`] (crate `boards`) prices each event; [`Counts::modelled_ps`]
//! multiplies out.
//!
//! Assumptions:
//! - The [`Ledger`] is `#[repr(C)]` atomics so that it can live in a shared-memory region
//!   read by another process (the speed tool) while a driver and its models count into it.
//!   All counting is `Relaxed`: the counters are statistics, never used for synchronisation.
//! - No heap, no `std`: it builds for `aarch64-unknown-none` like the drivers.
#![no_std]
#![forbid(unsafe_code)]

mod table;

use core::sync::atomic::{AtomicU64, Ordering};

pub use table::CostTable;

/// One kind of hardware-visible (or driver-reported) event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Event {
    /// CPU read of a control or status register (not a data port).
    RegRead,
    /// CPU write of a control register (not a data port).
    RegWrite,
    /// One 32-bit word moved by the CPU through an engine's data port (PIO).
    PioWord,
    /// A DMA channel started (a transfer programmed and enabled by the driver).
    DmaStart,
    /// A descriptor (EDMA parameter set link, SEC1 descriptor) fetched by a DMA master.
    DmaDescriptor,
    /// A byte moved by a DMA master, counted once per direction.
    DmaByte,
    /// A DMA channel's transfer outgrew the transfer controller's pipeline: it submitted
    /// more transfer requests than the controller has destination register sets, so the
    /// rest wait on the peripheral instead of being absorbed at once. Counted once per
    /// channel start. What it costs is the requester's: its completion no longer arrives
    /// while it is still submitting, so it sleeps and is woken (the omap-aes DMA/PIO series's step above
    /// 64 B on am335x).
    DmaPipelineFull,
    /// An interrupt line asserted (counted on the rising edge).
    Interrupt,
    /// An engine's clock ungated (pays the resume latency).
    PowerOn,
    /// An engine's clock gated.
    PowerOff,
    /// A busy cycle of an engine's core (AES rounds, hash compression).
    EngineCycle,
    /// Driver-reported: a byte of client data copied by the CPU (bounce buffers).
    CpuCopyByte,
    /// Driver-reported: a byte enciphered by a CPU engine (no hardware).
    CpuCipherByte,
    /// Driver-reported: a byte hashed by a CPU engine (no hardware).
    CpuDigestByte,
    /// Driver-reported: one client request begun (the per-request software cost).
    Request,
    /// Driver-reported: a job that found its session's key and IV (and direction)
    /// still loaded in the engine, so loaded none of them. Costs nothing itself: what it
    /// saves shows as register writes (and STM32 key preparations) not made.
    ContextKept,
    /// Model-reported: an engine's key registers went from holding no key material to
    /// holding some (a device session made, for virtio-crypto). Beside
    /// [`KeyCleared`](Event::KeyCleared): once every session is closed the two are
    /// equal, or a key was left in the engine. Costs nothing itself.
    KeyLoaded,
    /// Model-reported: an engine's key registers went from holding key material to
    /// holding none (the driver cleared them, or a reset did), so no key outlives the
    /// session that loaded it. Costs nothing itself: the register writes that clear a
    /// key are counted as such.
    KeyCleared,
}

impl Event {
    /// Number of event kinds; the length of every counter array.
    pub const COUNT: usize = 18;
    /// Every event, in counter order.
    pub const ALL: [Event; Event::COUNT] = [
        Event::RegRead,
        Event::RegWrite,
        Event::PioWord,
        Event::DmaStart,
        Event::DmaDescriptor,
        Event::DmaByte,
        Event::DmaPipelineFull,
        Event::Interrupt,
        Event::PowerOn,
        Event::PowerOff,
        Event::EngineCycle,
        Event::CpuCopyByte,
        Event::CpuCipherByte,
        Event::CpuDigestByte,
        Event::Request,
        Event::ContextKept,
        Event::KeyLoaded,
        Event::KeyCleared,
    ];
}

/// Event counters, shareable between processes (`#[repr(C)]`, atomics only).
#[repr(C)]
#[derive(Debug)]
pub struct Ledger {
    counters: [AtomicU64; Event::COUNT],
}

impl Default for Ledger {
    fn default() -> Self {
        Self::new()
    }
}

impl Ledger {
    /// An all-zero ledger (also a valid bit pattern for a zero-filled shared region).
    pub const fn new() -> Self {
        Self {
            counters: [const { AtomicU64::new(0) }; Event::COUNT],
        }
    }

    /// Counts `n` events of kind `event`.
    pub fn add(&self, event: Event, n: u64) {
        self.counters[event as usize].fetch_add(n, Ordering::Relaxed);
    }

    /// The current count of one event kind.
    pub fn get(&self, event: Event) -> u64 {
        self.counters[event as usize].load(Ordering::Relaxed)
    }

    /// A copy of all counters (take two and subtract to measure one operation).
    pub fn snapshot(&self) -> Counts {
        let mut c = [0; Event::COUNT];
        for (slot, counter) in c.iter_mut().zip(&self.counters) {
            *slot = counter.load(Ordering::Relaxed);
        }
        Counts(c)
    }

    /// Zeroes every counter.
    pub fn reset(&self) {
        for counter in &self.counters {
            counter.store(0, Ordering::Relaxed);
        }
    }
}

/// A plain copy of a ledger's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts(pub [u64; Event::COUNT]);

impl Counts {
    /// The count of one event kind.
    pub fn get(&self, event: Event) -> u64 {
        self.0[event as usize]
    }

    /// Events counted since `earlier` (saturating, so a reset in between reads as zero).
    pub fn since(&self, earlier: &Counts) -> Counts {
        let mut c = [0; Event::COUNT];
        for (i, slot) in c.iter_mut().enumerate() {
            *slot = self.0[i].saturating_sub(earlier.0[i]);
        }
        Counts(c)
    }

    /// Every count multiplied by `k` (to extrapolate a measured stream to a longer one).
    pub fn scaled(&self, k: u64) -> Counts {
        Counts(self.0.map(|v| v * k))
    }

    /// Modelled time of these events on a board, in picoseconds.
    pub fn modelled_ps(&self, table: &CostTable) -> u64 {
        Event::ALL.iter().map(|&e| self.get(e) * table.ps(e)).sum()
    }

    /// Modelled time of these events on a board, in (fractional) microseconds.
    pub fn modelled_us(&self, table: &CostTable) -> f64 {
        self.modelled_ps(table) as f64 / 1e6
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_order_matches_discriminants() {
        for (i, e) in Event::ALL.iter().enumerate() {
            assert_eq!(*e as usize, i);
        }
    }

    #[test]
    fn counts_price_and_difference() {
        let ledger = Ledger::new();
        let before = ledger.snapshot();
        ledger.add(Event::Interrupt, 2);
        ledger.add(Event::DmaByte, 100);
        let d = ledger.snapshot().since(&before);
        let table = CostTable {
            interrupt_ps: 1_000,
            dma_byte_ps: 10,
            ..CostTable::ZERO
        };
        assert_eq!(d.modelled_ps(&table), 3_000);
        assert_eq!(d.scaled(3).get(Event::DmaByte), 300);
        ledger.reset();
        assert_eq!(ledger.get(Event::Interrupt), 0);
    }
}
