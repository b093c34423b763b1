//! A client PD's end as the `.system` conventions give it: its driver on channel 0
//! (calls and queue notifications), its queue pair in the region `queues` and its data
//! in `data`, found by symbol on both backends.

use pd_runtime::{Channel, MemoryRegion, memory_region};
use shm_queue::SharedRegion;

use crate::{Answers, Link, Tagged, pair};
use shm_queue::QueueError;

/// A client's driver is on channel 0.
pub const DRIVER: Channel = Channel::new(0);

/// The client's link over its `queues` region.
pub fn link<Req: Tagged, Resp: Tagged>(capacity: u32) -> Link<'static, Req, Resp> {
    link_over(memory_region!(queues), capacity)
}

/// The answers waiting on `link` (at most `N`, see [`Link::answers`]), the driver
/// notified if it must be: what a client's `notified` starts with.
pub fn answers<Req: Tagged, Resp: Tagged, const N: usize>(
    link: &mut Link<'_, Req, Resp>,
) -> Result<Answers<Resp, N>, QueueError> {
    let answers = link.answers::<N>()?;
    if answers.notify {
        DRIVER.notify();
    }
    Ok(answers)
}

/// A link over the queue region `q` (a client of several drivers names each).
pub fn link_over<Req: Tagged, Resp: Tagged>(
    q: MemoryRegion,
    capacity: u32,
) -> Link<'static, Req, Resp> {
    assert!(q.writable, "queue regions are mapped rw");
    // SAFETY: mapped read-write for the life of the PD (checked); only shm-queue's
    // atomic and volatile accesses touch it.
    let region = unsafe { SharedRegion::from_raw(q.vaddr, q.size) };
    let (tx, rx, control) =
        pair::client_side::<Req, Resp>(region, capacity).expect("the queue region fits the pair");
    Link::new(tx, rx, control)
}

/// The client's own data region: shared with its driver (and DMA), so reached by
/// volatile copies only.
pub struct Data(pub MemoryRegion);

impl Data {
    pub fn map() -> Self {
        Data(memory_region!(data))
    }

    fn region(&self) -> SharedRegion<'static> {
        // SAFETY: mapped for the life of the PD; reached only by volatile copies.
        unsafe { SharedRegion::from_raw(self.0.vaddr, self.0.size) }
    }

    /// Writes `bytes` at `offset`.
    pub fn write(&self, offset: u32, bytes: &[u8]) {
        assert!(
            self.region().write_bytes(offset as usize, bytes),
            "inside the data region"
        );
    }

    /// Reads `out.len()` bytes at `offset`.
    pub fn read(&self, offset: u32, out: &mut [u8]) {
        assert!(
            self.region().read_bytes(offset as usize, out),
            "inside the data region"
        );
    }
}
