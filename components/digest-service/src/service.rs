//! The engine's request in flight, between clients' queues and the engine's interrupt.

use pd_idl::digest::{DigestError, DigestErrorRaw, DigestOp, Request, Response};
use pd_idl::wire::Caller;
use shm_queue::{Consumer, Producer, QueueError};

use crate::validate;
use crate::{ClientData, Digest, DigestEngine, DigestStep, Job, MAX_DIGEST, Sessions, State};

/// The request the engine is working on, with its session's context.
struct InFlight<'a, C> {
    caller: Caller,
    id: u32,
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
        self.serve_observed(caller, requests, responses, data, |_| {})
    }

    /// [`serve`](Self::serve), showing `observe` each answer given now.
    pub fn serve_observed(
        &mut self,
        caller: Caller,
        requests: &mut Consumer<'_, Request>,
        responses: &mut Producer<'_, Response>,
        data: ClientData<'a>,
        mut observe: impl FnMut(&Response),
    ) -> Result<usize, QueueError> {
        let mut answered = 0;
        while !self.busy() && responses.free()? > 0 {
            let request = match requests.dequeue() {
                Ok(r) => r,
                Err(QueueError::Empty) => break,
                Err(e) => return Err(e),
            };
            if let Some(response) = self.begin(caller, &request, data) {
                observe(&response);
                // Room was checked above and only this PD produces: cannot be full.
                responses.enqueue(response)?;
                answered += 1;
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
        let (id, sid) = (request.id, request.session);
        let job = match self.job(caller, request, data) {
            Ok(job) => job,
            Err(e) => return Some(response(id, Err(e), 0)),
        };
        // `job` found the session open just now.
        let session = self.sessions.get_mut(caller, sid).ok()?;
        match self.engine.start(&mut session.engine, &job) {
            DigestStep::Done(result) => Some(self.finish(caller, id, sid, &job, None, result)),
            DigestStep::Pending => {
                let ctx = session.engine.clone();
                self.in_flight = Some(InFlight {
                    caller,
                    id,
                    session: sid,
                    job,
                    ctx,
                    answer: true,
                });
                None
            }
        }
    }

    fn job(
        &mut self,
        caller: Caller,
        request: &Request,
        data: ClientData<'a>,
    ) -> Result<Job<'a>, DigestError> {
        let op = request.op.get().map_err(|_| DigestError::BadRequest)?;
        let session = self.sessions.get_mut(caller, request.session)?;
        match session.state {
            State::Open => {}
            State::Finished => return Err(DigestError::SessionFinished),
            State::Failed => return Err(DigestError::EngineFault),
        }
        let segs = validate(request, data.len())?;
        Ok(Job {
            algorithm: session.algorithm,
            path: session.path,
            op,
            segs,
            data,
        })
    }

    /// The engine's interrupt: advances the request in flight. When it finishes,
    /// returns the client to answer and the answer (`None` also when its client was
    /// cut off meanwhile).
    pub fn interrupt(&mut self) -> Option<(Caller, Response)> {
        let flight = self.in_flight.as_mut()?;
        let DigestStep::Done(result) = self.engine.interrupt(&mut flight.ctx, &flight.job) else {
            return None;
        };
        let f = self.in_flight.take()?;
        let response = self.finish(f.caller, f.id, f.session, &f.job, Some(f.ctx), result);
        f.answer.then_some((f.caller, response))
    }

    /// The watchdog: the request in flight is cancelled and answered `EngineFault` (its
    /// session failed). Nothing in flight: `None`.
    pub fn expire(&mut self) -> Option<(Caller, Response)> {
        let f = self.in_flight.take()?;
        self.engine.cancel(&f.job);
        let result = Err(DigestError::EngineFault);
        let response = self.finish(f.caller, f.id, f.session, &f.job, None, result);
        f.answer.then_some((f.caller, response))
    }

    /// Moves the session on (its state, its byte count, the context of a request that
    /// was in flight), if it is still open; the response.
    fn finish(
        &mut self,
        caller: Caller,
        id: u32,
        session: u32,
        job: &Job<'_>,
        ctx: Option<E::Context>,
        result: Result<Option<Digest>, DigestError>,
    ) -> Response {
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
                match self.engine.open(slot, s.algorithm, s.path) {
                    Ok(fresh) => s.engine = fresh,
                    Err(_) => s.state = State::Failed,
                }
            }
        }
        response(id, result, job.segs.total())
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

fn response(id: u32, result: Result<Option<Digest>, DigestError>, bytes: u32) -> Response {
    let mut r = Response {
        id,
        status: DigestErrorRaw::OK,
        digest_len: 0,
        reserved: 0,
        bytes_done: 0,
        digest: [0; MAX_DIGEST],
    };
    match result {
        Ok(digest) => {
            r.bytes_done = bytes;
            if let Some(d) = digest {
                r.digest_len = d.as_bytes().len() as u8;
                r.digest[..d.as_bytes().len()].copy_from_slice(d.as_bytes());
            }
        }
        Err(e) => r.status = e.into(),
    }
    r
}
