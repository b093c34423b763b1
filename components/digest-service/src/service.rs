//! The engine's request in flight, between clients' queues and the engine's interrupt.

use pd_idl::digest::{DigestError, DigestErrorRaw, DigestOp, Request, Response};
use pd_idl::wire::Caller;
use shm_queue::{Consumer, Producer, QueueError};
use zerocopy::FromZeros;

use crate::{
    ClientData, Digest, DigestEngine, DigestStep, Job, MAX_DIGEST, MAX_JOINED, Sessions, State,
    validate, validate_into,
};
use segment_list::{Overlaps, Parts, join};

/// Most client requests one job carries (a job has at most `MAX_JOINED` segments, so
/// that many requests of one segment each).
pub const MAX_COALESCED: usize = MAX_JOINED;

/// The job the engine is working on, with its session's context.
struct InFlight<'a, C> {
    caller: Caller,
    parts: Parts,
    session: u32,
    job: Job<'a>,
    ctx: C,
    /// False once its client was cut off: the answer has nowhere to go.
    answer: bool,
}

/// One engine, its sessions and the request in flight.
pub struct Service<'a, E: DigestEngine> {
    pub engine: E,
    pub sessions: Sessions<E::Context>,
    in_flight: Option<InFlight<'a, E::Context>>,
}

impl<'a, E: DigestEngine> Service<'a, E> {
    pub fn new(engine: E, sessions: Sessions<E::Context>) -> Self {
        Service {
            engine,
            sessions,
            in_flight: None,
        }
    }

    /// Whether a request is in flight: nothing more is taken until it finishes.
    pub fn busy(&self) -> bool {
        self.in_flight.is_some()
    }

    /// Takes `caller`'s requests one by one, answering each the engine finishes at once
    /// (or refuses), until the queue is empty, its response queue is full, or a request
    /// goes in flight. Returns how many were answered now.
    pub fn serve(
        &mut self,
        caller: Caller,
        requests: &mut Consumer<'_, Request>,
        responses: &mut Producer<'_, Response>,
        data: ClientData<'a>,
    ) -> Result<usize, QueueError> {
        self.serve_observed(caller, requests, responses, data, usize::MAX, |_| {})
    }

    /// [`serve`](Self::serve), stopping once `limit` requests are answered (see
    /// `cipher_service::Service::serve_observed`), and showing `observe` each answer
    /// given now.
    pub fn serve_observed(
        &mut self,
        caller: Caller,
        requests: &mut Consumer<'_, Request>,
        responses: &mut Producer<'_, Response>,
        data: ClientData<'a>,
        limit: usize,
        mut observe: impl FnMut(&Response),
    ) -> Result<usize, QueueError> {
        // Answers are staged and published once, when the pass ends (see
        // `cipher_service::Service::serve_observed`).
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
    ) -> Result<usize, QueueError> {
        let mut answered = 0;
        // The copies requests are read into, kept for the pass (see `read_into`).
        let (mut request, mut next) = (Request::new_zeroed(), Request::new_zeroed());
        let mut job = Job::empty(data);
        // A request is taken only when its answer has room (backpressure); read once
        // per pass, every request taken uses one.
        let mut room = responses.room(limit as u32)?;
        while !self.busy() && answered < limit {
            if room == 0 {
                break;
            }
            let mut batch = requests.read_batch()?;
            if batch.is_empty() {
                break;
            }
            // A copy: the client may rewrite the slot, but this copy is what runs.
            batch.read_into(0, &mut request);
            if let Err(e) = self.fill(&mut job, caller, &request) {
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
                // Followers of the same session join while their answers have room: all
                // that is queued now, not only what the last look saw (followers
                // published since would otherwise wait for a job of their own).
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
            self.start(caller, request.session, &parts, &job, |r| {
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
        Ok(answered)
    }

    /// Starts one request; its response if it is already answered.
    pub fn begin(
        &mut self,
        caller: Caller,
        request: &Request,
        data: ClientData<'a>,
    ) -> Option<Response> {
        let mut job = Job::empty(data);
        if let Err(e) = self.fill(&mut job, caller, request) {
            return Some(response(request.id, Err(e), 0));
        }
        let mut answer = None;
        let parts = Parts::one(request.id, job.segs.total());
        self.start(caller, request.session, &parts, &job, |r| answer = Some(r));
        answer
    }

    /// Starts `job` (carrying `parts`) of session `sid`: in flight, or answered at once
    /// through `answer`.
    fn start(
        &mut self,
        caller: Caller,
        sid: u32,
        parts: &Parts,
        job: &Job<'a>,
        answer: impl FnMut(Response),
    ) {
        // `job` found the session open just now.
        let Ok(session) = self.sessions.get_mut(caller, sid) else {
            return;
        };
        match self.engine.start(&mut session.engine, job) {
            DigestStep::Done(result) => self.finish(caller, parts, sid, job, None, result, answer),
            DigestStep::Pending => {
                let ctx = session.engine.clone();
                self.in_flight = Some(InFlight {
                    caller,
                    parts: *parts,
                    session: sid,
                    job: *job,
                    ctx,
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
    ) -> Result<(), DigestError> {
        job.op = request.op.get().map_err(|_| DigestError::BadRequest)?;
        let session = self.sessions.get_mut(caller, request.session)?;
        match session.state {
            State::Open => {}
            State::Finished => return Err(DigestError::SessionFinished),
            State::Failed => return Err(DigestError::EngineFault),
        }
        validate_into(&mut job.segs, request, job.data.len())?;
        job.algorithm = session.algorithm;
        job.path = session.path;
        job.requests = 1;
        Ok(())
    }

    /// The engine's interrupt: advances the job in flight. When it finishes, gives
    /// `answer` its client and its answers, one per request the job carried (none if
    /// the client was cut off meanwhile). Returns how many jobs finished (0 or 1),
    /// answered or not: either way the engine is free for any client's requests.
    pub fn interrupt(&mut self, answer: impl FnMut(Caller, Response)) -> usize {
        let Some(flight) = self.in_flight.as_mut() else {
            return 0;
        };
        let DigestStep::Done(result) = self.engine.interrupt(&mut flight.ctx, &flight.job) else {
            return 0;
        };
        let Some(f) = self.in_flight.take() else {
            return 0;
        };
        self.land(f, true, result, answer);
        1
    }

    /// The watchdog: the job in flight is cancelled and each of its requests answered
    /// `EngineFault` (its session failed), given to `answer` as
    /// [`interrupt`](Self::interrupt) gives them. Returns how many jobs were in flight.
    ///
    /// Unfinished: no driver PD calls this yet. It needs a timer the drivers do not
    /// have (the seL4 image has no timer driver); until then an engine whose interrupt
    /// never comes holds its requests until the driver is restarted (ARCHITECTURE's
    /// known gaps). The tests call it as a timer would.
    pub fn expire(&mut self, answer: impl FnMut(Caller, Response)) -> usize {
        let Some(f) = self.in_flight.take() else {
            return 0;
        };
        self.engine.cancel(&f.job);
        self.land(f, false, Err(DigestError::EngineFault), answer);
        1
    }

    /// Finishes the job that was in flight with `result` (keeping its context for the
    /// session if `keep_ctx`), its answers to its client unless that client was cut off.
    fn land(
        &mut self,
        f: InFlight<'a, E::Context>,
        keep_ctx: bool,
        result: Result<Option<Digest>, DigestError>,
        mut answer: impl FnMut(Caller, Response),
    ) {
        let to = f.answer.then_some(f.caller);
        let ctx = keep_ctx.then_some(f.ctx);
        self.finish(f.caller, &f.parts, f.session, &f.job, ctx, result, |r| {
            if let Some(caller) = to {
                answer(caller, r);
            }
        });
    }

    /// Moves the session on (its state, its byte count, the context of a request that
    /// was in flight), if it is still open; gives `answer` each request's response (the
    /// digest to the final, if the job ends with one; a failure fails them all).
    #[allow(clippy::too_many_arguments)]
    fn finish(
        &mut self,
        caller: Caller,
        parts: &Parts,
        session: u32,
        job: &Job<'_>,
        ctx: Option<E::Context>,
        result: Result<Option<Digest>, DigestError>,
        mut answer: impl FnMut(Response),
    ) {
        if let Ok((slot, s)) = self.sessions.slot_mut(caller, session) {
            s.state = match (&result, job.op) {
                (Err(_), _) => State::Failed,
                (Ok(_), _) => State::Open,
            };
            if result.is_ok() {
                s.bytes += u64::from(job.segs.total());
                if let Some(ctx) = ctx {
                    s.engine = ctx;
                }
            }
            if result.is_ok() && job.op == DigestOp::Final {
                // The digest is out: the session starts a new message, with the engine's
                // fresh state for it.
                s.bytes = 0;
                if self
                    .engine
                    .restart(slot, &mut s.engine, s.algorithm, s.path)
                    .is_err()
                {
                    s.state = State::Failed;
                }
            }
        }
        let (last, rest) = parts
            .as_slice()
            .split_last()
            .expect("a job carries a request");
        for &(id, bytes) in rest {
            // Updates joined ahead of the last request: no digest of their own.
            answer(response(id, result.map(|_| None), bytes));
        }
        answer(response(last.0, result, last.1));
    }

    /// A client cut off (broken queues) or gone: its sessions close, and a request of
    /// its in flight finishes unanswered. Returns the sessions closed.
    pub fn cut_off(&mut self, caller: Caller) -> usize {
        if let Some(f) = self.in_flight.as_mut().filter(|f| f.caller == caller) {
            f.answer = false;
        }
        self.sessions.close_all(caller)
    }
}

/// `next` as a job of its own, and `job` (which began with `first`) extended by it, if
/// `next` may run in the same job: the same session, `job` not yet final, `next` an
/// update or the final, valid on its own, and the segments of both still one request's
/// worth (a hash only reads, so they may overlap).
fn joined<'a>(
    job: &Job<'a>,
    first: &Request,
    next: &Request,
    data: ClientData<'a>,
) -> Option<(Job<'a>, Job<'a>)> {
    let op = next.op.get().ok()?;
    if next.session != first.session || job.op == DigestOp::Final {
        return None;
    }
    let more = validate(next, data.len()).ok()?;
    let segs = join(&job.segs, &more, data.len(), Overlaps::Allowed).ok()?;
    let alone = Job {
        op,
        segs: more,
        requests: 1,
        ..*job
    };
    let both = Job {
        op,
        segs,
        requests: job.requests + 1,
        ..*job
    };
    Some((alone, both))
}

fn response(id: u32, result: Result<Option<Digest>, DigestError>, bytes: u32) -> Response {
    let mut r = Response {
        id,
        status: DigestErrorRaw::OK,
        digest_len: 0,
        reserved: [0; 5],
        bytes_done: 0,
        digest: [0; MAX_DIGEST],
    };
    match result {
        Ok(digest) => {
            r.bytes_done = bytes;
            if let Some(d) = digest {
                r.digest_len = d.as_bytes().len() as u8;
                r.digest = *d.padded();
            }
        }
        Err(e) => r.status = e.into(),
    }
    r
}
