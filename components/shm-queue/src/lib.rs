//! Single-producer single-consumer queues in a shared memory region, in the style of sDDF
//! (`include/sddf/*/queue.h`), for passing fixed-size descriptors between protection
//! domains that do not trust each other.
//!
//! # Layout
//!
//! A queue occupies [`region_size`] bytes of a region both domains map:
//!
//! ```text
//! offset   0  tail                written by the producer only
//! offset  64  head                written by the consumer only
//! offset 128  consumer_signalled  cleared by the consumer, set by the producer
//! offset 192  slots[capacity]     T, written by the producer, read by the consumer
//! ```
//!
//! Slots are [`slot_size`] apart: `T`'s size rounded up so that none straddles a cache
//! line.
//!
//! Each control word has its own cache line so the two sides never write to the same line.
//! Indices run free (u32, wrapping); slot `i` lives at `i & (capacity - 1)`, so the
//! capacity is a power of two. The queue holds `tail - head` items (wrapping subtraction).
//!
//! # The peer is not trusted
//!
//! The other domain can write anything into the region at any time. So each side keeps its
//! own index privately and only *publishes* it to shared memory; the peer's index is read
//! and validated on every use: `tail - head > capacity` is [`QueueError::Corrupt`], never an
//! out-of-bounds access. Slots are copied out with a volatile read into a local value
//! before anyone looks at them, and `T: FromBytes` means every bit pattern the peer can
//! leave there is a valid `T`; what the fields *mean* is for the caller to validate.
//!
//! # Signalling protocol
//!
//! A producer notifies the consumer only when the consumer asked for it, which saves a
//! notification (a system call on seL4, a futex wake on the host) per batch:
//!
//! ```text
//! producer                            consumer
//!   write slots; tail := t  (release)   sees the queue empty
//!   fence(SeqCst)                       consumer_signalled := 0
//!   if consumer_signalled == 0:         fence(SeqCst)
//!       consumer_signalled := 1         re-check: if tail != head, keep working
//!       notify                          else sleep until notified
//! ```
//!
//! Invariant: if the consumer goes to sleep, every item published before it slept has
//! either been seen by its re-check or will be followed by a notification. The two
//! SeqCst fences make the store/load pairs a Dekker handshake: at least one side sees the
//! other's store, so either the consumer's re-check sees the new tail or the producer sees
//! `consumer_signalled == 0` and notifies. This is the protocol sDDF model-checked; a
//! hostile peer can only cause spurious or missing wake-ups for itself.
//!
//! # Assumptions
//!
//! Both sides run on the same CPU architecture (native byte order) and the region is at
//! least 64-byte aligned. Concurrent access to the slots by a hostile peer is a race we
//! cannot prevent; we confine it to volatile copies of `FromBytes` types.
#![no_std]
#![deny(unsafe_op_in_unsafe_fn)]

mod consumer;
mod producer;
mod region;

pub use consumer::{Consumer, ReadBatch};
pub use producer::{Producer, WriteBatch};
pub use region::{CACHE_LINE, HEADER_SIZE, LayoutError, region_size, slot_size};
/// The region a queue lives in (crate `shared-region`), for the queues' users.
pub use shared_region::SharedRegion;

/// What a queue operation can fail with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueError {
    /// No free slot (producer side).
    Full,
    /// Nothing to take (consumer side).
    Empty,
    /// The indices in shared memory cannot be right: the peer is broken or hostile.
    /// `head` and `tail` are the values that were seen.
    Corrupt { head: u32, tail: u32 },
}

impl core::fmt::Display for QueueError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            QueueError::Full => f.write_str("queue full"),
            QueueError::Empty => f.write_str("queue empty"),
            QueueError::Corrupt { head, tail } => {
                write!(f, "queue indices corrupt (head {head}, tail {tail})")
            }
        }
    }
}

/// The bounds every descriptor type must meet to travel through a queue: plain bytes in
/// both directions, no interior mutability, any bit pattern valid.
pub trait Descriptor:
    zerocopy::FromBytes + zerocopy::IntoBytes + zerocopy::Immutable + Copy
{
}
impl<T: zerocopy::FromBytes + zerocopy::IntoBytes + zerocopy::Immutable + Copy> Descriptor for T {}

/// Number of items between `head` and `tail`, or `Corrupt` if that exceeds `capacity`.
fn occupancy(head: u32, tail: u32, capacity: u32) -> Result<u32, QueueError> {
    let used = tail.wrapping_sub(head);
    if used > capacity {
        Err(QueueError::Corrupt { head, tail })
    } else {
        Ok(used)
    }
}
