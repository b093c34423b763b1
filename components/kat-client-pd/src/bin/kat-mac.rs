#![cfg_attr(target_os = "none", no_std, no_main)]
//! Known-answer client for a Mac driver: RFC 2202's HMAC-MD5 and HMAC-SHA-1 examples
//! and RFC 4231's HMAC-SHA-224/256/384/512 ones (case 5 truncated as published; cases 6
//! and 7 with a 131-byte key, hashed first), each three ways through the queue, a
//! session for each: an update of the first third and a final of the rest in two
//! segments (the tag must begin with the published one), a verify of the published tag
//! (`Ok`), and a verify of that tag with one bit flipped (`MacMismatch`, answering no
//! tag byte). Keys are written into the data region and named at open. An algorithm
//! the driver refuses at open is named in the verdict, not run. Exits 0 only when every
//! answer is the one published.
use crypto_client::pd::{DRIVER, Data, answers, link};
use crypto_client::{Completion, MacLink};
use kat_vectors::{Bytes, HMAC, hex};
use pd_idl::mac::{self, MacAlgorithm, MacError, MacOp, REQUEST_QUEUE_CAPACITY, Response};
use pd_idl::wire::CallError;
use pd_runtime::ipc::PpcTransport;
use pd_runtime::{ChannelSet, Handler, debug_println};

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

/// What each way proved, for the verdict line.
struct ByWay<'a>(&'a [u32; 3]);

impl core::fmt::Display for ByWay<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "tags {}, verified {}, mismatches {}",
            self.0[0], self.0[1], self.0[2]
        )
    }
}

struct Current {
    session: u32,
    /// The update was answered (a `Tag` way sends its final next).
    updated: bool,
}

struct Kat {
    calls: mac::Client<PpcTransport>,
    link: MacLink<'static>,
    data: Data,
    index: usize,
    way: usize,
    current: Option<Current>,
    passed: [u32; 3],
    failed: u32,
    next_id: u32,
    refused: u8,
}

/// Writes `b` at `at` in `data`; its length. In pieces, no heap: the longest is 152.
fn put(data: &Data, at: u32, b: &Bytes) -> u32 {
    let mut buf = [0u8; 256];
    let n = b.write(&mut buf);
    data.write(at, &buf[..n]);
    n as u32
}

impl Kat {
    fn refused_at_open(&self) -> kat_client_pd::Refused<MacAlgorithm> {
        kat_client_pd::Refused {
            bits: self.refused,
            all: &MacAlgorithm::ALL,
            bit: |a| a as u8,
        }
    }

    fn fail(&mut self, what: core::fmt::Arguments<'_>) {
        self.failed += 1;
        debug_println!("kat-mac: FAIL {what}");
    }

    /// The published tag of the current example (and its length).
    fn want(&self) -> ([u8; 64], usize) {
        let mut t = [0; 64];
        let n = hex(HMAC[self.index].tag, &mut t);
        (t, n)
    }

    /// Opens the next example's session for the next way and sends its first request;
    /// at the end, the verdict.
    fn next(&mut self) {
        while self.index < HMAC.len() {
            if self.way == WAYS.len() {
                self.way = 0;
                self.index += 1;
                continue;
            }
            let v = &HMAC[self.index];
            if self.refused & 1 << (v.algorithm as u8) != 0 {
                self.way = WAYS.len();
                continue;
            }
            let key_len = put(&self.data, KEY_AT, &v.key);
            put(&self.data, MSG_AT, &v.data);
            match self.calls.open_session(v.algorithm, KEY_AT, key_len) {
                Ok(session) => {
                    self.current = Some(Current {
                        session,
                        updated: false,
                    });
                    return self.send();
                }
                Err(CallError::Server(MacError::UnsupportedAlgorithm)) => {
                    self.refused |= 1 << (v.algorithm as u8);
                }
                Err(e) => {
                    self.fail(format_args!(
                        "{} {:?}: open_session: {e:?}",
                        v.source, v.algorithm
                    ));
                    self.way += 1;
                }
            }
        }
        let passed: u32 = self.passed.iter().sum();
        let verdict = kat_client_pd::Verdict {
            name: "kat-mac",
            what: "answers",
            sources: "RFC 2202, RFC 4231",
            by_path: &ByWay(&self.passed),
            extra: format_args!("{}", self.refused_at_open()),
            legend: "tags: finals whose tag begins with the published one; verified: verifies of the published tag answered Ok; mismatches: verifies of a wrong tag answered MacMismatch with no tag",
        };
        kat_client_pd::conclude(verdict, passed, self.failed)
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
                self.data.write(TAG_AT, &tag[..n]);
                let segs = [(MSG_AT, third), (MSG_AT + third, rest), (TAG_AT, n as u32)];
                (MacOp::Verify, segs, 3)
            }
        };
        if op != MacOp::Update {
            self.data.write(OUT_AT, &[0; OUT_LEN]);
        }
        self.next_id += 1;
        let request = mac::Request::over(self.next_id, c.session, op, &segs[..n]);
        match self.link.submit(request) {
            Ok(true) => DRIVER.notify(),
            Ok(false) => {}
            Err(e) => panic!("kat-mac: submit: {e:?}"),
        }
    }

    fn check(&mut self, resp: Response) {
        let Some(mut c) = self.current.take() else {
            return self.fail(format_args!("answer {} to nothing asked", resp.id));
        };
        let (v, way) = (&HMAC[self.index], WAYS[self.way]);
        let status = resp.status.check();
        let (want, n) = self.want();
        let mut out = [0; OUT_LEN];
        self.data.read(OUT_AT, &mut out);
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
            self.passed[self.way] += 1;
        } else {
            self.fail(format_args!(
                "{} {:?} {way:?}: {:?}, tag of {} bytes",
                v.source, v.algorithm, resp.status, resp.tag_len
            ));
        }
        if let Err(e) = self.calls.close_session(c.session) {
            self.fail(format_args!("close_session: {e:?}"));
        }
        self.way += 1;
        self.next();
    }
}

impl Handler for Kat {
    fn notified(&mut self, _: ChannelSet) {
        for c in answers::<_, _, 4>(&mut self.link).expect("response queue") {
            match c {
                Completion::Answered(r) => self.check(r),
                Completion::Restarted(id) => panic!("kat-mac: driver restarted (request {id})"),
            }
        }
    }
}

fn init() -> Kat {
    let mut kat = Kat {
        calls: mac::Client::new(PpcTransport(DRIVER)),
        link: link(REQUEST_QUEUE_CAPACITY),
        data: Data::map(),
        index: 0,
        way: 0,
        current: None,
        passed: [0; 3],
        failed: 0,
        next_id: 0,
        refused: 0,
    };
    kat.next();
    kat
}

pd_runtime::protection_domain!(init);
