//! A hostile Digest client: every kind of bad request a client can send to a hash
//! driver, then a flood of updates, then corrupted queue indices. It checks that each
//! bad request gets its typed error (and prints it), that every flooded request is
//! answered exactly once, and finally breaks its request queue so the driver cuts it
//! off. Exits 0 only if every answer was as expected.
use crypto_client::{Completion, DigestLink, digest_request};
use crypto_pds::client::{DRIVER, Data, link};
use pd_idl::digest::{
    self, Algorithm, DigestError, DigestOp, DigestOpRaw, HashPath, REQUEST_QUEUE_CAPACITY, Response,
};
use pd_idl::wire::{self, Message, PROTOCOL_BASE, ProtocolError};
use pd_runtime::ipc::PpcTransport;
use pd_runtime::{ChannelSet, Handler, debug_println, exit, memory_region};

/// Requests answered in the flood before the client stops.
const FLOOD: u64 = 5_000;

#[derive(Clone, Copy)]
struct Check {
    name: &'static str,
    want: Result<(), DigestError>,
}

enum Phase {
    Checks { left: usize },
    Flood { answered: u64, next_id: u32 },
}

struct Hostile {
    link: DigestLink<'static>,
    checks: [Option<Check>; 16],
    phase: Phase,
    failed: u32,
    session: u32,
}

impl Hostile {
    fn send(&mut self, req: digest::Request, check: Check) {
        self.checks[req.id as usize] = Some(check);
        if self
            .link
            .submit(req)
            .expect("an empty queue takes every check")
        {
            DRIVER.notify();
        }
    }

    fn answer(&mut self, resp: Response) {
        match &mut self.phase {
            Phase::Checks { left } => {
                let got = resp.status.check().expect("a status the interface defines");
                match self.checks.get_mut(resp.id as usize).and_then(Option::take) {
                    Some(c) if got == c.want => {
                        debug_println!("hostile: {}: answered {:?} as expected", c.name, c.want)
                    }
                    Some(c) => {
                        self.failed += 1;
                        debug_println!("hostile: FAIL {}: got {got:?}, want {:?}", c.name, c.want);
                    }
                    None => {
                        self.failed += 1;
                        debug_println!("hostile: FAIL answer {} to nothing asked", resp.id);
                    }
                }
                *left -= 1;
            }
            Phase::Flood { answered, .. } => {
                *answered += 1;
                if resp.status.check() != Ok(Ok(())) {
                    self.failed += 1;
                    debug_println!("hostile: FAIL flood request {}: {:?}", resp.id, resp.status);
                }
            }
        }
    }

    fn flood(&mut self) {
        let Phase::Flood { next_id, .. } = &mut self.phase else {
            return;
        };
        let mut asked = false;
        loop {
            let req = digest_request(*next_id, self.session, DigestOp::Update, &[(0, 64)]);
            match self.link.submit(req) {
                Ok(ask) => {
                    asked |= ask;
                    *next_id = next_id.wrapping_add(1);
                }
                Err(_) => break,
            }
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

impl Handler for Hostile {
    fn notified(&mut self, _: ChannelSet) {
        let mut got = [None; 128];
        let mut n = 0;
        let notify = self
            .link
            .poll(|c| {
                if let Completion::Answered(r) = c {
                    got[n] = Some(r);
                    n += 1;
                }
            })
            .expect("our response queue");
        if notify {
            DRIVER.notify();
        }
        for r in got.into_iter().take(n).flatten() {
            self.answer(r);
        }
        match self.phase {
            Phase::Checks { left: 0 } => {
                self.phase = Phase::Flood {
                    answered: 0,
                    next_id: 1000,
                };
                debug_println!("hostile: flood begins");
                self.flood();
            }
            Phase::Flood { answered, .. } if answered >= FLOOD => self.corrupt_and_leave(answered),
            Phase::Flood { .. } => self.flood(),
            Phase::Checks { .. } => {}
        }
    }
}

fn init() -> Hostile {
    let data = Data::map();
    data.write(0, &[0x5a; 64]);
    let mut failed = 0;
    // An algorithm the interface does not have, sent raw: the generated dispatch refuses
    // it before the driver sees it.
    let mut raw = Message::empty(digest::OP_OPEN_SESSION);
    raw.words = 1;
    raw.mrs[0] = 0x2a;
    match wire::Transport::call(&mut PpcTransport(DRIVER), &raw) {
        Ok(reply) if reply.label == PROTOCOL_BASE + ProtocolError::BadValue as u64 => {
            debug_println!("hostile: algorithm 42: refused with BadValue as expected")
        }
        other => {
            failed += 1;
            debug_println!("hostile: FAIL algorithm 42: {other:?}");
        }
    }
    let mut calls = digest::Client::new(PpcTransport(DRIVER));
    let session = calls
        .open_session(Algorithm::Sha256, HashPath::Auto)
        .expect("a valid SHA-256 session");
    let finished = calls
        .open_session(Algorithm::Md5, HashPath::Auto)
        .expect("a valid MD5 session");
    let mut h = Hostile {
        link: link(REQUEST_QUEUE_CAPACITY),
        checks: [None; 16],
        phase: Phase::Checks { left: 0 },
        failed,
        session,
    };
    let size = data.0.size as u32;
    let check = |name, want| Check { name, want };
    h.send(
        digest_request(1, session ^ 0x4000_0000, DigestOp::Update, &[(0, 16)]),
        check("unknown session", Err(DigestError::UnknownSession)),
    );
    h.send(
        digest_request(2, session, DigestOp::Update, &[(size - 8, 16)]),
        check(
            "segment past the end of its region",
            Err(DigestError::SegmentOutOfRange),
        ),
    );
    h.send(
        digest_request(3, session, DigestOp::Update, &[(u32::MAX - 3, 16)]),
        check(
            "segment whose end overflows",
            Err(DigestError::SegmentOutOfRange),
        ),
    );
    let mut nine = digest_request(4, session, DigestOp::Update, &[(0, 16)]);
    nine.nsegs = 9;
    h.send(
        nine,
        check("nine segments", Err(DigestError::TooManySegments)),
    );
    let mut bad_op = digest_request(5, session, DigestOp::Update, &[(0, 16)]);
    bad_op.op = DigestOpRaw(9);
    h.send(bad_op, check("unknown op", Err(DigestError::BadRequest)));
    h.send(
        digest_request(6, finished, DigestOp::Final, &[(0, 3)]),
        check("a final", Ok(())),
    );
    h.send(
        digest_request(7, finished, DigestOp::Update, &[(0, 16)]),
        check(
            "an update after the final",
            Err(DigestError::SessionFinished),
        ),
    );
    h.phase = Phase::Checks { left: 7 };
    DRIVER.notify();
    h
}

pd_runtime::protection_domain!(init);
