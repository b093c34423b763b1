//! What the one service needs to know of Digest ([`queued_service::Interface`]).

use core::marker::PhantomData;

use pd_idl::digest::{
    Algorithm, DigestError, DigestErrorRaw, DigestOp, HashPath, OpenSessionArgs, Request, Response,
    Segment,
};
use pd_idl::wire::Caller;
use pd_trace::Kind;
use queued_service::{Carried, ClientData, Interface, Sessions};
use segment_list::{Overlaps, join};

use crate::segments::validate_into;
use crate::{DigestEngine, DigestStep, DigestValue, Job, Session, State, digest_len, validate};

/// The Digest interface over engine `E`: `Service<'_, Digest<E>>` is a Digest driver.
pub struct Digest<E>(PhantomData<E>);

/// A Digest job as the service holds it: the engine's [`Job`], the session it is of,
/// where a final's digest goes (its last request's output place, checked), and, while
/// it is in flight, its own copy of the session's context (so it can finish if its
/// session closes meanwhile).
pub struct Flight<'a, C> {
    pub job: Job<'a>,
    carried: Carried<C>,
    output: Option<Segment>,
}

impl<E: DigestEngine> Interface for Digest<E> {
    type Parking = queued_service::NoParking;
    type Engine = E;
    type Request = Request;
    type Response = Response;
    type Error = DigestError;
    type Session = Session<E::Context>;
    type Job<'a> = Flight<'a, E::Context>;
    type Done = Option<DigestValue>;
    type OpenCall = OpenSessionArgs;
    type Open = OpenSessionArgs;
    type ByKey = queued_service::Unkeyed;

    /// A final writes its digest into the client's region.
    const WRITES_DATA: bool = true;

    queued_service::from_idl!(pd_idl::digest, DigestError);

    fn empty_job(data: ClientData<'_>) -> Flight<'_, E::Context> {
        Flight {
            job: Job::empty(data),
            carried: Carried::new(),
            output: None,
        }
    }

    #[inline]
    fn check<'a>(
        _: &E,
        sessions: &mut Sessions<Self::Session>,
        caller: Caller,
        request: &Request,
        flight: &mut Flight<'a, E::Context>,
        _slot: usize,
    ) -> Result<(), DigestError> {
        let job = &mut flight.job;
        job.op = request.op.get().map_err(|_| DigestError::BadRequest)?;
        let session = sessions
            .get_mut(caller, request.session)
            .map_err(Self::refuse)?;
        if session.state == State::Failed {
            return Err(DigestError::EngineFault);
        }
        let final_of = (job.op == DigestOp::Final).then(|| digest_len(session.algorithm));
        flight.output = validate_into(&mut job.segs, request, job.data.len(), final_of)?;
        job.algorithm = session.algorithm;
        job.path = session.path;
        job.requests = 1;
        flight.carried.name(request.session);
        Ok(())
    }

    fn bytes(flight: &Flight<'_, E::Context>) -> u32 {
        flight.job.segs.total()
    }

    fn coalesces(engine: &E, flight: &Flight<'_, E::Context>) -> bool {
        engine.coalesces(&flight.job)
    }

    /// `next` joins if it may run in the same job: the same session, the job not yet
    /// final, `next` an update or the final, valid on its own, and the segments of both
    /// still one job's worth (a hash only reads, so they may overlap). Only the last
    /// request can be a final, so the job's output place is that final's own, checked
    /// against its own data as it would be alone.
    fn join<'a>(
        engine: &E,
        flight: &mut Flight<'a, E::Context>,
        first: &Request,
        next: &Request,
    ) -> Option<u32> {
        let job = &mut flight.job;
        let op = next.op.get().ok()?;
        if next.session != first.session || job.op == DigestOp::Final {
            return None;
        }
        let region = job.data.len();
        let final_of = (op == DigestOp::Final).then(|| digest_len(job.algorithm));
        let (more, output) = validate(next, region, final_of).ok()?;
        let alone = Job {
            op,
            segs: more,
            requests: 1,
            ..*job
        };
        if !engine.coalesces(&alone) {
            return None;
        }
        job.segs = join(&job.segs, &more, region, Overlaps::Allowed).ok()?;
        job.op = op;
        job.requests += 1;
        flight.output = output;
        Some(more.total())
    }

    fn start(
        engine: &mut E,
        sessions: &mut Sessions<Self::Session>,
        caller: Caller,
        flight: &mut Flight<'_, E::Context>,
    ) -> DigestStep {
        let job = &flight.job;
        flight
            .carried
            .start(sessions, caller, DigestError::UnknownSession, |s| {
                engine.start(&mut s.engine, job)
            })
    }

    fn interrupt(engine: &mut E, flight: &mut Flight<'_, E::Context>) -> DigestStep {
        let job = &flight.job;
        flight
            .carried
            .interrupt(DigestError::EngineFault, |ctx| engine.interrupt(ctx, job))
    }

    fn cancel(engine: &mut E, flight: &Flight<'_, E::Context>) {
        engine.cancel(&flight.job);
    }

    /// Writes a final's digest at its output place, then moves the session on, if it is
    /// still open: its state, its byte count, the context of a job that was in flight,
    /// and after a final the engine's fresh state for the next message.
    fn finish(
        engine: &mut E,
        sessions: &mut Sessions<Self::Session>,
        caller: Caller,
        flight: &mut Flight<'_, E::Context>,
        result: &Result<Option<DigestValue>, DigestError>,
    ) {
        // Here, for every engine, so none can forget it, and before the answer is built
        // (both ways a job ends pass here first): the client reads the digest when it
        // sees the answer. Also for a session closed meanwhile: the final was accepted.
        // The SEC1 engine could have its descriptor's result pointer write it straight
        // there instead (a later optimisation; it copies it out as every engine does).
        if let (Ok(Some(d)), Some(out)) = (result, flight.output) {
            flight.job.data.write_output(out, d.as_bytes());
        }
        let Ok((slot, s)) = sessions.slot_mut(caller, flight.carried.session) else {
            return;
        };
        if result.is_err() {
            s.state = State::Failed;
            return;
        }
        s.state = State::Open;
        s.bytes += u64::from(flight.job.segs.total());
        flight.carried.hand_back(s);
        if flight.job.op == DigestOp::Final {
            // The digest is out: the session starts a new message.
            s.bytes = 0;
            if engine
                .restart(slot, &mut s.engine, s.algorithm, s.path)
                .is_err()
            {
                s.state = State::Failed;
            }
        }
    }

    /// Updates joined ahead of the last request have no digest of their own; the final
    /// says how long the digest [`finish`](Interface::finish) wrote is.
    fn answer(
        id: u32,
        bytes: u32,
        result: &Result<Option<DigestValue>, DigestError>,
        last: bool,
    ) -> Response {
        let mut r = Response {
            id,
            status: DigestErrorRaw::OK,
            digest_len: 0,
            reserved: [0; 5],
            bytes_done: 0,
        };
        match result {
            Ok(digest) => {
                r.bytes_done = bytes;
                if let Some(d) = digest.filter(|_| last) {
                    r.digest_len = d.as_bytes().len() as u8;
                }
            }
            Err(e) => r.status = (*e).into(),
        }
        r
    }

    fn outcome(r: &Response) -> (Kind, u32) {
        match r.status.check() {
            Ok(Ok(())) => (Kind::Hashed, 0),
            _ => (Kind::Refused, u32::from(r.status.0)),
        }
    }

    fn precheck(engine: &E, args: &OpenSessionArgs) -> Result<(), DigestError> {
        engine.supports(args.algorithm, args.path)
    }

    fn open(
        engine: &mut E,
        _: Caller,
        slot: usize,
        args: OpenSessionArgs,
    ) -> Result<Self::Session, DigestError> {
        Ok(Session {
            algorithm: args.algorithm,
            path: args.path,
            bytes: 0,
            state: State::Open,
            engine: engine.open(slot, args.algorithm, args.path)?,
        })
    }

    fn open_args(call: OpenSessionArgs, _: Option<ClientData<'static>>) -> OpenSessionArgs {
        call
    }

    fn offers(engine: &E) -> u64 {
        let ok = |a| engine.supports(a, HashPath::Auto).is_ok();
        queued_service::offered(&Algorithm::ALL, |a| a as u8, ok)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Service;
    use pd_idl::digest::Client;
    use pd_idl::wire::{CallError, Message, ServerDied, Transport};
    use queued_service::{Calls, Step};

    /// An engine that takes every algorithm on the `Auto` path and hashes nothing.
    struct AutoOnly;

    impl DigestEngine for AutoOnly {
        type Context = ();
        fn supports(&self, _: Algorithm, path: HashPath) -> Result<(), DigestError> {
            match path {
                HashPath::Auto => Ok(()),
                _ => Err(DigestError::UnsupportedPath),
            }
        }
        fn open(&mut self, _: usize, a: Algorithm, path: HashPath) -> Result<(), DigestError> {
            self.supports(a, path)
        }
        fn start(&mut self, _: &mut (), _: &Job<'_>) -> DigestStep {
            Step::Done(Ok(None))
        }
        fn interrupt(&mut self, _: &mut (), _: &Job<'_>) -> DigestStep {
            Step::Pending
        }
        fn cancel(&mut self, _: &Job<'_>) {}
    }

    /// The calls straight onto a service, as a PD answers them without power or trace.
    struct Direct<'s>(&'s mut Service<'static, AutoOnly>);

    impl Calls<Digest<AutoOnly>> for Direct<'_> {
        fn open(&mut self, caller: Caller, args: OpenSessionArgs) -> Result<u32, DigestError> {
            self.0.open(caller, args)
        }
        fn close(&mut self, caller: Caller, session: u32) -> Result<(), DigestError> {
            self.0.close(caller, session)
        }
        fn capabilities(&mut self, _: Caller) -> Result<u64, DigestError> {
            Ok(Digest::<AutoOnly>::offers(&self.0.engine))
        }
    }

    /// A PPC straight into the server, as caller `Caller(3)`.
    struct Ppc<'s>(Direct<'s>);

    impl Transport for Ppc<'_> {
        fn call(&mut self, msg: &Message) -> Result<Message, ServerDied> {
            Ok(queued_service::dispatch::<Digest<AutoOnly>>(
                &mut self.0,
                Caller(3),
                msg,
            ))
        }
    }

    #[test]
    fn calls_reach_the_table_through_the_wire() {
        let mut service = Service::new(AutoOnly, Sessions::default());
        let mut client = Client::new(Ppc(Direct(&mut service)));
        let id = client
            .open_session(Algorithm::Sha1, HashPath::Auto)
            .unwrap();
        assert_eq!(
            client.open_session(Algorithm::Sha1, HashPath::Copy),
            Err(CallError::Server(DigestError::UnsupportedPath))
        );
        client.close_session(id).unwrap();
        assert_eq!(
            client.close_session(id),
            Err(CallError::Server(DigestError::UnknownSession))
        );
        assert_eq!(service.sessions.open_count(), 0);
    }
}
