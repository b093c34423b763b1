//! The engine's requests in flight, between clients' queues and the engine's interrupt.

use pd_idl::cipher::{CipherError, CipherErrorRaw, Path, Request, Response};
use pd_idl::wire::Caller;
use shm_queue::{Consumer, Producer, QueueError};
use zerocopy::FromZeros;

use segment_list::{MAX_JOINED, Overlaps, Parts, join};

use crate::{
    BLOCK, CipherEngine, ClientData, Finished, Job, MAX_IN_FLIGHT, Sessions, Step, validate,
    validate_into,
};

/// Most client requests one job carries (see [`CipherEngine::coalesces`]): a job has at
/// most `MAX_JOINED` segments, so that many requests of one segment each.
pub const MAX_COALESCED: usize = MAX_JOINED;

/// A job the engine is working on.
struct InFlight<'a> {
    caller: Caller,
    parts: Parts,
    job: Job<'a>,
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
    /// Its next request is for a session with a request in flight (a session's requests
    /// run in order: each starts from the IV the one before leaves).
    SessionBusy,
    /// The pass answered its `limit`: more may wait, for the next pass.
    Limit,
}

/// One engine, its sessions and the requests in flight (at most the engine's
/// [`depth`](CipherEngine::depth), one per session).
pub struct Service<'a, E> {
    pub engine: E,
    pub sessions: Sessions,
    in_flight: [Option<InFlight<'a>>; MAX_IN_FLIGHT],
}

impl<'a, E: CipherEngine> Service<'a, E> {
    pub fn new(engine: E, sessions: Sessions) -> Self {
        Service {
            engine,
            sessions,
            in_flight: [const { None }; MAX_IN_FLIGHT],
        }
    }

    /// How many requests are in flight.
    pub fn in_flight(&self) -> usize {
        self.in_flight.iter().flatten().count()
    }

    /// Whether a request is in flight (the engine must stay powered).
    pub fn busy(&self) -> bool {
        self.in_flight() > 0
    }

    /// Whether the engine can take no more requests until one finishes.
    pub fn full(&self) -> bool {
        self.free_slot().is_none()
    }

    fn depth(&self) -> usize {
        self.engine.depth().clamp(1, MAX_IN_FLIGHT)
    }

    fn free_slot(&self) -> Option<usize> {
        self.in_flight[..self.depth()]
            .iter()
            .position(Option::is_none)
    }

    fn owed_to(&self, caller: Caller) -> u32 {
        let n = self.in_flight.iter().flatten();
        n.filter(|f| f.caller == caller && f.answer)
            .map(|f| f.parts.len() as u32)
            .sum()
    }

    fn session_in_flight(&self, caller: Caller, session: u32) -> bool {
        let mut all = self.in_flight.iter().flatten();
        all.any(|f| f.caller == caller && f.job.session_id == session)
    }

    /// Takes `caller`'s requests one by one, answering each the engine finishes at once
    /// (or refuses), until [`Stopped`] says why not more. Returns how many were answered
    /// now.
    pub fn serve(
        &mut self,
        caller: Caller,
        requests: &mut Consumer<'_, Request>,
        responses: &mut Producer<'_, Response>,
        data: ClientData<'a>,
    ) -> Result<(usize, Stopped), QueueError> {
        self.serve_observed(caller, requests, responses, data, usize::MAX, |_| {})
    }

    /// [`serve`](Self::serve), stopping once `limit` requests are answered (a driver
    /// hands its client each batch of answers as it finishes, so that the client refills
    /// while the next batch runs), and showing `observe` each answer given now.
    pub fn serve_observed(
        &mut self,
        caller: Caller,
        requests: &mut Consumer<'_, Request>,
        responses: &mut Producer<'_, Response>,
        data: ClientData<'a>,
        limit: usize,
        mut observe: impl FnMut(&Response),
    ) -> Result<(usize, Stopped), QueueError> {
        // Answers are staged and published once, when the pass ends (the client hears
        // of them after the pass anyway): a write of the shared tail per answer pulled
        // its cache line across cores per request.
        let result = self.pass(caller, requests, responses, data, limit, &mut observe);
        responses.publish();
        result
    }

    fn pass(
        &mut self,
        caller: Caller,
        requests: &mut Consumer<'_, Request>,
        responses: &mut Producer<'_, Response>,
        data: ClientData<'a>,
        limit: usize,
        observe: &mut impl FnMut(&Response),
    ) -> Result<(usize, Stopped), QueueError> {
        let mut answered = 0;
        // The copies requests are read into, kept for the pass (see `read_into`).
        let (mut request, mut next) = (Request::new_zeroed(), Request::new_zeroed());
        let mut job = Job::empty(data);
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
            // A copy: the client may rewrite the slot, but this copy is what runs.
            batch.read_into(0, &mut request);
            if self.session_in_flight(caller, request.session) {
                return Ok((answered, Stopped::SessionBusy));
            }
            let Some(slot) = self.free_slot() else {
                return Ok((answered, Stopped::EngineFull));
            };
            if let Err(e) = self.fill(&mut job, caller, &request, slot) {
                batch.release(1);
                let r = response(request.id, Err(e), 0);
                observe(&r);
                responses.stage(r)?;
                answered += 1;
                room -= 1;
                continue;
            }
            let mut parts = Parts::one(request.id, job.segs.total());
            if self.engine.coalesces(&job) {
                // Followers of the same session join the job while their answers have
                // room too: all that is queued now, not only what the last look saw
                // (followers published since would otherwise wait for a job of their own).
                if batch.len() < MAX_COALESCED {
                    batch.refresh()?;
                }
                let most = (room as usize).min(MAX_COALESCED).min(batch.len());
                for i in 1..most {
                    batch.read_into(i, &mut next);
                    match joined(&job, &request, &next, data) {
                        Some((alone, j))
                            if self.engine.coalesces(&alone)
                                && parts.push(next.id, alone.segs.total()) =>
                        {
                            job = j;
                        }
                        _ => break,
                    }
                }
            }
            batch.release(parts.len());
            room -= parts.len() as u32;
            let mut broken = None;
            self.start(caller, &parts, &job, |r| {
                observe(&r);
                answered += 1;
                // Room was checked above and only this PD produces: cannot be full, but
                // the client may have corrupted the indices.
                if let Err(e) = responses.stage(r) {
                    broken.get_or_insert(e);
                }
            });
            if let Some(e) = broken {
                return Err(e);
            }
        }
    }

    /// Starts one request (the engine must have room: see [`full`](Self::full)); its
    /// response if it is already answered.
    pub fn begin(
        &mut self,
        caller: Caller,
        request: &Request,
        data: ClientData<'a>,
    ) -> Option<Response> {
        let Some(slot) = self.free_slot() else {
            return Some(response(request.id, Err(CipherError::EngineFault), 0));
        };
        let mut job = Job::empty(data);
        if let Err(e) = self.fill(&mut job, caller, request, slot) {
            return Some(response(request.id, Err(e), 0));
        }
        let mut answer = None;
        let parts = Parts::one(request.id, job.segs.total());
        self.start(caller, &parts, &job, |r| answer = Some(r));
        answer
    }

    /// Starts `job` (carrying `parts`) on the engine: in flight, or answered at once
    /// through `answer`.
    fn start(
        &mut self,
        caller: Caller,
        parts: &Parts,
        job: &Job<'a>,
        answer: impl FnMut(Response),
    ) {
        // By reference: the engine usually answers at once, and a moved job (some 200
        // bytes, written field by field) cost store-forwarding stalls per request.
        match self.engine.start(job) {
            Step::Done(result) => self.finish(caller, parts, job, result, answer),
            Step::Pending => {
                self.in_flight[job.slot] = Some(InFlight {
                    caller,
                    parts: *parts,
                    job: *job,
                    answer: true,
                });
            }
        }
    }

    /// `request` as a job, written into `job` (over its data region) in place; `job`
    /// means nothing if refused.
    #[inline]
    fn fill(
        &mut self,
        job: &mut Job<'a>,
        caller: Caller,
        request: &Request,
        slot: usize,
    ) -> Result<(), CipherError> {
        job.op = request.op.get().map_err(|_| CipherError::BadRequest)?;
        let session = self.sessions.get_mut(caller, request.session)?;
        validate_into(&mut job.segs, request, job.data.len(), session.mode)?;
        job.session = *session;
        job.session_id = request.session;
        job.slot = slot;
        job.requests = 1;
        Ok(())
    }

    /// The engine's interrupt: advances every request in flight and gives `answer` the
    /// client and answer of each that finished (none for a client cut off meanwhile).
    /// Returns how many finished, answered or not: each freed a place in the engine.
    pub fn interrupt(&mut self, mut answer: impl FnMut(Caller, Response)) -> usize {
        self.engine.interrupted();
        let mut finished = 0;
        for slot in 0..MAX_IN_FLIGHT {
            let Some(f) = &self.in_flight[slot] else {
                continue;
            };
            let Step::Done(result) = self.engine.interrupt(&f.job) else {
                continue;
            };
            if let Some(f) = self.in_flight[slot].take() {
                let to = f.answer.then_some(f.caller);
                self.finish(f.caller, &f.parts, &f.job, result, |r| {
                    if let Some(caller) = to {
                        answer(caller, r);
                    }
                });
                finished += 1;
            }
        }
        finished
    }

    /// The watchdog: every request in flight is cancelled and answered `EngineFault`
    /// (given to `answer` as [`interrupt`](Self::interrupt) gives them). Returns how
    /// many were in flight.
    ///
    /// Unfinished: no driver PD calls this yet. It needs a timer the drivers do not
    /// have (the seL4 image has no timer driver); until then an engine whose interrupt
    /// never comes holds its requests until the driver is restarted (ARCHITECTURE's
    /// known gaps). The tests call it as a timer would.
    pub fn expire(&mut self, mut answer: impl FnMut(Caller, Response)) -> usize {
        let mut expired = 0;
        for slot in 0..MAX_IN_FLIGHT {
            let Some(f) = self.in_flight[slot].take() else {
                continue;
            };
            self.engine.cancel(&f.job);
            let to = f.answer.then_some(f.caller);
            self.finish(
                f.caller,
                &f.parts,
                &f.job,
                Err(CipherError::EngineFault),
                |r| {
                    if let Some(caller) = to {
                        answer(caller, r);
                    }
                },
            );
            expired += 1;
        }
        expired
    }

    /// Keeps the IV for the session's next request, if the session is still open, and
    /// gives `answer` the response of each request the job carried (a failure fails
    /// them all: one transfer touched them all).
    fn finish(
        &mut self,
        caller: Caller,
        parts: &Parts,
        job: &Job<'_>,
        result: Result<Finished, CipherError>,
        mut answer: impl FnMut(Response),
    ) {
        if let (Ok(done), Ok(s)) = (&result, self.sessions.get_mut(caller, job.session_id)) {
            s.iv = done.next_iv();
        }
        for &(id, bytes) in parts.as_slice() {
            answer(response(id, result, bytes));
        }
    }

    /// A client cut off (broken queues) or gone: its sessions close, and its requests in
    /// flight finish unanswered. Returns the sessions closed.
    pub fn cut_off(&mut self, caller: Caller) -> usize {
        for f in self.in_flight.iter_mut().flatten() {
            if f.caller == caller {
                f.answer = false;
            }
        }
        let engine = &mut self.engine;
        self.sessions.close_all_with(caller, |s| engine.closed(&s))
    }

    /// Closes one of `caller`'s sessions (its `close_session` call).
    pub fn close(&mut self, caller: Caller, session: u32) -> Result<(), CipherError> {
        let s = self.sessions.close(caller, session)?;
        self.engine.closed(&s);
        Ok(())
    }
}

/// `next` as a job of its own, and `job` (which began with `first`) extended by it, if
/// `next` may run in the same transfer: the same session and direction, valid on its
/// own, every request before it
/// whole blocks (so a CTR counter runs on across the join as the session's IV would),
/// and the segments of both still one request's worth and disjoint (a later request
/// that rewrote an earlier one's bytes must see its output, which one streamed
/// transfer would not give it).
fn joined<'a>(
    job: &Job<'a>,
    first: &Request,
    next: &Request,
    data: ClientData<'a>,
) -> Option<(Job<'a>, Job<'a>)> {
    if next.session != first.session || next.op != first.op {
        return None;
    }
    if !job.segs.total().is_multiple_of(BLOCK) {
        return None;
    }
    let more = validate(next, data.len(), job.session.mode).ok()?;
    let segs = join(&job.segs, &more, data.len(), Overlaps::Refused).ok()?;
    let alone = Job {
        segs: more,
        requests: 1,
        ..*job
    };
    let both = Job {
        segs,
        requests: job.requests + 1,
        ..*job
    };
    Some((alone, both))
}

fn response(id: u32, result: Result<Finished, CipherError>, bytes: u32) -> Response {
    let mut r = Response {
        id,
        status: CipherErrorRaw::OK,
        path: Path::Adaptive.into(),
        reserved: 0,
        bytes_done: 0,
    };
    match result {
        Ok(done) => {
            r.path = done.path.into();
            r.bytes_done = bytes;
        }
        Err(e) => r.status = e.into(),
    }
    r
}
