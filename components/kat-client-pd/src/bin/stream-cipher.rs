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
use crypto_client::Completion;
use crypto_client::driver::{BYTES, Stream};
use kat_vectors::{PLAIN, SP800_38A, hex};
use pd_runtime::{ChannelSet, Handler, debug_println, exit};

const AFTER_RESTART: u64 = 500;

struct Client {
    stream: Stream,
    plain: [u8; BYTES],
    want: [u8; BYTES],
    key: [u8; 16],
    answered: u64,
    wrong: u64,
    restarted: u64,
    since_restart: Option<u64>,
    /// The first session's id, and whether a later session got it again (a restarted
    /// driver must not hand out its predecessor's ids).
    first_session: Option<u32>,
    id_reused: bool,
}

impl Client {
    fn resume(&mut self) {
        let plain = self.plain;
        if self.stream.session.is_none()
            && !self.stream.draining
            && let Some(s) = self.stream.open("stream", self.key)
        {
            debug_println!("stream: session {s:#x} open");
            self.id_reused |= self.first_session.is_some_and(|f| f == s);
            self.first_session.get_or_insert(s);
        }
        self.stream.refill(|_| plain);
    }
}

impl Handler for Client {
    fn notified(&mut self, _: ChannelSet) {
        let mut n = 0;
        for c in self.stream.completions() {
            n += 1;
            match c {
                Completion::Answered(r) => {
                    self.stream.end(r.id);
                    if r.status.check() == Ok(Ok(())) && self.stream.slot(r.id) == self.want {
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
                    self.stream.end(id);
                    self.restarted += 1;
                    self.stream.session = None;
                    self.since_restart = Some(0);
                }
            }
        }
        let link = &self.stream.driver.link;
        if n > 0 && self.restarted > 0 && self.stream.session.is_none() && !self.stream.draining {
            debug_println!(
                "stream: driver restarted: {} request(s) in flight reported ServerRestarted",
                link.stats().restarted
            );
        }
        if self.since_restart.is_some_and(|s| s >= AFTER_RESTART) {
            self.stream.draining = true;
        }
        if self.stream.drained() {
            let s = link.stats();
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
        self.resume();
    }
}

fn init() -> Client {
    let mut c = Client {
        stream: Stream::map(),
        plain: [0; BYTES],
        want: [0; BYTES],
        key: [0; 16],
        answered: 0,
        wrong: 0,
        restarted: 0,
        since_restart: None,
        first_session: None,
        id_reused: false,
    };
    let (_, _, key, _, ct) = SP800_38A[0];
    hex(PLAIN, &mut c.plain);
    hex(ct, &mut c.want);
    hex(key, &mut c.key);
    c.resume();
    c
}

pd_runtime::protection_domain!(init);
