//! A client for kill storms (`system/storm.system`): each incarnation keeps 16 requests in
//! flight on one ECB session (AES-128, 64 bytes each) and checks that every answer is its
//! own. Each request's plaintext names the incarnation, the request id and the block
//! (`[incarnation, id, block, "STRM"]` per 16-byte block), and its expected ciphertext is
//! computed here with RustCrypto's `aes`: an answer that is another request's (a dead
//! incarnation's answer taken for a request of the same id, or a dead incarnation's
//! request encrypting data its successor had written) leaves the slot holding something
//! else, and is counted wrong and printed at once (the test counts those lines, since
//! the kill may come before any summary).
//!
//! Prints `storm: incarnation I answered N ...` (its link's counters) once 64 requests
//! are answered and every 1024 after; the test kills it (the client storm) or its driver
//! (the driver storm) meanwhile. Once `STORM_TARGET` requests (an environment variable;
//! 3000 if unset) are answered it drains, prints `storm: done ...` and exits 0 if no
//! answer was wrong, stale taken or stray and every request submitted came back once
//! (answered or `Restarted`). After a driver restart it opens a new session and goes on.
use aes::Aes128;
use aes::cipher::{BlockEncrypt, KeyInit};
use crypto_client::{CipherLink, Completion};
use pd_idl::cipher::{self, CipherOp, Mode, Path, REQUEST_QUEUE_CAPACITY, Request};
use pd_runtime::ipc::PpcTransport;
use pd_runtime::{ChannelSet, Handler, debug_println, exit};
use system_tests::client::{DRIVER, Data, link};

const SLOTS: u32 = 16;
const BYTES: usize = 64;
const KEY: [u8; 16] = *b"storm-client-key";
const MAGIC: u32 = u32::from_le_bytes(*b"STRM");

struct Storm {
    calls: cipher::Client<PpcTransport>,
    link: CipherLink<'static>,
    data: Data,
    aes: Aes128,
    incarnation: u32,
    session: Option<u32>,
    /// The id in flight on each slot.
    busy: [Option<u32>; SLOTS as usize],
    next_id: u32,
    target: u64,
    answered: u64,
    wrong: u64,
    draining: bool,
}

impl Storm {
    fn plain(&self, id: u32) -> [u8; BYTES] {
        let mut p = [0u8; BYTES];
        for (block, b) in p.chunks_exact_mut(16).enumerate() {
            for (w, v) in b
                .chunks_exact_mut(4)
                .zip([self.incarnation, id, block as u32, MAGIC])
            {
                w.copy_from_slice(&v.to_le_bytes());
            }
        }
        p
    }

    fn expected(&self, id: u32) -> [u8; BYTES] {
        let mut c = self.plain(id);
        for b in c.chunks_exact_mut(16) {
            self.aes.encrypt_block(b.into());
        }
        c
    }

    fn open(&mut self) {
        let mut key = [0; 32];
        key[..16].copy_from_slice(&KEY);
        match self
            .calls
            .open_session(Mode::Ecb, Path::Adaptive, 16, key, [0; 16])
        {
            Ok(s) => self.session = Some(s),
            // The driver is restarting: it notifies us when it is back.
            Err(e) => debug_println!("storm: open_session: {e:?}; waiting for the driver"),
        }
    }

    fn refill(&mut self) {
        let Some(session) = self.session else { return };
        let mut ask = false;
        while !self.draining {
            let slot = self.next_id % SLOTS;
            if self.busy[slot as usize].is_some() {
                break;
            }
            let at = slot * BYTES as u32;
            self.data.write(at, &self.plain(self.next_id));
            let req = Request::over(self.next_id, session, CipherOp::Encrypt, &[(at, 64)]);
            match self.link.submit(req) {
                Ok(a) => ask |= a,
                Err(_) => break,
            }
            self.busy[slot as usize] = Some(self.next_id);
            self.next_id += 1;
        }
        if ask {
            DRIVER.notify();
        }
    }

    fn summary(&self) -> String {
        let s = self.link.stats();
        format!(
            "incarnation {} answered {} submitted {} restarted {} stale {} stray {} wrong {} restarts {}",
            self.incarnation,
            self.answered,
            s.submitted,
            s.restarted,
            s.stale,
            s.stray,
            self.wrong,
            s.restarts
        )
    }

    fn done(&mut self, id: u32, ok: bool) {
        let slot = id % SLOTS;
        if self.busy[slot as usize] != Some(id) {
            self.wrong += 1;
            debug_println!(
                "storm: WRONG incarnation {} id {id}: not in flight on its slot",
                self.incarnation
            );
            return;
        }
        self.busy[slot as usize] = None;
        if !ok {
            return;
        }
        let mut got = [0u8; BYTES];
        self.data.read(slot * BYTES as u32, &mut got);
        if got == self.expected(id) {
            self.answered += 1;
            if self.answered == 64 || self.answered.is_multiple_of(1024) {
                debug_println!("storm: {}", self.summary());
            }
        } else {
            self.wrong += 1;
            debug_println!(
                "storm: WRONG incarnation {} id {id}: not its own ciphertext",
                self.incarnation
            );
        }
    }
}

impl Handler for Storm {
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
                    if r.status.check() != Ok(Ok(())) {
                        self.wrong += 1;
                        debug_println!(
                            "storm: WRONG incarnation {} id {}: {:?}",
                            self.incarnation,
                            r.id,
                            r.status
                        );
                    }
                    self.done(r.id, r.status.check() == Ok(Ok(())));
                }
                Completion::Restarted(id) => {
                    self.done(id, false);
                    self.session = None;
                }
            }
        }
        if self.answered >= self.target {
            self.draining = true;
        }
        if self.draining && self.link.in_flight() == 0 {
            let s = self.link.stats();
            let passed = self.wrong == 0 && s.stray == 0 && s.answered + s.restarted == s.submitted;
            debug_println!("storm: done: {}", self.summary());
            exit(if passed { 0 } else { 1 });
        }
        if self.session.is_none() && !self.draining {
            self.open();
        }
        self.refill();
    }
}

fn init() -> Storm {
    let link: CipherLink<'static> = link(REQUEST_QUEUE_CAPACITY);
    let mut s = Storm {
        calls: cipher::Client::new(PpcTransport(DRIVER)),
        incarnation: link.incarnation(),
        link,
        data: Data::map(),
        aes: Aes128::new(&KEY.into()),
        session: None,
        busy: [None; SLOTS as usize],
        next_id: 0,
        target: std::env::var("STORM_TARGET")
            .ok()
            .and_then(|t| t.parse().ok())
            .unwrap_or(3000),
        answered: 0,
        wrong: 0,
        draining: false,
    };
    s.open();
    s.refill();
    s
}

pd_runtime::protection_domain!(init);
