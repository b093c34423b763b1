//! A driver PD's queues as the bench uses them: its interface's link, the one request
//! the bench sends (AES-128-CBC encryption, or a SHA-256 final with its output place),
//! and the answers counted.

use crypto_client::{CipherLink, Completion, DigestLink, Link, Tagged};
use pd_idl::cipher::{self, CipherOp};
use pd_idl::digest::{self, DigestOp};
use shm_queue::QueueError;

use crate::own::DIGEST_BYTES;

pub enum Queues {
    Cipher(CipherLink<'static>),
    Digest(DigestLink<'static>),
}

/// What one poll of the answers found.
pub struct Polled {
    pub answered: u32,
    /// Refused, failed or restarted.
    pub failed: u32,
    /// The driver must be notified.
    pub notify: bool,
}

impl Queues {
    /// Queues request `id` of `session` over `size` bytes at `at` (a final writes its
    /// digest at `out`); false if the queue has no room.
    pub fn queue(&mut self, id: u32, session: u32, (at, size): (u32, u32), out: u32) -> bool {
        match self {
            Queues::Cipher(l) => l
                .queue(cipher::Request::over(
                    id,
                    session,
                    CipherOp::Encrypt,
                    &[(at, size)],
                ))
                .is_ok(),
            Queues::Digest(l) => {
                let segs = [(at, size), (out, DIGEST_BYTES)];
                l.queue(digest::Request::over(id, session, DigestOp::Final, &segs))
                    .is_ok()
            }
        }
    }

    /// Whether the driver asked to be notified of what was queued.
    pub fn flush(&mut self) -> bool {
        match self {
            Queues::Cipher(l) => l.flush(),
            Queues::Digest(l) => l.flush(),
        }
    }

    /// Takes every answer waiting.
    pub fn poll(&mut self) -> Result<Polled, QueueError> {
        match self {
            Queues::Cipher(l) => poll(l, |r| r.status.check() == Ok(Ok(()))),
            Queues::Digest(l) => poll(l, |r| r.status.check() == Ok(Ok(()))),
        }
    }
}

fn poll<Req: Tagged, Resp: Tagged>(
    link: &mut Link<'static, Req, Resp>,
    ok: impl Fn(&Resp) -> bool,
) -> Result<Polled, QueueError> {
    let (mut answered, mut failed) = (0, 0);
    let notify = link.poll(|c| match c {
        Completion::Answered(r) if ok(&r) => answered += 1,
        _ => failed += 1,
    })?;
    Ok(Polled {
        answered,
        failed,
        notify,
    })
}
