#![cfg_attr(target_os = "none", no_std, no_main)]
//! The verified-boot client PD (see the `vboot-client-pd` crate docs for the checks).
use crypto_client::{Completion, DigestLink, Link, pair};
use pd_idl::digest::{
    Algorithm, Client, DigestErrorRaw, DigestOp, HashPath, Request, Response, Segment,
};
use pd_runtime::ipc::PpcTransport;
use pd_runtime::{
    Channel, ChannelSet, Handler, MemoryRegion, debug_println, exit, maybe_memory_region,
    memory_region, pd_name,
};
use shm_queue::SharedRegion;
use vboot::{ManifestBody, VbootError, compare, precheck};
use vboot_client_pd::image::{MANIFEST, ROLLBACK_FLOOR, TRUSTED_KEY};
use vboot_client_pd::{Hex, Text, report};
use zerocopy::FromZeros;

const DIGEST: Channel = Channel::new(0);
/// Told when the verdict is in `report` (a system that maps one).
const TEST: Channel = Channel::new(1);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Waiting for the boot loader to place the image.
    Loading,
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
    /// Hashes sent again after a driver restart.
    rehashes: u32,
    /// The boot loader's channel: its notification says the image is in place.
    loaded: Channel,
    /// The key trusted and the floor enforced ([`trust`]).
    key: [u8; 32],
    floor: u32,
}

/// Where the trusted key and floor came from, for the log.
#[derive(Clone, Copy, Debug)]
enum Trust {
    /// Built into this PD's image (`vboot_client_pd::image`).
    Image,
    /// The key store's first key provisioned for this PD, its floor with it.
    KeyStore,
    /// The system gives a key store that did not give a verify key: nothing verifies.
    Refused,
}

/// The trusted key and rollback floor: from the key store on the channel with
/// `setvar_id="keys"` where the system gives one (a provisioned, verify-only key and
/// the floor it comes with), so that neither is in the image being checked; else those
/// built into this PD. A store that does not give a 32-byte Ed25519 verify key leaves a
/// key of zeros, under which no manifest verifies (fail closed).
fn trust() -> ([u8; 32], u32, Trust) {
    use pd_idl::keys::{KeyAlgorithm, KeyUsage};
    let Some(ch) = pd_runtime::maybe_var!(keys).and_then(|v| u8::try_from(v).ok()) else {
        return (TRUSTED_KEY, ROLLBACK_FLOOR, Trust::Image);
    };
    let mut store = pd_idl::keys::Client::new(PpcTransport(Channel::new(ch)));
    use pd_idl::key_bits::{algorithm, usage};
    let verify = algorithm(KeyAlgorithm::Ed25519Verify);
    let found = store
        .provisioned(0)
        .and_then(|h| Ok((store.attributes(h)?, store.export(h)?)));
    match found {
        Ok((a, k))
            if a.policy.algorithms == verify
                && a.policy.usage & usage(KeyUsage::Verify) != 0
                && a.len == 32
                && k.head as u8 == 32 =>
        {
            let mut key = [0u8; 32];
            pd_idl::key_words::unpack(&k.bytes, &mut key);
            (key, a.floor, Trust::KeyStore)
        }
        other => {
            debug_println!("{}: the key store gave no verify key: {other:?}", pd_name());
            ([0; 32], u32::MAX, Trust::Refused)
        }
    }
}

/// Checks the verdict needs.
const CHECKS: u32 = 4;
/// Times a hash is sent again after the Digest driver restarted under it.
const MAX_REHASHES: u32 = 2;
/// The region's last bytes are where the driver writes the digest: the image may not
/// reach them (the precheck bounds it by the rest).
const DIGEST_ROOM: usize = 32;

/// How much of the region the image may take.
fn image_room(image: &MemoryRegion) -> u64 {
    image.size.saturating_sub(DIGEST_ROOM) as u64
}

impl Vboot {
    /// Opens a SHA-256 session and queues one Final over the image in as many segments as a request
    /// carries, the last the digest's place (cleared first: a digest left there by the
    /// boot loader must not pass for the driver's).
    fn hash(&mut self, id: u32) -> Result<(), &'static str> {
        let session = self
            .digest
            .open_session(Algorithm::Sha256, HashPath::Auto)
            .map_err(|_| "open_session failed")?;
        self.session = Some(session);
        let len = self.body.length as u32;
        let mut r = Request::new_zeroed();
        let (out, data) = r.segs.split_last_mut().expect("a request has segments");
        let part = len.div_ceil(data.len() as u32);
        for (i, s) in data.iter_mut().enumerate() {
            let offset = (i as u32 * part).min(len);
            *s = Segment {
                offset,
                len: part.min(len - offset),
            };
        }
        let at = self.image.size - DIGEST_ROOM;
        *out = Segment {
            offset: at as u32,
            len: DIGEST_ROOM as u32,
        };
        for i in 0..DIGEST_ROOM {
            // SAFETY: inside the region (its last bytes), mapped rw here; volatile: the
            // boot loader and the driver map it too.
            unsafe { self.image.vaddr.add(at + i).write_volatile(0) };
        }
        r.id = id;
        r.session = session;
        r.op = DigestOp::Final.into();
        r.nsegs = r.segs.len() as u8;
        match self.link.submit(r) {
            Ok(true) => DIGEST.notify(),
            Ok(false) => {}
            Err(_) => return Err("submit failed"),
        }
        Ok(())
    }

    /// The Digest driver restarted with request `id` unanswered: its session went with
    /// it, so hash again in a new one, a bounded number of times (a driver that keeps
    /// dying ends in a failed verdict, not a wait for ever).
    fn rehash(&mut self, id: u32) {
        self.session = None;
        if self.rehashes == MAX_REHASHES {
            debug_println!(
                "{}: the Digest driver restarted {MAX_REHASHES} times; giving up",
                pd_name()
            );
            return self.done();
        }
        self.rehashes += 1;
        if let Err(e) = self.hash(id) {
            debug_println!("{}: hashing again after a restart: {e}", pd_name());
            self.done();
        }
    }

    fn digest_of(&mut self, resp: &Response) -> Option<[u8; 32]> {
        // The session is used once; close it whatever the answer.
        let closed = self
            .session
            .take()
            .map(|s| (s, self.digest.close_session(s)));
        if let Some((s, Err(e))) = closed {
            debug_println!("{}: close_session({s}): {e:?}", pd_name());
        }
        if resp.status != DigestErrorRaw::OK || resp.digest_len != 32 {
            debug_println!(
                "{}: digest request {}: {:?}",
                pd_name(),
                resp.id,
                resp.status.check()
            );
            return None;
        }
        // Byte by byte: `SharedRegion`'s wide copies cost this PD ~500 B of flash.
        let at = self.image.size - DIGEST_ROOM;
        // SAFETY: the region's last 32 bytes, mapped here; the driver wrote them before
        // it answered.
        Some(core::array::from_fn(|i| unsafe {
            self.image.vaddr.add(at + i).read_volatile()
        }))
    }

    fn answered(&mut self, resp: Response) {
        let digest = self.digest_of(&resp);
        match (self.phase, resp.id) {
            (Phase::Genuine, 1) => {
                match digest.map(|d| (compare(&self.body, &d), d)) {
                    Some((Ok(()), d)) => {
                        debug_println!(
                            "{}: boot image verified: {} version {} (floor {}), {} bytes, sha256 {}... via the Digest driver PD",
                            pd_name(),
                            core::str::from_utf8(self.body.name()).unwrap_or("?"),
                            self.body.version,
                            self.floor,
                            self.body.length,
                            Hex(&d[..8])
                        );
                        self.good += 1;
                    }
                    Some((Err(e), _)) => debug_println!("{}: genuine image: {e}", pd_name()),
                    None => {}
                }
                // Check 3: change one byte and expect the digest to differ.
                self.flip(self.tamper_at());
                self.phase = Phase::Tampered;
                if let Err(e) = self.hash(2) {
                    debug_println!("{}: tampered image: {e}", pd_name());
                    self.done();
                }
            }
            (Phase::Tampered, 2) => {
                match digest.map(|d| compare(&self.body, &d)) {
                    Some(Err(VbootError::DigestMismatch)) => {
                        debug_println!(
                            "{}: image with byte {} changed: refused (digest mismatch)",
                            pd_name(),
                            self.tamper_at()
                        );
                        self.good += 1;
                    }
                    other => debug_println!("{}: tampered image NOT refused: {other:?}", pd_name()),
                }
                // Put the image back as it was verified.
                self.flip(self.tamper_at());
                self.done();
            }
            _ => debug_println!("{}: unexpected answer {}", pd_name(), resp.id),
        }
    }

    /// The byte changed for check 3 (inside the image, which precheck bounded by the
    /// region).
    fn tamper_at(&self) -> usize {
        self.body.length as usize / 3
    }

    /// Inverts byte `at` of the image.
    fn flip(&self, at: usize) {
        assert!(at < self.image.size);
        // SAFETY: inside the region (asserted), mapped rw here; volatile because the
        // Digest driver reads it.
        unsafe {
            let p = self.image.vaddr.add(at);
            p.write_volatile(!p.read_volatile());
        }
    }

    /// Check 1, first half: the genuine manifest; then hash the image in place.
    fn start(&mut self) {
        self.phase = Phase::Genuine;
        let capacity = image_room(&self.image);
        match precheck(MANIFEST, &self.key, self.floor, capacity) {
            Ok(body) => {
                debug_println!(
                    "{}: manifest signature ok ({} v{}, {} bytes, floor {}); hashing the image the boot loader placed",
                    pd_name(),
                    core::str::from_utf8(body.name()).unwrap_or("?"),
                    body.version,
                    body.length,
                    self.floor
                );
                self.body = body;
                if let Err(e) = self.hash(1) {
                    debug_println!("{}: {e}", pd_name());
                    self.done();
                }
            }
            Err(e) => {
                debug_println!("{}: genuine manifest refused: {e}", pd_name());
                self.done();
            }
        }
    }

    fn done(&mut self) {
        self.phase = Phase::Done;
        // A session still open (a check that ended early) is closed, not left to the
        // driver with its grant.
        if let Some(s) = self.session.take()
            && let Err(e) = self.digest.close_session(s)
        {
            debug_println!("{}: close_session({s}): {e:?}", pd_name());
        }
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
        debug_println!("{}: verdict: {}", pd_name(), text.as_str());
        if let Some(region) = maybe_memory_region!(report) {
            report::write(region, passed, text.as_str());
            TEST.notify();
        }
        if !passed {
            debug_println!("{}: boot image NOT verified", pd_name());
        }
        exit(if passed { 0 } else { 1 });
    }
}

impl Handler for Vboot {
    fn notified(&mut self, channels: ChannelSet) {
        if channels.contains(self.loaded) && self.phase == Phase::Loading {
            self.start();
        }
        if !channels.contains(DIGEST) || matches!(self.phase, Phase::Done | Phase::Loading) {
            return;
        }
        let mut answers = [None; 2];
        let mut n = 0;
        let mut lost = None;
        let result = self.link.poll(|c| match c {
            Completion::Answered(r) if n < answers.len() => {
                answers[n] = Some(r);
                n += 1;
            }
            Completion::Restarted(id) => {
                debug_println!("{}: {:?}", pd_name(), c.map_id());
                lost = Some(id);
            }
            other => debug_println!("{}: {:?}", pd_name(), other.map_id()),
        });
        if let Err(e) = result {
            debug_println!("{}: digest queue broken: {e}", pd_name());
            self.done();
            return;
        }
        for r in answers.into_iter().flatten() {
            if self.phase != Phase::Done {
                self.answered(r);
            }
        }
        if let Some(id) = lost
            && self.phase != Phase::Done
        {
            self.rehash(id);
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
    // The image is not ours to carry: the boot loader stand-in places it in `image` and
    // says so on the channel `loaded`.
    let image = memory_region!(image);
    let loaded =
        Channel::new(u8::try_from(pd_runtime::var!(loaded)).expect("the boot loader's channel id"));
    let queues = memory_region!(queues);
    // SAFETY: mapped read-write for the PD's life; only shm-queue's atomic and volatile
    // accesses touch it.
    let queues = unsafe { SharedRegion::from_raw(queues.vaddr, queues.size) };
    let (tx, rx, control) =
        pair::client_side::<Request, Response>(queues, pd_idl::digest::REQUEST_QUEUE_CAPACITY)
            .unwrap_or_else(|e| panic!("{}: queue region: {e:?}", pd_name()));
    let capacity = image_room(&image);
    let (key, floor, source) = trust();
    debug_println!("{}: trusted key and floor {floor}: {source:?}", pd_name());
    let mut good = 0;
    // Check 2: a forged signature and a rollback are refused before anything is hashed.
    let mut forged = [0u8; vboot::MANIFEST_LEN];
    forged.copy_from_slice(MANIFEST);
    forged[vboot::MANIFEST_LEN - 1] ^= 1;
    match precheck(&forged, &key, floor, capacity) {
        Err(VbootError::BadSignature) => {
            debug_println!(
                "{}: manifest with a flipped signature bit: refused (bad signature)",
                pd_name()
            );
            good += 1;
        }
        other => debug_println!("{}: forged manifest NOT refused: {other:?}", pd_name()),
    }
    match precheck(MANIFEST, &key, u32::MAX, capacity) {
        Err(e @ VbootError::Rollback { .. }) => {
            debug_println!(
                "{}: genuine manifest under a higher floor: refused ({e})",
                pd_name()
            );
            good += 1;
        }
        other => debug_println!("{}: rollback NOT refused: {other:?}", pd_name()),
    }
    Vboot {
        image,
        digest: Client::new(PpcTransport(DIGEST)),
        link: Link::new(tx, rx, control),
        body: ManifestBody::new("", 0, [0; 32], 0),
        phase: Phase::Loading,
        session: None,
        good,
        rehashes: 0,
        loaded,
        key,
        floor,
    }
}

pd_runtime::protection_domain!(init);
