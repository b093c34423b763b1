//! The Rng service over scripted entropy sources, through `queued-service`'s in-process
//! client and driver: what a fill writes (the CTR_DRBG's output from the samples the
//! health tests let through, checked against `ctr-drbg` run by hand), how a stuck or
//! biased source fails closed and recovers, a device that answers by interrupt, and the
//! typed refusals of bad requests.
use std::cell::RefCell;
use std::rc::Rc;

use ctr_drbg::{Df, Drbg};
use entropy_health::{Claim, STARTUP_SAMPLES};
use pd_idl::rng::{
    HealthTest, OpenSessionArgs, Request, Response, RngAlgorithm, RngError, RngOp, SourceState,
};
use pd_idl::wire::{self, Caller, Message};
use queued_service::testkit::{CLIENT, Region};
use queued_service::{Interface, testkit::Rig};
use rng_service::{Entropy, EntropySource, NONCE_BITS, Rng, SEED_BITS, SourceError};

/// What the scripted device gives.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    /// A xorshift stream (uniform enough for the tests' cutoffs; repeatable).
    Good,
    /// One value for ever.
    Stuck(u8),
    /// Every other sample 0: no repetition, a proportion far past the claim.
    Biased,
    /// The device's own error report on its next take.
    DeviceError,
}

#[derive(Debug)]
struct Script {
    mode: Mode,
    state: u64,
    /// Samples given so far, in order (the test replays them into a DRBG).
    given: Vec<u8>,
    /// Interrupt-driven: `take` gives nothing until `request` armed it, then one batch.
    by_interrupt: bool,
    armed: bool,
    resets: u32,
}

/// A device the test steers while the service owns it.
#[derive(Clone, Debug)]
struct Scripted(Rc<RefCell<Script>>);

const CLAIM_BITS: u8 = 4;

impl Scripted {
    fn new(by_interrupt: bool) -> Self {
        Scripted(Rc::new(RefCell::new(Script {
            mode: Mode::Good,
            state: 0x9e37_79b9_7f4a_7c15,
            given: Vec::new(),
            by_interrupt,
            armed: false,
            resets: 0,
        })))
    }

    fn set(&self, mode: Mode) {
        self.0.borrow_mut().mode = mode;
    }
}

impl EntropySource for Scripted {
    fn claim(&self) -> Claim {
        Claim::bits(CLAIM_BITS).unwrap()
    }

    fn take(&mut self, out: &mut [u8]) -> Result<usize, SourceError> {
        let mut s = self.0.borrow_mut();
        if s.mode == Mode::DeviceError {
            s.mode = Mode::Good;
            return Err(SourceError);
        }
        if s.by_interrupt && !s.armed {
            return Ok(0);
        }
        s.armed = false;
        for b in out.iter_mut() {
            s.state ^= s.state << 13;
            s.state ^= s.state >> 7;
            s.state ^= s.state << 17;
            let n = s.given.len();
            *b = match s.mode {
                Mode::Good | Mode::DeviceError => (s.state >> 32) as u8,
                Mode::Stuck(v) => v,
                Mode::Biased if n.is_multiple_of(2) => 0,
                Mode::Biased => (s.state >> 32) as u8 | 1,
            };
            s.given.push(*b);
        }
        Ok(out.len())
    }

    fn request(&mut self) {
        self.0.borrow_mut().armed = true;
    }

    fn reset(&mut self) {
        self.0.borrow_mut().resets += 1;
    }
}

const LEN: usize = 1 << 17;

fn rig(source: &Scripted) -> Rig<Rng<Scripted>> {
    Rig::new(Entropy::new(source.clone()), Region::new(LEN), None)
}

fn open(rig: &mut Rig<Rng<Scripted>>, caller: Caller, pr: bool, interval: u32) -> u32 {
    rig.open_as(
        caller,
        OpenSessionArgs {
            algorithm: RngAlgorithm::CtrDrbgAes256,
            prediction_resistance: u8::from(pr),
            reseed_interval: interval,
        },
    )
    .expect("open")
}

fn fill(id: u32, session: u32, segs: &[(u32, u32)]) -> Request {
    Request::over(id, session, RngOp::Fill, segs)
}

fn status(r: &Response) -> Result<u32, RngError> {
    match r.status.check() {
        Ok(Ok(())) => Ok(r.bytes_done),
        Ok(Err(e)) => Err(e),
        Err(raw) => panic!("status {raw:?} is no RngError"),
    }
}

fn health(rig: &mut Rig<Rng<Scripted>>, caller: Caller, session: u32) -> pd_idl::rng::Health {
    let msg = Message::encode(pd_idl::rng::OP_HEALTH, &session);
    let reply = Rng::<Scripted>::call(
        &mut rig.service.engine,
        &mut rig.service.sessions,
        caller,
        &msg,
    )
    .expect("health is Rng's call");
    assert_eq!(reply.label, 0, "health refused: {}", reply.label);
    wire::decode_args(&reply).expect("a Health")
}

#[test]
fn a_fill_is_the_drbg_output_of_the_samples_that_passed_start_up() {
    let source = Scripted::new(false);
    let mut rig = rig(&source);
    let s = open(&mut rig, CLIENT, false, 0);
    let segs = [(3, 40), (100, 1), (200, 23)];
    let before = rig.data.bytes().to_vec();
    let r = rig.exchange(CLIENT, &[fill(7, s, &segs)]);
    assert_eq!((r.len(), r[0].id, status(&r[0])), (1, 7, Ok(64)));

    // By hand: the start-up test's samples are not used; the next 64 + 32 (256 and 128
    // bits at 4 bits a sample) seed and nonce the DRBG, personalized with the caller
    // and the session id.
    let given = source.0.borrow().given.clone();
    let used = &given[STARTUP_SAMPLES as usize..];
    let (seed, nonce) = (
        (SEED_BITS / u32::from(CLAIM_BITS)) as usize,
        (NONCE_BITS / u32::from(CLAIM_BITS)) as usize,
    );
    let mut personal = CLIENT.0.to_le_bytes().to_vec();
    personal.extend(s.to_le_bytes());
    let mut d = Drbg::instantiate(
        Df::Use,
        &used[..seed],
        &used[seed..seed + nonce],
        &personal,
        rng_service::DEFAULT_INTERVAL,
    )
    .unwrap();
    let mut want = vec![0u8; 64];
    d.generate(&mut want, &[]).unwrap();
    let bytes = rig.data.bytes();
    let got: Vec<u8> = segs
        .iter()
        .flat_map(|&(o, l)| bytes[o as usize..(o + l) as usize].to_vec())
        .collect();
    assert_eq!(got, want);
    // Nothing outside the segments moved.
    let mut outside = bytes.to_vec();
    let mut expect = before.clone();
    for &(o, l) in &segs {
        outside[o as usize..(o + l) as usize].fill(0);
        expect[o as usize..(o + l) as usize].fill(0);
    }
    assert_eq!(outside, expect);
}

#[test]
fn two_clients_get_unrelated_streams_and_neither_may_use_the_others_session() {
    let source = Scripted::new(false);
    let mut rig = rig(&source);
    let other = Caller(CLIENT.0 + 1);
    let a = open(&mut rig, CLIENT, false, 0);
    let b = open(&mut rig, other, false, 0);
    assert!(status(&rig.exchange(CLIENT, &[fill(1, a, &[(0, 64)])])[0]).is_ok());
    assert!(status(&rig.exchange(other, &[fill(1, b, &[(64, 64)])])[0]).is_ok());
    let bytes = rig.data.bytes().to_vec();
    assert_ne!(bytes[..64], bytes[64..128]);
    let r = rig.exchange(other, &[fill(2, a, &[(128, 16)])]);
    assert_eq!(status(&r[0]), Err(RngError::UnknownSession));
    assert_eq!(
        bytes[128..144],
        rig.data.bytes()[128..144],
        "nothing written"
    );
}

#[test]
fn a_stuck_source_fails_closed_for_every_session_and_recovers_when_it_does() {
    let source = Scripted::new(false);
    let mut rig = rig(&source);
    let pr = open(&mut rig, CLIENT, true, 0);
    let plain = open(&mut rig, CLIENT, false, 0);
    let ok = rig.exchange(
        CLIENT,
        &[fill(1, pr, &[(0, 32)]), fill(2, plain, &[(32, 32)])],
    );
    assert_eq!(ok.iter().map(status).collect::<Vec<_>>(), [Ok(32), Ok(32)]);

    source.set(Mode::Stuck(0x5a));
    let before = rig.data.bytes()[..64].to_vec();
    let tested = rig.service.engine.health().tested();
    let r = rig.exchange(CLIENT, &[fill(3, pr, &[(0, 32)])]);
    assert_eq!(status(&r[0]), Err(RngError::EntropyFailure));
    // Caught at the sample that made the run reach the cutoff, not one later (the rest
    // of the device's batch is dropped untested).
    let cutoff = entropy_health::Cutoffs::for_claim(Claim::bits(CLAIM_BITS).unwrap()).repetition;
    assert_eq!(
        rig.service.engine.health().tested() - tested,
        u64::from(cutoff)
    );
    // The plain session's DRBG needs no sample, but it was seeded before the failure:
    // it must reseed, and the source is failing: refused too.
    let r = rig.exchange(CLIENT, &[fill(4, plain, &[(32, 32)])]);
    assert_eq!(status(&r[0]), Err(RngError::EntropyFailure));
    assert_eq!(rig.data.bytes()[..64], before[..], "nothing written");
    let h = health(&mut rig, CLIENT, pr);
    assert_eq!(h.last_failure.get(), Ok(HealthTest::RepetitionCount));
    assert!(matches!(
        h.state.get(),
        Ok(SourceState::Failed | SourceState::StartUp)
    ));
    assert_eq!(h.failures, 2, "the plain fill's start-up failed again");
    assert_eq!(source.0.borrow().resets, 2, "the device was reset at each");

    source.set(Mode::Good);
    let r = rig.exchange(
        CLIENT,
        &[fill(5, pr, &[(0, 32)]), fill(6, plain, &[(32, 32)])],
    );
    assert_eq!(r.iter().map(status).collect::<Vec<_>>(), [Ok(32), Ok(32)]);
    let h = health(&mut rig, CLIENT, plain);
    assert_eq!(h.state.get(), Ok(SourceState::Healthy));
    assert_eq!(
        h.reseeds, 1,
        "the plain session reseeded after the recovery"
    );
}

#[test]
fn a_biased_source_is_caught_by_the_proportion_test() {
    let source = Scripted::new(false);
    let mut rig = rig(&source);
    let s = open(&mut rig, CLIENT, true, 0);
    assert!(status(&rig.exchange(CLIENT, &[fill(1, s, &[(0, 16)])])[0]).is_ok());
    source.set(Mode::Biased);
    // Each prediction-resistant fill draws a seed's worth (64 samples): a few windows'
    // worth of fills at most before the proportion test sees the bias.
    let mut refused = None;
    for i in 0..40 {
        let r = rig.exchange(CLIENT, &[fill(2 + i, s, &[(0, 16)])]);
        if status(&r[0]).is_err() {
            refused = Some((i, status(&r[0])));
            break;
        }
    }
    let (i, e) = refused.expect("the bias was caught");
    assert_eq!(e, Err(RngError::EntropyFailure));
    assert!(i < 3 * 512 / 64, "caught after {i} fills");
    assert_eq!(
        health(&mut rig, CLIENT, s).last_failure.get(),
        Ok(HealthTest::AdaptiveProportion)
    );
}

#[test]
fn a_device_error_fails_closed_like_a_test() {
    let source = Scripted::new(false);
    let mut rig = rig(&source);
    let s = open(&mut rig, CLIENT, true, 0);
    source.set(Mode::DeviceError);
    let r = rig.exchange(CLIENT, &[fill(1, s, &[(0, 16)])]);
    assert_eq!(status(&r[0]), Err(RngError::EntropyFailure));
    assert_eq!(
        health(&mut rig, CLIENT, s).last_failure.get(),
        Ok(HealthTest::DeviceError)
    );
    // The scripted device recovers at once: the next fill passes a fresh start-up.
    assert_eq!(
        status(&rig.exchange(CLIENT, &[fill(2, s, &[(0, 16)])])[0]),
        Ok(16)
    );
}

#[test]
fn a_device_that_answers_by_interrupt_finishes_the_fill_at_its_interrupts() {
    let source = Scripted::new(true);
    let mut rig = rig(&source);
    let s = open(&mut rig, CLIENT, false, 0);
    assert!(rig.serve_once(CLIENT, &[fill(1, s, &[(0, 48)])]).is_empty());
    assert!(rig.service.busy(), "waiting for samples");
    let mut answers = Vec::new();
    for _ in 0..1000 {
        let (_, given) = rig.interrupt();
        answers.extend(given);
        if !answers.is_empty() {
            break;
        }
    }
    assert_eq!(answers.len(), 1);
    assert_eq!(status(&answers[0].1), Ok(48));
}

#[test]
fn the_interval_and_a_reseed_request_reseed() {
    let source = Scripted::new(false);
    let mut rig = rig(&source);
    let s = open(&mut rig, CLIENT, false, 2);
    for i in 0..3 {
        assert!(status(&rig.exchange(CLIENT, &[fill(i, s, &[(0, 16)])])[0]).is_ok());
    }
    let h = health(&mut rig, CLIENT, s);
    assert_eq!((h.reseeds, h.since_reseed, h.reseed_interval), (1, 1, 2));
    let reseed = Request::over(9, s, RngOp::Reseed, &[]);
    assert_eq!(status(&rig.exchange(CLIENT, &[reseed])[0]), Ok(0));
    assert_eq!(health(&mut rig, CLIENT, s).reseeds, 2);
}

#[test]
fn bad_requests_get_typed_errors_and_write_nothing() {
    let source = Scripted::new(false);
    let mut rig = rig(&source);
    let s = open(&mut rig, CLIENT, false, 0);
    let mut bad_op = fill(1, s, &[(0, 16)]);
    bad_op.op = pd_idl::rng::RngOpRaw(9);
    let cases = [
        (bad_op, RngError::BadRequest),
        (
            Request::over(2, s, RngOp::Reseed, &[(0, 4)]),
            RngError::BadRequest,
        ),
        (
            fill(3, s, &[(LEN as u32 - 4, 8)]),
            RngError::SegmentOutOfRange,
        ),
        (fill(4, s, &[(0, 16), (8, 16)]), RngError::BadRequest),
        (fill(5, s, &[(0, 1); 7]), RngError::TooManySegments),
        (fill(6, s, &[(0, 65_536), (65_536, 1)]), RngError::TooLong),
        (fill(7, s ^ 1, &[(0, 16)]), RngError::UnknownSession),
    ];
    let before = rig.data.bytes().to_vec();
    let requests: Vec<_> = cases.iter().map(|c| c.0).collect();
    let got: Vec<_> = rig.exchange(CLIENT, &requests).iter().map(status).collect();
    let want: Vec<_> = cases.iter().map(|c| Err(c.1)).collect();
    assert_eq!(got, want);
    assert_eq!(rig.data.bytes(), &before[..]);
    // The health call of an unknown session is refused too.
    let msg = Message::encode(pd_idl::rng::OP_HEALTH, &(s ^ 1));
    let reply = Rng::<Scripted>::call(
        &mut rig.service.engine,
        &mut rig.service.sessions,
        CLIENT,
        &msg,
    )
    .unwrap();
    assert_eq!(reply.label, u64::from(RngError::UnknownSession as u16));
}

/// The `draw` call as a PD makes it: its reply, decoded.
fn draw(
    rig: &mut Rig<Rng<Scripted>>,
    caller: Caller,
    session: u32,
    len: u8,
) -> Result<Vec<u8>, u64> {
    let msg = Message::encode(
        pd_idl::rng::OP_DRAW,
        &pd_idl::rng::DrawArgs { session, len },
    );
    let reply = Rng::<Scripted>::call(
        &mut rig.service.engine,
        &mut rig.service.sessions,
        caller,
        &msg,
    )
    .expect("draw is Rng's call");
    if reply.label != 0 {
        return Err(reply.label);
    }
    let r: pd_idl::rng::Random = wire::decode_args(&reply).expect("a Random");
    assert!(r.bytes[usize::from(r.len)..].iter().all(|&b| b == 0));
    Ok(r.bytes[..usize::from(r.len)].to_vec())
}

#[test]
fn a_draw_answers_at_once_from_the_sessions_drbg_or_says_why_not() {
    let code = |e: RngError| Err(u64::from(e as u16));
    let source = Scripted::new(false);
    let mut rig = rig(&source);
    let s = open(&mut rig, CLIENT, false, 0);
    let a = draw(&mut rig, CLIENT, s, 32).unwrap();
    let b = draw(&mut rig, CLIENT, s, 12).unwrap();
    assert_eq!((a.len(), b.len()), (32, 12));
    assert_ne!(a[..12], b[..]);
    assert_eq!(draw(&mut rig, CLIENT, s, 33), code(RngError::TooLong));
    assert_eq!(
        draw(&mut rig, Caller(CLIENT.0 + 1), s, 8),
        code(RngError::UnknownSession)
    );
    assert_eq!(health(&mut rig, CLIENT, s).since_reseed, 2, "two generates");
    source.set(Mode::Stuck(7));
    let pr = open(&mut rig, CLIENT, true, 0);
    assert_eq!(
        draw(&mut rig, CLIENT, pr, 16),
        code(RngError::EntropyFailure)
    );

    // A device that answers by interrupt: the first draw finds no samples yet.
    let source = Scripted::new(true);
    let mut late = self::rig(&source);
    let rig = &mut late;
    let s = open(rig, CLIENT, false, 0);
    assert_eq!(draw(rig, CLIENT, s, 16), code(RngError::NotReady));
    let mut tries = 0;
    let got = loop {
        // The PD would take the device's interrupt meanwhile; the scripted device gives
        // a batch per request, which each NotReady made.
        match draw(rig, CLIENT, s, 16) {
            Ok(bytes) => break bytes,
            Err(e) => assert_eq!(Err(e), code(RngError::NotReady)),
        }
        tries += 1;
        assert!(tries < 100, "never ready");
    };
    assert_eq!(got.len(), 16);
}
