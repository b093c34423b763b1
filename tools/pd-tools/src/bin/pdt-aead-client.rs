//! The client PD `pd-enc` boots for an AEAD (`-a aes-128-gcm`, `aes-256-ccm`, ...): seals
//! or opens the file granted as `in` as one message, with the AAD granted as `aad` (if
//! any), through its Aead driver, one session and one request (the whole message in
//! the data region: a message longer than the region needs init/update/final, which
//! the interface does not offer yet). Sealing, it writes the ciphertext to `out` and
//! prints `tag HEX` for the tool (and `nonce HEX` when the driver drew the nonce:
//! `PDT_NONCE=random`); opening, it checks `PDT_TAG` and writes the plaintext only if
//! the tag verified: a tag that does not verify prints `error: ... TagMismatch` and
//! exits 1 having written nothing. Exits 0 when done, or prints `error: ...` and exits 1.
use std::fs::File;
use std::io::{Read, Write};

use crypto_client::driver::AeadDriver;
use pd_idl::aead::{self, AeadError, AeadOp, Request};
use pd_runtime::{ChannelSet, Handler, exit};
use pd_tools::algs::AeadAlg;
use pd_tools::cli::io_text;
use pd_tools::hexfmt;
use pd_tools::pd::{Data, answers, fail, granted, param, status_words};

/// Where the parts of the message lie in the data region: the key (copied out at
/// open), the nonce, the tag, then the AAD and, 16-byte aligned after it, the payload.
const KEY_AT: usize = 0;
const NONCE_AT: usize = 32;
const TAG_AT: usize = 48;
const AAD_AT: usize = 64;

struct Client {
    driver: AeadDriver,
    data: Data,
    output: File,
    op: AeadOp,
    session: u32,
    payload: (usize, usize),
    nonce_len: usize,
    tag_len: usize,
    /// An error found in init, reported at the answer of the empty request sent for it:
    /// a PD that ends inside `init` is a boot failure whose output the runner does not
    /// keep, so the tool could not show why.
    failing: Option<String>,
}

/// All of `from`, at most `room` bytes; `None` if it holds more.
fn read_all(from: &mut File, room: usize, what: &str) -> Result<Option<Vec<u8>>, String> {
    let mut all = Vec::new();
    from.take(room as u64 + 1)
        .read_to_end(&mut all)
        .map_err(|e| format!("read error ({what}): {}", io_text(&e)))?;
    Ok((all.len() <= room).then_some(all))
}

impl Client {
    /// Lays the message out in the data region and sends its one request, or an empty
    /// one to report why not.
    fn send(&mut self, aad: Option<File>, mut input: File, sent_tag: Option<Vec<u8>>) {
        let size = self.data.size();
        let laid = (|| {
            let aad = match aad {
                Some(mut f) => read_all(&mut f, size - AAD_AT, "aad")?.ok_or_else(|| {
                    format!("the AAD is longer than the data region ({size} bytes)")
                })?,
                None => Vec::new(),
            };
            let at = (AAD_AT + aad.len()).next_multiple_of(16);
            let room = size.saturating_sub(at);
            let msg = read_all(&mut input, room, "input")?.ok_or_else(|| {
                format!(
                    "the message is longer than one request takes ({room} bytes after the AAD, \
                     the data region's rest; init/update/final is not offered yet)"
                )
            })?;
            self.data.write(AAD_AT, &aad);
            self.data.write(at, &msg);
            if let Some(t) = &sent_tag {
                self.data.write(TAG_AT, t);
            }
            Ok::<_, String>((aad.len(), at, msg.len()))
        })();
        let req = match laid {
            Ok((aad_len, at, n)) => {
                self.payload = (at, n);
                let aad: &[(u32, u32)] = if aad_len > 0 {
                    &[(AAD_AT as u32, aad_len as u32)]
                } else {
                    &[]
                };
                Request::message(
                    1,
                    self.session,
                    self.op,
                    (NONCE_AT as u32, self.nonce_len as u32),
                    aad,
                    &[(at as u32, n as u32)],
                    (TAG_AT as u32, self.tag_len as u32),
                )
            }
            Err(e) => {
                self.failing = Some(e);
                Request::message(1, self.session, self.op, (0, 0), &[], &[], (0, 0))
            }
        };
        if self
            .driver
            .link
            .submit(req)
            .unwrap_or_else(|e| fail(format!("submit: {e:?}")))
        {
            self.driver.notify();
        }
    }

    fn answered(&mut self, r: aead::Response) -> ! {
        if let Some(e) = self.failing.take() {
            fail(e);
        }
        match r.status.check() {
            Ok(Ok(())) => {}
            Ok(Err(AeadError::TagMismatch)) => fail(
                "driver: TagMismatch: the tag does not verify (the message or its AAD was changed, \
                 or the key, nonce or tag is not the sealer's); nothing written",
            ),
            other => {
                if let Err(e) = status_words(other) {
                    fail(e);
                }
            }
        }
        if self.op != AeadOp::Decrypt {
            let mut tag = vec![0u8; self.tag_len];
            self.data.read(TAG_AT, &mut tag);
            pd_runtime::debug_println!("tag {}", hexfmt::encode(&tag));
        }
        if self.op == AeadOp::EncryptNewNonce {
            let mut nonce = vec![0u8; self.nonce_len];
            self.data.read(NONCE_AT, &mut nonce);
            pd_runtime::debug_println!("nonce {}", hexfmt::encode(&nonce));
        }
        let (at, n) = self.payload;
        let mut out = vec![0u8; n];
        self.data.read(at, &mut out);
        self.output
            .write_all(&out)
            .and_then(|()| self.output.flush())
            .unwrap_or_else(|e| fail(format!("write error: {}", io_text(&e))));
        if let Err(e) = self.driver.close_session(self.session) {
            fail(format!("close_session: {e:?}"));
        }
        exit(0)
    }
}

impl Handler for Client {
    fn notified(&mut self, _: ChannelSet) {
        if let Some(r) = answers(&mut self.driver.link).into_iter().next() {
            self.answered(r);
        }
    }
}

fn init() -> Client {
    let alg = AeadAlg::parse(&param("ALG")).unwrap_or_else(|e| fail(e));
    let key = hexfmt::decode(&param("KEY")).unwrap_or_else(|e| fail(e));
    let tag_len: usize = param("TAG_LEN")
        .parse()
        .unwrap_or_else(|_| fail("PDT_TAG_LEN is not a number"));
    let nonce = param("NONCE");
    let draw = nonce == "random";
    let nonce = if draw {
        vec![0u8; 12]
    } else {
        hexfmt::decode(&nonce).unwrap_or_else(|e| fail(e))
    };
    let (op, sent_tag) = match param("OP").as_str() {
        "e" if draw => (AeadOp::EncryptNewNonce, None),
        "e" => (AeadOp::Encrypt, None),
        "d" => (
            AeadOp::Decrypt,
            Some(hexfmt::decode(&param("TAG")).unwrap_or_else(|e| fail(e))),
        ),
        o => fail(format!("PDT_OP {o:?}")),
    };
    let data = Data::map();
    data.write(KEY_AT, &key);
    data.write(NONCE_AT, &nonce);
    let mut driver = AeadDriver::map();
    // The tool checked the lengths before booting: a refusal here is the driver's.
    let session = driver
        .calls
        .open_session(
            alg.algorithm,
            KEY_AT as u32,
            key.len() as u32,
            nonce.len() as u8,
            tag_len as u8,
        )
        .unwrap_or_else(|e| fail(format!("open_session: {e:?}")));
    // The key's bytes leave the shared region once the driver holds them.
    data.write(KEY_AT, &[0; 32]);
    let aad = pd_runtime::host::take_file("aad");
    let mut c = Client {
        driver,
        data,
        output: granted("out"),
        op,
        session,
        payload: (0, 0),
        nonce_len: nonce.len(),
        tag_len,
        failing: None,
    };
    c.send(aad, granted("in"), sent_tag);
    c
}

pd_runtime::protection_domain!(init);
