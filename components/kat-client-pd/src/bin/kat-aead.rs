#![cfg_attr(target_os = "none", no_std, no_main)]
//! Known-answer client for an Aead driver: CAVP's AES-GCM cases (gcmEncryptExtIV128 and
//! gcmDecrypt128, failing tags included) and SP 800-38C's and CAVP's AES-CCM cases
//! (`kat-vectors::aead`), one session each, each up to three ways through the queue: an
//! encrypt of the published plaintext (its ciphertext and tag must be the published
//! ones), a decrypt of the published ciphertext and tag (the plaintext, or for a FAIL
//! case `TagMismatch` with the payload zeroed), and a decrypt with one tag bit flipped
//! (`TagMismatch`, payload zeroed: a forged tag releases no plaintext). The payload is
//! sent in two segments. An algorithm the driver refuses at open is named in the
//! verdict, not run. Then the typed refusals: opens with a nonce or tag length the mode
//! does not take, a bad key size, a key past the region; and requests whose nonce or
//! tag segment is not the session's length (short and oversized), whose AAD or payload
//! reaches past the region, or overlaps: each must be
//! its own error and leave the region as it was. Last, a GCM message sealed under a
//! nonce the driver draws (`EncryptNewNonce`): the nonce must appear where the client
//! put a marker, and the message must open under it; a driver with no Rng service
//! answers `NoRandomness`, said in the verdict, not failed. Exits 0 only when every
//! answer is the one published or expected.
use crypto_client::driver::Aead;
use kat_client_pd::{About, Client, Passed};
use kat_vectors::{AeadVector, CCM, GCM, hex};
use pd_idl::aead::{self, AeadAlgorithm, AeadError, AeadOp, Response};
use pd_idl::wire::CallError;
use pd_runtime::{ChannelSet, Handler};

/// What the summary's columns mean.
const LEGEND: &str = "sealed: encrypts giving the published ciphertext and tag; opened: decrypts giving the published plaintext, or TagMismatch and zeros where the published answer is a failed tag; forgeries refused: decrypts with a flipped tag bit answered TagMismatch, payload zeroed; refusals typed: opens and requests with bad lengths or places answered their own error, nothing written; new nonces: a message sealed under a nonce the driver drew, opened again";
const SOURCES: &str = "CAVP gcmEncryptExtIV128, gcmDecrypt128, ccmtestvectors; SP 800-38C C";
const ABOUT: About = About::new("kat-aead", "answers", SOURCES, LEGEND);

/// Where each part of a message goes (odd offsets: nothing needs alignment).
const KEY_AT: u32 = 0x11;
const NONCE_AT: u32 = 0x41;
const AAD_AT: u32 = 0x103;
const PAYLOAD_AT: u32 = 0x403;
/// The payload's second segment starts this far past the first's end.
const GAP: u32 = 7;
const TAG_AT: u32 = 0x803;
/// Longest vector field, in bytes.
const MAX: usize = 128;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Way {
    Encrypt,
    Decrypt,
    Forged,
}

const WAYS: [Way; 3] = [Way::Encrypt, Way::Decrypt, Way::Forged];

/// A GCM key for the refusals' session.
const KEY: [u8; 16] = [0x5a; 16];
/// One refused request: its nonce, AAD, payload and tag segments (the region's length
/// is added to offsets marked `END`) and the error it must get.
type Bad = ((u32, u32), (u32, u32), (u32, u32), (u32, u32), AeadError);
const END: u32 = 0x8000_0000;
const BAD: [Bad; 7] = [
    (
        (NONCE_AT, 11),
        (AAD_AT, 16),
        (PAYLOAD_AT, 32),
        (TAG_AT, 16),
        AeadError::BadNonceLength,
    ),
    (
        (NONCE_AT, 13),
        (AAD_AT, 16),
        (PAYLOAD_AT, 32),
        (TAG_AT, 16),
        AeadError::BadNonceLength,
    ),
    (
        (NONCE_AT, 12),
        (AAD_AT, 16),
        (PAYLOAD_AT, 32),
        (TAG_AT, 12),
        AeadError::BadTagLength,
    ),
    (
        (NONCE_AT, 12),
        (AAD_AT, 16),
        (PAYLOAD_AT, 32),
        (TAG_AT, 17),
        AeadError::BadTagLength,
    ),
    (
        (NONCE_AT, 12),
        (END - 8, 16),
        (PAYLOAD_AT, 32),
        (TAG_AT, 16),
        AeadError::SegmentOutOfRange,
    ),
    (
        (NONCE_AT, 12),
        (AAD_AT, 16),
        (END - 16, 32),
        (TAG_AT, 16),
        AeadError::SegmentOutOfRange,
    ),
    (
        (NONCE_AT, 12),
        (AAD_AT, 16),
        (PAYLOAD_AT, 32),
        (PAYLOAD_AT + 16, 16),
        AeadError::OverlappingSegments,
    ),
];

fn vector(i: usize) -> Option<&'static AeadVector> {
    GCM.iter().chain(CCM).nth(i)
}

/// A vector field's bytes.
fn bytes(s: &str) -> ([u8; MAX], usize) {
    let mut b = [0; MAX];
    let n = hex(s, &mut b);
    (b, n)
}

struct Kat {
    client: Client<Aead>,
    index: usize,
    way: usize,
    session: Option<u32>,
    /// By way, then the typed refusals, then the driver-chosen nonce.
    passed: Passed<5>,
    /// The refusals' session, and the next of [`BAD`] to send.
    bad: Option<(u32, usize)>,
    /// The region as it was before a refused request.
    before: [u8; 64],
    /// The driver-chosen nonce's round trip, after the refusals.
    fresh: Fresh,
}

/// Where the driver-chosen nonce's round trip stands.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Fresh {
    NotYet,
    /// The seal sent, and the `NoRandomness` answers it had (a source answering by
    /// interrupt may not have given the samples yet: the seal is sent again).
    Sealing(u32, u32),
    /// Sealed under the drawn nonce: the open goes next.
    Sealed(u32),
    Opening(u32),
    /// Done; whether the driver had an Rng service.
    Done(bool),
}

/// Seals answered `NoRandomness` before the driver counts as having no Rng service.
const RANDOMNESS_TRIES: u32 = 1000;

/// The round trip's message, and the marker the drawn nonce must replace.
const FRESH_MSG: [u8; 16] = *b"nonce of its own";
const MARKER: [u8; 12] = [0xee; 12];

impl Kat {
    /// Whether the current way applies to the current case: an encrypt needs a
    /// plaintext, a forgery a tag that verifies.
    fn applies(v: &AeadVector, way: Way) -> bool {
        way == Way::Decrypt || v.plain.is_some()
    }

    /// Sends the next way's request, opening the next case's session when one ends; at
    /// the end, the verdict.
    fn next(&mut self) {
        while let Some(v) = vector(self.index) {
            if self.way == WAYS.len() {
                if let Some(s) = self.session.take() {
                    self.client.close(s);
                }
                self.way = 0;
                self.index += 1;
                continue;
            }
            if self.client.refuses(v.algorithm as u8) || !Self::applies(v, WAYS[self.way]) {
                self.way += 1;
                continue;
            }
            if self.session.is_none() {
                let (key, kn) = bytes(v.key);
                self.client.data.write(KEY_AT, &key[..kn]);
                let (nonce_len, tag_len) = (v.nonce.len() / 2, v.tag.len() / 2);
                match self.client.driver.calls.open_session(
                    v.algorithm,
                    KEY_AT,
                    kn as u32,
                    nonce_len as u8,
                    tag_len as u8,
                ) {
                    Ok(s) => {
                        // What `capabilities` speaks of: a 128-bit key.
                        if kn == 16 {
                            self.client.opened(v.algorithm as u8);
                        }
                        self.session = Some(s);
                    }
                    Err(CallError::Server(AeadError::UnsupportedAlgorithm)) => {
                        self.client.refuse(v.algorithm as u8);
                        continue;
                    }
                    Err(e) => {
                        self.client
                            .fail(format_args!("{}: open_session: {e:?}", v.source));
                        self.way = WAYS.len();
                        continue;
                    }
                }
            }
            return self.send(v);
        }
        if self.refusals() || self.fresh_nonce() {
            return;
        }
        let offered = self.client.driver.calls.capabilities();
        self.client.agree(offered);
        let refused = self
            .client
            .refused_at_open(&AeadAlgorithm::ALL, |a| a as u8);
        let rng = match self.fresh {
            Fresh::Done(false) => {
                "; no driver-chosen nonce (no Rng service, or its source never ready)"
            }
            _ => "",
        };
        self.client.conclude(
            self.passed.total(),
            &self.passed,
            &format_args!("{refused}{rng}"),
        )
    }

    /// A GCM session under [`KEY`] (96-bit nonces, 16-byte tags), for the refusals and
    /// the driver-chosen nonce.
    fn open_gcm(&mut self) -> Result<u32, CallError<AeadError>> {
        self.client.data.write(KEY_AT, &KEY);
        self.client
            .driver
            .calls
            .open_session(AeadAlgorithm::AesGcm, KEY_AT, 16, 12, 16)
    }

    /// The driver-chosen nonce's round trip: seal, then open; false when done.
    fn fresh_nonce(&mut self) -> bool {
        let (op, session) = match self.fresh {
            Fresh::Done(_) => return false,
            Fresh::NotYet => match self.open_gcm() {
                Ok(s) => {
                    self.fresh = Fresh::Sealing(s, 0);
                    self.client.data.write(NONCE_AT, &MARKER);
                    self.put_payload(&FRESH_MSG);
                    (AeadOp::EncryptNewNonce, s)
                }
                Err(e) => {
                    self.client
                        .fail(format_args!("new nonce: open_session: {e:?}"));
                    self.fresh = Fresh::Done(true);
                    return false;
                }
            },
            Fresh::Sealed(s) => {
                self.fresh = Fresh::Opening(s);
                (AeadOp::Decrypt, s)
            }
            // Answered NoRandomness: sent again.
            Fresh::Sealing(s, _) => (AeadOp::EncryptNewNonce, s),
            Fresh::Opening(_) => return false,
        };
        let n = FRESH_MSG.len() as u32;
        let request = aead::Request::message(
            self.client.fresh_id(),
            session,
            op,
            (NONCE_AT, 12),
            &[],
            &Self::segs(n),
            (TAG_AT, 16),
        );
        self.client.submit(request);
        true
    }

    fn check_fresh(&mut self, resp: Response) {
        let status = resp.status.check();
        match self.fresh {
            Fresh::Sealing(s, tries) if status == Ok(Err(AeadError::NoRandomness)) => {
                if tries < RANDOMNESS_TRIES {
                    self.fresh = Fresh::Sealing(s, tries + 1);
                } else {
                    self.client.close(s);
                    self.fresh = Fresh::Done(false);
                }
            }
            Fresh::Sealing(s, _) => {
                self.fresh = Fresh::Sealed(s);
                let mut nonce = [0u8; 12];
                self.client.data.read(NONCE_AT, &mut nonce);
                if status != Ok(Ok(())) || nonce == MARKER {
                    self.client.fail(format_args!(
                        "new nonce: seal {:?}, nonce {nonce:02x?}",
                        resp.status
                    ));
                    self.client.close(s);
                    self.fresh = Fresh::Done(true);
                }
                // Else the open goes next (`fresh_nonce`).
            }
            Fresh::Opening(s) => {
                let mut out = [0u8; 16];
                self.get_payload(&mut out);
                if status == Ok(Ok(())) && out == FRESH_MSG {
                    self.passed.counts[4] += 1;
                } else {
                    self.client
                        .fail(format_args!("new nonce: open {:?}", resp.status));
                }
                self.client.close(s);
                self.fresh = Fresh::Done(true);
            }
            _ => return self.client.unasked(resp.id),
        }
        self.next();
    }

    /// The typed refusals: the opens at once, then [`BAD`]'s requests one at a time;
    /// false when all are done.
    fn refusals(&mut self) -> bool {
        let session = match self.bad {
            Some((s, i)) if i < BAD.len() => s,
            Some(_) => return false,
            None => {
                self.refused_opens();
                match self.open_gcm() {
                    Ok(s) => s,
                    Err(e) => {
                        self.client
                            .fail(format_args!("refusals: open_session: {e:?}"));
                        return false;
                    }
                }
            }
        };
        let i = self.bad.map_or(0, |(_, i)| i);
        self.bad = Some((session, i));
        let end = self.client.data.0.size as u32;
        let at = |(o, n): (u32, u32)| (if o >= END / 2 { end - (END - o) } else { o }, n);
        let (nonce, aad, payload, tag, _) = BAD[i];
        self.client.data.read(PAYLOAD_AT, &mut self.before);
        let request = aead::Request::message(
            self.client.fresh_id(),
            session,
            AeadOp::Decrypt,
            at(nonce),
            &[at(aad)],
            &[at(payload)],
            at(tag),
        );
        self.client.submit(request);
        true
    }

    /// Opens the driver must refuse, each with its error.
    fn refused_opens(&mut self) {
        use AeadAlgorithm::{AesCcm, AesGcm};
        let end = self.client.data.0.size as u32;
        self.client.data.write(KEY_AT, &KEY);
        let opens = [
            (AesGcm, KEY_AT, 16, 11, 16, AeadError::BadNonceLength),
            (AesCcm, KEY_AT, 16, 6, 16, AeadError::BadNonceLength),
            (AesGcm, KEY_AT, 16, 12, 8, AeadError::BadTagLength),
            (AesCcm, KEY_AT, 16, 13, 5, AeadError::BadTagLength),
            (AesCcm, KEY_AT, 16, 13, 18, AeadError::BadTagLength),
            (AesGcm, KEY_AT, 15, 12, 16, AeadError::BadKeySize),
            (AesGcm, end - 8, 16, 12, 16, AeadError::BadKeySize),
        ];
        for (alg, at, len, n, t, want) in opens {
            match self.client.driver.calls.open_session(alg, at, len, n, t) {
                Err(CallError::Server(e)) if e == want => self.passed.counts[3] += 1,
                got => self.client.fail(format_args!(
                    "open {alg:?} key {len} nonce {n} tag {t}: {got:?}"
                )),
            }
        }
    }

    /// A refused request's answer: its error, and the region unchanged.
    fn check_refusal(&mut self, resp: Response) {
        let Some((session, i)) = self.bad else {
            return;
        };
        let want = BAD[i].4;
        let mut now = [0; 64];
        self.client.data.read(PAYLOAD_AT, &mut now);
        if resp.status.check() == Ok(Err(want)) && now == self.before {
            self.passed.counts[3] += 1;
        } else {
            self.client.fail(format_args!(
                "refusal {i}: {:?}, want {want:?}",
                resp.status
            ));
        }
        self.bad = Some((session, i + 1));
        if i + 1 == BAD.len() {
            self.client.close(session);
        }
        self.next();
    }

    /// The payload's two segments for `n` bytes.
    fn segs(n: u32) -> [(u32, u32); 2] {
        let half = n / 2;
        [(PAYLOAD_AT, half), (PAYLOAD_AT + half + GAP, n - half)]
    }

    fn put_payload(&self, b: &[u8]) {
        let [a, c] = Self::segs(b.len() as u32);
        self.client.data.write(a.0, &b[..a.1 as usize]);
        self.client.data.write(c.0, &b[a.1 as usize..]);
    }

    fn get_payload(&self, out: &mut [u8]) {
        let [a, c] = Self::segs(out.len() as u32);
        let (x, y) = out.split_at_mut(a.1 as usize);
        self.client.data.read(a.0, x);
        self.client.data.read(c.0, y);
    }

    fn send(&mut self, v: &AeadVector) {
        let Some(session) = self.session else {
            return;
        };
        let way = WAYS[self.way];
        let (nonce, nn) = bytes(v.nonce);
        let (aad, an) = bytes(v.aad);
        let (mut tag, tn) = bytes(v.tag);
        self.client.data.write(NONCE_AT, &nonce[..nn]);
        self.client.data.write(AAD_AT, &aad[..an]);
        let (op, (payload, pn)) = match way {
            Way::Encrypt => {
                tag = [0; MAX];
                (AeadOp::Encrypt, bytes(v.plain.unwrap_or("")))
            }
            Way::Decrypt => (AeadOp::Decrypt, bytes(v.cipher)),
            Way::Forged => {
                tag[tn - 1] ^= 0x01;
                (AeadOp::Decrypt, bytes(v.cipher))
            }
        };
        self.put_payload(&payload[..pn]);
        self.client.data.write(TAG_AT, &tag[..tn]);
        let request = aead::Request::message(
            self.client.fresh_id(),
            session,
            op,
            (NONCE_AT, nn as u32),
            &[(AAD_AT, an as u32)],
            &Self::segs(pn as u32),
            (TAG_AT, tn as u32),
        );
        self.client.submit(request);
    }

    fn check(&mut self, resp: Response) {
        if matches!(self.fresh, Fresh::Sealing(..) | Fresh::Opening(_)) {
            return self.check_fresh(resp);
        }
        if self.bad.is_some() {
            return self.check_refusal(resp);
        }
        let Some(v) = vector(self.index) else {
            return self.client.unasked(resp.id);
        };
        let way = WAYS[self.way];
        let status = resp.status.check();
        let (ct, cn) = bytes(v.cipher);
        let (want_tag, tn) = bytes(v.tag);
        let mut out = [0; MAX];
        self.get_payload(&mut out[..cn]);
        let mut tag = [0; 16];
        self.client.data.read(TAG_AT, &mut tag[..tn]);
        let zeroed = out[..cn].iter().all(|&b| b == 0);
        let refused = status == Ok(Err(AeadError::TagMismatch)) && zeroed;
        let right = match (way, v.plain) {
            (Way::Encrypt, _) => {
                status == Ok(Ok(())) && out[..cn] == ct[..cn] && tag[..tn] == want_tag[..tn]
            }
            (Way::Decrypt, Some(p)) => {
                let (pt, pn) = bytes(p);
                status == Ok(Ok(())) && pn == cn && out[..cn] == pt[..pn]
            }
            (Way::Decrypt, None) | (Way::Forged, _) => refused,
        };
        if right {
            // A published failing tag refused counts as opened: it is the published answer.
            self.passed.counts[self.way] += 1;
        } else {
            self.client
                .fail(format_args!("{} {way:?}: {:?}", v.source, resp.status));
        }
        self.way += 1;
        self.next();
    }
}

impl Handler for Kat {
    fn notified(&mut self, _: ChannelSet) {
        for r in self.client.answers::<4>() {
            self.check(r);
        }
    }
}

fn init() -> Kat {
    let mut kat = Kat {
        client: Client::map(&ABOUT),
        index: 0,
        way: 0,
        session: None,
        passed: Passed::new([
            "sealed",
            "opened",
            "forgeries refused",
            "refusals typed",
            "new nonces",
        ]),
        bad: None,
        before: [0; 64],
        fresh: Fresh::NotYet,
    };
    kat.next();
    kat
}

pd_runtime::protection_domain!(init);
