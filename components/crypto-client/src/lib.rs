//! A client's link to a Cipher or Digest driver PD, in the spirit of Hubris's
//! `drv/hash-api`: tiny, and shared by both ends.
//!
//! * [`pair`]: the layout of one client's queue region (request queue, response queue,
//!   and a control line holding the driver's *epoch*: which incarnation of the driver
//!   serves this queue pair). The driver maps it through [`pair::driver_side`], the
//!   client through [`pair::client_side`].
//! * [`Link`]: the client side. It tracks the id of every request it submitted and has
//!   not seen answered; when the driver's epoch moves on (the driver was restarted), the
//!   answers the old incarnation published are delivered first, then every request still
//!   in flight that was queued before the new incarnation's boundary (see [`pair`]) is
//!   reported [`Completion::Restarted`]; one queued after it is the new incarnation's,
//!   which answers it (`ServerRestarted` if its session died with the old one, also
//!   reported `Restarted`): none silently dropped, none answered twice (an answer for an
//!   id not in flight is counted as stray and dropped).
//! * Client restarts: [`Link::new`] announces the client's incarnation (see [`pair`]),
//!   tags every request's id with it (so the answers of a dead incarnation are never
//!   taken for its successor's: they are counted [`LinkStats::stale`] and dropped), and
//!   re-arms the response queue's signal and polls once before the client first waits,
//!   and its first flush notifies the driver whatever the driver's flag says: a dead
//!   incarnation may have left either flag spent (a client killed mid-stream hung for
//!   ever, its answers unread and the driver idle).
//! * [`pd`]: a client PD's end as the `.system` conventions give it (driver on channel
//!   0, regions `queues` and `data`, found by symbol); [`driver`]: its calls and link
//!   as one value.
//! * [`verdict`]: a test client's verdict, written to a region for another PD to read.
//! * Calls (`open_session`, `close_session`) go through `pd-idl`'s generated stubs over
//!   `pd_runtime::ipc::PpcTransport`; the stubs turn a driver that died during a call
//!   into `ServerRestarted` and retry idempotent ops (`close_session`) once.
//!
//! Assumes a single-threaded client (a PD) and request ids chosen by the client, unique
//! among its requests in flight. `no_std`, no heap: the in-flight table is fixed.
#![no_std]
// Only `pd` makes shared regions out of the runtime's mappings.
#![deny(unsafe_code)]

pub mod driver;
pub mod pair;
#[allow(unsafe_code)]
pub mod pd;
#[allow(unsafe_code)]
pub mod verdict;

use pd_idl::{aead, cipher, digest, mac, rng};
use shm_queue::{Consumer, Producer, QueueError};

pub use pair::{Control, Epoch};

// An id's home slot in the in-flight table is the same with or without its tag.
const _: () = assert!(((pair::ID_MASK as usize) + 1).is_multiple_of(MAX_IN_FLIGHT));

/// Requests one client may have in flight: a full request queue and a full response
/// queue (a driver takes a request only when its answer has room, so it holds none
/// beyond them).
pub const MAX_IN_FLIGHT: usize =
    (cipher::REQUEST_QUEUE_CAPACITY + cipher::RESPONSE_QUEUE_CAPACITY) as usize;
const _: () = assert!(
    (digest::REQUEST_QUEUE_CAPACITY + digest::RESPONSE_QUEUE_CAPACITY) as usize <= MAX_IN_FLIGHT
);

/// Most answers one [`Link::poll`] takes: every request in flight and a response queue
/// of stray answers (a restarted driver's predecessor's, at most a queue's worth).
pub const MAX_POLL: usize = MAX_IN_FLIGHT + cipher::RESPONSE_QUEUE_CAPACITY as usize;
const _: () = assert!(digest::RESPONSE_QUEUE_CAPACITY <= cipher::RESPONSE_QUEUE_CAPACITY);
const _: () =
    assert!((mac::REQUEST_QUEUE_CAPACITY + mac::RESPONSE_QUEUE_CAPACITY) as usize <= MAX_IN_FLIGHT);
const _: () = assert!(mac::RESPONSE_QUEUE_CAPACITY <= cipher::RESPONSE_QUEUE_CAPACITY);

/// A descriptor that carries a request id.
pub trait Tagged: shm_queue::Descriptor {
    fn id(&self) -> u32;
    /// Rewrites the id: the link puts its incarnation's tag on a request's and takes it
    /// off an answer's (see [`pair::wire_id`]).
    fn set_id(&mut self, id: u32);
    /// An answer saying its request's session died with an earlier incarnation of the
    /// driver (`ServerRestarted`): reported as [`Completion::Restarted`].
    fn restarted(&self) -> bool {
        false
    }
}

/// Every queued interface's items carry `id` and answer with its own error type, whose
/// `ServerRestarted` names a restart.
macro_rules! tagged {
    ($($idl:ident: $error:ident),*) => {$(
        impl Tagged for $idl::Request {
            fn id(&self) -> u32 {
                self.id
            }
            fn set_id(&mut self, id: u32) {
                self.id = id;
            }
        }
        impl Tagged for $idl::Response {
            fn id(&self) -> u32 {
                self.id
            }
            fn set_id(&mut self, id: u32) {
                self.id = id;
            }
            fn restarted(&self) -> bool {
                self.status.check() == Ok(Err($idl::$error::ServerRestarted))
            }
        }
    )*};
}
tagged!(cipher: CipherError, digest: DigestError, mac: MacError, aead: AeadError, rng: RngError);

/// What became of a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Completion<R> {
    /// The driver answered it.
    Answered(R),
    /// The driver was restarted before answering request `id`, or answered it
    /// `ServerRestarted` (its session died with an earlier incarnation); its sessions
    /// are gone.
    Restarted(u32),
}

/// Why a request was not submitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubmitError {
    /// The queue or the in-flight table is full: poll, then try again.
    Full,
    /// An id already in flight.
    DuplicateId,
    /// The driver broke the queue's indices.
    Corrupt(QueueError),
}

/// Counters a test or a log can read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkStats {
    pub submitted: u64,
    pub answered: u64,
    pub restarted: u64,
    /// Answers for ids not in flight (a second answer, or one after a restart report):
    /// dropped, never delivered.
    pub stray: u64,
    /// Answers to another incarnation of this client (a dead one's, left in the queue or
    /// written before the driver saw the new incarnation): dropped, never delivered.
    pub stale: u64,
    /// Driver restarts seen.
    pub restarts: u32,
    /// Polls that stopped at [`MAX_POLL`] answers (a driver answering more than was
    /// asked).
    pub overruns: u64,
}

/// The client side of one queue pair.
pub struct Link<'a, Req, Resp> {
    tx: Producer<'a, Req>,
    rx: Consumer<'a, Resp>,
    control: Control<'a>,
    /// The driver epoch this link last saw (0: driver not up yet when we attached).
    epoch: u32,
    incarnation: u32,
    /// Set at attach: the first flush or poll with requests waiting notifies the driver
    /// whatever its flag says (a dead incarnation may have taken the driver's request
    /// for a notification and died before sending it).
    fresh: bool,
    /// Ids in flight (as the client chose them, untagged), each at its home slot
    /// (`id % MAX_IN_FLIGHT`) when free, else in any free slot: sequential ids always
    /// find theirs, so a submit and an answer cost a look at one slot, not a scan. Two
    /// ids equal in their low [`pair::ID_BITS`] bits are the same id on the wire.
    in_flight: [Option<u32>; MAX_IN_FLIGHT],
    /// The request queue index each request in flight was queued at (beside its id), to
    /// judge it against a restarted driver's boundary (see [`pair`]).
    queued_at: [u32; MAX_IN_FLIGHT],
    /// Ids in flight away from their home slot (while none is, an id not at its home
    /// is not in flight).
    displaced: usize,
    count: usize,
    stats: LinkStats,
}

impl<'a, Req: Tagged, Resp: Tagged> Link<'a, Req, Resp> {
    /// The link of this client incarnation: announces it to the driver (see
    /// [`pair`]) with the request index it queues from, so that the driver closes
    /// whatever sessions an earlier incarnation left open and drops the requests it
    /// left queued. Then polls once, which re-arms the
    /// response queue's signal: an incarnation killed after the driver took its request
    /// for a notification (and sent it) but before it asked again left the flag saying
    /// "no need", so no answer of the new one would be notified. Whatever the poll finds
    /// is a dead incarnation's, dropped as stale.
    pub fn new(tx: Producer<'a, Req>, rx: Consumer<'a, Resp>, control: Control<'a>) -> Self {
        let epoch = control.epoch().0;
        let incarnation = control.announce_client(tx.tail());
        let mut link = Link {
            tx,
            rx,
            control,
            epoch,
            incarnation,
            fresh: false,
            in_flight: [None; MAX_IN_FLIGHT],
            queued_at: [0; MAX_IN_FLIGHT],
            displaced: 0,
            count: 0,
            stats: LinkStats::default(),
        };
        // A broken queue shows again at the client's first poll. Whether the driver is
        // to be told is left to the first flush, which tells it anyway.
        let _ = link.poll_at_most(MAX_POLL, |_| {});
        link.fresh = true;
        link
    }

    /// Which incarnation of the client this link belongs to (1 for the first).
    pub fn incarnation(&self) -> u32 {
        self.incarnation
    }

    pub fn stats(&self) -> LinkStats {
        self.stats
    }

    /// Requests submitted and not yet completed.
    pub fn in_flight(&self) -> usize {
        self.count
    }

    /// Queues `req`; returns whether the driver asked to be notified (the caller then
    /// notifies its channel, once per batch).
    pub fn submit(&mut self, req: Req) -> Result<bool, SubmitError> {
        self.queue(req)?;
        Ok(self.flush())
    }

    /// Puts `req` in the request queue (a driver serving sees it at once) without
    /// looking whether the driver asked to be notified: a batch of requests needs that
    /// look (a fence) only after its first request, so that a waiting driver starts on
    /// it while the rest are written, and after its last ([`flush`](Self::flush)).
    pub fn queue(&mut self, mut req: Req) -> Result<(), SubmitError> {
        let id = req.id();
        if self.find(id).is_some() {
            return Err(SubmitError::DuplicateId);
        }
        req.set_id(pair::wire_id(self.incarnation, id));
        let home = id as usize % MAX_IN_FLIGHT;
        let slot = if self.in_flight[home].is_none() {
            home
        } else {
            self.in_flight
                .iter()
                .position(Option::is_none)
                .ok_or(SubmitError::Full)?
        };
        let at = self.tx.tail();
        match self.tx.enqueue(req) {
            Ok(()) => {}
            Err(QueueError::Full) => return Err(SubmitError::Full),
            Err(e) => return Err(SubmitError::Corrupt(e)),
        }
        self.in_flight[slot] = Some(id);
        self.queued_at[slot] = at;
        self.displaced += usize::from(slot != home);
        self.count += 1;
        self.stats.submitted += 1;
        Ok(())
    }

    /// Whether the driver asked to be notified of the requests [`queue`](Self::queue)d
    /// (the caller then notifies its channel). Required after the last request of a
    /// batch: it is the client's half of the queues' handshake.
    pub fn flush(&mut self) -> bool {
        self.tx.take_signal_request() | core::mem::take(&mut self.fresh)
    }

    /// Room left in the request queue.
    pub fn free(&self) -> Result<u32, QueueError> {
        self.tx.free()
    }

    /// Delivers every answer waiting (an answer `ServerRestarted` as
    /// [`Completion::Restarted`]), then, if the driver restarted, a
    /// [`Completion::Restarted`] for each request still in flight that was queued before
    /// the new incarnation's boundary. Returns whether the
    /// driver must be notified: requests wait for it and it asked to be told (it stops
    /// at a full response queue rather than drop an answer, and pauses after a number
    /// of batches so as to answer calls).
    ///
    /// A call takes at most [`MAX_POLL`] answers: no honest driver gives more while
    /// nothing new is submitted, so a driver that keeps refilling the queue (with stray
    /// answers, say) cannot hold its client here. Such a call is counted in
    /// [`LinkStats::overruns`] and leaves the rest queued, unarmed: the client reads it
    /// at its next poll, which only that driver's next notification brings.
    pub fn poll(&mut self, f: impl FnMut(Completion<Resp>)) -> Result<bool, QueueError> {
        self.poll_at_most(MAX_POLL, f)
    }

    /// [`poll`](Self::poll) with what it delivers returned as values: at most `N`
    /// completions (a client's `N` is at least what it keeps in flight; any beyond stay
    /// queued, as an overrun), and whether the driver must be notified.
    pub fn answers<const N: usize>(&mut self) -> Result<Answers<Resp, N>, QueueError> {
        let mut list = Answers {
            list: core::array::from_fn(|_| None),
            len: 0,
            notify: false,
        };
        list.notify = self.poll_at_most(N, |c| {
            list.list[list.len] = Some(c);
            list.len += 1;
        })?;
        Ok(list)
    }

    /// [`poll`](Self::poll), taking at most `most` answers.
    fn poll_at_most(
        &mut self,
        most: usize,
        mut f: impl FnMut(Completion<Resp>),
    ) -> Result<bool, QueueError> {
        // Read the epoch (and the boundary that came with it) first: a driver publishes
        // them only after it has settled the queues, so every answer of the old
        // incarnation is in the queue by now.
        let epoch = self.control.epoch().0;
        let boundary = self.control.boundary();
        // Answers taken, not passes: an empty look that finds an answer arrived while
        // arming costs none of the budget.
        let mut taken = 0;
        let drained = loop {
            if taken == most {
                // Stopped with answers still queued: a driver answering more than was
                // asked. It is not armed for, and its restart (if any) waits until its
                // answers are read, so that they still come first.
                self.stats.overruns += 1;
                break false;
            }
            match self.rx.dequeue() {
                Ok(mut resp) => {
                    taken += 1;
                    let wire = resp.id();
                    if !pair::of_incarnation(wire, self.incarnation) {
                        self.stats.stale += 1;
                        continue;
                    }
                    let Some(id) = self.take(wire) else {
                        self.stats.stray += 1;
                        continue;
                    };
                    resp.set_id(id);
                    if resp.restarted() {
                        self.stats.restarted += 1;
                        f(Completion::Restarted(id));
                    } else {
                        self.stats.answered += 1;
                        f(Completion::Answered(resp));
                    }
                }
                Err(QueueError::Empty) => {
                    if self.rx.arm_signal()? {
                        break true;
                    }
                }
                Err(e) => return Err(e),
            }
        };
        if drained && epoch != self.epoch {
            // Epoch 0 -> 1 is the driver's first start, not a restart (0 -> 2: its
            // first incarnation came and went before we looked).
            if self.epoch != 0 || epoch != 1 {
                self.stats.restarts += 1;
            }
            // Unanswered and queued before the boundary: taken by a dead incarnation or
            // discarded. At or after it (queued before we knew of the restart): the new
            // incarnation serves it, and it stays in flight. A first start's boundary
            // is where we began, so it reports none.
            for slot in 0..MAX_IN_FLIGHT {
                let Some(id) = self.in_flight[slot] else {
                    continue;
                };
                let ahead = boundary.wrapping_sub(self.queued_at[slot]);
                if ahead != 0 && ahead <= u32::MAX / 2 {
                    self.release(slot, id);
                    self.stats.restarted += 1;
                    f(Completion::Restarted(id));
                }
            }
            self.epoch = epoch;
        }
        // While requests wait, the driver is told only if it asked: it stopped at our
        // full response queue, or paused with requests queued to answer calls (it then
        // notifies us so that we get here). A driver still serving looks at the request
        // queue again before it waits; a notification per drain would only wake it
        // for nothing.
        let waiting = self.tx.free()? < self.tx.capacity();
        Ok(waiting && (self.tx.take_signal_request() | core::mem::take(&mut self.fresh)))
    }

    /// The slot holding the id whose wire id is `id`'s (the same low
    /// [`pair::ID_BITS`] bits), if one is in flight.
    fn find(&self, id: u32) -> Option<usize> {
        let same = |s: &Option<u32>| s.is_some_and(|s| (s ^ id) & pair::ID_MASK == 0);
        let home = id as usize % MAX_IN_FLIGHT;
        if same(&self.in_flight[home]) {
            return Some(home);
        }
        if self.displaced == 0 {
            return None;
        }
        self.in_flight.iter().position(same)
    }

    /// Completes the request in flight that wire id `wire` names; its id as the client
    /// chose it.
    fn take(&mut self, wire: u32) -> Option<u32> {
        let slot = self.find(wire)?;
        let id = self.in_flight[slot]?;
        self.release(slot, id);
        Some(id)
    }

    /// Frees `slot`, which holds `id`.
    fn release(&mut self, slot: usize, id: u32) {
        self.in_flight[slot] = None;
        self.displaced -= usize::from(slot != id as usize % MAX_IN_FLIGHT);
        self.count -= 1;
    }

    /// The driver epoch this link last saw.
    pub fn epoch(&self) -> u32 {
        self.epoch
    }
}

/// What one [`Link::answers`] took, in the order the driver answered.
pub struct Answers<R, const N: usize> {
    list: [Option<Completion<R>>; N],
    len: usize,
    /// The driver must be notified (see [`Link::poll`]).
    pub notify: bool,
}

impl<R, const N: usize> IntoIterator for Answers<R, N> {
    type Item = Completion<R>;
    type IntoIter = core::iter::Flatten<core::array::IntoIter<Option<Completion<R>>, N>>;
    fn into_iter(self) -> Self::IntoIter {
        self.list.into_iter().flatten()
    }
}

/// A Cipher driver link.
pub type CipherLink<'a> = Link<'a, cipher::Request, cipher::Response>;
/// A Digest driver link.
pub type DigestLink<'a> = Link<'a, digest::Request, digest::Response>;
/// A Mac driver link.
pub type MacLink<'a> = Link<'a, mac::Request, mac::Response>;
/// An Aead driver link.
pub type AeadLink<'a> = Link<'a, aead::Request, aead::Response>;

#[cfg(test)]
mod tests;
