//! What the one service needs to know of Rng ([`queued_service::Interface`]).

use core::marker::PhantomData;

use ctr_drbg::{Df, Drbg, MAX_REQUEST};
use pd_idl::rng::{
    self, DrawArgs, HealthArgs, HealthTest, OpenSessionArgs, Random, Request, Response,
    RngAlgorithm, RngError, RngErrorRaw, RngOp, SourceState,
};
use pd_idl::wire::{self, Caller, Message};
use pd_trace::Kind;
use queued_service::{ClientData, Interface, Segments, Sessions, Step};
use segment_list::{Overlaps, SegmentError};
use zeroize::Zeroize;

use crate::{
    DEFAULT_INTERVAL, Entropy, EntropySource, FailedBy, Failure, Gathered, NONCE_BITS, SEED_BITS,
    Session, SourceState as State,
};

/// The Rng interface over entropy source `S`: `Service<'_, Rng<S>>` is an Rng driver.
pub struct Rng<S>(PhantomData<S>);

/// One checked request as the service holds it: its segments, the session it names,
/// and while it runs that session's DRBG (taken out of the session at start, handed
/// back at finish; dropped, so wiped, if the session closed meanwhile).
pub struct Fill<'a> {
    pub op: RngOp,
    pub segs: Segments,
    pub data: ClientData<'a>,
    session: u32,
    drbg: Option<Drbg>,
    /// A reseed asked for regardless of the interval (a `Reseed` request, prediction
    /// resistance).
    force: bool,
    interval: u64,
    /// The source's failure count the job's DRBG was seeded under.
    seeded_at: u32,
    /// Whether this job reseeded (an instantiation is no reseed).
    reseeded: bool,
    personalization: [u8; 8],
}

/// What making a DRBG ready did.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Seeded {
    Already,
    Instantiated,
    Reseeded,
}

/// Why a DRBG is not ready.
enum Wait {
    /// Samples were asked for; the source's interrupt will bring them.
    Pending,
    Failed(RngError),
}

/// Instantiates `drbg` if it is none, or reseeds it if `force`, its interval passed or
/// the source failed since `seeded_at` (a failure moves the epoch, so a failing source
/// always reaches the gather: nothing is generated without a start-up test passed
/// since), from the pool. Where a fill's job and a draw's call both begin.
fn ensure_seeded<S: EntropySource>(
    engine: &mut Entropy<S>,
    drbg: &mut Option<Drbg>,
    force: bool,
    seeded_at: &mut u32,
    interval: u64,
    personal: &[u8; 8],
) -> Result<Seeded, Wait> {
    let instantiate = drbg.is_none();
    let reseed =
        force || *seeded_at != engine.epoch() || drbg.as_ref().is_some_and(Drbg::needs_reseed);
    if !instantiate && !reseed {
        return Ok(Seeded::Already);
    }
    let seed = engine.samples_for(SEED_BITS);
    let nonce = if instantiate {
        engine.samples_for(NONCE_BITS)
    } else {
        0
    };
    match engine.gather(seed + nonce) {
        Gathered::Pending => return Err(Wait::Pending),
        Gathered::Failed => return Err(Wait::Failed(RngError::EntropyFailure)),
        Gathered::Ready => {}
    }
    let seeded = engine.take_pooled(seed + nonce, |pool| match drbg {
        None => Drbg::instantiate(Df::Use, &pool[..seed], &pool[seed..], personal, interval)
            .map(|d| *drbg = Some(d)),
        Some(d) => d.reseed(pool, &[]),
    });
    // Lengths are this crate's own; a refusal is a bug, not the client's.
    seeded.map_err(|_| Wait::Failed(RngError::EngineFault))?;
    *seeded_at = engine.epoch();
    Ok(if instantiate {
        Seeded::Instantiated
    } else {
        Seeded::Reseeded
    })
}

/// The personalization of a session's DRBG: its client's channel and its id.
fn personalization(caller: Caller, session: u32) -> [u8; 8] {
    let mut p = [0u8; 8];
    p[..4].copy_from_slice(&caller.0.to_le_bytes());
    p[4..].copy_from_slice(&session.to_le_bytes());
    p
}

impl<S: EntropySource> Rng<S> {
    /// Seeds the job's DRBG if it needs it, then fills: the whole job from wherever it
    /// stands, at start and at each interrupt until the samples came.
    fn advance(engine: &mut Entropy<S>, fill: &mut Fill<'_>) -> Step<(), RngError> {
        let personal = fill.personalization;
        match ensure_seeded(
            engine,
            &mut fill.drbg,
            fill.force,
            &mut fill.seeded_at,
            fill.interval,
            &personal,
        ) {
            Err(Wait::Pending) => return Step::Pending,
            Err(Wait::Failed(e)) => return Step::Done(Err(e)),
            Ok(Seeded::Reseeded) => fill.reseeded = true,
            Ok(_) => {}
        }
        fill.force = false;
        let Some(drbg) = &mut fill.drbg else {
            return Step::Done(Err(RngError::EngineFault));
        };
        if fill.op == RngOp::Reseed {
            return Step::Done(Ok(()));
        }
        let (segs, region) = (fill.segs.as_slice(), fill.data.region);
        let (mut seg, mut at) = (0, 0usize);
        let generated = drbg.generate_into(fill.segs.total() as usize, &[], |mut block| {
            // Lay the block over the segments from where the last one stopped: a block
            // may end one segment and begin the next.
            while !block.is_empty() {
                let s = segs[seg];
                let n = block.len().min(s.len as usize - at);
                let inside = region.write_bytes(s.offset as usize + at, &block[..n]);
                debug_assert!(inside);
                block = &block[n..];
                at += n;
                if at == s.len as usize {
                    (seg, at) = (seg + 1, 0);
                }
            }
        });
        Step::Done(generated.map_err(|_| RngError::EngineFault))
    }
}

impl<S: EntropySource> Interface for Rng<S> {
    type Parking = queued_service::NoParking;
    type Engine = Entropy<S>;
    type Request = Request;
    type Response = Response;
    type Error = RngError;
    type Session = Session;
    type Job<'a> = Fill<'a>;
    type Done = ();
    type OpenCall = OpenSessionArgs;
    type Open = OpenSessionArgs;
    type ByKey = queued_service::Unkeyed;

    /// A fill writes random bytes into the client's region.
    const WRITES_DATA: bool = true;

    queued_service::from_idl!(pd_idl::rng, RngError);

    fn empty_job(data: ClientData<'_>) -> Fill<'_> {
        Fill {
            op: RngOp::Fill,
            segs: Segments::EMPTY,
            data,
            session: 0,
            drbg: None,
            force: false,
            interval: DEFAULT_INTERVAL,
            seeded_at: 0,
            reseeded: false,
            personalization: [0; 8],
        }
    }

    fn check<'a>(
        _: &Entropy<S>,
        sessions: &mut Sessions<Session>,
        caller: Caller,
        request: &Request,
        fill: &mut Fill<'a>,
        _slot: usize,
    ) -> Result<(), RngError> {
        // A DRBG left by a job that never finished (its client cut off) is wiped here.
        fill.drbg = None;
        fill.op = request.op.get().map_err(|_| RngError::BadRequest)?;
        sessions
            .get_mut(caller, request.session)
            .map_err(Self::refuse)?;
        match fill.op {
            RngOp::Fill => segment_list::check_into(
                &mut fill.segs,
                &request.segs,
                request.nsegs,
                fill.data.len(),
                // Random bytes written twice over shared bytes would count twice.
                Overlaps::Refused,
            )
            .map_err(|e| match e {
                SegmentError::TooMany => RngError::TooManySegments,
                SegmentError::OutOfRange => RngError::SegmentOutOfRange,
                SegmentError::TooLong | SegmentError::Overlap => RngError::BadRequest,
            })?,
            RngOp::Reseed if request.nsegs == 0 => fill.segs = Segments::EMPTY,
            RngOp::Reseed => return Err(RngError::BadRequest),
        }
        if fill.segs.total() as usize > MAX_REQUEST {
            return Err(RngError::TooLong);
        }
        fill.session = request.session;
        Ok(())
    }

    fn bytes(fill: &Fill<'_>) -> u32 {
        fill.segs.total()
    }

    fn start(
        engine: &mut Entropy<S>,
        sessions: &mut Sessions<Session>,
        caller: Caller,
        fill: &mut Fill<'_>,
    ) -> Step<(), RngError> {
        let Ok(s) = sessions.get_mut(caller, fill.session) else {
            return Step::Done(Err(RngError::UnknownSession));
        };
        fill.drbg = s.drbg.take();
        // The move left the state's bytes in the session: wiped there.
        s.drbg.zeroize();
        s.carried = true;
        fill.force = fill.op == RngOp::Reseed || s.prediction_resistance;
        fill.interval = s.interval;
        fill.seeded_at = s.seeded_at;
        fill.reseeded = false;
        fill.personalization = personalization(caller, fill.session);
        Self::advance(engine, fill)
    }

    fn interrupted(engine: &mut Entropy<S>) {
        engine.source.interrupted();
    }

    fn interrupt(engine: &mut Entropy<S>, fill: &mut Fill<'_>) -> Step<(), RngError> {
        Self::advance(engine, fill)
    }

    fn cancel(engine: &mut Entropy<S>, _: &Fill<'_>) {
        engine.source.reset();
    }

    fn finish(
        _: &mut Entropy<S>,
        sessions: &mut Sessions<Session>,
        caller: Caller,
        fill: &mut Fill<'_>,
        _: &Result<(), RngError>,
    ) {
        let drbg = fill.drbg.take();
        // The job's memory is reused by the next request: the moved state's bytes go.
        fill.drbg.zeroize();
        let Ok(s) = sessions.get_mut(caller, fill.session) else {
            // Closed meanwhile: the DRBG goes with the job, wiped.
            return;
        };
        s.carried = false;
        s.since_reseed = drbg.as_ref().map_or(0, |d| {
            d.generates_since_seed().min(u64::from(u32::MAX)) as u32
        });
        s.drbg = drbg;
        s.seeded_at = fill.seeded_at;
        s.reseeds += u32::from(fill.reseeded);
    }

    fn answer(id: u32, bytes: u32, result: &Result<(), RngError>, _last: bool) -> Response {
        let mut r = Response {
            id,
            status: RngErrorRaw::OK,
            reserved: [0; 6],
            bytes_done: 0,
        };
        match result {
            Ok(()) => r.bytes_done = bytes,
            Err(e) => r.status = (*e).into(),
        }
        r
    }

    fn outcome(r: &Response) -> (Kind, u32) {
        match r.status.check() {
            Ok(Ok(())) => (Kind::Filled, 0),
            Ok(Err(RngError::EntropyFailure)) => (Kind::EntropyFailure, 0),
            _ => (Kind::Refused, u32::from(r.status.0)),
        }
    }

    fn open(
        _: &mut Entropy<S>,
        _: Caller,
        _slot: usize,
        args: OpenSessionArgs,
    ) -> Result<Session, RngError> {
        // The one algorithm: decoding refused any other value already.
        let RngAlgorithm::CtrDrbgAes256 = args.algorithm;
        let interval = match args.reseed_interval {
            0 => DEFAULT_INTERVAL,
            n => u64::from(n),
        };
        Ok(Session {
            drbg: None,
            prediction_resistance: args.prediction_resistance != 0,
            interval,
            seeded_at: 0,
            reseeds: 0,
            since_reseed: 0,
            carried: false,
        })
    }

    fn open_args(call: OpenSessionArgs, _: Option<ClientData<'static>>) -> OpenSessionArgs {
        call
    }

    fn offers(_: &Entropy<S>) -> u64 {
        queued_service::offered(&RngAlgorithm::ALL, |a| a as u8, |_| true)
    }

    fn call(
        engine: &mut Entropy<S>,
        sessions: &mut Sessions<Session>,
        caller: Caller,
        msg: &Message,
    ) -> Option<Message> {
        Some(match msg.label {
            rng::OP_HEALTH => match wire::decode_args::<HealthArgs>(msg) {
                Ok(args) => wire::reply(
                    sessions
                        .get(caller, args.session)
                        .map(|s| health(engine, s))
                        .map_err(Self::refuse),
                ),
                Err(e) => Message::protocol_error(e),
            },
            rng::OP_DRAW => match wire::decode_args::<DrawArgs>(msg) {
                Ok(args) => wire::reply(Self::draw(engine, sessions, caller, args)),
                Err(e) => Message::protocol_error(e),
            },
            _ => return None,
        })
    }
}

impl<S: EntropySource> Rng<S> {
    /// The `draw` call: one generate of up to 32 bytes from the caller's session, at
    /// once or `NotReady`.
    fn draw(
        engine: &mut Entropy<S>,
        sessions: &mut Sessions<Session>,
        caller: Caller,
        args: DrawArgs,
    ) -> Result<Random, RngError> {
        let mut out = Random {
            len: args.len,
            reserved: [0; 3],
            bytes: [0; 32],
        };
        if usize::from(args.len) > out.bytes.len() {
            return Err(RngError::TooLong);
        }
        let s = sessions
            .get_mut(caller, args.session)
            .map_err(Self::refuse)?;
        if s.carried {
            // A fill of the session holds its DRBG until it finishes.
            return Err(RngError::NotReady);
        }
        let personal = personalization(caller, args.session);
        match ensure_seeded(
            engine,
            &mut s.drbg,
            s.prediction_resistance,
            &mut s.seeded_at,
            s.interval,
            &personal,
        ) {
            Err(Wait::Pending) => return Err(RngError::NotReady),
            Err(Wait::Failed(e)) => return Err(e),
            Ok(Seeded::Reseeded) => s.reseeds += 1,
            Ok(_) => {}
        }
        let Some(drbg) = &mut s.drbg else {
            return Err(RngError::EngineFault);
        };
        drbg.generate(&mut out.bytes[..usize::from(args.len)], &[])
            .map_err(|_| RngError::EngineFault)?;
        s.since_reseed = drbg.generates_since_seed().min(u64::from(u32::MAX)) as u32;
        Ok(out)
    }
}

/// The `health` call's answer for session `s`.
fn health<S: EntropySource>(engine: &Entropy<S>, s: &Session) -> rng::Health {
    let h = engine.health();
    let state = match h.state() {
        State::StartUp(_) => SourceState::StartUp,
        State::Healthy => SourceState::Healthy,
        State::Failed(_) => SourceState::Failed,
    };
    let last = match engine.last_failure() {
        None => HealthTest::None,
        Some(FailedBy::Device) => HealthTest::DeviceError,
        Some(FailedBy::Test(Failure::Repetition)) => HealthTest::RepetitionCount,
        Some(FailedBy::Test(Failure::Proportion)) => HealthTest::AdaptiveProportion,
    };
    rng::Health {
        state: state.into(),
        last_failure: last.into(),
        claim: engine.source.claim().as_sixteenths(),
        reserved: 0,
        failures: engine.epoch(),
        reseeds: s.reseeds,
        since_reseed: s.since_reseed,
        reseed_interval: s.interval.min(u64::from(u32::MAX)) as u32,
    }
}
