//! Two shm-queues in one memory region: `a_to_b` at offset 0, `b_to_a` on the next
//! cache line after it.

use pd_runtime::MemoryRegion;
use shm_queue::{
    CACHE_LINE, Consumer, Descriptor, Producer, QueueError, SharedRegion, region_size,
};

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

/// A server's pass over its client's queues: answers each request with `answer`
/// while the answer queue has room, tells the client (`notify`) if it asked, and
/// returns once the request queue is empty and armed for the next notification, or
/// once the answer queue is full (armed too: the client, draining its answers, sees
/// requests waiting and notifies), never spinning on a client that does not drain.
///
/// A queue the client corrupted (an index out of range) is `Err`, never a panic: the
/// server stops serving that client and lives on (a client cannot crash its server).
pub fn serve<Req: Descriptor, Resp: Descriptor>(
    rx: &mut Consumer<'_, Req>,
    tx: &mut Producer<'_, Resp>,
    mut answer: impl FnMut(&Req) -> Resp,
    notify: impl Fn(),
) -> Result<(), QueueError> {
    loop {
        while tx.free()? != 0 {
            match rx.dequeue() {
                Ok(req) => tx.enqueue(answer(&req))?,
                Err(QueueError::Empty) => break,
                Err(e) => return Err(e),
            }
        }
        if tx.take_signal_request() {
            notify();
        }
        if rx.arm_signal()? || tx.free()? == 0 {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page of queue memory, aligned as a mapped region is.
    #[repr(C, align(64))]
    struct Page([u8; 8192]);

    #[test]
    fn both_sides_see_the_same_queues() {
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

    #[test]
    fn a_server_answers_each_request_and_a_corrupt_queue_is_an_error() {
        let mut page = Page([0; 8192]);
        let region = SharedRegion::new(&mut page.0);
        let (mut a_tx, mut a_rx) = side_a::<u64, u64>(region);
        let (mut b_rx, mut b_tx) = side_b::<u64, u64>(region);
        for v in 0..3 {
            a_tx.enqueue(v).unwrap();
        }
        let told = core::cell::Cell::new(0);
        a_rx.arm_signal().unwrap();
        serve(&mut b_rx, &mut b_tx, |v| v + 1, || told.set(told.get() + 1)).unwrap();
        let mut answers = [0u64; 3];
        for a in &mut answers {
            *a = a_rx.dequeue().unwrap();
        }
        assert_eq!(a_rx.dequeue(), Err(QueueError::Empty));
        assert_eq!(answers, [1, 2, 3]);
        assert_eq!(told.get(), 1, "one notification for the pass");
        // The client moves its tail past the capacity: the server's error, typed.
        // (The a-to-b queue's tail is the region's first word.)
        let tail = region.atomic_u32(0).expect("in the region");
        tail.store(
            tail.load(core::sync::atomic::Ordering::Relaxed) + CAPACITY + 1,
            core::sync::atomic::Ordering::Release,
        );
        let (mut b_rx, mut b_tx) = side_b::<u64, u64>(region);
        assert!(matches!(
            serve(&mut b_rx, &mut b_tx, |v| *v, || {}),
            Err(QueueError::Corrupt { .. })
        ));
    }

    #[test]
    fn a_server_whose_client_does_not_drain_returns() {
        let mut page = Page([0; 8192]);
        let region = SharedRegion::new(&mut page.0);
        let (mut a_tx, mut a_rx) = side_a::<u64, u64>(region);
        let (mut b_rx, mut b_tx) = side_b::<u64, u64>(region);
        // As many requests as answers fit: the answer queue fills.
        for v in 0..CAPACITY as u64 {
            a_tx.enqueue(v).unwrap();
        }
        serve(&mut b_rx, &mut b_tx, |v| *v, || {}).unwrap();
        assert_eq!(b_tx.free(), Ok(0));
        // More requests with no room for their answers: the pass returns (it spun here).
        for v in 0..8u64 {
            a_tx.enqueue(v).unwrap();
        }
        serve(&mut b_rx, &mut b_tx, |v| *v, || {}).unwrap();
        assert_eq!(b_rx.len(), Ok(8), "waiting for room");
        // The client drains: the rest is served at the next pass.
        while a_rx.dequeue().is_ok() {}
        serve(&mut b_rx, &mut b_tx, |v| *v, || {}).unwrap();
        assert_eq!(b_tx.free(), Ok(CAPACITY - 8));
    }
}
