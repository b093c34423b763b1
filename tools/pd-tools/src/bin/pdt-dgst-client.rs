//! The client PD `pd-dgst` boots: hashes each input (`PDT_INPUTS` of them, granted by
//! the tool as files `input-0`, `input-1`...) through its Digest driver in one session
//! (which starts the next message after each final), streamed through the data region
//! in updates of a quarter of it, four in flight; the chunk the input ends in is the
//! final itself, so an input shorter than a chunk is one request, with no call (an
//! input of whole chunks ends with an empty final). Prints `digest I HEX` per input I
//! and exits 0, or `error: ...` and exits 1.
use std::collections::VecDeque;
use std::fs::File;

use crypto_client::driver::DigestDriver;
use pd_idl::digest::{self, DigestOp, Request};
use pd_runtime::{ChannelSet, Handler, debug_println, exit};
use pd_tools::algs::{DataPath, digest_alg};
use pd_tools::cli::io_text;
use pd_tools::hexfmt;
use pd_tools::pd::{Data, answers, fail, fill, granted, param, status_words};

/// Updates kept in flight, each on its own chunk of the data region: the driver hashes
/// one while this PD reads the next.
const DEPTH: usize = 4;
/// The final's digest is written past the chunks, in this PD's own region.
const OUT_LEN: usize = 64;

struct Client {
    driver: DigestDriver,
    data: Data,
    buf: Vec<u8>,
    inputs: usize,
    index: usize,
    file: Option<File>,
    session: u32,
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
            if let Err(e) = self.driver.close_session(self.session) {
                fail(format!("close_session: {e:?}"));
            }
            exit(0)
        }
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
            let (op, segs) = match (self.finishing, n > 0) {
                (false, _) => (DigestOp::Update, vec![(at as u32, n as u32)]),
                (true, true) => (DigestOp::Final, vec![(at as u32, n as u32), out]),
                (true, false) => (DigestOp::Final, vec![out]),
            };
            self.next_id += 1;
            self.in_flight.push_back((self.next_id, chunk));
            let req = Request::over(self.next_id, self.session, op, &segs);
            notify |= self
                .driver
                .link
                .submit(req)
                .unwrap_or_else(|e| fail(format!("submit: {e:?}")));
        }
        if notify {
            self.driver.notify();
        }
    }

    fn answered(&mut self, r: digest::Response) {
        if let Err(e) = status_words(r.status.check()) {
            fail(e);
        }
        match self.in_flight.pop_front() {
            Some((id, _)) if id == r.id => {}
            other => fail(format!("answer {} where {other:?} was due", r.id)),
        }
        if !(self.finishing && self.in_flight.is_empty()) {
            return;
        }
        // The final's answer: the digest of this input, where the driver wrote it.
        let mut d = [0; OUT_LEN];
        let d = &mut d[..usize::from(r.digest_len).min(OUT_LEN)];
        self.data.read(self.out_at(), d);
        debug_println!("digest {} {}", self.index, hexfmt::encode(d));
        self.index += 1;
        self.start();
    }
}

impl Handler for Client {
    fn notified(&mut self, _: ChannelSet) {
        for r in answers(&mut self.driver.link) {
            self.answered(r);
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
    let mut c = Client {
        driver: DigestDriver::map(),
        // A chunk per request in flight, a whole number of the longest block (128 B, so
        // whole-block updates copy nothing on a chained engine), the digest's place
        // after them.
        buf: vec![0; (data.size() - OUT_LEN) / DEPTH / 128 * 128],
        data,
        inputs: param("INPUTS")
            .parse()
            .unwrap_or_else(|_| fail("PDT_INPUTS is not a count")),
        index: 0,
        file: None,
        session: 0,
        in_flight: VecDeque::new(),
        finishing: false,
        next_id: 0,
    };
    c.session = c
        .driver
        .calls
        .open_session(alg, path)
        .unwrap_or_else(|e| fail(format!("open_session: {e:?}")));
    c.start();
    c
}

pd_runtime::protection_domain!(init);
