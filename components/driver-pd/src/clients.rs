//! A driver's clients, as the `.system` file wires them, and the per-client serving
//! loop: fair between clients (round robin, resuming after the client served last),
//! stopping at a full response queue (backpressure) or a busy engine, and cutting off a
//! client that breaks its queues.

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
}

/// One serving pass over a client's queue.
pub type ServeFn<'f, Req, Resp> = dyn FnMut(
        Caller,
        &mut Consumer<'static, Req>,
        &mut Producer<'static, Resp>,
        MemoryRegion,
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
            for i in 0..MAX_CLIENTS {
                let k = (self.next + i) % MAX_CLIENTS;
                let Some(client) = self.slots[k].as_mut().filter(|_| busy[k]) else {
                    continue;
                };
                match one_batch(client, serve, last) {
                    Ok(Some(more)) => busy[k] = more,
                    Ok(None) => {
                        // The engine is full: the next pass starts after this client,
                        // and nobody is served until a place frees.
                        self.next = (k + 1) % MAX_CLIENTS;
                        return cut;
                    }
                    Err(e) => {
                        cut_off(client, e);
                        cut[k] = Some(client.caller());
                        busy[k] = false;
                    }
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
) -> Result<Option<bool>, QueueError> {
    let caller = client.caller();
    let (answered, stopped) = serve(caller, &mut client.rx, &mut client.tx, client.data)?;
    if answered > 0 && client.tx.take_signal_request() {
        client.channel.notify();
    }
    match stopped {
        Stopped::EngineFull => return Ok(None),
        // Taken in the next round, no need to ask (the client may be refilling now).
        Stopped::Limit if !last => return Ok(Some(true)),
        // Served again when a job finishes (every client is, then).
        Stopped::SessionBusy => return Ok(Some(false)),
        Stopped::Limit | Stopped::ClientsMove => {}
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
