//! The consuming end of a queue.

use core::marker::PhantomData;
use core::sync::atomic::{Ordering, fence};

use crate::region::{HEAD, SIGNALLED, Slots, TAIL};
use crate::{Descriptor, LayoutError, QueueError, SharedRegion, occupancy};

/// Newly ready slots a look asks the cache for ahead of their reads: a driver's batch
/// (`driver_pd::clients::BATCH`); an L1 holds about as many misses outstanding.
const PREFETCH: u32 = 16;

/// The consuming end. Owns `head`: its private copy is the truth, the shared word is only
/// where it is published.
///
/// It also remembers the producer's tail as last read (validated then): one item at a
/// time ([`dequeue`](Self::dequeue)), it reads the shared word again only once it has
/// taken everything up to it.
pub struct Consumer<'a, T> {
    region: SharedRegion<'a>,
    capacity: u32,
    head: u32,
    /// The producer's tail when last read: at least `tail_seen - head` items are ready.
    tail_seen: u32,
    _item: PhantomData<T>,
}

impl<'a, T: Descriptor> Consumer<'a, T> {
    /// Attaches to a queue in `region`, resuming from the published head.
    pub fn attach(region: SharedRegion<'a>, capacity: u32) -> Result<Self, LayoutError> {
        region.check::<T>(capacity)?;
        let head = region.word(HEAD).load(Ordering::Acquire);
        Ok(Consumer {
            region,
            capacity,
            head,
            tail_seen: head,
            _item: PhantomData,
        })
    }

    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// The index of the next item it takes (free-running, as the producer's
    /// [`tail`](crate::Producer::tail)): every item before it is taken.
    pub fn head(&self) -> u32 {
        self.head
    }

    /// Items ready, judged against the producer's published tail (read now).
    pub fn len(&self) -> Result<u32, QueueError> {
        let tail = self.region.word(TAIL).load(Ordering::Acquire);
        occupancy(self.head, tail, self.capacity)
    }

    pub fn is_empty(&self) -> Result<bool, QueueError> {
        Ok(self.len()? == 0)
    }

    /// Items known ready: those up to the tail last read, or if all of those are taken,
    /// as [`len`](Self::len) finds now.
    fn ready(&mut self) -> Result<u32, QueueError> {
        let known = self.tail_seen.wrapping_sub(self.head);
        // `known` is in 0..=capacity unless `head` passed `tail_seen` (never: only
        // `look` moves it, and only to a validated tail).
        if known != 0 && known <= self.capacity {
            return Ok(known);
        }
        self.look()
    }

    /// Items ready now: the producer's tail read, validated and remembered. The slots
    /// it finds newly ready (up to [`PREFETCH`]) are asked for at once, so that their
    /// lines cross from the producer's core together rather than one per item, each
    /// read as the consumer reaches it: one line's wait per request was half the CPU
    /// driver's time at 16 B, and AES-128-CBC 16 B ran ~15% faster with this.
    fn look(&mut self) -> Result<u32, QueueError> {
        let tail = self.region.word(TAIL).load(Ordering::Acquire);
        let n = occupancy(self.head, tail, self.capacity)?;
        let known = self.tail_seen.wrapping_sub(self.head).min(n);
        for i in known..n.min(PREFETCH) {
            self.region
                .prefetch_slot::<T, false>(self.head.wrapping_add(i), self.capacity);
        }
        self.tail_seen = tail;
        Ok(n)
    }

    /// Takes one item.
    pub fn dequeue(&mut self) -> Result<T, QueueError> {
        if self.ready()? == 0 {
            return Err(QueueError::Empty);
        }
        let item = self.read(self.head);
        self.head = self.head.wrapping_add(1);
        self.publish();
        Ok(item)
    }

    /// Takes up to `out.len()` items, releasing their slots once; returns how many.
    pub fn dequeue_many(&mut self, out: &mut [T]) -> Result<usize, QueueError> {
        let batch = self.read_batch()?;
        let n = batch.len().min(out.len());
        for (i, slot) in out[..n].iter_mut().enumerate() {
            *slot = batch.get(i);
        }
        batch.release(n);
        Ok(n)
    }

    /// A view of the items known ready, read in place one slot at a time; slots go back
    /// to the producer only on [`ReadBatch::release`]. Known ready: those up to the tail
    /// last read, or once all of those are taken, every item ready now (the tail read
    /// again, and validated). A driver taking a batch per request thus reads the
    /// producer's tail once per batch the producer published, not per request: a read
    /// per request pulled the line the client was writing across cores each time (a
    /// quarter of the CPU driver's time at 16 B).
    pub fn read_batch(&mut self) -> Result<ReadBatch<'_, 'a, T>, QueueError> {
        let len = self.ready()? as usize;
        Ok(ReadBatch {
            consumer: self,
            len,
        })
    }

    /// Asks the producer for a notification, then re-checks. Returns `true` if the queue
    /// is still empty, so sleeping until notified is safe; `false` if items arrived
    /// meanwhile and the caller should keep working (see the crate docs).
    pub fn arm_signal(&self) -> Result<bool, QueueError> {
        self.region.word(SIGNALLED).store(0, Ordering::Relaxed);
        fence(Ordering::SeqCst);
        self.is_empty()
    }

    /// Withdraws a request for notification (a consumer that will poll anyway).
    pub fn cancel_signal(&self) {
        self.region.word(SIGNALLED).store(1, Ordering::Relaxed);
    }

    #[inline(always)]
    fn read(&self, index: u32) -> T {
        self.region.read_slot(index, self.capacity)
    }

    fn publish(&self) {
        self.region.word(HEAD).store(self.head, Ordering::Release);
    }
}

/// Ready items, read in place.
pub struct ReadBatch<'c, 'a, T: Descriptor> {
    consumer: &'c mut Consumer<'a, T>,
    len: usize,
}

impl<T: Descriptor> ReadBatch<'_, '_, T> {
    /// Items in the batch.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A copy of item `i`: the copy is what the caller validates, since the producer can
    /// still scribble over the slot.
    ///
    /// # Panics
    /// If `i >= len()`: that slot may still be the producer's.
    #[inline(always)]
    pub fn get(&self, i: usize) -> T {
        assert!(i < self.len, "slot {i} outside a batch of {}", self.len);
        self.consumer
            .read(self.consumer.head.wrapping_add(i as u32))
    }

    /// Copies item `i` into `out`, as [`get`](Self::get) (the copy is what the caller
    /// validates), with whole 16-byte volatile stores into `out` itself. For a caller
    /// whose copy lives on: the copy `get` returns is moved out of its frame, and the
    /// compiler may split that move field by field, after which the first wide read of
    /// the copy waits on store-to-load forwarding, and with it on every older store (a
    /// driver's answers to lines its client reads: cross-core ownership transfers).
    ///
    /// # Panics
    /// If `i >= len()`.
    #[inline(always)]
    pub fn read_into(&self, i: usize, out: &mut T) {
        assert!(i < self.len, "slot {i} outside a batch of {}", self.len);
        let index = self.consumer.head.wrapping_add(i as u32);
        self.consumer
            .region
            .read_slot_into(index, self.consumer.capacity, out);
    }

    /// Extends the batch to every item ready now (the producer's tail read again, and
    /// validated): for a consumer that looks past the first item and wants all it can
    /// see, as a driver joining a session's queued requests into one transfer does. A
    /// batch is otherwise only what was known ready.
    pub fn refresh(&mut self) -> Result<(), QueueError> {
        self.len = self.consumer.look()? as usize;
        Ok(())
    }

    /// Gives the first `n` slots back to the producer.
    pub fn release(self, n: usize) {
        let n = n.min(self.len);
        self.consumer.head = self.consumer.head.wrapping_add(n as u32);
        self.consumer.publish();
    }
}
