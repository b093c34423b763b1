//! The client PD `pd-enc` boots: enciphers or deciphers the file granted as `in` into
//! the one granted as `out` (the tool opened them: its input and output) through its
//! Cipher driver, one session, a request per 16 KiB chunk (whole blocks except a CTR
//! tail), four in flight, the session's IV carried from request to request by the
//! driver. With `PDT_IV=random` (encrypting), the first request is `EncryptNewIv`: the
//! driver draws the IV from its Rng service and writes it at the end of the first
//! chunk's slot (the first chunk is 16 bytes shorter to leave it room), and the client
//! prints it as `iv HEX` for the tool. Exits 0 when the input is done, or prints
//! `error: ...` and exits 1.
use std::collections::VecDeque;
use std::fs::File;
use std::io::Write;

use crypto_client::driver::CipherDriver;
use pd_idl::cipher::{self, CipherOp, Request};
use pd_runtime::{ChannelSet, Handler, exit};
use pd_tools::algs::{CipherAlg, DataPath};
use pd_tools::cli::io_text;
use pd_tools::hexfmt;
use pd_tools::pd::{Data, answers, fail, fill, granted, param, status_words};

/// Bytes per request: whole blocks, and within what every engine's DMA path takes.
const CHUNK: usize = 16 * 1024;
/// Requests kept in flight, each on its own chunk of the data region: the driver
/// enciphers one while this PD reads the next from the input and writes the last out.
const DEPTH: usize = 4;

struct Client {
    driver: CipherDriver,
    data: Data,
    buf: Vec<u8>,
    input: File,
    output: File,
    alg: CipherAlg,
    op: CipherOp,
    session: u32,
    /// Requests in flight, oldest first: (id, chunk of the data region, bytes). A
    /// session's requests are answered in order.
    in_flight: VecDeque<(u32, usize, usize)>,
    /// The input has ended (or failed: then `failing` says so).
    input_done: bool,
    /// An error to report at the next answer (see `fail_soon`).
    failing: Option<String>,
    next_id: u32,
    /// The driver draws the IV: the first request asks it to (and has not been sent).
    draw_iv: bool,
}

/// Where the drawn IV is written: the last block of the first chunk's slot.
const IV_AT: usize = CHUNK - 16;

impl Client {
    /// Submits chunks of the input until `DEPTH` are in flight or the input ends; one
    /// notification for them. With nothing in flight at the end, finishes.
    fn fill(&mut self) {
        let mut notify = false;
        while !self.input_done && self.in_flight.len() < DEPTH {
            let chunk = (0..DEPTH)
                .find(|c| self.in_flight.iter().all(|f| f.1 != *c))
                .expect("a chunk is free below DEPTH in flight");
            // The first request of a drawn IV leaves its slot's last block for the IV.
            let first_new_iv = self.draw_iv && self.next_id == 0;
            let limit = if first_new_iv { IV_AT } else { CHUNK };
            let n = match fill(&mut self.input, &mut self.buf[..limit]) {
                Ok(n) => n,
                Err(e) => {
                    self.input_done = true;
                    notify |= self.fail_soon(format!("read error: {}", io_text(&e)));
                    break;
                }
            };
            if n == 0 {
                self.input_done = true;
                break;
            }
            if self.alg.whole_blocks() && n % 16 != 0 {
                self.input_done = true;
                let what = format!(
                    "input length is not a multiple of 16 bytes ({} has no padding): {n} bytes left at the end",
                    self.alg.name()
                );
                notify |= self.fail_soon(what);
                break;
            }
            let at = chunk * CHUNK;
            self.data.write(at, &self.buf[..n]);
            self.next_id += 1;
            self.in_flight.push_back((self.next_id, chunk, n));
            let req = if first_new_iv {
                let segs = [(at as u32, n as u32), ((at + IV_AT) as u32, 16)];
                Request::over(self.next_id, self.session, CipherOp::EncryptNewIv, &segs)
            } else {
                Request::over(
                    self.next_id,
                    self.session,
                    self.op,
                    &[(at as u32, n as u32)],
                )
            };
            notify |= self
                .driver
                .link
                .submit(req)
                .unwrap_or_else(|e| fail(format!("submit: {e:?}")));
            if n < limit {
                // A short read is the end of the input (fill reads until full or EOF).
                self.input_done = true;
            }
        }
        if notify {
            self.driver.notify();
        }
        if self.input_done && self.in_flight.is_empty() && self.failing.is_none() {
            self.output
                .flush()
                .unwrap_or_else(|e| fail(format!("write error: {}", io_text(&e))));
            if let Err(e) = self.driver.close_session(self.session) {
                fail(format!("close_session: {e:?}"));
            }
            exit(0);
        }
    }

    /// Fails at the next answer rather than now: a PD that ends inside `init` is a boot
    /// failure whose output the runner does not keep, so the tool could not show why.
    /// An empty request is answered whatever the driver thinks of it. Whether the
    /// driver wants a notification.
    fn fail_soon(&mut self, what: String) -> bool {
        self.failing = Some(what);
        self.next_id += 1;
        let req = Request::over(self.next_id, self.session, self.op, &[]);
        self.driver
            .link
            .submit(req)
            .unwrap_or_else(|e| fail(format!("submit: {e:?}")))
    }

    fn answered(&mut self, r: cipher::Response) {
        let Some((id, chunk, n)) = self.in_flight.pop_front() else {
            // The empty request of `fail_soon`: every chunk before it is written.
            fail(
                self.failing
                    .take()
                    .unwrap_or_else(|| "an answer to nothing".into()),
            )
        };
        if r.id != id {
            fail(format!("answer {} where {id} was due", r.id));
        }
        match r.status.check() {
            Ok(Ok(())) => {}
            Ok(Err(cipher::CipherError::UnsupportedPath)) => fail(format!(
                "driver: UnsupportedPath: the engine cannot take this {n}-byte request on the \
                 forced path (DMA takes whole blocks only); try --path adaptive or pio"
            )),
            other => {
                if let Err(e) = status_words(other) {
                    fail(e);
                }
            }
        }
        if self.draw_iv && id == 1 {
            let mut iv = [0u8; 16];
            self.data.read(chunk * CHUNK + IV_AT, &mut iv);
            pd_runtime::debug_println!("iv {}", hexfmt::encode(&iv));
        }
        self.data.read(chunk * CHUNK, &mut self.buf[..n]);
        self.output
            .write_all(&self.buf[..n])
            .unwrap_or_else(|e| fail(format!("write error: {}", io_text(&e))));
    }
}

impl Handler for Client {
    fn notified(&mut self, _: ChannelSet) {
        for r in answers(&mut self.driver.link) {
            self.answered(r);
        }
        self.fill();
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
    let draw_iv = param("IV") == "random";
    if !draw_iv {
        iv.copy_from_slice(&hexfmt::decode(&param("IV")).unwrap_or_else(|e| fail(e)));
    }
    let mut driver = CipherDriver::map();
    let session = driver
        .calls
        .open_session(alg.mode, path, k.len() as u8, key, iv)
        .unwrap_or_else(|e| fail(format!("open_session: {e:?}")));
    let data = Data::map();
    assert!(
        data.size() >= DEPTH * CHUNK,
        "the data region holds a chunk per request"
    );
    let mut c = Client {
        driver,
        data,
        buf: vec![0; CHUNK],
        input: granted("in"),
        output: granted("out"),
        alg,
        op,
        session,
        in_flight: VecDeque::new(),
        input_done: false,
        failing: None,
        next_id: 0,
        draw_iv,
    };
    c.fill();
    c
}

pd_runtime::protection_domain!(init);
