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
use sec1_hash_driver::{HashState, Sec1Hash};
use sec1_hash_pd::Mem;
use soc_access::{Am335xBus, Mpc885Bus, Stm32mp1Bus};
use virtio_crypto_driver::VirtioCrypto;

use crate::KEY;

/// A board's PIO/DMA driver as its driver PD runs it, metered on the board's ledger.
pub type PioDma<E> = pio_dma_driver::pd::BoardDriver<E>;

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
    Cipher(CipherRun),
    Digest(DigestRun),
}

pub struct CipherRun {
    engine: CipherOwn,
    session: Session,
    segs: Segments,
    /// Kept only while the engine works on it: the CPU engine's loop is its `start`
    /// and nothing of the bench's beside it.
    job: Job<'static>,
}

pub struct DigestRun {
    engine: Sec1,
    ctx: HashState,
    segs: digest_service::Segments,
    out: Segment,
    job: digest_service::Job<'static>,
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
        Own::Cipher(CipherRun {
            engine,
            session: session(),
            segs: Segments::EMPTY,
            job: Job::one(session(), CipherOp::Encrypt, Segments::EMPTY, data),
        })
    }

    pub fn digest(mut engine: Sec1, data: ClientData<'static>) -> Own {
        let ctx = engine
            .open(0, Algorithm::Sha256, HashPath::Auto)
            .unwrap_or_else(|e| panic!("bench: SEC1 opens no SHA-256 context: {e:?}"));
        Own::Digest(DigestRun {
            engine,
            ctx,
            segs: digest_service::Segments::EMPTY,
            out: Segment { offset: 0, len: 0 },
            job: digest_job(digest_service::Segments::EMPTY, data),
        })
    }

    /// A run of `size`-byte requests over the start of `data` begins: the request's
    /// segments checked once (the driver checks each client request), the session new.
    pub fn begin(&mut self, data: ClientData<'static>, size: u32) {
        match self {
            Own::Cipher(c) => {
                let request = Request::over(0, 0, CipherOp::Encrypt, &[(0, size)]);
                c.segs = cipher_service::validate(&request, data.len(), Mode::Cbc)
                    .expect("the data region holds a request");
                c.session = session();
            }
            Own::Digest(d) => {
                let segs = [(0, size), (output_place(data.len()), DIGEST_BYTES)];
                let request = digest::Request::over(0, 0, DigestOp::Final, &segs);
                let digest = Some(DIGEST_BYTES as usize);
                let (segs, out) = digest_service::validate(&request, data.len(), digest)
                    .expect("the data region holds a request and its digest");
                (d.segs, d.out) = (segs, out.expect("a final's output place"));
            }
        }
    }

    /// Starts the next request: `Some(ok)` if it finished at once, None if it waits for
    /// the engine's interrupt.
    pub fn start(&mut self, data: ClientData<'static>) -> Option<bool> {
        match self {
            Own::Cipher(c) => {
                let next = Job::one(c.session, CipherOp::Encrypt, c.segs, data);
                let step = c.engine.start(&next);
                if let Step::Pending = step {
                    c.job = next;
                }
                c.finished(step)
            }
            Own::Digest(d) => {
                d.job = digest_job(d.segs, data);
                let step = d.engine.start(&mut d.ctx, &d.job);
                d.finished(step)
            }
        }
    }

    /// The engine's interrupt, as its driver takes it: `Some(ok)` if the request
    /// finished.
    pub fn interrupt(&mut self) -> Option<bool> {
        match self {
            Own::Cipher(c) => {
                let step = c.engine.interrupt(&c.job);
                c.finished(step)
            }
            Own::Digest(d) => {
                let step = d.engine.interrupt(&mut d.ctx, &d.job);
                d.finished(step)
            }
        }
    }
}

impl CipherRun {
    /// `Some(ok)` once the request is done, the session's IV moved on as its driver's
    /// would.
    fn finished(&mut self, step: Step) -> Option<bool> {
        match step {
            Step::Pending => None,
            Step::Done(Ok(done)) => {
                self.session.iv = done.next_iv();
                Some(true)
            }
            Step::Done(Err(_)) => Some(false),
        }
    }
}

impl DigestRun {
    /// `Some(ok)` once the request is done: its digest written at the output place and
    /// the context made fresh for the next message, as the Digest service does after a
    /// final.
    fn finished(&mut self, step: digest_service::DigestStep) -> Option<bool> {
        match step {
            digest_service::DigestStep::Pending => None,
            digest_service::DigestStep::Done(Ok(Some(digest))) => {
                self.job.data.write_output(self.out, digest.as_bytes());
                let sha256 = (Algorithm::Sha256, HashPath::Auto);
                Some(
                    self.engine
                        .restart(0, &mut self.ctx, sha256.0, sha256.1)
                        .is_ok(),
                )
            }
            digest_service::DigestStep::Done(_) => Some(false),
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
