//! The engine's requests in flight, between clients' queues and the engine's interrupt.

use pd_idl::cipher::{CipherError, CipherErrorRaw, Path, Request, Response};
use pd_idl::wire::Caller;
use shm_queue::{Consumer, Producer, QueueError};

use crate::{CipherEngine, ClientData, Finished, Job, MAX_IN_FLIGHT, Sessions, Step, validate};

/// A request the engine is working on.
struct InFlight<'a> {
    caller: Caller,
    id: u32,
    job: Job<'a>,
    /// False once its client was cut off: the answer has nowhere to go.
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
        n.filter(|f| f.caller == caller && f.answer).count() as u32
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
    ) -> Result<(usize, Stopped), QueueError> {
        let mut answered = 0;
        loop {
            if self.full() {
                return Ok((answered, Stopped::EngineFull));
            }
            // A request is taken only when its answer has room beside the answers its
            // client is already owed: backpressure, never a dropped answer.
            if responses.free()? <= self.owed_to(caller) {
                return Ok((answered, Stopped::ClientsMove));
            }
            let batch = requests.read_batch()?;
            if batch.is_empty() {
                return Ok((answered, Stopped::ClientsMove));
            }
            // A copy: the client may rewrite the slot, but this copy is what runs.
            let request = batch.get(0);
            if self.session_in_flight(caller, request.session) {
                return Ok((answered, Stopped::SessionBusy));
            }
            batch.release(1);
            if let Some(response) = self.begin(caller, &request, data) {
                observe(&response);
                // Room was checked above and only this PD produces: cannot be full.
                responses.enqueue(response)?;
                answered += 1;
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
        let job = match self.job(caller, request, data, slot) {
            Ok(job) => job,
            Err(e) => return Some(response(request.id, Err(e), 0)),
        };
        match self.engine.start(&job) {
            Step::Done(result) => Some(self.finish(caller, request.id, &job, result)),
            Step::Pending => {
                self.in_flight[slot] = Some(InFlight {
                    caller,
                    id: request.id,
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
        slot: usize,
    ) -> Result<Job<'a>, CipherError> {
        let op = request.op.get().map_err(|_| CipherError::BadRequest)?;
        let session = *self.sessions.get_mut(caller, request.session)?;
        let segs = validate(request, data.len(), session.mode)?;
        Ok(Job {
            session,
            session_id: request.session,
            op,
            segs,
            data,
            slot,
        })
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
                let response = self.finish(f.caller, f.id, &f.job, result);
                if f.answer {
                    answer(f.caller, response);
                }
                finished += 1;
            }
        }
        finished
    }

    /// The watchdog: every request in flight is cancelled and answered `EngineFault`
    /// (given to `answer` as [`interrupt`](Self::interrupt) gives them). Returns how
    /// many were in flight.
    pub fn expire(&mut self, mut answer: impl FnMut(Caller, Response)) -> usize {
        let mut expired = 0;
        for slot in 0..MAX_IN_FLIGHT {
            let Some(f) = self.in_flight[slot].take() else {
                continue;
            };
            self.engine.cancel(&f.job);
            let response = self.finish(f.caller, f.id, &f.job, Err(CipherError::EngineFault));
            if f.answer {
                answer(f.caller, response);
            }
            expired += 1;
        }
        expired
    }

    /// Keeps the IV for the session's next request, if the session is still open.
    fn finish(
        &mut self,
        caller: Caller,
        id: u32,
        job: &Job<'_>,
        result: Result<Finished, CipherError>,
    ) -> Response {
        if let (Ok(done), Ok(s)) = (&result, self.sessions.get_mut(caller, job.session_id)) {
            s.iv = done.next_iv;
        }
        response(id, result, job.segs.total())
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
