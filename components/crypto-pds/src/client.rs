//! What the test client PDs share: their link to the driver from the `.system` file,
//! the data region, and the ledger if the system maps one.

use cost_ledger::{Counts, Ledger};
use crypto_client::{Link, Tagged, pair};
use pd_runtime::{Channel, MemoryRegion, memory_region};
use shm_queue::SharedRegion;

/// A test client's driver is on channel 0.
pub const DRIVER: Channel = Channel::new(0);

/// The client's link over its `queues` region.
pub fn link<Req: Tagged, Resp: Tagged>(capacity: u32) -> Link<'static, Req, Resp> {
    link_over(memory_region!(queues), capacity)
}

/// A link over the queue region mapped with `setvar_vaddr=symbol` (a client of several
/// drivers).
pub fn link_at<Req: Tagged, Resp: Tagged>(symbol: &str, capacity: u32) -> Link<'static, Req, Resp> {
    let q = pd_runtime::memory_region(symbol)
        .unwrap_or_else(|| panic!("no memory region with setvar_vaddr=\"{symbol}\""));
    link_over(q, capacity)
}

fn link_over<Req: Tagged, Resp: Tagged>(
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

/// The client's own data region.
pub struct Data(pub MemoryRegion);

impl Data {
    pub fn map() -> Self {
        Data(memory_region!(data))
    }

    /// The data region mapped with `setvar_vaddr=symbol`.
    pub fn map_at(symbol: &str) -> Self {
        Data(
            pd_runtime::memory_region(symbol)
                .unwrap_or_else(|| panic!("no memory region with setvar_vaddr=\"{symbol}\"")),
        )
    }

    /// Writes `bytes` at `offset` (volatile: the driver and DMA read it).
    pub fn write(&self, offset: u32, bytes: &[u8]) {
        let at = offset as usize;
        assert!(at + bytes.len() <= self.0.size, "inside the data region");
        for (i, b) in bytes.iter().enumerate() {
            // SAFETY: inside the region (checked), which this PD maps read-write.
            unsafe { self.0.vaddr.add(at + i).write_volatile(*b) };
        }
    }

    /// Reads `out.len()` bytes at `offset`.
    pub fn read(&self, offset: u32, out: &mut [u8]) {
        let at = offset as usize;
        assert!(at + out.len() <= self.0.size, "inside the data region");
        for (i, b) in out.iter_mut().enumerate() {
            // SAFETY: inside the region (checked), which this PD maps.
            *b = unsafe { self.0.vaddr.add(at + i).read_volatile() };
        }
    }
}

/// The ledger, if the system maps it here, and a snapshot helper.
pub struct Meter(pub Option<&'static Ledger>);

impl Meter {
    pub fn map() -> Self {
        Meter(crate::shared::ledger())
    }

    pub fn now(&self) -> Counts {
        self.0.map(|l| l.snapshot()).unwrap_or_default()
    }
}
