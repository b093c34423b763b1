//! What the one service needs to know of Cipher ([`queued_service::Interface`]).

use core::marker::PhantomData;

use pd_idl::cipher::{
    CipherError, CipherErrorRaw, CipherOp, Mode, OpenSessionArgs, OpenSessionByKeyArgs, Path,
    Request, Response,
};
use pd_idl::keys::KeyAlgorithm;
use pd_idl::wire::Caller;
use pd_trace::Kind;
use queued_service::{ClientData, Interface, KeyMaterial, KeyUse, Sessions};
use segment_list::{Overlaps, join};
use zeroize::Zeroize;

use crate::segments::validate_into;
use crate::{BLOCK, CipherEngine, DECRYPT, ENCRYPT, Finished, Job, Open, Session, Step, validate};

/// The Cipher interface over engine `E`: `Service<'_, Cipher<E>>` is a Cipher driver.
pub struct Cipher<E>(PhantomData<E>);

impl<E: CipherEngine> Interface for Cipher<E> {
    /// Large requests served in pieces (`split`) of two clients at once; a third's goes
    /// whole until a place frees.
    type Parking = queued_service::Park<Self, 2>;
    type Engine = E;
    type Request = Request;
    type Response = Response;
    type Error = CipherError;
    type Session = Session;
    type Job<'a> = Job<'a>;
    type Done = Finished;
    type OpenCall = OpenSessionArgs;
    type Open = Open;

    const WRITES_DATA: bool = true;

    queued_service::from_idl!(pd_idl::cipher, CipherError, keyed);

    fn depth(engine: &E) -> usize {
        engine.depth()
    }

    fn empty_job(data: ClientData<'_>) -> Job<'_> {
        Job::empty(data)
    }

    #[inline]
    fn check<'a>(
        _: &E,
        sessions: &mut Sessions<Session>,
        caller: Caller,
        request: &Request,
        job: &mut Job<'a>,
        slot: usize,
    ) -> Result<(), CipherError> {
        job.op = request.op.get().map_err(|_| CipherError::BadRequest)?;
        job.new_iv = None;
        let new_iv = job.op == CipherOp::EncryptNewIv;
        if new_iv && !E::RANDOM {
            return Err(CipherError::NoRandomness);
        }
        let session = sessions
            .get_mut(caller, request.session)
            .map_err(Self::refuse)?;
        let needs = if job.op == CipherOp::Decrypt {
            DECRYPT
        } else {
            ENCRYPT
        };
        if session.usage & needs == 0 {
            return Err(CipherError::KeyNotPermitted);
        }
        validate_into(&mut job.segs, request, job.data.len(), session.mode)?;
        if new_iv {
            if session.mode == Mode::Ecb {
                return Err(CipherError::UnsupportedMode);
            }
            job.new_iv = Some(
                job.segs
                    .take_output(BLOCK as usize)
                    .ok_or(CipherError::BadRequest)?,
            );
            job.op = CipherOp::Encrypt;
        }
        job.session = *session;
        job.session_id = request.session;
        job.slot = slot;
        job.requests = 1;
        Ok(())
    }

    fn bytes(job: &Job<'_>) -> u32 {
        job.segs.total()
    }

    fn coalesces(engine: &E, job: &Job<'_>) -> bool {
        engine.coalesces(job)
    }

    /// A request's IV carries from piece to piece as from request to request; one that
    /// draws its IV (`EncryptNewIv`) draws it at its start, so it is served whole.
    fn splits(engine: &E, job: &Job<'_>) -> bool {
        engine.splits() && job.new_iv.is_none() && job.requests == 1
    }

    /// Whole blocks but for the last piece, which runs to the end (CTR's partial block).
    fn split(job: &mut Job<'_>, from: u32, most: u32) -> u32 {
        let total = job.segs.total();
        let len = if from.saturating_add(most) >= total {
            total.saturating_sub(from)
        } else {
            (most / BLOCK).max(1) * BLOCK
        };
        job.segs = job.segs.window(from, len);
        job.segs.total()
    }

    /// `next` joins if it may run in the same transfer: the same session and direction,
    /// valid on its own, every request before it whole blocks (so a CTR counter runs on
    /// across the join as the session's IV would), and the segments of both still one
    /// job's worth and disjoint (a later request that rewrote an earlier one's bytes
    /// must see its output, which one streamed transfer would not give it).
    fn join<'a>(engine: &E, job: &mut Job<'a>, first: &Request, next: &Request) -> Option<u32> {
        // A drawn IV starts a chain of its own: nothing joins it (its job has `new_iv`),
        // and it joins nothing (its raw op is not its predecessor's).
        if next.session != first.session || next.op != first.op || job.new_iv.is_some() {
            return None;
        }
        if !job.segs.total().is_multiple_of(BLOCK) {
            return None;
        }
        let region = job.data.len();
        let more = validate(next, region, job.session.mode).ok()?;
        let alone = Job {
            segs: more,
            requests: 1,
            ..*job
        };
        if !engine.coalesces(&alone) {
            return None;
        }
        job.segs = join(&job.segs, &more, region, Overlaps::Refused).ok()?;
        job.requests += 1;
        Some(more.total())
    }

    fn start(engine: &mut E, _: &mut Sessions<Session>, _: Caller, job: &mut Job<'_>) -> Step {
        if let Some(place) = job.new_iv.filter(|_| E::RANDOM) {
            let mut iv = [0u8; BLOCK as usize];
            if !engine.random(&mut iv) {
                return Step::Done(Err(CipherError::NoRandomness));
            }
            // Checked inside the region and apart from the data.
            job.data.write_output(place, &iv);
            job.session.iv = iv;
        }
        engine.start(job)
    }

    fn interrupted(engine: &mut E) {
        engine.interrupted();
    }

    fn interrupt(engine: &mut E, job: &mut Job<'_>) -> Step {
        engine.interrupt(job)
    }

    fn cancel(engine: &mut E, job: &Job<'_>) {
        engine.cancel(job);
    }

    /// Keeps the IV for the session's next request, if the session is still open.
    fn finish(
        _: &mut E,
        sessions: &mut Sessions<Session>,
        caller: Caller,
        job: &mut Job<'_>,
        result: &Result<Finished, CipherError>,
    ) {
        if let (Ok(done), Ok(s)) = (result, sessions.get_mut(caller, job.session_id)) {
            s.iv = done.next_iv();
        }
    }

    fn answer(
        id: u32,
        bytes: u32,
        result: &Result<Finished, CipherError>,
        _last: bool,
    ) -> Response {
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
            Err(e) => r.status = (*e).into(),
        }
        r
    }

    fn outcome(r: &Response) -> (Kind, u32) {
        match (r.status.check(), r.path.get()) {
            (Ok(Ok(())), Ok(Path::Pio)) => (Kind::DonePio, 0),
            (Ok(Ok(())), Ok(Path::Dma)) => (Kind::DoneDma, 0),
            (Ok(Ok(())), _) => (Kind::DoneCpu, 0),
            _ => (Kind::Refused, u32::from(r.status.0)),
        }
    }

    fn precheck(engine: &E, open: &Open) -> Result<(), CipherError> {
        if !matches!(open.args.key_len, 16 | 24 | 32) {
            return Err(CipherError::BadKeySize);
        }
        engine.supports(&session(Caller(0), open))
    }

    fn open(
        engine: &mut E,
        caller: Caller,
        _slot: usize,
        open: Open,
    ) -> Result<Session, CipherError> {
        Self::precheck(engine, &open)?;
        Ok(session(caller, &open))
    }

    type ByKey = OpenSessionByKeyArgs;

    fn key_use(call: &OpenSessionByKeyArgs) -> KeyUse {
        KeyUse {
            handle: call.handle,
            algorithm: match call.mode {
                Mode::Ecb => KeyAlgorithm::AesEcb,
                Mode::Cbc => KeyAlgorithm::AesCbc,
                Mode::Ctr => KeyAlgorithm::AesCtr,
            },
            // Only the usages a cipher session has: the store checks those.
            usage: call.usage & (ENCRYPT | DECRYPT),
        }
    }

    /// A key of a length AES does not take (the store holds HMAC keys too) stays that
    /// length here, for `precheck` to refuse as `BadKeySize`.
    fn open_by_key(call: OpenSessionByKeyArgs, key: KeyMaterial) -> Open {
        let mut args = OpenSessionArgs {
            mode: call.mode,
            path: call.path,
            key_len: key.len().min(33) as u8,
            key: [0; 32],
            iv: call.iv,
        };
        key.copy_to(&mut args.key);
        Open {
            args,
            usage: key.usage & (ENCRYPT | DECRYPT),
        }
    }

    /// The session is `Copy` (a job copies it), so it cannot wipe itself when dropped:
    /// its key is wiped here, in the table's slot (the IV travels with the ciphertext:
    /// nothing to hide).
    fn closed(engine: &mut E, session: &mut Session) {
        engine.closed(session);
        // As a slice: one loop, where the array form unrolls 32 volatile stores (328 B of
        // the STM32 driver's flash, past its budget).
        session.key.as_mut_slice().zeroize();
    }

    fn touched_keys(engine: &mut E) -> bool {
        engine.touched_keys()
    }

    fn forget(job: &mut Job<'_>) {
        job.session.key.as_mut_slice().zeroize();
    }

    fn powered_on(engine: &mut E) {
        engine.context_lost();
    }

    fn open_args(call: OpenSessionArgs, _: Option<ClientData<'static>>) -> Open {
        call.into()
    }

    /// Through `precheck`, the one place `supports` is asked from (a second call site
    /// cost the size-optimised PDs its inlined copy).
    fn offers(engine: &E) -> u64 {
        let mut open = Open::from(OpenSessionArgs {
            mode: Mode::Ecb,
            path: Path::Adaptive,
            key_len: 16,
            key: [0; 32],
            iv: [0; 16],
        });
        let mut bits = 0;
        for mode in Mode::ALL {
            open.args.mode = mode;
            if Self::precheck(engine, &open) != Err(CipherError::UnsupportedMode) {
                bits |= 1 << mode as u8;
            }
        }
        bits
    }
}

fn session(owner: Caller, open: &Open) -> Session {
    let args = &open.args;
    Session {
        owner,
        mode: args.mode,
        path: args.path,
        key_len: args.key_len,
        key: args.key,
        iv: args.iv,
        usage: open.usage,
    }
}
