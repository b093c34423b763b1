//! What the one service needs to know of Mac ([`queued_service::Interface`]).

use core::marker::PhantomData;

use pd_idl::common::Segment;
use pd_idl::keys::{KeyAlgorithm, KeyUsage};
use pd_idl::mac::{
    MacAlgorithm, MacError, MacErrorRaw, MacOp, OpenSessionArgs, OpenSessionByKeyArgs, Request,
    Response,
};
use pd_idl::wire::Caller;
use pd_trace::Kind;
use queued_service::{
    Carried, ClientData, Interface, KeyMaterial, KeyPlace, KeySource, KeyUse, Sessions, Step,
};
use subtle::ConstantTimeEq;

use crate::segments::{Last, validate_into};
use crate::{
    ClientKey, Job, MAX_KEY, MAX_TAG, MacEngine, MacStep, Segments, Session, State, Tag, tag_len,
};

/// The Mac interface over engine `E`: `Service<'_, Mac<E>>` is a Mac driver.
pub struct Mac<E>(PhantomData<E>);

/// A session's usages, as the Keys interface numbers them (bit `v` for `KeyUsage` `v`):
/// a final makes a tag (sign), a verify checks one.
pub const SIGN: u8 = pd_idl::key_bits::usage(KeyUsage::Sign);
pub const VERIFY: u8 = pd_idl::key_bits::usage(KeyUsage::Verify);

/// What a session opens from: the algorithm, its key (in the caller's data region at
/// the call's place, or fetched from the key store) and the usages it may have.
pub struct Open {
    pub call: OpenSessionArgs,
    pub key: KeySource,
    pub usage: u8,
}

impl Open {
    /// An `open_session` call's: the key at its place in `data`; both usages.
    pub fn in_region(call: OpenSessionArgs, data: Option<ClientData<'static>>) -> Self {
        Open {
            key: KeySource::Region {
                data,
                offset: call.key_offset,
                len: call.key_len,
            },
            call,
            usage: SIGN | VERIFY,
        }
    }

    /// Checks the key: 1 to [`MAX_KEY`] bytes, inside the region if it is there.
    fn check_key(&self) -> Result<(), MacError> {
        match self.key.check() {
            Err(KeyPlace::NoRegion) => Err(MacError::BadRequest),
            _ if self.key.is_empty() || self.key.len() > MAX_KEY => Err(MacError::BadKeySize),
            Err(KeyPlace::Outside) => Err(MacError::BadKeySize),
            Ok(()) => Ok(()),
        }
    }
}

/// A Mac job as the service holds it: the engine's [`Job`], its session, a verify's
/// expected tag (copied at the check, so the client cannot change it under the
/// compare), a final's output place, and while in flight its own copy of the session's
/// context.
pub struct Flight<'a, C> {
    pub job: Job<'a>,
    carried: Carried<C>,
    expected: Option<Tag>,
    output: Option<Segment>,
}

impl<C> Flight<'_, C> {
    /// A verify's answer from the computed tag: only whether it matched. The lengths
    /// are the request's (public); the bytes are compared in constant time.
    fn settle(&self, step: MacStep) -> MacStep {
        match (step, &self.expected) {
            (Step::Done(Ok(Some(tag))), Some(want)) => {
                let got = tag.as_bytes().get(..want.as_bytes().len()).unwrap_or(&[]);
                Step::Done(match bool::from(got.ct_eq(want.as_bytes())) {
                    true => Ok(None),
                    false => Err(MacError::MacMismatch),
                })
            }
            (step, _) => step,
        }
    }
}

impl<E: MacEngine> Interface for Mac<E> {
    type Parking = queued_service::NoParking;
    type Engine = E;
    type Request = Request;
    type Response = Response;
    type Error = MacError;
    type Session = Session<E::Context, E::Key>;
    type Job<'a> = Flight<'a, E::Context>;
    type Done = Option<Tag>;
    type OpenCall = OpenSessionArgs;
    type Open = Open;
    type ByKey = OpenSessionByKeyArgs;

    /// A final writes its tag into the client's region.
    const WRITES_DATA: bool = true;

    queued_service::from_idl!(pd_idl::mac, MacError, keyed);

    fn key_use(call: &OpenSessionByKeyArgs) -> KeyUse {
        KeyUse {
            handle: call.handle,
            algorithm: match call.algorithm {
                MacAlgorithm::Md5 => KeyAlgorithm::HmacMd5,
                MacAlgorithm::Sha1 => KeyAlgorithm::HmacSha1,
                MacAlgorithm::Sha224 => KeyAlgorithm::HmacSha224,
                MacAlgorithm::Sha256 => KeyAlgorithm::HmacSha256,
                MacAlgorithm::Sha384 => KeyAlgorithm::HmacSha384,
                MacAlgorithm::Sha512 => KeyAlgorithm::HmacSha512,
            },
            // Only the usages a Mac session has: the store checks those.
            usage: call.usage & (SIGN | VERIFY),
        }
    }

    /// The fetched key travels in the `Open` to the session's open, which makes its
    /// block key of it; it is wiped when the `Open` goes.
    fn open_by_key(call: OpenSessionByKeyArgs, key: KeyMaterial) -> Open {
        Open {
            call: OpenSessionArgs {
                algorithm: call.algorithm,
                key_offset: 0,
                key_len: key.len() as u32,
            },
            usage: key.usage & (SIGN | VERIFY),
            key: KeySource::Store(key),
        }
    }

    fn empty_job(data: ClientData<'_>) -> Flight<'_, E::Context> {
        let job = Job {
            algorithm: MacAlgorithm::Sha256,
            op: MacOp::Update,
            segs: Segments::EMPTY,
            data,
        };
        Flight {
            job,
            carried: Carried::new(),
            expected: None,
            output: None,
        }
    }

    fn check<'a>(
        _: &E,
        sessions: &mut Sessions<Self::Session>,
        caller: Caller,
        request: &Request,
        flight: &mut Flight<'a, E::Context>,
        _slot: usize,
    ) -> Result<(), MacError> {
        let job = &mut flight.job;
        job.op = request.op.get().map_err(|_| MacError::BadRequest)?;
        let session = sessions
            .get_mut(caller, request.session)
            .map_err(Self::refuse)?;
        match session.state {
            State::Open => {}
            State::Failed => return Err(MacError::EngineFault),
        }
        let needs = match job.op {
            MacOp::Update => 0,
            MacOp::Final => SIGN,
            MacOp::Verify => VERIFY,
        };
        if session.usage & needs != needs {
            return Err(MacError::KeyNotPermitted);
        }
        let last = match job.op {
            MacOp::Update => Last::Data,
            MacOp::Verify => Last::Expected(tag_len(session.algorithm)),
            MacOp::Final => Last::Output(tag_len(session.algorithm)),
        };
        let apart = validate_into(&mut job.segs, request, job.data.len(), last)?;
        flight.output = apart.filter(|_| job.op == MacOp::Final);
        let tag = apart.filter(|_| job.op == MacOp::Verify);
        flight.expected = tag.map(|t| {
            let mut buf = [0; MAX_TAG];
            let want = &mut buf[..t.len as usize];
            // Checked inside the region just now: the copy cannot fail.
            let inside = job.data.region.read_bytes(t.offset as usize, want);
            debug_assert!(inside);
            Tag::new(want)
        });
        job.algorithm = session.algorithm;
        flight.carried.name(request.session);
        Ok(())
    }

    fn bytes(flight: &Flight<'_, E::Context>) -> u32 {
        flight.job.segs.total()
    }

    fn start(
        engine: &mut E,
        sessions: &mut Sessions<Self::Session>,
        caller: Caller,
        flight: &mut Flight<'_, E::Context>,
    ) -> MacStep {
        let job = &flight.job;
        let step = flight
            .carried
            .start(sessions, caller, MacError::UnknownSession, |s| {
                engine.start(&mut s.engine, &s.key, job)
            });
        flight.settle(step)
    }

    fn interrupt(engine: &mut E, flight: &mut Flight<'_, E::Context>) -> MacStep {
        let job = &flight.job;
        let step = flight
            .carried
            .interrupt(MacError::EngineFault, |ctx| engine.interrupt(ctx, job));
        flight.settle(step)
    }

    fn cancel(engine: &mut E, flight: &Flight<'_, E::Context>) {
        engine.cancel(&flight.job);
    }

    /// A final's tag is written at its output place; after a final or verify (matched
    /// or not) the session's context, handed back, starts the next message.
    fn finish(
        _: &mut E,
        sessions: &mut Sessions<Self::Session>,
        caller: Caller,
        flight: &mut Flight<'_, E::Context>,
        result: &Result<Option<Tag>, MacError>,
    ) {
        // Here, for every engine, before the answer is built, as Digest's. A verify's
        // result carries no tag by now (`settle`): nothing of it is written.
        if let (Ok(Some(t)), Some(out)) = (result, flight.output) {
            flight.job.data.write_output(out, t.as_bytes());
        }
        let Ok(s) = sessions.get_mut(caller, flight.carried.session) else {
            return;
        };
        if matches!(result, Err(e) if *e != MacError::MacMismatch) {
            s.state = State::Failed;
            return;
        }
        s.bytes += u64::from(flight.job.segs.total());
        flight.carried.hand_back(s);
    }

    fn answer(
        id: u32,
        bytes: u32,
        result: &Result<Option<Tag>, MacError>,
        _last: bool,
    ) -> Response {
        let mut r = Response {
            id,
            status: MacErrorRaw::OK,
            tag_len: 0,
            reserved: [0; 5],
            bytes_done: 0,
        };
        match result {
            Ok(tag) => {
                r.bytes_done = bytes;
                if let Some(t) = tag {
                    r.tag_len = t.as_bytes().len() as u8;
                }
            }
            Err(e) => r.status = (*e).into(),
        }
        r
    }

    fn outcome(r: &Response) -> (Kind, u32) {
        match r.status.check() {
            Ok(Ok(())) => (Kind::MacDone, 0),
            _ => (Kind::Refused, u32::from(r.status.0)),
        }
    }

    fn precheck(engine: &E, args: &Open) -> Result<(), MacError> {
        engine.supports(args.call.algorithm)?;
        args.check_key()
    }

    fn open(engine: &mut E, _: Caller, slot: usize, args: Open) -> Result<Self::Session, MacError> {
        engine.supports(args.call.algorithm)?;
        args.check_key()?;
        // Private memory, wiped when it goes out of scope.
        let mut key = ClientKey::default();
        args.key.copy_to(key.fill(args.key.len()));
        let mut kept = E::Key::default();
        let ctx = engine.open(slot, args.call.algorithm, key.as_bytes(), &mut kept)?;
        Ok(Session {
            algorithm: args.call.algorithm,
            state: State::Open,
            bytes: 0,
            key: kept,
            engine: ctx,
            usage: args.usage,
        })
    }

    fn touched_keys(engine: &mut E) -> bool {
        engine.touched_keys()
    }

    fn open_args(call: OpenSessionArgs, data: Option<ClientData<'static>>) -> Open {
        Open::in_region(call, data)
    }

    fn offers(engine: &E) -> u64 {
        let ok = |a| engine.supports(a).is_ok();
        queued_service::offered(&MacAlgorithm::ALL, |a| a as u8, ok)
    }
}
