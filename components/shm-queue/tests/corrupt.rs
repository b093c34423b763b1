//! A hostile peer writes nonsense into the shared indices: every operation reports
//! `Corrupt` (with what it saw) and nothing reads or writes outside the region.

mod common;

use common::{HEAD, Item, Line, TAIL, aligned, as_bytes};
use shm_queue::{Consumer, LayoutError, Producer, QueueError, SharedRegion, region_size};

const CAP: u32 = 8;

fn poke(region: SharedRegion<'_>, offset: usize, value: u32) {
    // SAFETY: offset is one of the header words inside the region; the test plays the
    // peer that owns that word.
    unsafe { (region.as_ptr().add(offset) as *mut u32).write_volatile(value) }
}

/// A queue of `CAP` items in `mem` with both its ends attached.
fn both_ends(mem: &mut [Line]) -> (SharedRegion<'_>, Producer<'_, Item>, Consumer<'_, Item>) {
    let region = SharedRegion::new(as_bytes(mem));
    let p = Producer::attach(region, CAP).unwrap();
    let c = Consumer::attach(region, CAP).unwrap();
    (region, p, c)
}

#[test]
fn consumer_rejects_tail_beyond_capacity() {
    let mut mem = aligned(region_size::<Item>(CAP));
    let region = SharedRegion::new(as_bytes(&mut mem));
    let mut c = Consumer::<Item>::attach(region, CAP).unwrap();
    for bad in [CAP + 1, 1000, u32::MAX, u32::MAX / 2] {
        poke(region, TAIL, bad);
        let want = QueueError::Corrupt { head: 0, tail: bad };
        assert_eq!(c.len(), Err(want));
        assert_eq!(c.dequeue(), Err(want));
        assert_eq!(c.dequeue_many(&mut [Item::new(0); 4]), Err(want));
        assert!(c.read_batch().is_err());
        assert_eq!(c.arm_signal(), Err(want));
    }
    // A batch refreshed after the tail went bad reports it too.
    poke(region, TAIL, 1);
    let mut batch = c.read_batch().unwrap();
    assert_eq!(batch.len(), 1);
    poke(region, TAIL, CAP + 3);
    assert_eq!(
        batch.refresh(),
        Err(QueueError::Corrupt {
            head: 0,
            tail: CAP + 3
        })
    );
    // A tail at exactly capacity is a full queue, not corruption.
    poke(region, TAIL, CAP);
    assert_eq!(c.len(), Ok(CAP));
}

#[test]
fn producer_rejects_head_ahead_of_tail() {
    let mut mem = aligned(region_size::<Item>(CAP));
    let region = SharedRegion::new(as_bytes(&mut mem));
    let mut p = Producer::<Item>::attach(region, CAP).unwrap();
    p.enqueue(Item::new(0)).unwrap();
    // A head past our tail would make the free count negative.
    poke(region, HEAD, 5);
    let want = QueueError::Corrupt { head: 5, tail: 1 };
    assert_eq!(p.free(), Err(want));
    // Room the producer already knows of is not asked again (7 slots since head 0 was
    // read); asking for more reads the head, and reports it.
    assert_eq!(p.room(CAP - 1), Ok(CAP - 1));
    assert_eq!(p.room(CAP), Err(want));
    poke(region, HEAD, 100);
    // The producer reads the head again only when the room it last saw (head 0, at the
    // first enqueue) is used up. That room stays usable: the consumer published it, so
    // those slots are not the consumer's; then the next look reports Corrupt.
    let mut written = 0;
    let err = loop {
        match p.enqueue(Item::new(written)) {
            Ok(()) => written += 1,
            Err(e) => break e,
        }
    };
    assert_eq!(written, u64::from(CAP) - 1, "the room last seen, no more");
    assert_eq!(
        err,
        QueueError::Corrupt {
            head: 100,
            tail: CAP
        }
    );
    assert!(p.enqueue_many(&[Item::new(1)]).is_err());
}

#[test]
fn producer_ignores_a_forged_tail() {
    // The producer's own tail is private: a consumer overwriting it cannot make the
    // producer overwrite unconsumed slots.
    let mut mem = aligned(region_size::<Item>(CAP));
    let (region, mut p, mut c) = both_ends(&mut mem);
    for i in 0..CAP as u64 {
        p.enqueue(Item::new(i)).unwrap();
    }
    poke(region, TAIL, 0);
    assert_eq!(p.enqueue(Item::new(99)), Err(QueueError::Full));
    // ...and the consumer, which trusts only the published tail, now sees nothing,
    // which harms only the queue the forger itself uses.
    assert_eq!(c.dequeue(), Err(QueueError::Empty));
}

#[test]
fn scribbled_slots_are_copied_not_trusted() {
    let mut mem = aligned(region_size::<Item>(CAP));
    let (region, mut p, mut c) = both_ends(&mut mem);
    p.enqueue(Item::new(7)).unwrap();
    let batch = c.read_batch().unwrap();
    let copy = batch.get(0);
    let mut into = Item::new(0);
    batch.read_into(0, &mut into);
    assert_eq!(into, copy, "read_into copies what get returns");
    // The producer rewrites the slot after the consumer copied it out.
    let slot = shm_queue::HEADER_SIZE;
    // SAFETY: slot 0 is inside the region.
    unsafe { (region.as_ptr().add(slot) as *mut u64).write_volatile(0xdead) };
    assert!(copy.is_intact(), "the copy is unaffected");
    assert!(into.is_intact(), "so is the copy read in place");
    assert!(
        !batch.get(0).is_intact(),
        "a fresh read sees the scribble, and can reject it"
    );
    batch.release(1);
}

#[test]
fn bad_layouts_are_refused() {
    let mut mem = aligned(region_size::<Item>(CAP) + 64);
    let bytes = as_bytes(&mut mem);
    let region = SharedRegion::new(bytes);
    assert_eq!(
        Producer::<Item>::attach(region, 6).err(),
        Some(LayoutError::Capacity(6))
    );
    assert_eq!(
        Producer::<Item>::attach(region, 0).err(),
        Some(LayoutError::Capacity(0))
    );
    let small = region.slice(0, region_size::<Item>(CAP) - 1).unwrap();
    assert!(matches!(
        Consumer::<Item>::attach(small, CAP).err(),
        Some(LayoutError::TooSmall { .. })
    ));
    let skewed = region.slice(8, region_size::<Item>(CAP)).unwrap();
    assert!(matches!(
        Consumer::<Item>::attach(skewed, CAP).err(),
        Some(LayoutError::Misaligned(_))
    ));
    assert!(region.slice(usize::MAX, 2).is_none());
}
