//! What the one service needs to know of Aead ([`queued_service::Interface`]).

use core::marker::PhantomData;

use pd_idl::aead::{
    AeadAlgorithm, AeadError, AeadErrorRaw, AeadOp, OpenSessionArgs, Request, Response,
};
use pd_idl::common::Segment;
use pd_idl::wire::Caller;
use pd_trace::Kind;
use queued_service::{Carried, ClientData, Interface, Sessions, Step};
use segment_list::{Overlaps, SegmentError};

use crate::{
    AeadEngine, AeadStep, Job, Key, MAX_AAD, MAX_PAYLOAD, Segments, Session, nonce_ok, tag_ok,
};

/// The Aead interface over engine `E`: `Service<'_, Aead<E>>` is an Aead driver.
pub struct Aead<E>(PhantomData<E>);

/// The `open_session` call's arguments and the caller's data region the key is in
/// (`None`: the caller is no client).
#[derive(Clone, Copy)]
pub struct Open {
    pub call: OpenSessionArgs,
    pub data: Option<ClientData<'static>>,
}

impl Open {
    /// The lengths and where the key lies, checked; the region and the key's place.
    fn checked(&self) -> Result<(ClientData<'static>, usize, usize), AeadError> {
        if !nonce_ok(self.call.algorithm, usize::from(self.call.nonce_len)) {
            return Err(AeadError::BadNonceLength);
        }
        if !tag_ok(self.call.algorithm, usize::from(self.call.tag_len)) {
            return Err(AeadError::BadTagLength);
        }
        let data = self.data.ok_or(AeadError::BadRequest)?;
        let (at, len) = (self.call.key_offset as usize, self.call.key_len as usize);
        if !matches!(len, 16 | 24 | 32) || !data.holds(at, len) {
            return Err(AeadError::BadKeySize);
        }
        Ok((data, at, len))
    }
}

/// An Aead job as the service holds it: the engine's [`Job`], its session and, while in
/// flight, its own copy of the session's context.
pub struct Flight<'a, C> {
    pub job: Job<'a>,
    carried: Carried<C>,
    /// `EncryptNewNonce`: the driver draws the nonce at start (the job's op is
    /// `Encrypt` for the engine).
    new_nonce: bool,
}

/// The interface's error for a broken `segment-list` rule.
fn segment_error(e: SegmentError) -> AeadError {
    match e {
        SegmentError::TooMany => AeadError::TooManySegments,
        SegmentError::OutOfRange => AeadError::SegmentOutOfRange,
        SegmentError::Overlap => AeadError::OverlappingSegments,
        SegmentError::TooLong => AeadError::MessageTooLong,
    }
}

impl<E: AeadEngine> Interface for Aead<E> {
    type Engine = E;
    type Request = Request;
    type Response = Response;
    type Error = AeadError;
    type Session = Session<E::Context>;
    type Job<'a> = Flight<'a, E::Context>;
    type Done = ();
    type OpenCall = OpenSessionArgs;
    type Open = Open;
    type ByKey = queued_service::Unkeyed;

    /// Payloads are worked in place, tags written.
    const WRITES_DATA: bool = true;

    queued_service::from_idl!(pd_idl::aead, AeadError);
    const KEYED: bool = true;

    /// Only a raw-key open can be refused for its key: this interface has no sessions
    /// by handle yet.
    fn refuse_key(refusal: queued_service::KeyRefusal) -> AeadError {
        match refusal {
            queued_service::KeyRefusal::RawKeysForbidden => AeadError::RawKeysForbidden,
            _ => AeadError::BadRequest,
        }
    }

    fn empty_job(data: ClientData<'_>) -> Flight<'_, E::Context> {
        let none = Segment { offset: 0, len: 0 };
        let job = Job {
            algorithm: AeadAlgorithm::AesGcm,
            op: AeadOp::Encrypt,
            nonce: none,
            aad: Segments::EMPTY,
            payload: Segments::EMPTY,
            tag: none,
            data,
        };
        Flight {
            job,
            carried: Carried::new(),
            new_nonce: false,
        }
    }

    fn check<'a>(
        _: &E,
        sessions: &mut Sessions<Self::Session>,
        caller: Caller,
        request: &Request,
        flight: &mut Flight<'a, E::Context>,
        _slot: usize,
    ) -> Result<(), AeadError> {
        let job = &mut flight.job;
        job.op = request.op.get().map_err(|_| AeadError::BadRequest)?;
        flight.new_nonce = job.op == AeadOp::EncryptNewNonce;
        if flight.new_nonce {
            job.op = AeadOp::Encrypt;
        }
        let session = sessions
            .get_mut(caller, request.session)
            .map_err(Self::refuse)?;
        // 38D 8.2.2 is GCM's; CCM's nonces (38C) have no random construction here.
        if flight.new_nonce && session.algorithm != AeadAlgorithm::AesGcm {
            return Err(AeadError::UnsupportedAlgorithm);
        }
        // Every segment, the nonce and tag too: the payload is written in place and the
        // tag written or read once, so none may share a byte with another.
        let all = segment_list::check(
            &request.segs,
            request.nsegs,
            job.data.len(),
            Overlaps::Refused,
        )
        .map_err(segment_error)?;
        let all = all.as_slice();
        let naad = usize::from(request.naad);
        // A nonce and a tag at least, and the AAD between them.
        if all.len() < 2 || naad > all.len() - 2 {
            return Err(AeadError::BadRequest);
        }
        let (nonce, tag) = (all[0], all[all.len() - 1]);
        if nonce.len != u32::from(session.nonce_len) {
            return Err(AeadError::BadNonceLength);
        }
        if tag.len != u32::from(session.tag_len) {
            return Err(AeadError::BadTagLength);
        }
        let (aad, payload) = all[1..all.len() - 1].split_at(naad);
        let region = job.data.len();
        job.aad =
            segment_list::from_slice(aad, region, Overlaps::Allowed).map_err(segment_error)?;
        job.payload =
            segment_list::from_slice(payload, region, Overlaps::Allowed).map_err(segment_error)?;
        if job.aad.total() as usize > MAX_AAD || job.payload.total() as usize > MAX_PAYLOAD {
            return Err(AeadError::MessageTooLong);
        }
        job.nonce = nonce;
        job.tag = tag;
        job.algorithm = session.algorithm;
        flight.carried.name(request.session);
        Ok(())
    }

    fn bytes(flight: &Flight<'_, E::Context>) -> u32 {
        flight.job.payload.total()
    }

    fn start(
        engine: &mut E,
        sessions: &mut Sessions<Self::Session>,
        caller: Caller,
        flight: &mut Flight<'_, E::Context>,
    ) -> AeadStep {
        let job = &flight.job;
        if flight.new_nonce {
            let mut nonce = [0u8; 16];
            let nonce = &mut nonce[..job.nonce.len as usize];
            if !engine.random(nonce) {
                return Step::Done(Err(AeadError::NoRandomness));
            }
            // Checked inside the region; the engine reads it from there as any nonce (a
            // client rewriting it meanwhile spoils only its own message).
            job.data.write_output(job.nonce, nonce);
        }
        flight
            .carried
            .start(sessions, caller, AeadError::UnknownSession, |s| {
                engine.start(&mut s.engine, &s.key, job)
            })
    }

    fn interrupt(engine: &mut E, flight: &mut Flight<'_, E::Context>) -> AeadStep {
        let job = &flight.job;
        flight
            .carried
            .interrupt(AeadError::EngineFault, |ctx| engine.interrupt(ctx, job))
    }

    fn cancel(engine: &mut E, flight: &Flight<'_, E::Context>) {
        engine.cancel(&flight.job);
    }

    /// A decrypt refused for its tag has its payload zeroed here, for every engine,
    /// before the answer is built: whatever an engine left there (a hardware engine
    /// may have decrypted in place before its tag was known) is gone when the client
    /// reads the refusal. So is anything of a decrypt the engine failed in the middle.
    fn finish(
        _: &mut E,
        sessions: &mut Sessions<Self::Session>,
        caller: Caller,
        flight: &mut Flight<'_, E::Context>,
        result: &Result<(), AeadError>,
    ) {
        if flight.job.op == AeadOp::Decrypt
            && matches!(result, Err(AeadError::TagMismatch | AeadError::EngineFault))
        {
            flight.job.data.zero(&flight.job.payload);
        }
        let Ok(s) = sessions.get_mut(caller, flight.carried.session) else {
            return;
        };
        if result.is_ok() {
            s.messages += 1;
        }
        flight.carried.hand_back(s);
    }

    fn answer(id: u32, bytes: u32, result: &Result<(), AeadError>, _last: bool) -> Response {
        let mut r = Response {
            id,
            status: AeadErrorRaw::OK,
            tag_len: 0,
            reserved: [0; 5],
            bytes_done: 0,
        };
        match result {
            Ok(()) => r.bytes_done = bytes,
            Err(e) => r.status = (*e).into(),
        }
        r
    }

    /// Its own trace kind: a finished Aead request names no path.
    fn outcome(r: &Response) -> (Kind, u32) {
        match r.status.check() {
            Ok(Ok(())) => (Kind::AeadDone, 0),
            _ => (Kind::Refused, u32::from(r.status.0)),
        }
    }

    fn precheck(engine: &E, args: &Open) -> Result<(), AeadError> {
        engine.supports(args.call.algorithm, args.call.key_len as usize)?;
        args.checked().map(|_| ())
    }

    fn open(
        engine: &mut E,
        _: Caller,
        _slot: usize,
        args: Open,
    ) -> Result<Self::Session, AeadError> {
        engine.supports(args.call.algorithm, args.call.key_len as usize)?;
        let (data, at, len) = args.checked()?;
        let mut key = Key::default();
        // Checked inside the region: the copy cannot fail.
        let inside = data.region.read_bytes(at, key.fill(len));
        debug_assert!(inside);
        let ctx = engine.open(_slot, args.call.algorithm, key.as_bytes())?;
        Ok(Session {
            algorithm: args.call.algorithm,
            nonce_len: args.call.nonce_len,
            tag_len: args.call.tag_len,
            messages: 0,
            key,
            engine: ctx,
        })
    }

    fn open_args(call: OpenSessionArgs, data: Option<ClientData<'static>>) -> Open {
        Open { call, data }
    }

    fn offers(engine: &E) -> u64 {
        let ok = |a| engine.supports(a, 16).is_ok();
        queued_service::offered(&AeadAlgorithm::ALL, |a| a as u8, ok)
    }
}
