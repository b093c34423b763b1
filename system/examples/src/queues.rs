//! Two shm-queues in one memory region: `a_to_b` at offset 0, `b_to_a` on the next
//! cache line after it.

use pd_runtime::MemoryRegion;
use shm_queue::{CACHE_LINE, Consumer, Descriptor, Producer, SharedRegion, region_size};

/// Slots in each queue.
pub const CAPACITY: u32 = 64;

/// Bytes a region needs for a queue of `A` (a to b) and one of `B` (b to a).
pub const fn bytes<A, B>() -> usize {
    region_size::<A>(CAPACITY).next_multiple_of(CACHE_LINE) + region_size::<B>(CAPACITY)
}

/// The region as a queue region for the life of the PD.
pub fn shared(region: MemoryRegion) -> SharedRegion<'static> {
    assert!(region.writable, "queue regions must be mapped rw");
    // SAFETY: the runtime maps regions once, read-write (checked above), for the life of
    // the PD, and this crate makes no Rust references into them: all access goes
    // through shm-queue's atomic and volatile operations.
    unsafe { SharedRegion::from_raw(region.vaddr, region.size) }
}

/// The sub-regions of the `A` queue and the `B` queue.
fn halves<A, B>(region: SharedRegion<'_>) -> (SharedRegion<'_>, SharedRegion<'_>) {
    let a_len = region_size::<A>(CAPACITY);
    let b_at = a_len.next_multiple_of(CACHE_LINE);
    let too_small = "the .system file gives the queue region too few bytes";
    let a = region.slice(0, a_len).expect(too_small);
    let b = region
        .slice(b_at, region_size::<B>(CAPACITY))
        .expect(too_small);
    (a, b)
}

/// Side a's ends: produces `A`, consumes `B`.
pub fn side_a<A: Descriptor, B: Descriptor>(
    region: SharedRegion<'_>,
) -> (Producer<'_, A>, Consumer<'_, B>) {
    let (a, b) = halves::<A, B>(region);
    let tx = Producer::attach(a, CAPACITY).expect("queue layout");
    let rx = Consumer::attach(b, CAPACITY).expect("queue layout");
    (tx, rx)
}

/// Side b's ends: consumes `A`, produces `B`.
pub fn side_b<A: Descriptor, B: Descriptor>(
    region: SharedRegion<'_>,
) -> (Consumer<'_, A>, Producer<'_, B>) {
    let (a, b) = halves::<A, B>(region);
    let rx = Consumer::attach(a, CAPACITY).expect("queue layout");
    let tx = Producer::attach(b, CAPACITY).expect("queue layout");
    (rx, tx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_sides_see_the_same_queues() {
        #[repr(C, align(64))]
        struct Page([u8; 8192]);
        let mut page = Page([0; 8192]);
        assert!(bytes::<u64, [u8; 24]>() <= page.0.len());
        let region = SharedRegion::new(&mut page.0);
        let (mut a_tx, mut a_rx) = side_a::<u64, [u8; 24]>(region);
        let (mut b_rx, mut b_tx) = side_b::<u64, [u8; 24]>(region);
        a_tx.enqueue(7).unwrap();
        assert_eq!(b_rx.dequeue(), Ok(7));
        b_tx.enqueue([9; 24]).unwrap();
        assert_eq!(a_rx.dequeue(), Ok([9; 24]));
    }
}
