//! The client PD `pd-dgst` boots: hashes each input (`PDT_INPUTS` of them, granted by
//! the tool as files `input-0`, `input-1`...) through its Digest driver in one session
//! (which starts the next message after each final), streamed through the data region
//! in updates of a quarter of it, four in flight; the chunk the input ends in is the
//! final itself, so an input shorter than a chunk is one request, with no call (an
//! input of whole chunks ends with an empty final). Prints `digest I HEX` per input I
//! and exits 0, or `error: ...` and exits 1. With `PDT_HMAC_KEY` (hex) it computes
//! HMAC instead, through a Mac driver: a session per input, keyed with those bytes,
//! which lie in the data region past the digest's place (the call names where).
use std::collections::VecDeque;
use std::fs::File;

use crypto_client::driver::{DigestDriver, MacDriver};
use pd_idl::digest::{self, DigestOp};
use pd_idl::mac::{self, MacAlgorithm, MacOp};
use pd_runtime::{ChannelSet, Handler, debug_println, exit};
use pd_tools::algs::{DataPath, digest_alg};
use pd_tools::cli::io_text;
use pd_tools::hexfmt;
use pd_tools::pd::{Data, answers, fail, fill, granted, param, param_opt, status_words};

/// Updates kept in flight, each on its own chunk of the data region: the driver hashes
/// one while this PD reads the next.
const DEPTH: usize = 4;
/// The final's digest is written past the chunks, in this PD's own region.
const OUT_LEN: usize = 64;
/// An HMAC key's place, past the digest's: RFC 2104 keys of up to 1 KiB (the Mac
/// interface's limit).
const KEY_LEN: usize = 1024;

/// The driver that hashes: a Digest driver, one session for every input (it starts the
/// next message after each final); or a Mac driver, a session per input (a Mac session
/// ends with its final), keyed by the `key_len` bytes at `key_at`.
enum Hasher {
    Digest {
        driver: DigestDriver,
        session: u32,
    },
    Mac {
        driver: MacDriver,
        alg: MacAlgorithm,
        key_at: u32,
        key_len: u32,
        session: u32,
    },
}

impl Hasher {
    /// Ready for the next input (a Mac driver: its session opened).
    fn begin(&mut self) {
        if let Hasher::Mac {
            driver,
            alg,
            key_at,
            key_len,
            session,
        } = self
        {
            *session = driver
                .calls
                .open_session(*alg, *key_at, *key_len)
                .unwrap_or_else(|e| fail(format!("open_session: {e:?}")));
        }
    }

    /// Queues an update (or the final, with the output place as its last segment);
    /// whether the driver asked to be notified.
    fn submit(&mut self, id: u32, last: bool, segs: &[(u32, u32)]) -> bool {
        let submitted = match self {
            Hasher::Digest { driver, session } => {
                let op = if last {
                    DigestOp::Final
                } else {
                    DigestOp::Update
                };
                driver
                    .link
                    .submit(digest::Request::over(id, *session, op, segs))
            }
            Hasher::Mac {
                driver, session, ..
            } => {
                let op = if last { MacOp::Final } else { MacOp::Update };
                driver
                    .link
                    .submit(mac::Request::over(id, *session, op, segs))
            }
        };
        submitted.unwrap_or_else(|e| fail(format!("submit: {e:?}")))
    }

    fn notify(&self) {
        match self {
            Hasher::Digest { driver, .. } => driver.notify(),
            Hasher::Mac { driver, .. } => driver.notify(),
        }
    }

    /// The answers waiting: (id, how long the output the final wrote is); a refusal
    /// ends the PD.
    fn answers(&mut self) -> Vec<(u32, usize)> {
        match self {
            Hasher::Digest { driver, .. } => answers(&mut driver.link)
                .into_iter()
                .map(|r| Self::done(r.id, r.status.check(), r.digest_len))
                .collect(),
            Hasher::Mac { driver, .. } => answers(&mut driver.link)
                .into_iter()
                .map(|r| Self::done(r.id, r.status.check(), r.tag_len))
                .collect(),
        }
    }

    fn done<E: core::fmt::Debug, U: core::fmt::Debug>(
        id: u32,
        status: Result<Result<(), E>, U>,
        out_len: u8,
    ) -> (u32, usize) {
        if let Err(e) = status_words(status) {
            fail(e);
        }
        (id, usize::from(out_len))
    }

    /// An input is done (`all`: the last one was): a Mac session closes with its input,
    /// the Digest one after the last.
    fn end(&mut self, all: bool) {
        let closed = match self {
            Hasher::Digest { driver, session } if all => {
                driver.close_session(*session).map_err(|e| format!("{e:?}"))
            }
            Hasher::Mac {
                driver, session, ..
            } if !all => driver.close_session(*session).map_err(|e| format!("{e:?}")),
            // Nothing more: the digest session goes on, the Mac one is closed already.
            Hasher::Digest { .. } | Hasher::Mac { .. } => Ok(()),
        };
        if let Err(e) = closed {
            fail(format!("close_session: {e}"));
        }
    }
}

struct Client {
    hasher: Hasher,
    data: Data,
    buf: Vec<u8>,
    inputs: usize,
    index: usize,
    file: Option<File>,
    /// Requests in flight, oldest first: (id, chunk of the data region); a session's
    /// requests are answered in order.
    in_flight: VecDeque<(u32, usize)>,
    /// The final of the current input is submitted.
    finishing: bool,
    next_id: u32,
}

impl Client {
    /// Where the final's digest goes: past the `DEPTH` chunks.
    fn out_at(&self) -> usize {
        DEPTH * self.buf.len()
    }

    /// Opens the file for input `index`, or closes the session and exits after the
    /// last.
    fn start(&mut self) {
        if self.index == self.inputs {
            self.hasher.end(true);
            exit(0)
        }
        self.hasher.begin();
        self.file = Some(granted(&format!("input-{}", self.index)));
        self.finishing = false;
        self.fill();
    }

    /// Submits chunks of the input as updates until `DEPTH` are in flight, and the final
    /// once the input ends; one notification for them.
    fn fill(&mut self) {
        let mut notify = false;
        while !self.finishing && self.in_flight.len() < DEPTH {
            let chunk = (0..DEPTH)
                .find(|c| self.in_flight.iter().all(|f| f.1 != *c))
                .expect("a chunk is free below DEPTH in flight");
            let file = self.file.as_mut().expect("an input is open");
            let n = fill(file, &mut self.buf)
                .unwrap_or_else(|e| fail(format!("read error: {}", io_text(&e))));
            let at = chunk * self.buf.len();
            self.data.write(at, &self.buf[..n]);
            // A short chunk is the input's end (`fill` reads until the chunk is full).
            self.finishing = n < self.buf.len();
            let out = (self.out_at() as u32, OUT_LEN as u32);
            let segs = match (self.finishing, n > 0) {
                (false, _) => vec![(at as u32, n as u32)],
                (true, true) => vec![(at as u32, n as u32), out],
                (true, false) => vec![out],
            };
            self.next_id += 1;
            self.in_flight.push_back((self.next_id, chunk));
            notify |= self.hasher.submit(self.next_id, self.finishing, &segs);
        }
        if notify {
            self.hasher.notify();
        }
    }

    fn answered(&mut self, (answer, out_len): (u32, usize)) {
        match self.in_flight.pop_front() {
            Some((id, _)) if id == answer => {}
            other => fail(format!("answer {answer} where {other:?} was due")),
        }
        if !(self.finishing && self.in_flight.is_empty()) {
            return;
        }
        self.hasher.end(false);
        // The final's answer: the digest (or tag) of this input, where the driver wrote it.
        let mut d = [0; OUT_LEN];
        let d = &mut d[..out_len.min(OUT_LEN)];
        self.data.read(self.out_at(), d);
        debug_println!("digest {} {}", self.index, hexfmt::encode(d));
        self.index += 1;
        self.start();
    }
}

impl Handler for Client {
    fn notified(&mut self, _: ChannelSet) {
        for a in self.hasher.answers() {
            self.answered(a);
        }
        if self.file.is_some() {
            self.fill();
        }
    }
}

fn init() -> Client {
    let alg = digest_alg(&param("ALG")).unwrap_or_else(|e| fail(e));
    let path = DataPath::parse(&param("PATH"))
        .and_then(DataPath::hash)
        .unwrap_or_else(|| fail("PDT_PATH is not a hash path"));
    let data = Data::map();
    // A chunk per request in flight, a whole number of the longest block (128 B, so
    // whole-block updates copy nothing on a chained engine), the digest's place after
    // them, and an HMAC key's after that.
    let chunk = (data.size() - OUT_LEN - KEY_LEN) / DEPTH / 128 * 128;
    let hasher = match param_opt("HMAC_KEY") {
        Some(hex) => {
            let key = hexfmt::decode(&hex).unwrap_or_else(|e| fail(format!("PDT_HMAC_KEY: {e}")));
            if key.is_empty() || key.len() > KEY_LEN {
                fail(format!(
                    "an HMAC key of 1 to {KEY_LEN} bytes, not {}",
                    key.len()
                ));
            }
            let key_at = DEPTH * chunk + OUT_LEN;
            data.write(key_at, &key);
            Hasher::Mac {
                driver: MacDriver::map(),
                alg: pd_tools::algs::mac_of(alg),
                key_at: key_at as u32,
                key_len: key.len() as u32,
                session: 0,
            }
        }
        None => {
            let mut driver = DigestDriver::map();
            let session = driver
                .calls
                .open_session(alg, path)
                .unwrap_or_else(|e| fail(format!("open_session: {e:?}")));
            Hasher::Digest { driver, session }
        }
    };
    let mut c = Client {
        hasher,
        buf: vec![0; chunk],
        data,
        inputs: param("INPUTS")
            .parse()
            .unwrap_or_else(|_| fail("PDT_INPUTS is not a count")),
        index: 0,
        file: None,
        in_flight: VecDeque::new(),
        finishing: false,
        next_id: 0,
    };
    c.start();
    c
}

pd_runtime::protection_domain!(init);
