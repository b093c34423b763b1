//! What the one service needs to know of Aead ([`queued_service::Interface`]).

use core::marker::PhantomData;

use pd_idl::aead::{
    AeadAlgorithm, AeadError, AeadErrorRaw, AeadOp, OpenSessionArgs, OpenSessionByKeyArgs, Request,
    Response,
};
use pd_idl::common::Segment;
use pd_idl::keys::{KeyAlgorithm, KeyUsage};
use pd_idl::wire::Caller;
use pd_trace::Kind;
use queued_service::{
    Carried, ClientData, Interface, KeyMaterial, KeyPlace, KeySource, KeyUse, Sessions, Step,
};
use segment_list::{Overlaps, SegmentError};

use crate::{AeadEngine, AeadStep, Job, Key, Segments, Session, nonce_ok, payload_ok, tag_ok};

/// The Aead interface over engine `E`: `Service<'_, Aead<E>>` is an Aead driver.
pub struct Aead<E>(PhantomData<E>);

/// A session's usages, as the Keys interface numbers them (bit `v` for `KeyUsage` `v`).
pub const ENCRYPT: u8 = pd_idl::key_bits::usage(KeyUsage::Encrypt);
pub const DECRYPT: u8 = pd_idl::key_bits::usage(KeyUsage::Decrypt);

/// What a session opens from: the call's algorithm and lengths, its key (in the
/// caller's data region at the call's place, or fetched from the key store) and the
/// usages it may have.
pub struct Open {
    pub call: OpenSessionArgs,
    pub key: KeySource,
    pub usage: u8,
}

impl Open {
    /// An `open_session` call's: the key at its place in `data`; both directions.
    pub fn in_region(call: OpenSessionArgs, data: Option<ClientData<'static>>) -> Self {
        Open {
            key: KeySource::Region {
                data,
                offset: call.key_offset,
                len: call.key_len,
            },
            call,
            usage: ENCRYPT | DECRYPT,
        }
    }

    /// The lengths and the key checked.
    fn checked(&self) -> Result<(), AeadError> {
        if !nonce_ok(self.call.algorithm, usize::from(self.call.nonce_len)) {
            return Err(AeadError::BadNonceLength);
        }
        if !tag_ok(self.call.algorithm, usize::from(self.call.tag_len)) {
            return Err(AeadError::BadTagLength);
        }
        match self.key.check() {
            Err(KeyPlace::NoRegion) => Err(AeadError::BadRequest),
            _ if !matches!(self.key.len(), 16 | 24 | 32) => Err(AeadError::BadKeySize),
            Err(KeyPlace::Outside) => Err(AeadError::BadKeySize),
            Ok(()) => Ok(()),
        }
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
    type Parking = queued_service::NoParking;
    type Engine = E;
    type Request = Request;
    type Response = Response;
    type Error = AeadError;
    type Session = Session<E::Context>;
    type Job<'a> = Flight<'a, E::Context>;
    type Done = ();
    type OpenCall = OpenSessionArgs;
    type Open = Open;
    type ByKey = OpenSessionByKeyArgs;

    /// Payloads are worked in place, tags written.
    const WRITES_DATA: bool = true;

    queued_service::from_idl!(pd_idl::aead, AeadError, keyed);

    fn key_use(call: &OpenSessionByKeyArgs) -> KeyUse {
        KeyUse {
            handle: call.handle,
            algorithm: match call.algorithm {
                AeadAlgorithm::AesGcm => KeyAlgorithm::AesGcm,
                AeadAlgorithm::AesCcm => KeyAlgorithm::AesCcm,
            },
            usage: call.usage & (ENCRYPT | DECRYPT),
        }
    }

    /// The fetched key travels in the `Open` to the session's open; it is wiped when
    /// the `Open` goes.
    fn open_by_key(call: OpenSessionByKeyArgs, key: KeyMaterial) -> Open {
        Open {
            call: OpenSessionArgs {
                algorithm: call.algorithm,
                key_offset: 0,
                key_len: key.len() as u32,
                nonce_len: call.nonce_len,
                tag_len: call.tag_len,
            },
            usage: key.usage & (ENCRYPT | DECRYPT),
            key: KeySource::Store(key),
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
        let needs = if job.op == AeadOp::Decrypt {
            DECRYPT
        } else {
            ENCRYPT
        };
        if session.usage & needs == 0 {
            return Err(AeadError::KeyNotPermitted);
        }
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
        let nonce_len = usize::from(session.nonce_len);
        if !payload_ok(session.algorithm, nonce_len, job.payload.total()) {
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
        args.checked()
    }

    fn open(
        engine: &mut E,
        _: Caller,
        _slot: usize,
        args: Open,
    ) -> Result<Self::Session, AeadError> {
        engine.supports(args.call.algorithm, args.call.key_len as usize)?;
        args.checked()?;
        let mut key = Key::default();
        args.key.copy_to(key.fill(args.key.len()));
        let ctx = engine.open(_slot, args.call.algorithm, key.as_bytes())?;
        Ok(Session {
            algorithm: args.call.algorithm,
            nonce_len: args.call.nonce_len,
            tag_len: args.call.tag_len,
            messages: 0,
            key,
            engine: ctx,
            usage: args.usage,
        })
    }

    fn touched_keys(engine: &mut E) -> bool {
        engine.touched_keys()
    }

    fn closed(engine: &mut E, session: &mut Self::Session) {
        engine.closed(&session.key);
    }

    fn open_args(call: OpenSessionArgs, data: Option<ClientData<'static>>) -> Open {
        Open::in_region(call, data)
    }

    fn offers(engine: &E) -> u64 {
        let ok = |a| engine.supports(a, 16).is_ok();
        queued_service::offered(&AeadAlgorithm::ALL, |a| a as u8, ok)
    }
}
