//! The client PD `pd-rand` boots: draws `PDT_BYTES` random bytes from its Rng driver, one
//! session (prediction resistance if `PDT_PR` is 1), a fill request per 64 KiB (the
//! most one fill takes) into its data region, each written to the file granted as
//! `out` as it arrives: raw, or with `PDT_HEX` as one line of lower-case hex, as
//! `openssl rand -hex` prints it. Exits 0 when all are written, or prints `error: ...`
//! and exits 1.
use std::fs::File;
use std::io::Write;

use crypto_client::driver::RngDriver;
use pd_idl::rng::{self, RngAlgorithm, RngOp};
use pd_runtime::{ChannelSet, Handler, exit};
use pd_tools::cli::io_text;
use pd_tools::hexfmt;
use pd_tools::pd::{Data, answers, fail, granted, param, param_opt, status_words};

/// Bytes per fill: SP 800-90A's most per generate request for AES, 2^19 bits.
const CHUNK: usize = 64 * 1024;

struct Client {
    driver: RngDriver,
    data: Data,
    output: File,
    hex: bool,
    session: u32,
    left: u64,
    /// The fill in flight: its id and length.
    asked: Option<(u32, usize)>,
    next_id: u32,
}

impl Client {
    fn ask(&mut self) {
        if self.left == 0 {
            self.finish();
        }
        let n = (self.left as usize).min(CHUNK).min(self.data.size());
        self.next_id += 1;
        self.asked = Some((self.next_id, n));
        let req = rng::Request::over(self.next_id, self.session, RngOp::Fill, &[(0, n as u32)]);
        if self
            .driver
            .link
            .submit(req)
            .unwrap_or_else(|e| fail(format!("submit: {e:?}")))
        {
            self.driver.notify();
        }
    }

    fn finish(&mut self) -> ! {
        let end: &[u8] = if self.hex { b"\n" } else { b"" };
        self.output
            .write_all(end)
            .and_then(|()| self.output.flush())
            .unwrap_or_else(|e| fail(format!("write error: {}", io_text(&e))));
        if let Err(e) = self.driver.close_session(self.session) {
            fail(format!("close_session: {e:?}"));
        }
        exit(0);
    }
}

impl Handler for Client {
    fn notified(&mut self, _: ChannelSet) {
        for r in answers(&mut self.driver.link) {
            let Some((id, n)) = self.asked.take() else {
                fail(format!("answer {} to nothing asked", r.id));
            };
            if r.id != id {
                fail(format!("answer {} while {id} was asked", r.id));
            }
            if let Err(e) = status_words(r.status.check()) {
                fail(e);
            }
            if r.bytes_done as usize != n {
                fail(format!("the driver filled {} of {n} bytes", r.bytes_done));
            }
            let mut buf = vec![0u8; n];
            self.data.read(0, &mut buf);
            let written = if self.hex {
                self.output.write_all(hexfmt::encode(&buf).as_bytes())
            } else {
                self.output.write_all(&buf)
            };
            written.unwrap_or_else(|e| fail(format!("write error: {}", io_text(&e))));
            self.left -= n as u64;
            self.ask();
        }
    }
}

fn init() -> Client {
    let left: u64 = param("BYTES")
        .parse()
        .unwrap_or_else(|_| fail("PDT_BYTES is no count"));
    let pr = param_opt("PR").as_deref() == Some("1");
    let mut driver = RngDriver::map();
    let session = driver
        .calls
        .open_session(RngAlgorithm::CtrDrbgAes256, u8::from(pr), 0)
        .unwrap_or_else(|e| fail(format!("open_session: {e:?}")));
    let mut client = Client {
        driver,
        data: Data::map(),
        output: granted("out"),
        hex: param_opt("HEX").as_deref() == Some("1"),
        session,
        left,
        asked: None,
        next_id: 0,
    };
    client.ask();
    client
}

pd_runtime::protection_domain!(init);
