//! The serving pass, the jobs in flight, and what a client leaves behind.

use pd_idl::wire::Caller;
use pd_trace::Trace;
use segment_list::{MAX_JOINED, Parts};
use shm_queue::{Consumer, Producer, QueueError};
use zerocopy::FromZeros;

use crate::landed::answers;
use crate::{
    ClientData, Interface, Landed, LandedJob, MAX_IN_FLIGHT, Refusal, Sessions, Step, record,
};

/// Most client requests one job carries: a job has at most `MAX_JOINED` segments, so
/// that many requests of one segment each.
pub const MAX_COALESCED: usize = MAX_JOINED;

/// A job the engine is working on.
struct InFlight<'a, I: Interface> {
    caller: Caller,
    session: u32,
    parts: Parts,
    job: I::Job<'a>,
    /// False once its client was cut off: the answers have nowhere to go.
    answer: bool,
    /// A piece of a parked request: `Some(last)`, whether it is the request's last.
    piece: Option<bool>,
}

/// A request served in pieces ([`Interface::split`]) because it is larger than its
/// client's share of the engine: the driver's own copy of it (a client rewriting its
/// slot changes nothing) and how far it got. Its answer is owed from when it was taken.
pub struct Parked<I: Interface> {
    caller: Caller,
    request: I::Request,
    id: u32,
    session: u32,
    /// Bytes served so far, of `total`.
    done: u32,
    total: u32,
    /// A piece of it is in the engine.
    in_engine: bool,
}

/// Where a service keeps its parked requests ([`Interface::Parking`]): room for `N` in
/// an interface that splits ([`Park`]), none in one that never does ([`NoParking`]), so
/// only the first pays for the copies in its driver's state (which `driver_pd` holds to
/// `MAX_STATE`: the Mac driver was at it). A client has at most one parked; with no
/// place free, a large request is served whole.
pub trait Parking<I: Interface> {
    const NEW: Self;
    fn places(&self) -> &[Option<Parked<I>>];
    fn places_mut(&mut self) -> &mut [Option<Parked<I>>];
}

/// No parked requests: the interface never splits.
pub struct NoParking;

impl<I: Interface> Parking<I> for NoParking {
    const NEW: Self = NoParking;
    fn places(&self) -> &[Option<Parked<I>>] {
        &[]
    }
    fn places_mut(&mut self) -> &mut [Option<Parked<I>>] {
        &mut []
    }
}

/// Room for `N` parked requests.
pub struct Park<I: Interface, const N: usize>([Option<Parked<I>>; N]);

impl<I: Interface, const N: usize> Parking<I> for Park<I, N> {
    const NEW: Self = Park([const { None }; N]);
    fn places(&self) -> &[Option<Parked<I>>] {
        &self.0
    }
    fn places_mut(&mut self) -> &mut [Option<Parked<I>>] {
        &mut self.0
    }
}

/// The smallest piece a parked request is served in: a piece is what its client's turn
/// grants, down to this (a turn's grant may be what a debt left of a quantum). 512 B and
/// 1 KiB floors kept a 16-byte client beside a 16 KiB PIO flooder at 39-43% and 39% of its
/// alone throughput on STM32 CRYP, 256 B at 42-56% (`speed --flood`).
pub const MIN_PIECE: u32 = 256;

/// The smallest request parked: two of the drivers' quanta (`driver_pd::clients::QUANTUM`,
/// 1 KiB), so that a light client's own requests of a quantum are never cut (parked at 512
/// B, its 1 KiB requests went in pieces too, and it kept 35-50% instead of ~60%).
pub const PARK_FROM: u32 = 2048;

/// How a parked request's next piece went.
enum Resumed<R> {
    /// It was answered (its last piece, or a refusal), with this: the pass goes on.
    Answered(R),
    /// A piece started, or ended at once with more to come: the pass goes on.
    Going,
    /// Nothing started, for this reason.
    Stop(Stopped),
}

/// Why a serving pass stopped taking a client's requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// Its queue is empty, or its answers have no room: it is the client's move.
    ClientsMove,
    /// Every place in the engine is taken: nobody's requests are taken until one ends.
    EngineFull,
    /// Its next request is for a session with a job in flight (a session's requests run
    /// in order: each starts from the state the one before leaves).
    SessionBusy,
    /// The pass answered its `limit`: more may wait, for the next pass.
    Limit,
    /// The pass spent its engine-time budget ([`Service::serve_within`]): more may
    /// wait, for the client's next turn.
    Budget,
    /// As `Budget`, with a request of the client's parked ([`Interface::split`]): its
    /// next piece waits for the client's next turn even if its queue is empty, and the
    /// engine must not be left idle while it does (nothing else may wake the driver:
    /// its client waits for the answer).
    Parked,
}

/// What a job costs beside its bytes, in bytes of engine work: the fixed work of
/// taking, checking, starting and answering it (a context load), so that a flood of
/// short requests is not free in the shares [`Service::serve_within`]'s budget keeps.
pub const REQUEST_COST: i64 = 256;

/// What a job carrying `parts` costs the engine: their bytes and [`REQUEST_COST`] once,
/// the fixed work of one job (one context load, one start): requests joined into one
/// transfer pay it once, as the engine does. Charged per request, sixteen joined 16-byte
/// requests cost a light client 4,352 bytes of its share for some 512 bytes' worth of
/// engine time.
fn cost(parts: &Parts) -> i64 {
    let bytes: i64 = parts.as_slice().iter().map(|&(_, b)| i64::from(b)).sum();
    bytes + REQUEST_COST
}

/// One engine, its sessions and the jobs in flight (at most the engine's depth, one per
/// session).
pub struct Service<'a, I: Interface> {
    pub engine: I::Engine,
    pub sessions: Sessions<I::Session>,
    in_flight: [Option<InFlight<'a, I>>; MAX_IN_FLIGHT],
    parked: I::Parking,
    /// How many of `parked`'s places hold a request: while none does (always, for a
    /// driver whose engine never splits) the serving loop's looks at them cost a compare.
    parked_count: usize,
}

impl<'a, I: Interface> Service<'a, I> {
    pub fn new(engine: I::Engine, sessions: Sessions<I::Session>) -> Self {
        Service {
            engine,
            sessions,
            in_flight: [const { None }; MAX_IN_FLIGHT],
            parked: I::Parking::NEW,
            parked_count: 0,
        }
    }

    fn parked_index(&self, caller: Caller) -> Option<usize> {
        if self.parked_count == 0 {
            return None;
        }
        self.parked
            .places()
            .iter()
            .position(|p| p.as_ref().is_some_and(|p| p.caller == caller))
    }

    /// How many jobs are in flight.
    pub fn in_flight(&self) -> usize {
        self.in_flight.iter().flatten().count()
    }

    /// Whether a job is in flight (the engine must stay powered).
    pub fn busy(&self) -> bool {
        self.in_flight.iter().any(Option::is_some)
    }

    /// Whether the engine can take no more jobs until one finishes.
    pub fn full(&self) -> bool {
        self.free_slot().is_none()
    }

    fn free_slot(&self) -> Option<usize> {
        let depth = I::depth(&self.engine).clamp(1, MAX_IN_FLIGHT);
        self.in_flight[..depth].iter().position(Option::is_none)
    }

    /// Answers `caller` is owed: the requests of its jobs in flight and its parked one
    /// (whose pieces owe none of their own).
    fn owed_to(&self, caller: Caller) -> u32 {
        let all = self.in_flight.iter().flatten();
        let flying: u32 = all
            .filter(|f| f.caller == caller && f.answer && f.piece.is_none())
            .map(|f| f.parts.len() as u32)
            .sum();
        flying + u32::from(self.parked_index(caller).is_some())
    }

    /// A session's requests run in order: one with a job in flight or a request parked
    /// takes no other until that one is answered.
    fn session_in_flight(&self, caller: Caller, session: u32) -> bool {
        let mut all = self.in_flight.iter().flatten();
        let parked = self.parked.places().iter().flatten();
        all.any(|f| f.caller == caller && f.session == session)
            || self.parked_count > 0
                && parked
                    .into_iter()
                    .any(|p| p.caller == caller && p.session == session)
    }

    /// [`serve_batch`](Self::serve_batch) with no limit and no trace.
    pub fn serve(
        &mut self,
        caller: Caller,
        requests: &mut Consumer<'_, I::Request>,
        responses: &mut Producer<'_, I::Response>,
        data: ClientData<'a>,
    ) -> Result<(usize, Stopped), QueueError> {
        let untraced = Trace::new(None);
        let mut unbounded = i64::MAX;
        self.serve_within(
            caller,
            requests,
            responses,
            data,
            usize::MAX,
            &mut unbounded,
            &untraced,
        )
    }

    /// Takes `caller`'s requests one by one, answering each the engine finishes at once
    /// (or refuses), until [`Stopped`] says why not more, or `limit` are answered (a PD
    /// hands its client each batch of answers as it finishes, so that the client
    /// refills while the next runs), or `budget` is spent: a job starts while it is
    /// above zero, and its cost (bytes, and [`REQUEST_COST`] per request) is taken from
    /// it, so it may end below zero, a debt the caller's next grants pay first (deficit
    /// round robin by engine work). Each answer given now goes in `trace`. Returns how
    /// many were answered now.
    #[allow(clippy::too_many_arguments)]
    pub fn serve_within(
        &mut self,
        caller: Caller,
        requests: &mut Consumer<'_, I::Request>,
        responses: &mut Producer<'_, I::Response>,
        data: ClientData<'a>,
        limit: usize,
        budget: &mut i64,
        trace: &Trace<'_>,
    ) -> Result<(usize, Stopped), QueueError> {
        // Answers are staged and published once, when the pass ends (the client hears
        // of them after the pass anyway): a write of the shared tail per answer pulled
        // its cache line across cores per request. The pass is a closure so that every
        // way out of it, a broken queue's included, publishes what was answered.
        let mut job = I::empty_job(data);
        let mut pass = || -> Result<(usize, Stopped), QueueError> {
            let mut answered = 0;
            // The copies requests are read into, kept for the pass (see `read_into`).
            let (mut request, mut next) = (I::Request::new_zeroed(), I::Request::new_zeroed());
            // The pass's one list of the requests a job carries (see `Parts::reset`).
            let mut parts = Parts::one(0, 0);
            // A request is taken only when its answer has room beside the answers its
            // client is already owed: backpressure, never a dropped answer. Read once per
            // pass; every request taken uses one.
            let owed = self.owed_to(caller);
            let mut room = responses
                .room((limit as u32).saturating_add(owed))?
                .saturating_sub(owed);
            loop {
                if answered >= limit {
                    return Ok((answered, Stopped::Limit));
                }
                if self.full() {
                    return Ok((answered, Stopped::EngineFull));
                }
                // A parked request goes on first: its answer's room was taken with it,
                // and its session's later requests wait for it.
                if let Some(k) = self.parked_index(caller) {
                    match self.resume(k, budget, &mut job, data) {
                        Resumed::Answered(r) => {
                            record::<I>(trace, caller, &r);
                            responses.stage(r)?;
                            answered += 1;
                            continue;
                        }
                        Resumed::Going => continue,
                        Resumed::Stop(why) => return Ok((answered, why)),
                    }
                }
                if room == 0 {
                    return Ok((answered, Stopped::ClientsMove));
                }
                let mut batch = requests.read_batch()?;
                if batch.is_empty() {
                    return Ok((answered, Stopped::ClientsMove));
                }
                // After the look at the queue: a budget spent as the queue empties is the
                // client's move (its signal armed), not a turn to come back for.
                if *budget <= 0 {
                    return Ok((answered, Stopped::Budget));
                }
                // A copy: the client may rewrite the slot, but this copy is what runs.
                batch.read_into(0, &mut request);
                let (id, session) = I::header(&request);
                if self.session_in_flight(caller, session) {
                    return Ok((answered, Stopped::SessionBusy));
                }
                let Some(slot) = self.free_slot() else {
                    return Ok((answered, Stopped::EngineFull));
                };
                let checked = I::check(
                    &self.engine,
                    &mut self.sessions,
                    caller,
                    &request,
                    &mut job,
                    slot,
                );
                if let Err(e) = checked {
                    batch.release(1);
                    let r = I::answer(id, 0, &Err(e), true);
                    record::<I>(trace, caller, &r);
                    responses.stage(r)?;
                    answered += 1;
                    room -= 1;
                    *budget = budget.saturating_sub(REQUEST_COST);
                    continue;
                }
                let bytes = I::bytes(&job);
                // Larger than the client's share (its budget is finite only while others
                // are served too): parked, and served a piece a turn from the next look.
                if i64::from(bytes) > *budget
                    && bytes >= PARK_FROM
                    && I::splits(&self.engine, &job)
                    && let Some(free) = self.parked.places().iter().position(Option::is_none)
                {
                    batch.release(1);
                    room -= 1;
                    self.parked_count += 1;
                    self.parked.places_mut()[free] = Some(Parked {
                        caller,
                        request,
                        id,
                        session,
                        done: 0,
                        total: bytes,
                        in_engine: false,
                    });
                    continue;
                }
                parts.reset(id, bytes);
                if I::coalesces(&self.engine, &job) {
                    // Followers of the same session join the job while their answers have
                    // room too: all that is queued now, not only what the last look saw
                    // (followers published since would otherwise wait for a job of their own).
                    if batch.len() < MAX_COALESCED {
                        batch.refresh()?;
                    }
                    let most = (room as usize).min(MAX_COALESCED).min(batch.len());
                    // A joined job is never cut, and a lone client's budget is unbounded:
                    // joined without bound, 32 queued 4 KiB PIO requests made one job that
                    // held a client arriving after it off for 0.9 s (debug build). Where
                    // the engine would serve a large request in pieces, joining stops at
                    // PARK_FROM: it pays the fixed cost once for short requests, which is
                    // what it is for, and no job grows past one request and PARK_FROM.
                    let bounded = I::splits(&self.engine, &job);
                    let mut joined = bytes;
                    for i in 1..most {
                        if bounded && joined >= PARK_FROM {
                            break;
                        }
                        batch.read_into(i, &mut next);
                        let Some(bytes) = I::join(&self.engine, &mut job, &request, &next) else {
                            break;
                        };
                        // At most MAX_COALESCED parts: `most` is bounded by it.
                        parts.push(I::header(&next).0, bytes);
                        joined = joined.saturating_add(bytes);
                    }
                }
                batch.release(parts.len());
                room -= parts.len() as u32;
                *budget = budget.saturating_sub(cost(&parts));
                if let Some(result) =
                    self.start(caller, session, slot, &parts, &mut job, data, None)
                {
                    for r in answers::<I>(&parts, &result) {
                        record::<I>(trace, caller, &r);
                        // Room was checked above and only this PD produces: cannot be full,
                        // but the client may have corrupted the indices.
                        responses.stage(r)?;
                        answered += 1;
                    }
                }
            }
        };
        let result = pass();
        responses.publish();
        // The pass's job copied its session's secrets (a key) to run them.
        I::forget(&mut job);
        result
    }

    /// Frees parked place `k`.
    fn unpark(&mut self, k: usize) {
        if self.parked.places_mut()[k].take().is_some() {
            self.parked_count -= 1;
        }
    }

    /// The next piece of parked request `k`: as much of it as `budget` grants (at least
    /// [`MIN_PIECE`]; the rest whole when less than that would be left), checked again
    /// from the driver's copy (its session may have closed meanwhile) and started.
    fn resume(
        &mut self,
        k: usize,
        budget: &mut i64,
        job: &mut I::Job<'a>,
        data: ClientData<'a>,
    ) -> Resumed<I::Response> {
        let Some(p) = &self.parked.places()[k] else {
            return Resumed::Stop(Stopped::ClientsMove);
        };
        if p.in_engine {
            return Resumed::Stop(Stopped::SessionBusy);
        }
        if *budget <= 0 {
            return Resumed::Stop(Stopped::Parked);
        }
        let Some(slot) = self.free_slot() else {
            return Resumed::Stop(Stopped::EngineFull);
        };
        let (caller, session, id, done, total) = (p.caller, p.session, p.id, p.done, p.total);
        let request = p.request;
        let checked = I::check(
            &self.engine,
            &mut self.sessions,
            caller,
            &request,
            job,
            slot,
        );
        if let Err(e) = checked {
            self.unpark(k);
            return Resumed::Answered(I::answer(id, 0, &Err(e), true));
        }
        let grant = u32::try_from(*budget).unwrap_or(u32::MAX).max(MIN_PIECE);
        let most = if total - done < grant.saturating_add(MIN_PIECE) {
            total - done
        } else {
            grant
        };
        let bytes = I::split(job, done, most);
        let last = done + bytes >= total;
        *budget = budget.saturating_sub(cost(&Parts::one(id, bytes)));
        // The last piece answers the whole request.
        let parts = Parts::one(id, if last { total } else { bytes });
        let result = self.start(caller, session, slot, &parts, job, data, Some(last));
        match result {
            Some(result) if last || result.is_err() => {
                self.unpark(k);
                let r = answers::<I>(&parts, &result).next();
                r.map_or(Resumed::Going, Resumed::Answered)
            }
            finished => {
                if let Some(p) = &mut self.parked.places_mut()[k] {
                    // Done at once with more to come, or in the engine now.
                    match finished {
                        Some(_) => p.done += bytes,
                        None => p.in_engine = true,
                    }
                }
                Resumed::Going
            }
        }
    }

    /// Starts one request (the engine must have room: see [`full`](Self::full)); its
    /// answer if it is answered at once.
    pub fn begin(
        &mut self,
        caller: Caller,
        request: &I::Request,
        data: ClientData<'a>,
    ) -> Option<I::Response> {
        let (id, session) = I::header(request);
        let refused = |e| Some(I::answer(id, 0, &Err(e), true));
        let Some(slot) = self.free_slot() else {
            return refused(I::refuse(Refusal::EngineFault));
        };
        let mut job = I::empty_job(data);
        let checked = I::check(
            &self.engine,
            &mut self.sessions,
            caller,
            request,
            &mut job,
            slot,
        );
        if let Err(e) = checked {
            return refused(e);
        }
        let parts = Parts::one(id, I::bytes(&job));
        let result = self.start(caller, session, slot, &parts, &mut job, data, None);
        I::forget(&mut job);
        answers::<I>(&parts, &result?).next()
    }

    /// Starts `job` (carrying `parts`) on the engine, in the slot it was checked for:
    /// in flight, or finished at once (its result returned; the caller answers
    /// `parts`). `job` is left empty over `data` if it goes in flight, a piece of a parked
    /// request if `piece` says so (whether it is the last).
    #[allow(clippy::too_many_arguments)]
    fn start(
        &mut self,
        caller: Caller,
        session: u32,
        slot: usize,
        parts: &Parts,
        job: &mut I::Job<'a>,
        data: ClientData<'a>,
        piece: Option<bool>,
    ) -> Option<Result<I::Done, I::Error>> {
        // By reference: the engine usually answers at once, and a moved job (some 200
        // bytes, written field by field) cost store-forwarding stalls per request; so
        // would the request list, copied into a value per request.
        match I::start(&mut self.engine, &mut self.sessions, caller, job) {
            Step::Done(result) => {
                I::finish(&mut self.engine, &mut self.sessions, caller, job, &result);
                Some(result)
            }
            Step::Pending => {
                self.in_flight[slot] = Some(InFlight {
                    caller,
                    session,
                    parts: *parts,
                    job: core::mem::replace(job, I::empty_job(data)),
                    answer: true,
                    piece,
                });
                None
            }
        }
    }

    /// The engine's interrupt: advances every job in flight; what finished, with its
    /// answers (none for a client cut off meanwhile).
    pub fn interrupt(&mut self) -> Landed<I> {
        I::interrupted(&mut self.engine);
        let mut landed = Landed::default();
        for slot in 0..MAX_IN_FLIGHT {
            let Some(f) = &mut self.in_flight[slot] else {
                continue;
            };
            if let Step::Done(result) = I::interrupt(&mut self.engine, &mut f.job) {
                self.land(slot, result, &mut landed);
            }
        }
        landed
    }

    /// The watchdog: every job in flight is cancelled and answered `EngineFault`,
    /// returned as [`interrupt`](Self::interrupt) returns them.
    ///
    /// Unfinished: no driver PD calls this yet. It needs a timer the drivers do not
    /// have (the seL4 image has no timer driver); until then an engine whose interrupt
    /// never comes holds its requests until the driver is restarted (ARCHITECTURE's
    /// known gaps). The tests call it as a timer would.
    pub fn expire(&mut self) -> Landed<I> {
        let fault = I::refuse(Refusal::EngineFault);
        let mut landed = Landed::default();
        for slot in 0..MAX_IN_FLIGHT {
            if let Some(f) = &self.in_flight[slot] {
                I::cancel(&mut self.engine, &f.job);
                self.land(slot, Err(fault), &mut landed);
            }
        }
        landed
    }

    /// Ends the job in flight in `slot` with `result`: its session moves on, its answers
    /// go into `landed`.
    fn land(&mut self, slot: usize, result: Result<I::Done, I::Error>, landed: &mut Landed<I>) {
        // Finished where it lies, and its secrets wiped there before the slot is freed:
        // moved out first, it would leave its bytes in the slot.
        let Some(f) = &mut self.in_flight[slot] else {
            return;
        };
        I::finish(
            &mut self.engine,
            &mut self.sessions,
            f.caller,
            &mut f.job,
            &result,
        );
        let mut to = f.answer.then_some(f.caller);
        if let Some(last) = f.piece {
            let (id, bytes) = f.parts.as_slice()[0];
            let k = self.parked.places().iter().position(|p| {
                p.as_ref()
                    .is_some_and(|p| p.caller == f.caller && p.id == id && p.in_engine)
            });
            match k {
                // A piece with more to come owes no answer; it still lands (a place in
                // the engine freed: every client is served again).
                Some(k) if !last && result.is_ok() => {
                    if let Some(p) = &mut self.parked.places_mut()[k] {
                        p.done += bytes;
                        p.in_engine = false;
                    }
                    to = None;
                }
                Some(k) => {
                    // As `unpark`, by field: `f` holds the in-flight slot.
                    self.parked.places_mut()[k] = None;
                    self.parked_count -= 1;
                }
                // Its client was cut off meanwhile.
                None => to = None,
            }
        }
        landed.push(LandedJob {
            to,
            parts: f.parts,
            result,
        });
        I::forget(&mut f.job);
        self.in_flight[slot] = None;
    }

    /// Opens a session of `caller` (its `open_session` call).
    pub fn open(&mut self, caller: Caller, args: I::Open) -> Result<u32, I::Error> {
        let engine = &mut self.engine;
        let too_many = I::refuse(Refusal::TooManySessions);
        self.sessions
            .open(caller, too_many, |slot| I::open(engine, caller, slot, args))
    }

    /// Closes one of `caller`'s sessions (its `close_session` call).
    pub fn close(&mut self, caller: Caller, session: u32) -> Result<(), I::Error> {
        let engine = &mut self.engine;
        self.sessions
            .close_with(caller, session, |s| I::closed(engine, s))
            .map_err(I::refuse)
    }

    /// A client cut off (broken queues) or gone: its sessions close, and its jobs in
    /// flight finish unanswered. Returns the sessions closed.
    pub fn cut_off(&mut self, caller: Caller) -> usize {
        for f in self.in_flight.iter_mut().flatten() {
            if f.caller == caller {
                f.answer = false;
            }
        }
        while let Some(k) = self.parked_index(caller) {
            self.unpark(k);
        }
        let engine = &mut self.engine;
        self.sessions
            .close_all_with(caller, |s| I::closed(engine, s))
    }
}
