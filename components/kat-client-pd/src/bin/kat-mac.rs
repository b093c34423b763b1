#![cfg_attr(target_os = "none", no_std, no_main)]
//! Known-answer client for a Mac driver: RFC 2202's HMAC-MD5 and HMAC-SHA-1 examples
//! and RFC 4231's HMAC-SHA-224/256/384/512 ones (case 5 truncated as published; cases 6
//! and 7 with a 131-byte key, hashed first), each three ways through the queue, one
//! after another on one session (a session MACs message after message under its key):
//! an update of the first third and a final of the rest in two segments (the tag must
//! begin with the published one), a verify of the published tag (`Ok`), and a verify of
//! that tag with one bit flipped (`MacMismatch`, answering no tag byte). After a way
//! that went wrong the next opens a session of its own. Keys are written into the data region and named at open. An algorithm
//! the driver refuses at open is named in the verdict, not run. Exits 0 only when every
//! answer is the one published.
use crypto_client::driver::Mac;
use crypto_client::pd::Data;
use kat_client_pd::{About, Client, Passed};
use kat_vectors::{Bytes, HMAC, hex};
use pd_idl::mac::{self, MacAlgorithm, MacError, MacOp, Response};
use pd_idl::wire::CallError;
use pd_runtime::{ChannelSet, Handler};

/// What the summary's columns mean.
const LEGEND: &str = "tags: finals whose tag begins with the published one; verified: verifies of the published tag answered Ok; mismatches: verifies of a wrong tag answered MacMismatch with no tag";
const ABOUT: About = About::new("kat-mac", "answers", "RFC 2202, RFC 4231", LEGEND);

/// Where the key goes (odd offsets: nothing needs alignment), then the message, then
/// the expected tag of a verify.
const KEY_AT: u32 = 0x11;
const MSG_AT: u32 = 0x403;
const TAG_AT: u32 = 0x803;
/// Where a final's tag is written: cleared before every final and verify, so a tag left
/// by an earlier way cannot pass for one not written, and a verify is seen to write none.
const OUT_AT: u32 = 0x903;
const OUT_LEN: usize = 64;

/// The three ways each example runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Way {
    /// An update, then a final: the tag.
    Tag,
    /// A verify of the published tag.
    Verify,
    /// A verify of the published tag with a bit flipped.
    Mismatch,
}

const WAYS: [Way; 3] = [Way::Tag, Way::Verify, Way::Mismatch];

struct Current {
    session: u32,
    /// The update was answered (a `Tag` way sends its final next).
    updated: bool,
}

struct Kat {
    client: Client<Mac>,
    index: usize,
    way: usize,
    current: Option<Current>,
    /// By way.
    passed: Passed<3>,
}

/// Writes `b` at `at` in `data`; its length. In pieces, no heap: the longest is 152.
fn put(data: &Data, at: u32, b: &Bytes) -> u32 {
    let mut buf = [0u8; 256];
    let n = b.write(&mut buf);
    data.write(at, &buf[..n]);
    n as u32
}

impl Kat {
    /// The published tag of the current example (and its length).
    fn want(&self) -> ([u8; 64], usize) {
        let mut t = [0; 64];
        let n = hex(HMAC[self.index].tag, &mut t);
        (t, n)
    }

    /// Opens a session for the current example's current way and sends its first
    /// request; at the end, the verdict.
    fn next(&mut self) {
        while self.index < HMAC.len() {
            if self.way == WAYS.len() {
                self.way = 0;
                self.index += 1;
                continue;
            }
            let v = &HMAC[self.index];
            if self.client.refuses(v.algorithm as u8) {
                self.way = WAYS.len();
                continue;
            }
            let key_len = put(&self.client.data, KEY_AT, &v.key);
            put(&self.client.data, MSG_AT, &v.data);
            match self
                .client
                .driver
                .calls
                .open_session(v.algorithm, KEY_AT, key_len)
            {
                Ok(session) => {
                    self.client.opened(v.algorithm as u8);
                    self.current = Some(Current {
                        session,
                        updated: false,
                    });
                    return self.send();
                }
                Err(CallError::Server(MacError::UnsupportedAlgorithm)) => {
                    self.client.refuse(v.algorithm as u8);
                }
                Err(e) => {
                    self.client.fail(format_args!(
                        "{} {:?}: open_session: {e:?}",
                        v.source, v.algorithm
                    ));
                    self.way += 1;
                }
            }
        }
        let offered = self.client.driver.calls.capabilities();
        self.client.agree(offered);
        let refused = self.client.refused_at_open(&MacAlgorithm::ALL, |a| a as u8);
        self.client
            .conclude(self.passed.total(), &self.passed, &refused)
    }

    /// The current way's next request.
    fn send(&mut self) {
        let Some(c) = self.current.as_ref() else {
            return;
        };
        let len = HMAC[self.index].data.len() as u32;
        let (third, rest) = (len / 3, len - len / 3);
        let (op, segs, n): (MacOp, [(u32, u32); 3], usize) = match WAYS[self.way] {
            Way::Tag if !c.updated => (MacOp::Update, [(MSG_AT, third), (0, 0), (0, 0)], 1),
            Way::Tag => {
                let (at, half) = (MSG_AT + third, rest / 2);
                let segs = [
                    (at, half),
                    (at + half, rest - half),
                    (OUT_AT, OUT_LEN as u32),
                ];
                (MacOp::Final, segs, 3)
            }
            way => {
                let (mut tag, n) = self.want();
                if way == Way::Mismatch {
                    tag[n - 1] ^= 0x01;
                }
                self.client.data.write(TAG_AT, &tag[..n]);
                let segs = [(MSG_AT, third), (MSG_AT + third, rest), (TAG_AT, n as u32)];
                (MacOp::Verify, segs, 3)
            }
        };
        if op != MacOp::Update {
            self.client.data.write(OUT_AT, &[0; OUT_LEN]);
        }
        let request = mac::Request::over(self.client.fresh_id(), c.session, op, &segs[..n]);
        self.client.submit(request);
    }

    fn check(&mut self, resp: Response) {
        let Some(mut c) = self.current.take() else {
            return self.client.unasked(resp.id);
        };
        let (v, way) = (&HMAC[self.index], WAYS[self.way]);
        let status = resp.status.check();
        let (want, n) = self.want();
        let mut out = [0; OUT_LEN];
        self.client.data.read(OUT_AT, &mut out);
        let tag = &out[..usize::from(resp.tag_len).min(OUT_LEN)];
        let right = match way {
            Way::Tag if !c.updated && status == Ok(Ok(())) => {
                c.updated = true;
                self.current = Some(c);
                return self.send();
            }
            Way::Tag => {
                status == Ok(Ok(())) && tag.len() == v.algorithm.tag_len() && tag[..n] == want[..n]
            }
            Way::Verify => status == Ok(Ok(())) && resp.tag_len == 0 && out == [0; OUT_LEN],
            Way::Mismatch => {
                status == Ok(Err(MacError::MacMismatch)) && resp.tag_len == 0 && out == [0; OUT_LEN]
            }
        };
        if right {
            self.passed.counts[self.way] += 1;
        } else {
            self.client.fail(format_args!(
                "{} {:?} {way:?}: {:?}, tag of {} bytes",
                v.source, v.algorithm, resp.status, resp.tag_len
            ));
        }
        self.way += 1;
        if right && self.way < WAYS.len() {
            // The next way is the session's next message.
            self.current = Some(Current {
                session: c.session,
                updated: false,
            });
            return self.send();
        }
        self.client.close(c.session);
        self.next();
    }
}

impl Handler for Kat {
    fn notified(&mut self, _: ChannelSet) {
        for r in self.client.answers::<4>() {
            self.check(r);
        }
    }
}

fn init() -> Kat {
    let mut kat = Kat {
        client: Client::map(&ABOUT),
        index: 0,
        way: 0,
        current: None,
        passed: Passed::new(["tags", "verified", "mismatches"]),
    };
    kat.next();
    kat
}

pd_runtime::protection_domain!(init);
