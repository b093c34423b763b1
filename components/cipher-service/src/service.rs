//! The engine's request in flight, between clients' queues and the engine's interrupt.

use pd_idl::cipher::{CipherError, CipherErrorRaw, Path, Request, Response};
use pd_idl::wire::Caller;
use shm_queue::{Consumer, Producer, QueueError};

use crate::{CipherEngine, ClientData, Finished, Job, Sessions, Step, validate};

/// The request the engine is working on.
struct InFlight<'a> {
    caller: Caller,
    id: u32,
    session: u32,
    job: Job<'a>,
    /// False once its client was cut off: the answer has nowhere to go.
    answer: bool,
}

/// One engine, its sessions and the request in flight.
pub struct Service<'a, E> {
    pub engine: E,
    pub sessions: Sessions,
    in_flight: Option<InFlight<'a>>,
}

impl<'a, E: CipherEngine> Service<'a, E> {
    pub fn new(engine: E, sessions: Sessions) -> Self {
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
        let job = match self.job(caller, request, data) {
            Ok(job) => job,
            Err(e) => return Some(response(request.id, Err(e), 0)),
        };
        match self.engine.start(&job) {
            Step::Done(result) => {
                Some(self.finish(caller, request.id, request.session, &job, result))
            }
            Step::Pending => {
                self.in_flight = Some(InFlight {
                    caller,
                    id: request.id,
                    session: request.session,
                    job,
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
    ) -> Result<Job<'a>, CipherError> {
        let op = request.op.get().map_err(|_| CipherError::BadRequest)?;
        let session = *self.sessions.get_mut(caller, request.session)?;
        let segs = validate(request, data.len(), session.mode)?;
        Ok(Job {
            session,
            op,
            segs,
            data,
        })
    }

    /// The engine's interrupt: advances the request in flight. When it finishes,
    /// returns the client to answer and the answer (`None` also when its client was
    /// cut off meanwhile).
    pub fn interrupt(&mut self) -> Option<(Caller, Response)> {
        let flight = self.in_flight.as_ref()?;
        let Step::Done(result) = self.engine.interrupt(&flight.job) else {
            return None;
        };
        let f = self.in_flight.take()?;
        let response = self.finish(f.caller, f.id, f.session, &f.job, result);
        f.answer.then_some((f.caller, response))
    }

    /// The watchdog: the request in flight is cancelled and answered `EngineFault` (as
    /// [`interrupt`](Self::interrupt) answers). Nothing in flight: `None`.
    pub fn expire(&mut self) -> Option<(Caller, Response)> {
        let f = self.in_flight.take()?;
        self.engine.cancel(&f.job);
        let response = self.finish(
            f.caller,
            f.id,
            f.session,
            &f.job,
            Err(CipherError::EngineFault),
        );
        f.answer.then_some((f.caller, response))
    }

    /// Keeps the IV for the session's next request, if the session is still open.
    fn finish(
        &mut self,
        caller: Caller,
        id: u32,
        session: u32,
        job: &Job<'_>,
        result: Result<Finished, CipherError>,
    ) -> Response {
        if let (Ok(done), Ok(s)) = (&result, self.sessions.get_mut(caller, session)) {
            s.iv = done.next_iv;
        }
        response(id, result, job.segs.total())
    }

    /// A client cut off (broken queues) or gone: its sessions close, and a request of
    /// its in flight finishes unanswered. Returns the sessions closed.
    pub fn cut_off(&mut self, caller: Caller) -> usize {
        if let Some(f) = self.in_flight.as_mut().filter(|f| f.caller == caller) {
            f.answer = false;
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
