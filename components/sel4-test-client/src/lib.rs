//! The test client of `system/qemu_virt_aarch64.system` (`test-client-pd`): SP 800-38A
//! CBC/CTR vectors through both Cipher drivers and the verified-boot client's verdict,
//! then one PASS or FAIL line. It is meant for seL4 only (QEMU's virtio device); on the
//! host it builds so that clippy and tests see it, but no host system boots it.
//!
//! Every other PD of the image is the same source as on the host: the driver PDs
//! (`components/<engine>/pd`), the power manager (`pm-qemu-virt`) and the verified-boot
//! client (`components/vboot-client-pd`).
//!
//! This library holds the queue-pair helper the test client uses. Assumes Microkit's
//! model: one thread per PD, regions mapped for the PD's life. `no_std`, no heap.
#![no_std]

use pd_runtime::MemoryRegion;
use shm_queue::SharedRegion;

/// Slots in each queue of a pair (both interfaces declare 64).
pub const QUEUE_CAPACITY: u32 = pd_idl::cipher::REQUEST_QUEUE_CAPACITY;
const _: () = assert!(
    pd_idl::cipher::RESPONSE_QUEUE_CAPACITY == QUEUE_CAPACITY
        && pd_idl::digest::REQUEST_QUEUE_CAPACITY == QUEUE_CAPACITY
        && pd_idl::digest::RESPONSE_QUEUE_CAPACITY == QUEUE_CAPACITY
);

/// A queue-pair region for the life of the PD, for `crypto_client::pair`.
pub fn queue_region(region: MemoryRegion) -> SharedRegion<'static> {
    // SAFETY: the runtime maps the region once, read-write (the .system file maps every
    // queue region rw), for the life of the PD, and nothing here makes Rust references
    // into it: shm-queue and the pair's control line access it atomically/volatilely.
    unsafe { SharedRegion::from_raw(region.vaddr, region.size) }
}
