//! What the hostile clients share, whatever interface they abuse: a batch of bad
//! requests each with the answer it must get, then a flood of valid work that must be
//! answered exactly once per request, then corrupted queue indices so the driver cuts
//! the client off. The binaries (`hostile-cipher`, `hostile-digest`) only build the
//! requests.

use crypto_client::{Completion, Link, Tagged};
use pd_runtime::{ChannelSet, Handler, debug_println, exit, memory_region};

use crate::client::DRIVER;

/// A request's id and status, as the link gave them.
type Outcome<E> = (u32, Option<Result<(), E>>);

/// Checks one batch can hold (request ids 1.. index it).
pub const MAX_CHECKS: usize = 64;

/// A bad (or deliberately good) request and the status it must get.
#[derive(Clone, Copy)]
pub struct Check<E> {
    pub name: &'static str,
    pub want: Result<(), E>,
}

enum Phase {
    Checks { left: usize },
    Flood { answered: u64, next_id: u32 },
}

/// The hostile client over link `Req`/`Resp`, whose errors are `E`.
pub struct Hostile<Req: 'static, Resp: 'static, E> {
    link: Link<'static, Req, Resp>,
    checks: [Option<Check<E>>; MAX_CHECKS],
    phase: Phase,
    failed: u32,
    /// Requests answered in the flood before the client corrupts its queue.
    flood: u64,
    /// The flood's session, and a valid request on it by (id, session).
    flood_session: u32,
    flood_request: fn(u32, u32) -> Req,
    /// A response's status (an unknown value is a failure of the driver).
    status: fn(&Resp) -> Option<Result<(), E>>,
}

impl<
    Req: Tagged,
    Resp: Tagged + core::fmt::Debug,
    E: Copy + PartialEq + core::fmt::Debug + pd_idl::wire::ErrorCode,
> Hostile<Req, Resp, E>
{
    /// `failed`: failures the caller already saw (e.g. in calls made before the batch).
    pub fn new(
        link: Link<'static, Req, Resp>,
        failed: u32,
        flood: u64,
        flood_session: u32,
        flood_request: fn(u32, u32) -> Req,
        status: fn(&Resp) -> Option<Result<(), E>>,
    ) -> Self {
        Hostile {
            link,
            checks: [None; MAX_CHECKS],
            phase: Phase::Checks { left: 0 },
            failed,
            flood,
            flood_session,
            flood_request,
            status,
        }
    }

    /// Queues one check (ids must be below [`MAX_CHECKS`] and unique).
    pub fn send(&mut self, req: Req, check: Check<E>) {
        self.checks[req.id() as usize % MAX_CHECKS] = Some(check);
        self.link.submit(req).expect("the checks fit the queue");
        if let Phase::Checks { left } = &mut self.phase {
            *left += 1;
        }
    }

    /// Tells the driver the batch is there.
    pub fn start(&mut self) {
        DRIVER.notify();
    }

    /// Judges the outcome of request `id`: `got` its status (a request the link
    /// reports `Restarted`, which a driver's `ServerRestarted` answer is, as that error).
    fn outcome(&mut self, id: u32, got: Option<Result<(), E>>) {
        match &mut self.phase {
            Phase::Checks { left } => {
                *left -= 1;
                match self.checks[id as usize % MAX_CHECKS].take() {
                    Some(c) if got == Some(c.want) => match c.want {
                        Err(e) => {
                            debug_println!("hostile: {}: refused with {e:?} as expected", c.name)
                        }
                        Ok(()) => debug_println!("hostile: {}: answered Ok as expected", c.name),
                    },
                    Some(c) => {
                        self.failed += 1;
                        debug_println!("hostile: FAIL {}: got {got:?}, want {:?}", c.name, c.want);
                    }
                    None => {
                        self.failed += 1;
                        debug_println!("hostile: FAIL answer {id} to nothing asked");
                    }
                }
            }
            Phase::Flood { answered, .. } => {
                *answered += 1;
                if got != Some(Ok(())) {
                    self.failed += 1;
                    debug_println!("hostile: FAIL flood request {id}: {got:?}");
                }
            }
        }
    }

    /// Keeps the request queue full of valid work.
    fn fill(&mut self) {
        let Phase::Flood { next_id, .. } = &mut self.phase else {
            return;
        };
        let mut asked = false;
        while let Ok(ask) = self
            .link
            .submit((self.flood_request)(*next_id, self.flood_session))
        {
            asked |= ask;
            *next_id = next_id.wrapping_add(1);
        }
        if asked {
            DRIVER.notify();
        }
    }

    fn corrupt_and_leave(&mut self, answered: u64) -> ! {
        let s = self.link.stats();
        debug_println!(
            "hostile: flood done: {answered} answered, none twice (stray {}, submitted {})",
            s.stray,
            s.submitted
        );
        let q = memory_region!(queues);
        // SAFETY: our own queue region, mapped rw. We scribble on the request queue's
        // tail word (offset 0), which only we, the producer, write: the driver must find
        // the indices impossible and cut us off.
        unsafe { q.vaddr.cast::<u32>().write_volatile(0xdead_0000) };
        DRIVER.notify();
        debug_println!(
            "hostile: request queue indices corrupted; failures {}",
            self.failed
        );
        exit(if self.failed == 0 { 0 } else { 1 })
    }
}

impl<
    Req: Tagged,
    Resp: Tagged + core::fmt::Debug,
    E: Copy + PartialEq + core::fmt::Debug + pd_idl::wire::ErrorCode,
> Handler for Hostile<Req, Resp, E>
{
    fn notified(&mut self, _: ChannelSet) {
        let mut got: [Option<Outcome<E>>; 128] = [None; 128];
        let mut n = 0;
        let status = self.status;
        let notify = self
            .link
            .poll(|c| {
                let outcome = match c {
                    Completion::Answered(r) => (r.id(), status(&r)),
                    Completion::Restarted(id) => (id, Some(Err(E::SERVER_RESTARTED))),
                };
                if n < got.len() {
                    got[n] = Some(outcome);
                    n += 1;
                }
            })
            .expect("our response queue");
        if notify {
            DRIVER.notify();
        }
        for (id, outcome) in got.into_iter().take(n).flatten() {
            self.outcome(id, outcome);
        }
        match self.phase {
            Phase::Checks { left: 0 } => {
                self.phase = Phase::Flood {
                    answered: 0,
                    next_id: 1000,
                };
                debug_println!("hostile: flood begins");
                self.fill();
            }
            Phase::Flood { answered, .. } if answered >= self.flood => {
                self.corrupt_and_leave(answered)
            }
            Phase::Flood { .. } => self.fill(),
            Phase::Checks { .. } => {}
        }
    }
}
