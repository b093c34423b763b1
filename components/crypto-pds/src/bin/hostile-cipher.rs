//! A hostile Cipher client: every kind of bad input a client can send, then a flood,
//! then corrupted queue indices. It checks that each bad request gets its typed error
//! (and prints it), that every flooded request is answered exactly once, and finally
//! breaks its request queue so the driver cuts it off. What it cannot do by
//! construction: name another client's data (segments are offsets into its own region,
//! and it maps no other) or use another client's session (sessions answer their owner).
use crypto_client::{CipherLink, Completion};
use crypto_pds::client::{DRIVER, Data, link};
use kat_vectors::{K128, hex};
use pd_idl::cipher::{
    self, CipherError, CipherOp, CipherOpRaw, Mode, Path, REQUEST_QUEUE_CAPACITY, Request,
    Response, Segment,
};
use pd_idl::wire::CallError;
use pd_runtime::ipc::PpcTransport;
use pd_runtime::{ChannelSet, Handler, debug_println, exit, memory_region};

/// Requests answered in the flood before the client stops: long enough for the other
/// client to finish its whole run meanwhile, if the driver is fair.
const FLOOD: u64 = 20_000;

#[derive(Clone, Copy)]
struct Check {
    name: &'static str,
    want: CipherError,
}

enum Phase {
    Checks { left: usize },
    Flood { answered: u64, next_id: u32 },
}

struct Hostile {
    link: CipherLink<'static>,
    checks: [Option<Check>; 64],
    phase: Phase,
    failed: u32,
    ecb: u32,
}

fn request(id: u32, session: u32, segs: &[(u32, u32)]) -> Request {
    let mut s = [Segment { offset: 0, len: 0 }; 8];
    for (d, &(offset, len)) in s.iter_mut().zip(segs) {
        *d = Segment { offset, len };
    }
    Request {
        id,
        session,
        op: CipherOp::Encrypt.into(),
        nsegs: segs.len().min(8) as u8,
        reserved: [0; 2],
        segs: s,
    }
}

impl Hostile {
    fn send(&mut self, req: Request, check: Check) {
        self.checks[req.id as usize] = Some(check);
        self.link.submit(req).expect("the checks fit the queue");
    }

    fn answer(&mut self, resp: Response) {
        match &mut self.phase {
            Phase::Checks { left } => {
                *left -= 1;
                let check = self.checks[resp.id as usize % 64].take();
                let got = resp.status.check();
                match check {
                    Some(c) if got == Ok(Err(c.want)) => {
                        debug_println!("hostile: {}: refused with {:?} as expected", c.name, c.want)
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

    /// Keeps the request queue full of valid work.
    fn flood(&mut self) {
        let Phase::Flood { next_id, .. } = &mut self.phase else {
            return;
        };
        let mut asked = false;
        loop {
            let req = request(*next_id, self.ecb, &[(0, 64)]);
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
    let mut calls = cipher::Client::new(PpcTransport(DRIVER));
    let mut key = [0; 32];
    hex(K128, &mut key);
    let mut failed = 0;
    for bad in [0u8, 17, 33] {
        match calls.open_session(Mode::Cbc, Path::Adaptive, bad, key, [0; 16]) {
            Err(CallError::Server(CipherError::BadKeySize)) => {
                debug_println!("hostile: key of {bad} bytes: refused with BadKeySize as expected")
            }
            other => {
                failed += 1;
                debug_println!("hostile: FAIL key of {bad} bytes: {other:?}");
            }
        }
    }
    let ecb = calls
        .open_session(Mode::Ecb, Path::Adaptive, 16, key, [0; 16])
        .expect("a valid ECB session");
    let cbc = calls
        .open_session(Mode::Cbc, Path::Adaptive, 16, key, [0; 16])
        .expect("a valid CBC session");
    let mut h = Hostile {
        link: link(REQUEST_QUEUE_CAPACITY),
        checks: [None; 64],
        phase: Phase::Checks { left: 0 },
        failed,
        ecb,
    };
    let size = data.0.size as u32;
    let check = |name, want| Check { name, want };
    h.send(
        request(1, ecb ^ 0x4000_0000, &[(0, 16)]),
        check("unknown session", CipherError::UnknownSession),
    );
    h.send(
        request(2, cbc, &[(0, 17)]),
        check("CBC length not a multiple of 16", CipherError::BadLength),
    );
    h.send(
        request(3, ecb, &[(size - 8, 16)]),
        check(
            "segment past the end of its region",
            CipherError::SegmentOutOfRange,
        ),
    );
    h.send(
        request(4, ecb, &[(u32::MAX - 3, 16)]),
        check(
            "segment whose end overflows",
            CipherError::SegmentOutOfRange,
        ),
    );
    h.send(
        // Where the other client's data lies relative to ours (data1 - 0x10000).
        request(5, ecb, &[(0u32.wrapping_sub(0x1_0000), 64)]),
        check(
            "segment aimed at the other client's data",
            CipherError::SegmentOutOfRange,
        ),
    );
    let mut nine = request(6, ecb, &[(0, 16)]);
    nine.nsegs = 9;
    h.send(nine, check("nine segments", CipherError::TooManySegments));
    let mut bad_op = request(7, ecb, &[(0, 16)]);
    bad_op.op = CipherOpRaw(9);
    h.send(bad_op, check("unknown op", CipherError::BadRequest));
    // Session ids are `generation << 16 | slot`: guess every slot of the first two
    // generations, which is where the other client's live sessions are.
    let mut sent = 7;
    for guess in (0..2u32).flat_map(|g| (0..16u32).map(move |slot| g << 16 | slot)) {
        if guess == ecb || guess == cbc {
            continue;
        }
        sent += 1;
        h.send(
            request(sent as u32, guess, &[(0, 16)]),
            check("a session id that is not ours", CipherError::UnknownSession),
        );
    }
    h.phase = Phase::Checks { left: sent };
    DRIVER.notify();
    h
}

pd_runtime::protection_domain!(init);
