//! The producing end of a queue.

use core::marker::PhantomData;
use core::sync::atomic::{Ordering, fence};

use crate::region::{CACHE_LINE, HEAD, SIGNALLED, Slots, TAIL, slot_size};
use crate::{Descriptor, LayoutError, QueueError, SharedRegion, occupancy};

/// The producing end. Owns `tail`: its private copy is the truth, the shared word is only
/// where it is published.
///
/// It also remembers the consumer's head as last read (validated then), and reads the
/// shared word again only when that leaves no room: a producer that kept reading it per
/// item pulled the consumer's cache line across cores for every item.
pub struct Producer<'a, T> {
    region: SharedRegion<'a>,
    capacity: u32,
    tail: u32,
    /// The consumer's head when last read: free slots are at least `capacity - (tail -
    /// head_seen)` (the consumer only moves it forward).
    head_seen: u32,
    _item: PhantomData<T>,
}

impl<'a, T: Descriptor> Producer<'a, T> {
    /// Attaches to a queue in `region`, resuming from the published tail (zero in a fresh
    /// region; where a restarted producer left off otherwise).
    pub fn attach(region: SharedRegion<'a>, capacity: u32) -> Result<Self, LayoutError> {
        region.check::<T>(capacity)?;
        let tail = region.word(TAIL).load(Ordering::Acquire);
        Ok(Producer {
            region,
            capacity,
            tail,
            // Nothing free until the head is read.
            head_seen: tail.wrapping_sub(capacity),
            _item: PhantomData,
        })
    }

    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// The index the next item takes (free-running: it wraps, and the slot is it modulo
    /// the capacity). Beside the consumer's [`head`](crate::Consumer::head), which items
    /// it has taken.
    pub fn tail(&self) -> u32 {
        self.tail
    }

    /// Free slots, judged against the consumer's published head (read now).
    pub fn free(&self) -> Result<u32, QueueError> {
        Ok(self.capacity - self.read_head()?.1)
    }

    /// Free slots, at least `want` of them if there are: judged against the consumer's
    /// head as last read, and read again only when that leaves fewer than `want`. For a
    /// producer that asks per batch how many it may write: a read per batch pulled the
    /// consumer's line across cores each time (a sixth of the CPU driver's time at 16 B).
    ///
    /// The lines of the `want` slots it answers for are asked for writing (PREFETCHW on
    /// x86_64), bar the line the tail ends in, which the consumer may be reading: each
    /// Digest answer is a line the client read last, and its store waited for the line,
    /// and the stores behind it with it (SHA-256 at 16 B through the CPU driver ran
    /// 98 -> 140 MB/s).
    pub fn room(&mut self, want: u32) -> Result<u32, QueueError> {
        let room = self.known_room(want)?;
        let per_line = (CACHE_LINE / slot_size::<T>()).max(1) as u32;
        let mut i = (per_line - self.tail % per_line) % per_line;
        while i < want.min(room) {
            self.region
                .prefetch_slot::<T, true>(self.tail.wrapping_add(i), self.capacity);
            i += per_line;
        }
        Ok(room)
    }

    /// Free slots, at least `want` of them if there are (see [`room`](Self::room)): the
    /// room the head last read leaves, or if that is less than `want`, the room a new
    /// look finds.
    fn known_room(&mut self, want: u32) -> Result<u32, QueueError> {
        // Every write stays within room a look found, so `tail - head_seen` is at most
        // the capacity.
        let known = self.capacity - self.tail.wrapping_sub(self.head_seen);
        if known >= want.min(self.capacity) {
            return Ok(known);
        }
        self.look()
    }

    /// Free slots now: the consumer's head read, validated and remembered (every write
    /// uses room a look found, so `head_seen` accounts for all of it).
    fn look(&mut self) -> Result<u32, QueueError> {
        let (head, used) = self.read_head()?;
        self.head_seen = head;
        Ok(self.capacity - used)
    }

    /// The consumer's published head and the slots in use against it, validated.
    fn read_head(&self) -> Result<(u32, u32), QueueError> {
        let head = self.region.word(HEAD).load(Ordering::Acquire);
        Ok((head, occupancy(head, self.tail, self.capacity)?))
    }

    /// Enqueues one item and publishes it.
    pub fn enqueue(&mut self, item: T) -> Result<(), QueueError> {
        self.stage(item)?;
        self.publish();
        Ok(())
    }

    /// Writes one item without publishing it: the consumer sees it, with every item
    /// staged before it, at the next [`publish`](Self::publish) (a batch then costs the
    /// shared tail one write).
    pub fn stage(&mut self, item: T) -> Result<(), QueueError> {
        // The head is read only if the last one read leaves no slot.
        if self.known_room(1)? == 0 {
            return Err(QueueError::Full);
        }
        self.write(self.tail, item);
        self.tail = self.tail.wrapping_add(1);
        Ok(())
    }

    /// Enqueues as many of `items` as fit, publishing once; returns how many went in.
    pub fn enqueue_many(&mut self, items: &[T]) -> Result<usize, QueueError> {
        let mut batch = self.write_batch()?;
        let n = batch.len().min(items.len());
        for (i, item) in items[..n].iter().enumerate() {
            batch.set(i, *item);
        }
        batch.commit(n);
        Ok(n)
    }

    /// Reserves every free slot for writing in place; nothing is visible to the consumer
    /// until [`WriteBatch::commit`].
    pub fn write_batch(&mut self) -> Result<WriteBatch<'_, 'a, T>, QueueError> {
        let len = self.look()? as usize;
        Ok(WriteBatch {
            producer: self,
            len,
        })
    }

    /// True if the consumer asked to be woken; the caller must then notify it. Clears the
    /// request so a burst of batches costs one notification.
    pub fn take_signal_request(&self) -> bool {
        // Dekker handshake with Consumer::arm_signal: our tail store must be visible
        // before we read the flag (see the crate docs).
        fence(Ordering::SeqCst);
        let flag = self.region.word(SIGNALLED);
        if flag.load(Ordering::Relaxed) == 0 {
            flag.store(1, Ordering::Relaxed);
            true
        } else {
            false
        }
    }

    fn write(&self, index: u32, item: T) {
        self.region.write_slot(index, self.capacity, item);
    }

    /// Makes every staged item visible to the consumer.
    pub fn publish(&self) {
        self.region.word(TAIL).store(self.tail, Ordering::Release);
    }
}

/// Free slots reserved for writing in place.
pub struct WriteBatch<'p, 'a, T: Descriptor> {
    producer: &'p mut Producer<'a, T>,
    len: usize,
}

impl<T: Descriptor> WriteBatch<'_, '_, T> {
    /// Slots reserved.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Writes slot `i` of the batch.
    ///
    /// # Panics
    /// If `i >= len()`: that slot may still be the consumer's.
    pub fn set(&mut self, i: usize, item: T) {
        assert!(i < self.len, "slot {i} outside a batch of {}", self.len);
        let index = self.producer.tail.wrapping_add(i as u32);
        self.producer.write(index, item);
    }

    /// Publishes the first `n` slots (which the caller has written).
    pub fn commit(self, n: usize) {
        let n = n.min(self.len);
        self.producer.tail = self.producer.tail.wrapping_add(n as u32);
        self.producer.publish();
    }
}
