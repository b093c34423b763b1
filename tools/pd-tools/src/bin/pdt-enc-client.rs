//! The client PD `pd-enc` boots: enciphers or deciphers the file granted as `in` into
//! the one granted as `out` (the tool opened them: its input and output) through its Cipher driver, one session, one
//! request per chunk of at most the data region (whole blocks except a CTR tail), the
//! session's IV carried from request to request by the driver. Exits 0 when the input
//! is done, or prints `error: ...` and exits 1.
use std::fs::File;
use std::io::Write;

use crypto_client::{CipherLink, Completion};
use crypto_pds::client::{DRIVER, link};
use pd_idl::cipher::{self, CipherOp, REQUEST_QUEUE_CAPACITY, Request, Segment};
use pd_runtime::ipc::PpcTransport;
use pd_runtime::{ChannelSet, Handler, exit};
use pd_tools::algs::{CipherAlg, DataPath};
use pd_tools::hexfmt;
use pd_tools::pd::{Data, fail, fill, granted, param, status_words};

/// Bytes per request: whole blocks, and within what every engine's DMA path takes.
const CHUNK: usize = 16 * 1024;

struct Client {
    calls: cipher::Client<PpcTransport>,
    link: CipherLink<'static>,
    data: Data,
    buf: Vec<u8>,
    input: File,
    output: File,
    alg: CipherAlg,
    op: CipherOp,
    session: u32,
    /// Bytes of the request in flight.
    pending: usize,
    /// An error to report at the next answer (see `fail_soon`).
    failing: Option<String>,
    next_id: u32,
}

impl Client {
    fn step(&mut self) {
        let n = match fill(&mut self.input, &mut self.buf) {
            Ok(n) => n,
            Err(e) => return self.fail_soon(format!("reading input: {e}")),
        };
        if n == 0 {
            self.output
                .flush()
                .unwrap_or_else(|e| fail(format!("writing output: {e}")));
            if let Err(e) = self.calls.close_session(self.session) {
                fail(format!("close_session: {e:?}"));
            }
            exit(0);
        }
        if self.alg.whole_blocks() && n % 16 != 0 {
            let what = format!(
                "input length is not a multiple of 16 bytes ({} has no padding): {n} bytes left at the end",
                self.alg.name()
            );
            return self.fail_soon(what);
        }
        self.data.write(0, &self.buf[..n]);
        let mut segs = [Segment { offset: 0, len: 0 }; 8];
        segs[0].len = n as u32;
        self.next_id += 1;
        self.pending = n;
        let req = Request {
            id: self.next_id,
            session: self.session,
            op: self.op.into(),
            nsegs: 1,
            reserved: [0; 2],
            segs,
        };
        match self.link.submit(req) {
            Ok(true) => DRIVER.notify(),
            Ok(false) => {}
            Err(e) => fail(format!("submit: {e:?}")),
        }
    }

    /// Fails at the next answer rather than now: a PD that ends inside `init` is a boot
    /// failure whose output the runner does not keep, so the tool could not show why.
    /// An empty request is answered whatever the driver thinks of it.
    fn fail_soon(&mut self, what: String) {
        self.failing = Some(what);
        self.next_id += 1;
        let req = Request {
            id: self.next_id,
            session: self.session,
            op: self.op.into(),
            nsegs: 0,
            reserved: [0; 2],
            segs: [Segment { offset: 0, len: 0 }; 8],
        };
        match self.link.submit(req) {
            Ok(true) => DRIVER.notify(),
            Ok(false) => {}
            Err(e) => fail(format!("submit: {e:?}")),
        }
    }

    fn answered(&mut self, r: cipher::Response) {
        if let Some(what) = self.failing.take() {
            fail(what);
        }
        match r.status.check() {
            Ok(Ok(())) => {}
            Ok(Err(cipher::CipherError::UnsupportedPath)) => fail(format!(
                "driver: UnsupportedPath: the engine cannot take this {}-byte request on the \
                 forced path (DMA takes whole blocks only); try --path adaptive or pio",
                self.pending
            )),
            other => {
                if let Err(e) = status_words(other) {
                    fail(e);
                }
            }
        }
        let n = self.pending;
        self.data.read(0, &mut self.buf[..n]);
        self.output
            .write_all(&self.buf[..n])
            .unwrap_or_else(|e| fail(format!("writing output: {e}")));
        self.step();
    }
}

impl Handler for Client {
    fn notified(&mut self, _: ChannelSet) {
        let mut got = Vec::new();
        let notify = self
            .link
            .poll(|c| match c {
                Completion::Answered(r) => got.push(r),
                Completion::Restarted(id) => fail(format!("driver restarted (request {id})")),
            })
            .unwrap_or_else(|e| fail(format!("response queue: {e:?}")));
        if notify {
            DRIVER.notify();
        }
        for r in got {
            self.answered(r);
        }
    }
}

fn init() -> Client {
    let alg = CipherAlg::parse(&param("ALG")).unwrap_or_else(|e| fail(e));
    let path = DataPath::parse(&param("PATH"))
        .and_then(DataPath::cipher)
        .unwrap_or_else(|| fail("PDT_PATH is not a cipher path"));
    let op = match param("OP").as_str() {
        "e" => CipherOp::Encrypt,
        "d" => CipherOp::Decrypt,
        o => fail(format!("PDT_OP {o:?}")),
    };
    let mut key = [0u8; 32];
    let k = hexfmt::decode(&param("KEY")).unwrap_or_else(|e| fail(e));
    key[..k.len()].copy_from_slice(&k);
    let mut iv = [0u8; 16];
    iv.copy_from_slice(&hexfmt::decode(&param("IV")).unwrap_or_else(|e| fail(e)));
    let mut calls = cipher::Client::new(PpcTransport(DRIVER));
    let session = calls
        .open_session(alg.mode, path, k.len() as u8, key, iv)
        .unwrap_or_else(|e| fail(format!("open_session: {e:?}")));
    let data = Data::map();
    assert!(data.size() >= CHUNK, "the data region holds a chunk");
    let mut c = Client {
        calls,
        link: link(REQUEST_QUEUE_CAPACITY),
        data,
        buf: vec![0; CHUNK],
        input: granted("in"),
        output: granted("out"),
        alg,
        op,
        session,
        pending: 0,
        failing: None,
        next_id: 0,
    };
    c.step();
    c
}

pd_runtime::protection_domain!(init);
