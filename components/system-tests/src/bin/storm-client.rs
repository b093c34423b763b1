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
use crypto_client::Completion;
use crypto_client::driver::{BYTES, Stream};
use pd_runtime::{ChannelSet, Handler, debug_println, exit};

const KEY: [u8; 16] = *b"storm-client-key";
const MAGIC: u32 = u32::from_le_bytes(*b"STRM");

struct Storm {
    stream: Stream,
    aes: Aes128,
    incarnation: u32,
    target: u64,
    answered: u64,
    wrong: u64,
}

/// Request `id`'s plaintext in `incarnation`: every block names both.
fn plain(incarnation: u32, id: u32) -> [u8; BYTES] {
    let mut p = [0u8; BYTES];
    for (block, b) in p.chunks_exact_mut(16).enumerate() {
        for (w, v) in b
            .chunks_exact_mut(4)
            .zip([incarnation, id, block as u32, MAGIC])
        {
            w.copy_from_slice(&v.to_le_bytes());
        }
    }
    p
}

impl Storm {
    fn expected(&self, id: u32) -> [u8; BYTES] {
        let mut c = plain(self.incarnation, id);
        for b in c.chunks_exact_mut(16) {
            self.aes.encrypt_block(b.into());
        }
        c
    }

    fn resume(&mut self) {
        let incarnation = self.incarnation;
        self.stream
            .resume("storm", KEY, |id| plain(incarnation, id));
    }

    fn summary(&self) -> String {
        let s = self.stream.driver.link.stats();
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
        if !self.stream.end(id) {
            self.wrong += 1;
            debug_println!(
                "storm: WRONG incarnation {} id {id}: not in flight on its slot",
                self.incarnation
            );
            return;
        }
        if !ok {
            return;
        }
        if self.stream.slot(id) == self.expected(id) {
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
        for c in self.stream.completions() {
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
                    self.stream.session = None;
                }
            }
        }
        if self.answered >= self.target {
            self.stream.draining = true;
        }
        if self.stream.drained() {
            let s = self.stream.driver.link.stats();
            let passed = self.wrong == 0 && s.stray == 0 && s.answered + s.restarted == s.submitted;
            debug_println!("storm: done: {}", self.summary());
            exit(if passed { 0 } else { 1 });
        }
        self.resume();
    }
}

fn init() -> Storm {
    let stream = Stream::map();
    let mut s = Storm {
        incarnation: stream.driver.link.incarnation(),
        stream,
        aes: Aes128::new(&KEY.into()),
        target: std::env::var("STORM_TARGET")
            .ok()
            .and_then(|t| t.parse().ok())
            .unwrap_or(3000),
        answered: 0,
        wrong: 0,
    };
    s.resume();
    s
}

pd_runtime::protection_domain!(init);
