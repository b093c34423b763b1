//! One client's queue region, shared by the client and the driver:
//!
//! ```text
//! offset 0                       request queue   (client produces, driver consumes)
//! next cache line                response queue  (driver produces, client consumes)
//! next cache line                control: epoch    (written by the driver only)
//!                                         client   (written by the client only)
//!                                         boundary (written by the driver only)
//!                                         client from (written by the client only)
//! ```
//!
//! The epoch says which incarnation of the driver serves the pair: 0 before the driver
//! first starts, then incremented by each incarnation once it has settled the queues
//! (a restarted driver discards the requests its predecessor left). The boundary, set
//! with it, is the request queue's index from which that incarnation serves: a request
//! queued before it was taken by a dead incarnation or discarded, and its client reports
//! it restarted unless it was answered; one queued at or after it (the client did not
//! know of the restart yet) is served. The client only reads both; a client scribbling
//! on them hurts only its own bookkeeping.
//!
//! The client word says which incarnation of the client uses the pair: each incarnation
//! announces itself when it attaches ([`Control::announce_client`], done by
//! `Link::new`), so a driver that finds the word moved knows the client died and came
//! back: the sessions of the dead one close and its power grant goes. A client writing
//! the word at will only makes the driver close its own sessions. The first
//! announcement (from 0) is not a return: a client may open sessions before it attaches
//! its queues (so one that dies before ever attaching is not noticed).
//!
//! With its incarnation a client announces its *from*: the request queue's index from
//! which it queues (its producer's tail at attach). Everything before it was queued by
//! a dead incarnation, and a driver that sees the word move drops it unanswered, up to
//! a queue's worth (a client writing the word at will only loses its own requests).
//!
//! Request ids carry the client's incarnation: the id on the wire is the id the client
//! chose in its low [`ID_BITS`] bits and the incarnation's low 8 bits above them
//! ([`wire_id`]). A dead incarnation's requests and answers outlive it in the queues
//! (its ids started again at 0 in its successor, which took 129-173 answers of its
//! predecessor as its own in one storm of kills); with the tag, the link drops an
//! answer of another incarnation as stale, whether it was left in the queue or written
//! before the driver saw the new incarnation. Eight
//! bits suffice: an answer of an earlier incarnation can be written only until the
//! driver sees the word move (its next event), not 255 incarnations later.

use core::sync::atomic::{AtomicU32, Ordering};

use shm_queue::{CACHE_LINE, Consumer, Descriptor, Producer, SharedRegion, region_size};

/// Bytes the region needs for a pair of queues of `capacity` slots of `Req` and `Resp`.
pub const fn bytes<Req, Resp>(capacity: u32) -> usize {
    control_at::<Req, Resp>(capacity) + CACHE_LINE
}

const fn response_at<Req>(capacity: u32) -> usize {
    region_size::<Req>(capacity).next_multiple_of(CACHE_LINE)
}

const fn control_at<Req, Resp>(capacity: u32) -> usize {
    response_at::<Req>(capacity) + region_size::<Resp>(capacity).next_multiple_of(CACHE_LINE)
}

/// Bits of a request id the client chooses; the bits above carry its incarnation.
pub const ID_BITS: u32 = 24;
/// The client's part of a wire id.
pub const ID_MASK: u32 = (1 << ID_BITS) - 1;

/// The id on the wire of request `id` (its low [`ID_BITS`] bits) of client incarnation
/// `incarnation` (its low 8 bits, above them).
pub const fn wire_id(incarnation: u32, id: u32) -> u32 {
    (incarnation << ID_BITS) | (id & ID_MASK)
}

/// Whether wire id `wire` was sent by incarnation `incarnation` (or one 256 before it).
pub const fn of_incarnation(wire: u32, incarnation: u32) -> bool {
    wire >> ID_BITS == incarnation & (u32::MAX >> ID_BITS)
}

/// The number of the driver's incarnations that have served this queue pair (0: none
/// yet): one more each time one settles the queues.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Epoch(pub u32);

/// The control line: the driver's epoch and boundary, and the client's incarnation.
#[derive(Clone, Copy)]
pub struct Control<'a> {
    epoch: &'a AtomicU32,
    client: &'a AtomicU32,
    boundary: &'a AtomicU32,
    client_from: &'a AtomicU32,
}

impl Control<'_> {
    /// Acquire: pairs with [`Control::publish`], so a client that sees the new epoch
    /// also sees every queue update the driver made before publishing it.
    pub fn epoch(&self) -> Epoch {
        Epoch(self.epoch.load(Ordering::Acquire))
    }

    /// The request queue's index from which the incarnation of the epoch read before it
    /// serves (or a later incarnation's: read after the epoch, with Acquire, it is at
    /// least that one's).
    pub fn boundary(&self) -> u32 {
        self.boundary.load(Ordering::Acquire)
    }

    /// Driver side: announces the next incarnation, which serves the request queue from
    /// index `boundary` (its consumer's head once it has settled the queue); returns it.
    pub fn publish_next(&self, boundary: u32) -> Epoch {
        self.boundary.store(boundary, Ordering::Release);
        let next = self.epoch.load(Ordering::Relaxed).wrapping_add(1).max(1);
        self.epoch.store(next, Ordering::Release);
        Epoch(next)
    }

    /// The client's incarnation as it last announced it (0: never attached).
    pub fn client(&self) -> u32 {
        self.client.load(Ordering::Acquire)
    }

    /// The request queue's index from which the client incarnation read before it
    /// queues (or a later one's: read after [`client`](Self::client), with Acquire, it
    /// is at least that one's).
    pub fn client_from(&self) -> u32 {
        self.client_from.load(Ordering::Acquire)
    }

    /// Client side: announces the next incarnation of the client, which queues from
    /// request index `from` (its producer's tail); returns it (1 for the first).
    pub fn announce_client(&self, from: u32) -> u32 {
        self.client_from.store(from, Ordering::Release);
        let next = self.client.load(Ordering::Relaxed).wrapping_add(1).max(1);
        self.client.store(next, Ordering::Release);
        next
    }
}

/// Why a region cannot hold the pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooSmall {
    pub need: usize,
    pub have: usize,
}

/// The pair's request and response queue regions and its control line, with the error
/// to report for a queue that will not attach to its region.
#[allow(clippy::type_complexity)]
fn split<'a, Req: Descriptor, Resp: Descriptor>(
    region: SharedRegion<'a>,
    capacity: u32,
) -> Result<(SharedRegion<'a>, SharedRegion<'a>, Control<'a>, TooSmall), TooSmall> {
    let need = bytes::<Req, Resp>(capacity);
    let too_small = TooSmall {
        need,
        have: region.len(),
    };
    let req = region.slice(0, region_size::<Req>(capacity));
    let resp = region.slice(response_at::<Req>(capacity), region_size::<Resp>(capacity));
    let ctl = region.slice(control_at::<Req, Resp>(capacity), CACHE_LINE);
    match (req, resp, ctl) {
        (Some(req), Some(resp), Some(ctl)) => {
            // The control slice is CACHE_LINE bytes at a CACHE_LINE-aligned offset of a
            // region shm-queue requires to be 64-byte aligned: an AtomicU32 fits there.
            let epoch = ctl.atomic_u32(0).ok_or(too_small)?;
            let client = ctl.atomic_u32(4).ok_or(too_small)?;
            let boundary = ctl.atomic_u32(8).ok_or(too_small)?;
            let client_from = ctl.atomic_u32(12).ok_or(too_small)?;
            Ok((
                req,
                resp,
                Control {
                    epoch,
                    client,
                    boundary,
                    client_from,
                },
                too_small,
            ))
        }
        _ => Err(too_small),
    }
}

/// The client's ends: produces requests, consumes responses.
#[allow(clippy::type_complexity)]
pub fn client_side<'a, Req: Descriptor, Resp: Descriptor>(
    region: SharedRegion<'a>,
    capacity: u32,
) -> Result<(Producer<'a, Req>, Consumer<'a, Resp>, Control<'a>), TooSmall> {
    let (req, resp, control, too_small) = split::<Req, Resp>(region, capacity)?;
    let tx = Producer::attach(req, capacity).map_err(|_| too_small)?;
    let rx = Consumer::attach(resp, capacity).map_err(|_| too_small)?;
    Ok((tx, rx, control))
}

/// The driver's ends: consumes requests, produces responses.
#[allow(clippy::type_complexity)]
pub fn driver_side<'a, Req: Descriptor, Resp: Descriptor>(
    region: SharedRegion<'a>,
    capacity: u32,
) -> Result<(Consumer<'a, Req>, Producer<'a, Resp>, Control<'a>), TooSmall> {
    let (req, resp, control, too_small) = split::<Req, Resp>(region, capacity)?;
    let rx = Consumer::attach(req, capacity).map_err(|_| too_small)?;
    let tx = Producer::attach(resp, capacity).map_err(|_| too_small)?;
    Ok((rx, tx, control))
}
