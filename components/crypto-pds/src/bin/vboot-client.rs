#![cfg_attr(target_os = "none", no_std, no_main)]
//! The verified-boot client: checks the shipped boot image (system/images/demo.img)
//! against its signed manifest, hashing the image through the Digest driver PD on
//! channel 0 (SHA-256 over the queues: an update over the image, then the final).
//!
//! Before anything is hashed the manifest must decode, its Ed25519 signature must verify
//! under the trusted key built into this PD, its version must not be below the rollback
//! floor and the image must hold as many bytes as it says (`vboot::precheck`); then the
//! digest the driver returns must equal the manifest's (`vboot::compare`). Prints
//! "verified" or exactly why not, and exits 0 only when verified.
//!
//! On the host the PD copies the image into its data region itself, standing in for the
//! boot loader that would have placed it there.

use crypto_client::{Completion, DigestLink, digest_request};
use crypto_pds::client::{DRIVER, Data, link};
use pd_idl::digest::{self, Algorithm, DigestOp, HashPath, REQUEST_QUEUE_CAPACITY, Request};
use pd_runtime::ipc::PpcTransport;
use pd_runtime::{ChannelSet, Handler, debug_println, exit};
use vboot::{ManifestBody, VbootError};

const IMAGE: &[u8] = include_bytes!("../../../../system/images/demo.img");
const MANIFEST: &[u8] = include_bytes!("../../../../system/images/demo.manifest");
const TRUSTED_KEY: &str = include_str!("../../../../system/images/demo.pub");
/// The lowest image version this device still boots (a fuse on real hardware).
const ROLLBACK_FLOOR: u32 = 2;

struct Vboot {
    link: DigestLink<'static>,
    body: ManifestBody,
    session: u32,
}

fn refuse(e: VbootError) -> ! {
    debug_println!("vboot: boot image NOT verified: {e}");
    exit(1)
}

impl Vboot {
    fn submit(&mut self, req: Request) {
        match self.link.submit(req) {
            Ok(true) => DRIVER.notify(),
            Ok(false) => {}
            Err(e) => refuse(VbootError::Digest(match e {
                crypto_client::SubmitError::Full => "request queue full",
                _ => "request queue broken",
            })),
        }
    }

    fn answered(&mut self, resp: digest::Response) {
        if resp.status.check() != Ok(Ok(())) {
            refuse(VbootError::Digest("the driver refused a request"));
        }
        if resp.id == 1 {
            // The update went through: finish (the engine pads).
            self.submit(digest_request(2, self.session, DigestOp::Final, &[]));
            return;
        }
        let mut sha = [0u8; 32];
        if usize::from(resp.digest_len) != sha.len() {
            refuse(VbootError::Digest("not a SHA-256 digest"));
        }
        sha.copy_from_slice(&resp.digest);
        if let Err(e) = vboot::compare(&self.body, &sha) {
            refuse(e);
        }
        let name = core::str::from_utf8(self.body.name()).unwrap_or("?");
        debug_println!(
            "vboot: boot image verified: {name} version {} (floor {ROLLBACK_FLOOR}), {} bytes, sha256 {:02x}{:02x}{:02x}{:02x}... via the Digest driver PD",
            self.body.version,
            self.body.length,
            sha[0],
            sha[1],
            sha[2],
            sha[3]
        );
        exit(0);
    }
}

impl Handler for Vboot {
    fn notified(&mut self, _: ChannelSet) {
        let mut answers = [None; 2];
        let mut n = 0;
        let notify = self
            .link
            .poll(|c| match c {
                Completion::Answered(r) if n < answers.len() => {
                    answers[n] = Some(r);
                    n += 1;
                }
                Completion::Answered(_) => {}
                Completion::Restarted(_) => refuse(VbootError::Digest("the driver restarted")),
            })
            .unwrap_or_else(|_| refuse(VbootError::Digest("response queue broken")));
        if notify {
            DRIVER.notify();
        }
        for r in answers.into_iter().take(n).flatten() {
            self.answered(r);
        }
    }
}

fn init() -> Vboot {
    let mut key = [0u8; 32];
    if kat_vectors::hex(TRUSTED_KEY.trim(), &mut key) != key.len() {
        refuse(VbootError::BadSignature);
    }
    let data = Data::map();
    let room = data.0.size as u64;
    let loaded = IMAGE.len().min(data.0.size);
    data.write(0, &IMAGE[..loaded]);
    let body = vboot::precheck(MANIFEST, &key, ROLLBACK_FLOOR, (loaded as u64).min(room))
        .unwrap_or_else(|e| refuse(e));
    let mut calls = digest::Client::new(PpcTransport(DRIVER));
    let session = calls
        .open_session(Algorithm::Sha256, HashPath::Auto)
        .unwrap_or_else(|_| refuse(VbootError::Digest("no SHA-256 session")));
    let mut v = Vboot {
        link: link(REQUEST_QUEUE_CAPACITY),
        body,
        session,
    };
    let len =
        u32::try_from(body.length).unwrap_or_else(|_| refuse(VbootError::Digest("image too long")));
    v.submit(digest_request(1, session, DigestOp::Update, &[(0, len)]));
    v
}

pd_runtime::protection_domain!(init);
