//! A driver's clients, as the `.system` file wires them, and the per-client serving
//! loop: fair between clients by engine work (deficit round robin: each backlogged
//! client's turn grants it [`QUANTUM`] bytes of work, a job it starts costs its bytes
//! and `queued_service::REQUEST_COST`, and a client in debt waits for its grants to pay
//! it off; resuming after the client served last; a request larger than a grant goes in
//! pieces where the service can cut it, `Stopped::Parked`), stopping at a full response queue
//! (backpressure) or a busy engine, and cutting off a client that breaks its queues.

use crypto_client::pair::{self, Control};
use pd_idl::wire::Caller;
use pd_runtime::{Channel, ChannelSet, MemoryRegion, debug_println, pd_name};
use queued_service::Stopped;
use shm_queue::{Consumer, Descriptor, Producer, QueueError, SharedRegion};

/// Clients one driver serves.
pub const MAX_CLIENTS: usize = 4;

/// Client `k`'s regions: the maps with `setvar_vaddr="queues<k>"` and `"data<k>"`
/// (symbols the Microkit tool patches; on seL4 each also needs `setvar_size="<name>_size"`
/// and, for DMA, a `<name>_paddr` region_paddr setvar).
fn client_regions() -> [(Option<MemoryRegion>, Option<MemoryRegion>); MAX_CLIENTS] {
    use pd_runtime::maybe_memory_region as region;
    [
        (region!(queues0), region!(data0)),
        (region!(queues1), region!(data1)),
        (region!(queues2), region!(data2)),
        (region!(queues3), region!(data3)),
    ]
}

/// Rounds of one batch per client before going back to the event loop (so calls are
/// answered while a client floods): each round serves every client once. With
/// [`BATCH`], at most 512 requests per client between looks at calls, the bound of 8
/// rounds when a batch ran until the queue (64) was empty. Each pause with requests
/// queued costs a round trip through the client (see `serve`): 8 rounds of 16 cost
/// 16 KiB requests 4-5% of their throughput on this machine.
const ROUNDS: usize = 32;

/// Most requests one batch answers before the client is notified of them. Half a
/// queue: a client keeping the queue full refills one half while the driver serves the
/// other, so both work at once. Unbounded (a batch ran until the queue was empty),
/// the client heard nothing until the driver had nothing left, and the two took turns:
/// at 16 B through the CPU driver each spent a third of its time waiting for the other.
pub const BATCH: usize = 16;

/// Bytes of engine work a backlogged client's turn grants (deficit round robin). Small,
/// so that between two jobs of a client sending 16 KiB requests one sending 16-byte
/// requests starts some 60 of its own: by request count (the earlier round robin) it
/// started one, and kept 1% of its throughput alone. A client's unspent grant is at
/// most one quantum (nothing is banked while it waits for its own requests).
pub const QUANTUM: i64 = 1024;

/// One client: its queues, its data region, and whether it was cut off.
pub struct Client<Req: 'static, Resp: 'static> {
    pub channel: Channel,
    rx: Consumer<'static, Req>,
    tx: Producer<'static, Resp>,
    pub data: MemoryRegion,
    pub cut_off: Option<QueueError>,
    control: Control<'static>,
    /// The client incarnation whose sessions this driver holds.
    incarnation: u32,
}

impl<Req, Resp> Client<Req, Resp> {
    pub fn caller(&self) -> Caller {
        Caller(u32::from(self.channel.index()))
    }
}

/// Every client of this PD.
pub struct Clients<Req: 'static, Resp: 'static> {
    slots: [Option<Client<Req, Resp>>; MAX_CLIENTS],
    /// This driver's incarnation: its starts (`pd_runtime::starts`), not the epochs
    /// its clients' control lines hold, which a client can write: one that set its
    /// epoch so that the next incarnation's 12 bits wrapped to an earlier one's made a
    /// restarted driver hand out its predecessor's session ids again.
    incarnation: u32,
    /// The client the next pass starts with (round robin across passes, so a client
    /// whose request keeps the engine busy does not always go first).
    next: usize,
    /// Each client's share of the engine's work.
    shares: Shares,
}

/// Deficit round robin over the clients: each one's grant of engine work left, in
/// bytes (below zero, its debt), and whose turn an engine that filled up interrupted.
#[derive(Debug, Default)]
pub struct Shares {
    deficit: [i64; MAX_CLIENTS],
    /// A turn the engine cut short (it takes a job at a time): it goes on at the next
    /// pass, on the grant it had, so a client of short jobs spends its quantum as one
    /// of long jobs does, not one job per grant.
    unfinished: Option<usize>,
}

impl Shares {
    /// When every backlogged client is in debt past one grant, grants them all as many
    /// quanta as the least indebted needs to be served (the rounds in which nobody
    /// could start a job, in one step: a 16 KiB job's debt is 16 rounds).
    pub fn skip_empty_rounds(&mut self, busy: &[bool; MAX_CLIENTS]) {
        let best = (0..MAX_CLIENTS)
            .filter(|&k| busy[k])
            .map(|k| self.deficit[k])
            .max();
        let Some(best) = best.filter(|&d| d + QUANTUM <= 0) else {
            return;
        };
        let rounds = (-(best + QUANTUM)) / QUANTUM + 1;
        for k in (0..MAX_CLIENTS).filter(|&k| busy[k]) {
            self.deficit[k] += rounds * QUANTUM;
        }
    }

    /// Client `k`'s turn: the budget it may spend, or `None` while it is in debt.
    /// Alone, a client is held back by nothing (fairness is between clients); its debt
    /// counts again when another comes.
    pub fn turn(&mut self, k: usize, alone: bool) -> Option<i64> {
        if alone {
            self.unfinished = None;
            return Some(i64::MAX);
        }
        let d = &mut self.deficit[k];
        if self.unfinished == Some(k) {
            self.unfinished = None;
        } else {
            // Another's interrupted turn stays its own, for when it comes round.
            *d = (*d + QUANTUM).min(QUANTUM);
        }
        (*d > 0).then_some(*d)
    }

    /// After client `k`'s turn: what its budget has `left`, and whether it has more to
    /// take. A turn that ended with nothing left to take keeps no credit.
    pub fn spent(&mut self, k: usize, alone: bool, left: i64, more: bool) {
        if !alone {
            self.deficit[k] = if more { left } else { left.min(0) };
        }
    }

    /// Client `k`'s turn was cut short by a full engine: whether it goes on at the next
    /// pass (it has grant left), or the next client's turn comes.
    pub fn interrupted(&mut self, k: usize, alone: bool) -> bool {
        let goes_on = !alone && self.deficit[k] > 0;
        self.unfinished = goes_on.then_some(k);
        goes_on
    }
}

/// One serving pass over a client's queue.
pub type ServeFn<'f, Req, Resp> = dyn FnMut(
        Caller,
        &mut Consumer<'static, Req>,
        &mut Producer<'static, Resp>,
        MemoryRegion,
        &mut i64,
    ) -> Result<(usize, Stopped), QueueError>
    + 'f;

impl<Req: Descriptor, Resp: Descriptor> Clients<Req, Resp> {
    /// Finds the clients the `.system` file maps into this PD and takes over their
    /// queue pairs for this incarnation (see the crate docs on restart). `writable_data`:
    /// whether the engine writes client data (a cipher works in place).
    pub fn from_system(capacity: u32, writable_data: bool) -> Self {
        let mut slots = [const { None }; MAX_CLIENTS];
        for (k, (slot, regions)) in slots.iter_mut().zip(client_regions()).enumerate() {
            let (Some(q), Some(data)) = regions else {
                continue;
            };
            if !q.writable || (writable_data && !data.writable) {
                debug_println!(
                    "{}: client {k}: regions mapped read-only; not served",
                    pd_name()
                );
                continue;
            }
            // SAFETY: the runtime maps the region once, read-write (checked), for the
            // life of the PD; nothing here makes Rust references into it: shm-queue
            // accesses it atomically and volatilely only.
            let region = unsafe { SharedRegion::from_raw(q.vaddr, q.size) };
            let Ok((mut rx, tx, control)) = pair::driver_side::<Req, Resp>(region, capacity) else {
                debug_println!("{}: client {k}: queue region too small", pd_name());
                continue;
            };
            let channel = Channel::new(k as u8);
            let mut cut_off = None;
            // A restarted incarnation drops what the dead one left queued: it belongs to
            // sessions that died with it, and the client reports those requests
            // ServerRestarted when it sees the new epoch. Either way, ask to be woken
            // before announcing ourselves: a predecessor killed between batches may have
            // left the flag saying it needs no wake-up, and then the client's next
            // requests would wait forever.
            let restarted = control.epoch().0 != 0;
            let mut left = 0u32;
            loop {
                if restarted && left < capacity {
                    match discard(&mut rx, capacity - left) {
                        Ok(n) => left += n,
                        Err(e) => {
                            cut_off = Some(e);
                            break;
                        }
                    }
                }
                match rx.arm_signal() {
                    // Armed and empty; or (first start only) requests queued before we
                    // came up, served on the first pass (see `pending`).
                    Ok(true) => break,
                    // A client refilling as fast as we discard: what the predecessor
                    // left is at most a queue's worth, so stop there; the rest is past
                    // the boundary, served by this incarnation (a request on a session
                    // of the old one is answered ServerRestarted).
                    Ok(false) if !restarted || left >= capacity => break,
                    Ok(false) => {}
                    Err(e) => {
                        cut_off = Some(e);
                        break;
                    }
                }
            }
            if restarted {
                debug_println!(
                    "{}: restarted: client {k}: {left} queued request(s) of the previous incarnation discarded",
                    pd_name()
                );
            }
            let epoch = control.publish_next(rx.head());
            if epoch.0 > 1 {
                channel.notify();
            }
            *slot = Some(Client {
                channel,
                rx,
                tx,
                data,
                cut_off,
                control,
                incarnation: control.client(),
            });
        }
        Clients {
            slots,
            incarnation: pd_runtime::starts(),
            next: 0,
            shares: Shares::default(),
        }
    }

    /// Whether `caller` came back as a new incarnation since it was last seen (its
    /// queue pair's client word moved): the old one's sessions must close. Seen once.
    /// What the dead incarnation left queued is dropped here, unanswered: the requests
    /// before the index the new one queues from (`pair::Control::client_from`), at most
    /// a queue's worth. Served, their answers would go to the new incarnation, which
    /// drops them as stale anyway (their ids carry the dead one's tag), but a cipher's
    /// would change data in place that the new one may be reusing. Returns how many (a
    /// queue found broken meanwhile cuts the client off).
    pub fn came_back(&mut self, caller: Caller) -> Option<u32> {
        let c = self
            .slots
            .get_mut(caller.0 as usize)
            .and_then(Option::as_mut)?;
        let now = c.control.client();
        let was = core::mem::replace(&mut c.incarnation, now);
        // From 0 is the first announcement (a client may call before it attaches its
        // queues), not a return: nothing can be queued before it.
        if now == was || was == 0 {
            return None;
        }
        let stale = c.control.client_from().wrapping_sub(c.rx.head());
        // Past a queue's worth: the client wrote the word at will; nothing is dropped.
        let bound = if stale <= c.rx.capacity() { stale } else { 0 };
        Some(discard(&mut c.rx, bound).unwrap_or_else(|e| {
            cut_off(c, e);
            0
        }))
    }

    pub fn get(&self, caller: Caller) -> Option<&Client<Req, Resp>> {
        self.slots
            .get(caller.0 as usize)
            .and_then(Option::as_ref)
            .filter(|c| c.cut_off.is_none())
    }

    /// This driver's incarnation (1 at first start): seeds the session ids, so none
    /// names a session of a predecessor that a client may still hold.
    pub fn incarnation(&self) -> u32 {
        self.incarnation
    }

    pub fn count(&self) -> usize {
        self.slots.iter().flatten().count()
    }

    /// Clients with requests already waiting (queued before this PD came up): the PD
    /// serves them at once, since no notification for them will come.
    pub fn pending(&self) -> ChannelSet {
        let mut set = 0u64;
        for c in self.slots.iter().flatten() {
            if c.cut_off.is_none() && c.rx.is_empty().is_ok_and(|empty| !empty) {
                set |= 1 << c.channel.index();
            }
        }
        ChannelSet(set)
    }

    /// Every client's channel (after an engine finishes, each may have requests that
    /// waited for it).
    pub fn all(&self) -> ChannelSet {
        let mut set = 0u64;
        for c in self.slots.iter().flatten() {
            set |= 1 << c.channel.index();
        }
        ChannelSet(set)
    }

    /// Delivers `response` to `caller` (a request that finished in flight; room was
    /// checked when it was taken). A client whose queue broke meanwhile is cut off:
    /// returns it, so its sessions are closed.
    pub fn answer(&mut self, caller: Caller, response: Resp) -> Option<Caller> {
        let client = self
            .slots
            .get_mut(caller.0 as usize)
            .and_then(Option::as_mut)
            .filter(|c| c.cut_off.is_none())?;
        match client.tx.enqueue(response) {
            Ok(()) => {
                if client.tx.take_signal_request() {
                    client.channel.notify();
                }
                None
            }
            Err(e) => {
                cut_off(client, e);
                Some(caller)
            }
        }
    }

    /// Serves every notified client, a batch per client per round, until none has work
    /// it can take, the engine is busy, or [`ROUNDS`] pass. Requests left behind a busy
    /// engine wait in their queues: the PD serves again when the engine finishes.
    /// Returns the callers cut off by this pass (their sessions must be closed).
    pub fn serve(
        &mut self,
        notified: ChannelSet,
        serve: &mut ServeFn<'_, Req, Resp>,
    ) -> [Option<Caller>; MAX_CLIENTS] {
        let mut cut = [None; MAX_CLIENTS];
        let mut busy = [false; MAX_CLIENTS];
        // Whose turn last ended with a request parked (a piece left to serve).
        let mut parked = [false; MAX_CLIENTS];
        for (k, slot) in self.slots.iter().enumerate() {
            busy[k] = slot
                .as_ref()
                .is_some_and(|c| c.cut_off.is_none() && notified.contains(c.channel));
        }
        for round in 0..ROUNDS {
            if !busy.iter().any(|b| *b) {
                break;
            }
            let last = round + 1 == ROUNDS;
            // A client with requests queued is served whether or not it notified (one
            // that refilled since its turn, or whose notification this pass would make
            // wait, is seen now: in round 0 too, or a flooder whose notification woke
            // the PD would run alone and uncharged ahead of it); one still reading its
            // answers will refill soon, so it still counts against another's share.
            let mut active = 0;
            for (k, slot) in self.slots.iter().enumerate() {
                let Some(c) = slot.as_ref().filter(|c| c.cut_off.is_none()) else {
                    continue;
                };
                if !busy[k] {
                    busy[k] = c.rx.is_empty().is_ok_and(|empty| !empty);
                }
                let unread = c.tx.free().is_ok_and(|free| free < c.tx.capacity());
                active += usize::from(busy[k] || unread);
            }
            self.shares.skip_empty_rounds(&busy);
            let alone = active <= 1;
            for i in 0..MAX_CLIENTS {
                let k = (self.next + i) % MAX_CLIENTS;
                let Some(client) = self.slots[k].as_mut().filter(|_| busy[k]) else {
                    continue;
                };
                let Some(mut budget) = self.shares.turn(k, alone) else {
                    // In debt: its grants pay it off first. Held back in the last round,
                    // it is asked to notify (below): the driver must be asking, or its
                    // link sees no reason to, and nothing wakes this PD for it again (a
                    // two-client run hung so).
                    if last && let Err(e) = client.rx.arm_signal() {
                        cut_off(client, e);
                        cut[k] = Some(client.caller());
                        busy[k] = false;
                    }
                    continue;
                };
                let served = one_batch(client, serve, last, &mut budget, &mut parked[k]);
                match served {
                    Ok(Some(more)) => {
                        busy[k] = more;
                        self.shares.spent(k, alone, budget, more);
                    }
                    Ok(None) => {
                        // The engine is full: the next pass starts after this client,
                        // and nobody is served until a place frees.
                        self.shares.spent(k, alone, budget, true);
                        self.next = if self.shares.interrupted(k, alone) {
                            k
                        } else {
                            (k + 1) % MAX_CLIENTS
                        };
                        return cut;
                    }
                    Err(e) => {
                        self.shares.spent(k, alone, 0, false);
                        cut_off(client, e);
                        cut[k] = Some(client.caller());
                        busy[k] = false;
                    }
                }
            }
        }
        // A parked request's client waits for its answer and may have nothing queued:
        // no notification of its would bring this PD back. Its next piece starts now,
        // whatever its debt (the engine is free, or the pass would have ended at a full
        // one), and the piece's end serves everyone again.
        for k in 0..MAX_CLIENTS {
            let Some(client) = self.slots[k].as_mut().filter(|_| parked[k]) else {
                continue;
            };
            let mut grant = QUANTUM;
            let mut again = false;
            match one_batch(client, serve, true, &mut grant, &mut again) {
                Ok(None) => break,
                Ok(Some(more)) => busy[k] = more,
                Err(e) => {
                    cut_off(client, e);
                    cut[k] = Some(client.caller());
                    busy[k] = false;
                }
            }
        }
        // Paused with requests queued (asked to be notified in the last round): no event
        // of ours brings this PD back, so each such client is told to notify it (its
        // link does so when it sees requests waiting and the driver asking).
        for (k, slot) in self.slots.iter().enumerate() {
            if let Some(client) = slot.as_ref().filter(|_| busy[k]) {
                client.channel.notify();
            }
        }
        cut
    }
}

/// Where DMA finds a client's data region: its `paddr` setvar, none if it has none
/// (the runtime reads a missing one as 0: such a region takes the CPU path, never DMA
/// at physical 0).
pub fn dma_address(data: &MemoryRegion) -> Option<u64> {
    (data.paddr != 0).then_some(data.paddr)
}

/// Drops up to `bound` requests from `rx` (a restarted driver's predecessor left them,
/// or a client's dead incarnation); how many. Bounded: a client may refill the queue as
/// fast as it is drained.
pub fn discard<Req: Descriptor>(rx: &mut Consumer<'_, Req>, bound: u32) -> Result<u32, QueueError> {
    let mut n = 0;
    while n < bound {
        match rx.dequeue() {
            Ok(_) => n += 1,
            Err(QueueError::Empty) => break,
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

fn cut_off<Req, Resp>(client: &mut Client<Req, Resp>, e: QueueError) {
    debug_println!(
        "{}: client {} cut off: {e} (its queues are broken; other clients are served on)",
        pd_name(),
        client.channel.index()
    );
    client.cut_off = Some(e);
}

/// Serves one batch; returns whether more work waits that the next round can take, or
/// `None` if a request went in flight on the engine. After the `last` round, requests
/// left queued wait for the client's next notification (asked for here).
fn one_batch<Req: Descriptor, Resp: Descriptor>(
    client: &mut Client<Req, Resp>,
    serve: &mut ServeFn<'_, Req, Resp>,
    last: bool,
    budget: &mut i64,
    parked: &mut bool,
) -> Result<Option<bool>, QueueError> {
    let caller = client.caller();
    let (answered, stopped) = serve(caller, &mut client.rx, &mut client.tx, client.data, budget)?;
    if answered > 0 && client.tx.take_signal_request() {
        client.channel.notify();
    }
    *parked = stopped == Stopped::Parked;
    match stopped {
        Stopped::EngineFull => return Ok(None),
        // A piece to serve, whatever the queue holds (and after the last round, see
        // `serve`).
        Stopped::Parked => return Ok(Some(true)),
        // Taken in the next round, no need to ask (the client may be refilling now).
        Stopped::Limit | Stopped::Budget if !last => return Ok(Some(true)),
        // Served again when a job finishes (every client is, then).
        Stopped::SessionBusy => return Ok(Some(false)),
        Stopped::Limit | Stopped::Budget | Stopped::ClientsMove => {}
    }
    if client.tx.free()? == 0 {
        // Backpressure: nothing more is taken until the client makes room (its link
        // notifies us when it drains answers while requests wait).
        let _ = client.rx.arm_signal()?;
        return Ok(Some(false));
    }
    // Ask to be notified, then re-check (the shm-queue handshake): if requests arrived
    // meanwhile, serve them in the next round.
    Ok(Some(!client.rx.arm_signal()?))
}

/// Sessions open per client, to report when sessions of several clients interleave on
/// the one engine (the claim the two-client tests check).
#[derive(Debug, Default)]
pub struct SessionCounts {
    open: [u32; MAX_CLIENTS],
    peak: usize,
}

impl SessionCounts {
    /// Counts a session of `caller`; the number of clients with sessions open, if that
    /// is a new peak.
    pub fn opened(&mut self, caller: Caller) -> Option<usize> {
        if let Some(n) = self.open.get_mut(caller.0 as usize) {
            *n += 1;
        }
        let clients = self.open.iter().filter(|n| **n > 0).count();
        if clients > self.peak {
            self.peak = clients;
            debug_println!(
                "{}: sessions of {clients} client(s) open at once",
                pd_name()
            );
            return Some(clients);
        }
        None
    }

    pub fn closed(&mut self, caller: Caller, n: usize) {
        if let Some(c) = self.open.get_mut(caller.0 as usize) {
            *c = c.saturating_sub(n as u32);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two clients always backlogged, a flooder of 16 KiB requests and a victim of
    /// 16-byte ones, served as `Clients::serve` serves them: an engine that takes one
    /// job at a time (a pass ends when it is full, the next starts at the job's end) or
    /// one that finishes each job at once (a pass serves up to `ROUNDS` rounds). The
    /// engine work each got, and the most victim jobs between two of the flooder's.
    fn shares(one_at_a_time: bool, passes: usize) -> ([i64; 2], usize, usize) {
        let cost = [
            16 * 1024 + queued_service::REQUEST_COST,
            16 + queued_service::REQUEST_COST,
        ];
        let mut s = Shares::default();
        let mut busy = [false; MAX_CLIENTS];
        busy[..2].fill(true);
        let (mut work, mut next) = ([0i64; 2], 0usize);
        let (mut run, mut fewest, mut most) = (0usize, usize::MAX, 0usize);
        let mut flooder_jobs = 0;
        'passes: for _ in 0..passes {
            for _round in 0..ROUNDS {
                s.skip_empty_rounds(&busy);
                for i in 0..2 {
                    let k = (next + i) % 2;
                    let Some(mut budget) = s.turn(k, false) else {
                        continue;
                    };
                    let mut answered = 0;
                    while budget > 0 && answered < BATCH {
                        budget -= cost[k];
                        work[k] += cost[k];
                        answered += 1;
                        if k == 0 {
                            flooder_jobs += 1;
                            if flooder_jobs > 1 {
                                fewest = fewest.min(run);
                                most = most.max(run);
                            }
                            run = 0;
                        } else {
                            run += 1;
                        }
                        if one_at_a_time {
                            s.spent(k, false, budget, true);
                            next = if s.interrupted(k, false) {
                                k
                            } else {
                                (k + 1) % 2
                            };
                            continue 'passes;
                        }
                    }
                    s.spent(k, false, budget, true);
                }
            }
        }
        (work, fewest, most)
    }

    #[test]
    fn backlogged_clients_share_the_engines_work_not_its_jobs() {
        for one_at_a_time in [true, false] {
            let (work, fewest, most) = shares(one_at_a_time, 20_000);
            let victim = work[1] as f64 / (work[0] + work[1]) as f64;
            // By job (the earlier round robin) the victim got one job per flooder job:
            // 1.6% of the work. Each gets half now, within a job of either.
            assert!(
                (0.45..=0.55).contains(&victim),
                "{one_at_a_time}: {victim:.3} {work:?}"
            );
            // Between two 16 KiB jobs some 60 of 16 bytes (16,640 / 272), never fewer
            // than a round's grant less one.
            assert!(
                fewest >= 55 && most <= 70,
                "{one_at_a_time}: {fewest}..{most}"
            );
        }
    }

    #[test]
    fn a_debt_is_paid_in_one_step_when_nobody_can_be_served() {
        let mut s = Shares::default();
        let mut busy = [false; MAX_CLIENTS];
        busy[0] = true;
        busy[1] = true;
        s.deficit = [-40_000, -20_000, 0, 0];
        s.skip_empty_rounds(&busy);
        // The least indebted is served at its next turn; the other keeps its distance.
        assert!(
            s.deficit[1] + QUANTUM > 0 && s.deficit[1] <= 0,
            "{:?}",
            s.deficit
        );
        assert_eq!(s.deficit[0] - s.deficit[1], -20_000);
        assert!(s.turn(1, false).is_some() && s.turn(0, false).is_none());
        // Alone, a client is never held back, and its debt waits for company.
        assert_eq!(s.turn(0, true), Some(i64::MAX));
    }
}
