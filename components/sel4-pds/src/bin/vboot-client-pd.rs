#![cfg_attr(target_os = "none", no_std, no_main)]
//! The verified-boot client of `qemu_virt_aarch64.system`: checks a signed demo image
//! with `vboot`, hashing it through the CPU engine's Digest service (channel 0: calls by
//! PPC, requests over the queue pair in `queues`), and writes its verdict to
//! `vboot_report` for the test client (notified on channel 1).
//!
//! The image is `sel4_pds::vboot_image` (system/images/demo.img, which this PD writes into
//! its region `image`, standing in for a loaded kernel); its manifest was signed with
//! the published demo key, and only the manifest and the public key are in this PD. Checks, each of which must come out as stated for the verdict to pass:
//! 1. the genuine manifest passes `vboot::precheck` (signature, rollback floor, length)
//!    and the image's SHA-256 from the Digest driver (8 scattered segments) matches it
//!    (`vboot::compare`);
//! 2. a manifest with one signature bit flipped is refused (`BadSignature`), and the
//!    genuine one under a higher rollback floor is refused (`Rollback`);
//! 3. the image with one byte changed hashes to something else (`DigestMismatch`).
use crypto_client::{Completion, DigestLink, Link, pair};
use pd_idl::digest::{
    Algorithm, Client, DigestErrorRaw, DigestOp, HashPath, Request, Response, Segment,
};
use pd_runtime::ipc::PpcTransport;
use pd_runtime::{Channel, ChannelSet, Handler, MemoryRegion, debug_println, memory_region};
use sel4_pds::vboot_image::{IMAGE_LEN, MANIFEST, ROLLBACK_FLOOR, TRUSTED_KEY, image_byte};
use sel4_pds::{Hex, QUEUE_CAPACITY, queue_region, report};
use vboot::{ManifestBody, VbootError, compare, precheck};
use zerocopy::FromZeros;

const DIGEST: Channel = Channel::new(0);
const TEST: Channel = Channel::new(1);

/// The byte changed for check 3.
const TAMPER_AT: usize = IMAGE_LEN / 3;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Hashing the genuine image (request id 1).
    Genuine,
    /// Hashing the tampered image (request id 2).
    Tampered,
    Done,
}

struct Vboot {
    image: MemoryRegion,
    digest: Client<PpcTransport>,
    link: DigestLink<'static>,
    body: ManifestBody,
    phase: Phase,
    /// The Digest session of the request in flight.
    session: Option<u32>,
    /// Checks that came out as they must.
    good: u32,
}

/// Checks the verdict needs.
const CHECKS: u32 = 4;

impl Vboot {
    /// Opens a SHA-256 session and queues one Final over the image in 8 segments.
    fn hash(&mut self, id: u32) -> Result<(), &'static str> {
        let session = self
            .digest
            .open_session(Algorithm::Sha256, HashPath::Auto)
            .map_err(|_| "open_session failed")?;
        self.session = Some(session);
        let len = self.body.length as u32;
        let part = len.div_ceil(8);
        let mut r = Request::new_zeroed();
        r.id = id;
        r.session = session;
        r.op = DigestOp::Final.into();
        r.nsegs = 8;
        for (i, s) in r.segs.iter_mut().enumerate() {
            let offset = (i as u32 * part).min(len);
            *s = Segment {
                offset,
                len: part.min(len - offset),
            };
        }
        match self.link.submit(r) {
            Ok(true) => DIGEST.notify(),
            Ok(false) => {}
            Err(_) => return Err("submit failed"),
        }
        Ok(())
    }

    fn digest_of(&mut self, resp: &Response) -> Option<[u8; 32]> {
        // The session is used once; close it whatever the answer.
        let closed = self
            .session
            .take()
            .map(|s| (s, self.digest.close_session(s)));
        if let Some((s, Err(e))) = closed {
            debug_println!("vboot_client: close_session({s}): {e:?}");
        }
        if resp.status != DigestErrorRaw::OK || resp.digest_len != 32 {
            debug_println!(
                "vboot_client: digest request {}: {:?}",
                resp.id,
                resp.status.check()
            );
            return None;
        }
        Some(resp.digest)
    }

    fn answered(&mut self, resp: Response) {
        let digest = self.digest_of(&resp);
        match (self.phase, resp.id) {
            (Phase::Genuine, 1) => {
                match digest.map(|d| (compare(&self.body, &d), d)) {
                    Some((Ok(()), d)) => {
                        debug_println!(
                            "vboot_client: image sha256 {}... (via cpu_engine Digest) matches the signed manifest: verified",
                            Hex(&d[..8])
                        );
                        self.good += 1;
                    }
                    Some((Err(e), _)) => debug_println!("vboot_client: genuine image: {e}"),
                    None => {}
                }
                // Check 3: change one byte and expect the digest to differ.
                // SAFETY: TAMPER_AT < IMAGE_LEN <= image.size (checked in init); mapped rw.
                unsafe {
                    self.image
                        .vaddr
                        .add(TAMPER_AT)
                        .write_volatile(!image_byte(TAMPER_AT))
                };
                self.phase = Phase::Tampered;
                if let Err(e) = self.hash(2) {
                    debug_println!("vboot_client: tampered image: {e}");
                    self.done();
                }
            }
            (Phase::Tampered, 2) => {
                match digest.map(|d| compare(&self.body, &d)) {
                    Some(Err(VbootError::DigestMismatch)) => {
                        debug_println!(
                            "vboot_client: image with byte {TAMPER_AT} changed: refused (digest mismatch)"
                        );
                        self.good += 1;
                    }
                    other => debug_println!("vboot_client: tampered image NOT refused: {other:?}"),
                }
                // Put the image back as it was verified.
                // SAFETY: as above.
                unsafe {
                    self.image
                        .vaddr
                        .add(TAMPER_AT)
                        .write_volatile(image_byte(TAMPER_AT))
                };
                self.done();
            }
            _ => debug_println!("vboot_client: unexpected answer {}", resp.id),
        }
    }

    fn done(&mut self) {
        self.phase = Phase::Done;
        let passed = self.good == CHECKS;
        let mut text = Text::default();
        let _ = core::fmt::Write::write_fmt(
            &mut text,
            format_args!(
                "{} of {CHECKS} checks as expected ({} v{}, {} bytes; checks: genuine verifies, forged signature, rollback, tampered image refused)",
                self.good,
                core::str::from_utf8(self.body.name()).unwrap_or("?"),
                self.body.version,
                self.body.length
            ),
        );
        debug_println!("vboot_client: verdict: {}", text.as_str());
        report::write(memory_region!(report), passed, text.as_str());
        TEST.notify();
    }
}

/// A fixed buffer for the verdict text.
struct Text {
    buf: [u8; report::TEXT_MAX],
    len: usize,
}

impl Default for Text {
    fn default() -> Self {
        Text {
            buf: [0; report::TEXT_MAX],
            len: 0,
        }
    }
}

impl Text {
    fn as_str(&self) -> &str {
        core::str::from_utf8(&self.buf[..self.len]).unwrap_or("?")
    }
}

impl core::fmt::Write for Text {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        // Cut at the buffer's end, on a char boundary (the text is ASCII anyway).
        for c in s.chars() {
            let mut b = [0; 4];
            let b = c.encode_utf8(&mut b).as_bytes();
            if self.len + b.len() > self.buf.len() {
                break;
            }
            self.buf[self.len..self.len + b.len()].copy_from_slice(b);
            self.len += b.len();
        }
        Ok(())
    }
}

impl Handler for Vboot {
    fn notified(&mut self, channels: ChannelSet) {
        if !channels.contains(DIGEST) || self.phase == Phase::Done {
            return;
        }
        let mut answers = [None; 2];
        let mut n = 0;
        let result = self.link.poll(|c| match c {
            Completion::Answered(r) if n < answers.len() => {
                answers[n] = Some(r);
                n += 1;
            }
            other => debug_println!("vboot_client: {:?}", other.map_id()),
        });
        if let Err(e) = result {
            debug_println!("vboot_client: digest queue broken: {e}");
            self.done();
            return;
        }
        for r in answers.into_iter().flatten() {
            if self.phase != Phase::Done {
                self.answered(r);
            }
        }
    }
}

/// What a completion is about, for a log line.
trait MapId {
    fn map_id(&self) -> (&'static str, u32);
}

impl MapId for Completion<Response> {
    fn map_id(&self) -> (&'static str, u32) {
        match self {
            Completion::Answered(r) => ("unexpected answer", r.id),
            Completion::Restarted(id) => ("driver restarted; lost request", *id),
        }
    }
}

fn init() -> Vboot {
    let image = memory_region!(image);
    assert!(
        image.size >= IMAGE_LEN,
        "vboot_client: image region smaller than the image"
    );
    for i in 0..IMAGE_LEN {
        // SAFETY: i < IMAGE_LEN <= image.size; mapped rw here; volatile because the
        // Digest driver reads it.
        unsafe { image.vaddr.add(i).write_volatile(image_byte(i)) };
    }
    let (tx, rx, control) = pair::client_side::<Request, Response>(
        queue_region(memory_region!(queues)),
        QUEUE_CAPACITY,
    )
    .unwrap_or_else(|e| panic!("vboot_client: queue region: {e:?}"));
    let mut good = 0;
    // Check 2: a forged signature and a rollback are refused before anything is hashed.
    let mut forged = [0u8; vboot::MANIFEST_LEN];
    forged.copy_from_slice(MANIFEST);
    forged[vboot::MANIFEST_LEN - 1] ^= 1;
    match precheck(&forged, &TRUSTED_KEY, ROLLBACK_FLOOR, IMAGE_LEN as u64) {
        Err(VbootError::BadSignature) => {
            debug_println!(
                "vboot_client: manifest with a flipped signature bit: refused (bad signature)"
            );
            good += 1;
        }
        other => debug_println!("vboot_client: forged manifest NOT refused: {other:?}"),
    }
    match precheck(MANIFEST, &TRUSTED_KEY, u32::MAX, IMAGE_LEN as u64) {
        Err(e @ VbootError::Rollback { .. }) => {
            debug_println!("vboot_client: genuine manifest under a higher floor: refused ({e})");
            good += 1;
        }
        other => debug_println!("vboot_client: rollback NOT refused: {other:?}"),
    }
    let mut v = Vboot {
        image,
        digest: Client::new(PpcTransport(DIGEST)),
        link: Link::new(tx, rx, control),
        body: ManifestBody::new("", 0, [0; 32], 0),
        phase: Phase::Genuine,
        session: None,
        good,
    };
    // Check 1, first half: the genuine manifest; then hash the image.
    match precheck(MANIFEST, &TRUSTED_KEY, ROLLBACK_FLOOR, IMAGE_LEN as u64) {
        Ok(body) => {
            debug_println!(
                "vboot_client: manifest signature ok ({} v{}, {} bytes, floor {ROLLBACK_FLOOR}); hashing the image",
                core::str::from_utf8(body.name()).unwrap_or("?"),
                body.version,
                body.length
            );
            v.body = body;
            if let Err(e) = v.hash(1) {
                debug_println!("vboot_client: {e}");
                v.done();
            }
        }
        Err(e) => {
            debug_println!("vboot_client: genuine manifest refused: {e}");
            v.done();
        }
    }
    v
}

pd_runtime::protection_domain!(init);
