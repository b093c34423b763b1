//! The split virtqueue's structures in memory (virtio 1.2 §2.7): descriptors, the used
//! ring's elements and the rings' sizes. All little-endian (§2.7: `le16`/`le32`/`le64`
//! fields, whatever the CPU), built from zerocopy's byte-order types so they have no
//! padding and alignment 1, and can sit at any offset.

use static_assertions::const_assert_eq;
use zerocopy::little_endian::{U16, U32, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// One buffer of a chain (§2.7.5 "The Virtqueue Descriptor Table", `struct virtq_desc`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[repr(C)]
pub struct VirtqDesc {
    pub addr: U64,
    pub len: U32,
    pub flags: U16,
    pub next: U16,
}
const_assert_eq!(size_of::<VirtqDesc>(), 16);

/// Descriptor flags (§2.7.5).
pub mod desc_flags {
    /// The chain continues at `next`.
    pub const NEXT: u16 = 1;
    /// The device writes this buffer (otherwise it only reads it).
    pub const WRITE: u16 = 2;
    /// The buffer holds a table of descriptors; we never use it (feature not offered).
    pub const INDIRECT: u16 = 4;
}

/// Available-ring flag: the driver does not want interrupts (§2.7.7). We poll.
pub const AVAIL_F_NO_INTERRUPT: u16 = 1;

/// One completed chain in the used ring (§2.7.8, `struct virtq_used_elem`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[repr(C)]
pub struct UsedElem {
    /// Head descriptor index of the chain.
    pub id: U32,
    /// Bytes the device wrote into the chain's device-writable buffers.
    pub len: U32,
}
const_assert_eq!(size_of::<UsedElem>(), 8);

/// Bytes of a descriptor table of `size` entries (§2.7 "Queue Part Sizes": 16 * size).
pub const fn desc_bytes(size: u16) -> usize {
    16 * size as usize
}

/// Bytes of an available ring: flags, idx, ring[size], used_event (§2.7.6).
pub const fn avail_bytes(size: u16) -> usize {
    6 + 2 * size as usize
}

/// Bytes of a used ring: flags, idx, ring[size] of 8-byte elements, avail_event (§2.7.8).
pub const fn used_bytes(size: u16) -> usize {
    6 + 8 * size as usize
}
