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
}

/// What a request costs beside its bytes, in bytes of engine work: the fixed work of
/// taking, checking, starting and answering it, so that a flood of short requests is
/// not free in the shares [`Service::serve_within`]'s budget keeps.
pub const REQUEST_COST: i64 = 256;

/// What `parts` cost the engine: their bytes and [`REQUEST_COST`] each.
fn cost(parts: &Parts) -> i64 {
    parts
        .as_slice()
        .iter()
        .map(|&(_, bytes)| i64::from(bytes) + REQUEST_COST)
        .sum()
}

/// One engine, its sessions and the jobs in flight (at most the engine's depth, one per
/// session).
pub struct Service<'a, I: Interface> {
    pub engine: I::Engine,
    pub sessions: Sessions<I::Session>,
    in_flight: [Option<InFlight<'a, I>>; MAX_IN_FLIGHT],
}

impl<'a, I: Interface> Service<'a, I> {
    pub fn new(engine: I::Engine, sessions: Sessions<I::Session>) -> Self {
        Service {
            engine,
            sessions,
            in_flight: [const { None }; MAX_IN_FLIGHT],
        }
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

    fn owed_to(&self, caller: Caller) -> u32 {
        let all = self.in_flight.iter().flatten();
        all.filter(|f| f.caller == caller && f.answer)
            .map(|f| f.parts.len() as u32)
            .sum()
    }

    fn session_in_flight(&self, caller: Caller, session: u32) -> bool {
        let mut all = self.in_flight.iter().flatten();
        all.any(|f| f.caller == caller && f.session == session)
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
                let mut parts = Parts::one(id, I::bytes(&job));
                if I::coalesces(&self.engine, &job) {
                    // Followers of the same session join the job while their answers have
                    // room too: all that is queued now, not only what the last look saw
                    // (followers published since would otherwise wait for a job of their own).
                    if batch.len() < MAX_COALESCED {
                        batch.refresh()?;
                    }
                    let most = (room as usize).min(MAX_COALESCED).min(batch.len());
                    for i in 1..most {
                        batch.read_into(i, &mut next);
                        let Some(bytes) = I::join(&self.engine, &mut job, &request, &next) else {
                            break;
                        };
                        // At most MAX_COALESCED parts: `most` is bounded by it.
                        parts.push(I::header(&next).0, bytes);
                    }
                }
                batch.release(parts.len());
                room -= parts.len() as u32;
                *budget = budget.saturating_sub(cost(&parts));
                if let Some(result) = self.start(caller, session, slot, &parts, &mut job, data) {
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
        let result = self.start(caller, session, slot, &parts, &mut job, data);
        I::forget(&mut job);
        answers::<I>(&parts, &result?).next()
    }

    /// Starts `job` (carrying `parts`) on the engine, in the slot it was checked for:
    /// in flight, or finished at once (its result returned; the caller answers
    /// `parts`). `job` is left empty over `data` if it goes in flight.
    fn start(
        &mut self,
        caller: Caller,
        session: u32,
        slot: usize,
        parts: &Parts,
        job: &mut I::Job<'a>,
        data: ClientData<'a>,
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
        landed.push(LandedJob {
            to: f.answer.then_some(f.caller),
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
        let engine = &mut self.engine;
        self.sessions
            .close_all_with(caller, |s| I::closed(engine, s))
    }
}
