//! The test client of `system/qemu_virt_aarch64.system` (`test-client-pd`): SP 800-38A
//! CBC/CTR vectors through both Cipher drivers and the verified-boot client's verdict,
//! then one PASS or FAIL line. It is meant for seL4 only (QEMU's virtio device); on the
//! host it builds so that clippy and tests see it, but no host system boots it.
//!
//! Every other PD of the image is the same source as on the host: the driver PDs
//! (`components/<engine>/pd`), the power manager (`pm-qemu-virt`) and the verified-boot
//! client (`components/vboot-client-pd`).
//!
//! This library holds what the test client's links assume of the interfaces: one
//! capacity for both queues of a pair (`crypto_client::driver` sizes each pair by the
//! request queue's). `no_std`, no heap.
#![no_std]

/// Slots in each queue of a pair (both interfaces declare 64).
pub const QUEUE_CAPACITY: u32 = pd_idl::cipher::REQUEST_QUEUE_CAPACITY;
const _: () = assert!(
    pd_idl::cipher::RESPONSE_QUEUE_CAPACITY == QUEUE_CAPACITY
        && pd_idl::digest::REQUEST_QUEUE_CAPACITY == QUEUE_CAPACITY
        && pd_idl::digest::RESPONSE_QUEUE_CAPACITY == QUEUE_CAPACITY
);
