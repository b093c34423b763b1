#![cfg_attr(target_os = "none", no_std, no_main)]
//! A client that keeps 16 requests in flight on one session (SP 800-38A F.1.1,
//! ECB-AES128, 64 bytes each) and checks every answer, for the restart tests: when its
//! driver dies mid-stream (killed on the host, or a fault injected into a test build of
//! the driver), every request in flight must come back exactly once, answered or
//! `Restarted`. After a restart it opens a new session and goes on; once 500 more
//! requests are answered it drains, prints its counts and hands its verdict on (see the
//! crate docs): passed if no answer was wrong or stray, every request submitted came
//! back once, the driver restarted, and its new session's id is not the first one's.
//! Exits 0 if passed.
use crypto_client::pd::{DRIVER, Data, link};
use crypto_client::{CipherLink, Completion};
use kat_vectors::{PLAIN, SP800_38A, hex};
use pd_idl::cipher::{self, CipherOp, Mode, Path, REQUEST_QUEUE_CAPACITY, Request};
use pd_runtime::ipc::PpcTransport;
use pd_runtime::{ChannelSet, Handler, debug_println, exit};

const SLOTS: u32 = 16;
const AFTER_RESTART: u64 = 500;

struct Stream {
    calls: cipher::Client<PpcTransport>,
    link: CipherLink<'static>,
    data: Data,
    session: Option<u32>,
    busy: [bool; SLOTS as usize],
    next_id: u32,
    plain: [u8; 64],
    want: [u8; 64],
    key: [u8; 32],
    answered: u64,
    wrong: u64,
    restarted: u64,
    since_restart: Option<u64>,
    draining: bool,
    /// The first session's id, and whether a later session got it again (a restarted
    /// driver must not hand out its predecessor's ids).
    first_session: Option<u32>,
    id_reused: bool,
}

impl Stream {
    fn open(&mut self) {
        match self
            .calls
            .open_session(Mode::Ecb, Path::Adaptive, 16, self.key, [0; 16])
        {
            Ok(s) => {
                debug_println!("stream: session {s:#x} open");
                self.session = Some(s);
                self.id_reused |= self.first_session.is_some_and(|f| f == s);
                self.first_session.get_or_insert(s);
            }
            // The driver is restarting: it notifies us when it is back.
            Err(e) => debug_println!("stream: open_session: {e:?}; waiting for the driver"),
        }
    }

    fn refill(&mut self) {
        let Some(session) = self.session else { return };
        let mut ask = false;
        while !self.draining {
            let slot = self.next_id % SLOTS;
            if self.busy[slot as usize] {
                break;
            }
            let at = slot * 64;
            self.data.write(at, &self.plain);
            let req = Request::over(self.next_id, session, CipherOp::Encrypt, &[(at, 64)]);
            match self.link.submit(req) {
                Ok(a) => ask |= a,
                Err(_) => break,
            }
            self.busy[slot as usize] = true;
            self.next_id += 1;
        }
        if ask {
            DRIVER.notify();
        }
    }
}

impl Handler for Stream {
    fn notified(&mut self, _: ChannelSet) {
        let mut done = [None; 2 * SLOTS as usize];
        let mut n = 0;
        let notify = self
            .link
            .poll(|c| {
                done[n] = Some(c);
                n += 1;
            })
            .expect("response queue");
        if notify {
            DRIVER.notify();
        }
        for c in done.into_iter().take(n).flatten() {
            match c {
                Completion::Answered(r) => {
                    let slot = r.id % SLOTS;
                    self.busy[slot as usize] = false;
                    let mut got = [0u8; 64];
                    self.data.read(slot * 64, &mut got);
                    if r.status.check() == Ok(Ok(())) && got == self.want {
                        self.answered += 1;
                        if let Some(s) = &mut self.since_restart {
                            *s += 1;
                        }
                        if self.answered.is_multiple_of(500) {
                            debug_println!("stream: progress answered {}", self.answered);
                        }
                    } else {
                        self.wrong += 1;
                        debug_println!("stream: WRONG answer to {}: {:?}", r.id, r.status);
                    }
                }
                Completion::Restarted(id) => {
                    self.busy[(id % SLOTS) as usize] = false;
                    self.restarted += 1;
                    self.session = None;
                    self.since_restart = Some(0);
                }
            }
        }
        if n > 0 && self.restarted > 0 && self.session.is_none() && !self.draining {
            let s = self.link.stats();
            debug_println!(
                "stream: driver restarted: {} request(s) in flight reported ServerRestarted",
                s.restarted
            );
        }
        if self.since_restart.is_some_and(|s| s >= AFTER_RESTART) {
            self.draining = true;
        }
        if self.draining && self.link.in_flight() == 0 {
            let s = self.link.stats();
            debug_println!(
                "stream: done: submitted {} answered {} restarted {} stray {} wrong {} restarts {}",
                s.submitted,
                s.answered,
                s.restarted,
                s.stray,
                self.wrong,
                s.restarts
            );
            let passed = self.wrong == 0
                && s.stray == 0
                && s.restarts >= 1
                && s.answered + s.restarted == s.submitted
                && !self.id_reused;
            kat_client_pd::report(
                passed,
                format_args!(
                    "submitted {} = answered {} + restarted {}; stray {}, wrong {}, driver restarts {}; {}",
                    s.submitted,
                    s.answered,
                    s.restarted,
                    s.stray,
                    self.wrong,
                    s.restarts,
                    if self.id_reused {
                        "the restarted driver gave the first session's id again"
                    } else {
                        "a new session id after the restart"
                    }
                ),
            );
            exit(if passed { 0 } else { 1 });
        }
        if self.session.is_none() && !self.draining {
            self.open();
        }
        self.refill();
    }
}

fn init() -> Stream {
    let mut s = Stream {
        calls: cipher::Client::new(PpcTransport(DRIVER)),
        link: link(REQUEST_QUEUE_CAPACITY),
        data: Data::map(),
        session: None,
        busy: [false; SLOTS as usize],
        next_id: 0,
        plain: [0; 64],
        want: [0; 64],
        key: [0; 32],
        answered: 0,
        wrong: 0,
        restarted: 0,
        since_restart: None,
        draining: false,
        first_session: None,
        id_reused: false,
    };
    let (_, _, key, _, ct) = SP800_38A[0];
    hex(PLAIN, &mut s.plain);
    hex(ct, &mut s.want);
    hex(key, &mut s.key);
    s.open();
    s.refill();
    s
}

pd_runtime::protection_domain!(init);
