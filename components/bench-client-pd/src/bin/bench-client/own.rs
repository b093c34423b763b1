//! The engines the bench runs in its own PD: the code each driver PD runs, driven a
//! request at a time through its `start` and, for a device, its interrupt, as the
//! driver's service drives it (minus the queues, the checks of a client's request and
//! the PD boundary).

use cipher_service::{CipherEngine, ClientData, Job, Segments, Session, Step};
use cpu_engine::CpuEngine;
use digest_service::DigestEngine;
use pd_idl::cipher::{CipherOp, Mode, Path, Request};
use pd_idl::common::Segment;
use pd_idl::digest::{self, Algorithm, DigestOp, HashPath};
use pd_idl::wire::Caller;
use pio_dma_driver::{Driver, LedgerMeter};
use sec1_hash_driver::{HashState, Sec1Hash};
use sec1_hash_pd::Mem;
use soc_access::{Am335xBus, Mpc885Bus, Stm32mp1Bus};
use virtio_crypto_driver::VirtioCrypto;

use crate::KEY;

/// A board's PIO/DMA driver as its driver PD runs it, metered on the board's ledger.
pub type PioDma<E> = Driver<'static, E, LedgerMeter<'static>>;

/// talitos SEC1's driver as its driver PD runs it.
pub type Sec1 = Sec1Hash<'static, Mpc885Bus, Mem>;

/// Bytes of a SHA-256 digest, written at the request's output place.
pub const DIGEST_BYTES: u32 = 32;

/// A Cipher engine run here. (One lives for the PD's life, in its state; there is no
/// heap to box the larger in.)
#[allow(clippy::large_enum_variant)]
pub enum CipherOwn {
    Cpu(CpuEngine),
    Virtio(VirtioCrypto<mmio::VolatileMmio>),
    Omap(PioDma<omap_aes_driver::Engine<Am335xBus, Am335xBus>>),
    Stm32(PioDma<stm32_cryp_driver::Engine<Stm32mp1Bus, Stm32mp1Bus>>),
}

/// `$body` over whichever engine `$own` holds, named `$e`.
macro_rules! each {
    ($own:expr, $e:ident => $body:expr) => {
        match $own {
            CipherOwn::Cpu($e) => $body,
            CipherOwn::Virtio($e) => $body,
            CipherOwn::Omap($e) => $body,
            CipherOwn::Stm32($e) => $body,
        }
    };
}

impl CipherOwn {
    fn start(&mut self, job: &Job<'_>) -> Step {
        each!(self, e => e.start(job))
    }

    fn interrupt(&mut self, job: &Job<'_>) -> Step {
        each!(self, e => {
            e.interrupted();
            e.interrupt(job)
        })
    }
}

/// An engine run here with the request it works on: AES-128-CBC encryption on a
/// Cipher engine, a SHA-256 digest (one final, its digest written at the output place)
/// on a Digest engine.
#[allow(clippy::large_enum_variant)]
pub enum Own {
    Cipher {
        engine: CipherOwn,
        session: Session,
        segs: Segments,
        /// Kept only while the engine works on it: the CPU engine's loop is its
        /// `start` and nothing of the bench's beside it.
        job: Job<'static>,
    },
    Digest {
        engine: Sec1,
        ctx: HashState,
        segs: digest_service::Segments,
        out: Segment,
        job: digest_service::Job<'static>,
    },
}

/// The session each Cipher driver opens, as the engine here runs it.
pub fn session() -> Session {
    Session {
        iv: [0; 16],
        key: KEY,
        owner: Caller(0),
        mode: Mode::Cbc,
        path: Path::Adaptive,
        key_len: 16,
        usage: cipher_service::ENCRYPT | cipher_service::DECRYPT,
    }
}

impl Own {
    pub fn cipher(engine: CipherOwn, data: ClientData<'static>) -> Own {
        Own::Cipher {
            engine,
            session: session(),
            segs: Segments::EMPTY,
            job: Job::one(session(), CipherOp::Encrypt, Segments::EMPTY, data),
        }
    }

    pub fn digest(mut engine: Sec1, data: ClientData<'static>) -> Own {
        let ctx = engine
            .open(0, Algorithm::Sha256, HashPath::Auto)
            .unwrap_or_else(|e| panic!("bench: SEC1 opens no SHA-256 context: {e:?}"));
        Own::Digest {
            engine,
            ctx,
            segs: digest_service::Segments::EMPTY,
            out: Segment { offset: 0, len: 0 },
            job: digest_job(digest_service::Segments::EMPTY, data),
        }
    }

    /// A run of `size`-byte requests over the start of `data` begins: the request's
    /// segments checked once (the driver checks each client request), the session new.
    pub fn begin(&mut self, data: ClientData<'static>, size: u32) {
        match self {
            Own::Cipher {
                session: s, segs, ..
            } => {
                let request = Request::over(0, 0, CipherOp::Encrypt, &[(0, size)]);
                *segs = cipher_service::validate(&request, data.len(), Mode::Cbc)
                    .expect("the data region holds a request");
                *s = session();
            }
            Own::Digest { segs, out, .. } => {
                let place = output_place(data.len());
                let request = digest::Request::over(
                    0,
                    0,
                    DigestOp::Final,
                    &[(0, size), (place, DIGEST_BYTES)],
                );
                let (s, o) =
                    digest_service::validate(&request, data.len(), Some(DIGEST_BYTES as usize))
                        .expect("the data region holds a request and its digest");
                (*segs, *out) = (s, o.expect("a final's output place"));
            }
        }
    }

    /// Starts the next request: `Some(ok)` if it finished at once, None if it waits for
    /// the engine's interrupt.
    pub fn start(&mut self, data: ClientData<'static>) -> Option<bool> {
        match self {
            Own::Cipher {
                engine,
                session,
                segs,
                job,
            } => {
                let next = Job::one(*session, CipherOp::Encrypt, *segs, data);
                match engine.start(&next) {
                    Step::Pending => {
                        *job = next;
                        None
                    }
                    Step::Done(r) => Some(cipher_done(session, r)),
                }
            }
            Own::Digest {
                engine,
                ctx,
                segs,
                out,
                job,
            } => {
                *job = digest_job(*segs, data);
                let step = engine.start(ctx, job);
                digest_step(engine, ctx, job, *out, step)
            }
        }
    }

    /// The engine's interrupt, as its driver takes it: `Some(ok)` if the request
    /// finished.
    pub fn interrupt(&mut self) -> Option<bool> {
        match self {
            Own::Cipher {
                engine,
                session,
                job,
                ..
            } => match engine.interrupt(job) {
                Step::Pending => None,
                Step::Done(r) => Some(cipher_done(session, r)),
            },
            Own::Digest {
                engine,
                ctx,
                out,
                job,
                ..
            } => {
                let step = engine.interrupt(ctx, job);
                digest_step(engine, ctx, job, *out, step)
            }
        }
    }
}

/// Where a final's digest goes: the data region's last line, which no request's bytes
/// reach ([`data_places`]).
pub fn output_place(len: usize) -> u32 {
    len as u32 - 64
}

/// How many `size`-byte requests fit side by side before the output place.
pub fn data_places(len: usize, size: u32) -> u32 {
    (output_place(len) / size).max(1)
}

fn digest_job(
    segs: digest_service::Segments,
    data: ClientData<'static>,
) -> digest_service::Job<'static> {
    digest_service::Job {
        algorithm: Algorithm::Sha256,
        path: HashPath::Auto,
        op: DigestOp::Final,
        segs,
        data,
        requests: 1,
    }
}

/// A Cipher request finished: the session's IV moves on, as its driver's would.
fn cipher_done(
    session: &mut Session,
    r: Result<cipher_service::Finished, pd_idl::cipher::CipherError>,
) -> bool {
    match r {
        Ok(done) => {
            session.iv = done.next_iv();
            true
        }
        Err(_) => false,
    }
}

/// A digest request's step: when done, its digest written at `out` and the context
/// made fresh for the next message, as the Digest service does after a final.
fn digest_step(
    engine: &mut Sec1,
    ctx: &mut HashState,
    job: &digest_service::Job<'_>,
    out: Segment,
    step: digest_service::DigestStep,
) -> Option<bool> {
    match step {
        digest_service::DigestStep::Pending => None,
        digest_service::DigestStep::Done(Ok(Some(d))) => {
            job.data.write_output(out, d.as_bytes());
            Some(
                engine
                    .restart(0, ctx, Algorithm::Sha256, HashPath::Auto)
                    .is_ok(),
            )
        }
        digest_service::DigestStep::Done(_) => Some(false),
    }
}
