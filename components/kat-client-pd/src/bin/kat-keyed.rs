#![cfg_attr(target_os = "none", no_std, no_main)]
//! HMAC and AES-GCM by key handle, through a Mac driver (channel 0: regions `queues`,
//! `data`) and an Aead driver (channel 2: `aead_queues`, `aead_data`), with the key
//! store on channel 1. It imports RFC 4231 test case 4's key (HMAC-SHA-256, sign and
//! verify) and the first 128-bit-payload case of NIST's gcmEncryptExtIV128 (AES-GCM,
//! encrypt and decrypt), neither exportable, and never names their bytes to a driver:
//! each session is opened by handle, and each usage it was not granted is refused.
//! Checked: the published tag from a final (which ends its session's message), a final
//! on a verify-only session (`KeyNotPermitted`) and a verify of the tag on it; the published ciphertext and tag from a seal, the
//! plaintext back from an open on a decrypt-only session, a decrypt on the encrypt-only
//! one (`KeyNotPermitted`); the HMAC key refused for AES-GCM and raw keys refused on
//! both drivers (its system allows it keys by handle only). Then no 8 bytes of either
//! key in its regions, sessions closed, keys destroyed. Exits 0 only when every check
//! passed.
use crypto_client::driver::{Aead, Driver, Mac};
use crypto_client::pd::Data;
use kat_client_pd::keys::{Checks, DECRYPT, ENCRYPT, counted, occurrences, policy, store};
use kat_vectors::{GCM, HMAC, hex};
use pd_idl::aead::{self, AeadAlgorithm, AeadError, AeadOp};
use pd_idl::key_bits::usage;
use pd_idl::keys::{KeyAlgorithm as A, KeyUsage as U, KeysError};
use pd_idl::mac::{self, MacAlgorithm, MacError, MacOp};
use pd_runtime::{Channel, ChannelSet, Handler};
use shared_region::SharedRegion;

const NAME: &str = "kat-keyed";
const AEAD: Channel = Channel::new(2);
const SIGN: u8 = usage(U::Sign);
const VERIFY: u8 = usage(U::Verify);

/// The Mac driver's data region: the message, a published tag, a final's output.
const MSG_AT: u32 = 0;
const TAG_AT: u32 = 0x100;
const OUT_AT: u32 = 0x200;
/// The Aead driver's data region: nonce, payload, tag; and a second message for the
/// refused decrypt, which must leave it as it was.
const NONCE_AT: u32 = 0;
const PAYLOAD_AT: u32 = 0x10;
const SEAL_TAG_AT: u32 = 0x20;
const WRONG_AT: u32 = 0x100;

/// The requests, by id: answers are checked by it.
const FINAL: u32 = 1;
const FINAL_ON_VERIFY_ONLY: u32 = 3;
const VERIFY_ON_VERIFY_ONLY: u32 = 4;
const SEAL: u32 = 5;
const OPEN: u32 = 6;
const DECRYPT_ON_ENCRYPT_ONLY: u32 = 7;

fn hmac() -> &'static kat_vectors::MacVector {
    HMAC.iter()
        .find(|v| v.source == "RFC 4231 4" && v.algorithm == MacAlgorithm::Sha256)
        .expect("RFC 4231 case 4, HMAC-SHA-256")
}

fn gcm() -> &'static kat_vectors::AeadVector {
    GCM.iter()
        .find(|v| v.source == "gcmEncryptExtIV128 PT128 AAD0 #0")
        .expect("a 128-bit payload GCM case")
}

/// `h` as bytes (at most 64).
fn bytes(h: &str) -> ([u8; 64], usize) {
    let mut out = [0; 64];
    let n = hex(h, &mut out);
    (out, n)
}

fn region(r: pd_runtime::MemoryRegion) -> SharedRegion<'static> {
    // SAFETY: mapped for the PD's life; read only through volatile copies.
    unsafe { SharedRegion::from_raw(r.vaddr, r.size) }
}

struct KatKeyed {
    mac: Driver<Mac>,
    aead: Driver<Aead>,
    mac_data: Data,
    aead_data: Data,
    checks: Checks,
    /// The HMAC key's and the GCM key's handles.
    handles: [u32; 2],
    /// Sign+verify and verify-only Mac sessions; encrypt-only and decrypt-only Aead.
    sessions: [u32; 4],
    /// Answers still expected, bit per request id.
    waiting: u32,
}

fn init() -> KatKeyed {
    let mut me = KatKeyed {
        mac: Driver::map(),
        aead: Driver::over(AEAD, pd_runtime::memory_region!(aead_queues)),
        mac_data: Data::map(),
        aead_data: Data(pd_runtime::memory_region!(aead_data)),
        checks: Checks::new(NAME),
        handles: [0; 2],
        sessions: [0; 4],
        waiting: 0,
    };
    let c = &mut me.checks;
    let mut ks = store();
    let hello = ks.hello(pd_runtime::starts());
    c.check(hello == Ok(0), format_args!("hello: {hello:?}"));
    let mut mac_key = [0u8; 64];
    let mac_len = hmac().key.write(&mut mac_key);
    let (gcm_key, gcm_len) = bytes(gcm().key);
    let imported = [
        ks.import(
            policy(&[A::HmacSha256], &[U::Sign, U::Verify]),
            mac_len as u8,
            pd_idl::key_words::pack(&mac_key[..mac_len]),
        ),
        ks.import(
            policy(&[A::AesGcm], &[U::Encrypt, U::Decrypt]),
            gcm_len as u8,
            pd_idl::key_words::pack(&gcm_key[..gcm_len]),
        ),
    ];
    c.check(
        imported.iter().all(Result::is_ok),
        format_args!("imports: {imported:?}"),
    );
    let [Ok(hk), Ok(gk)] = imported else {
        c.conclude(format_args!("no keys"));
    };
    me.handles = [hk, gk];

    let (mac, aead) = (&mut me.mac.calls, &mut me.aead.calls);
    me.mac_data.write(0x800, &mac_key[..mac_len]);
    c.refused(
        "a raw-key Mac session",
        mac.open_session(MacAlgorithm::Sha256, 0x800, mac_len as u32),
        MacError::RawKeysForbidden,
    );
    me.mac_data.write(0x800, &[0; 64]);
    c.refused(
        "a raw-key Aead session",
        aead.open_session(AeadAlgorithm::AesGcm, 0x800, 16, 12, 16),
        AeadError::RawKeysForbidden,
    );
    c.refused(
        "the HMAC key for AES-GCM",
        counted(aead.open_session_by_key(AeadAlgorithm::AesGcm, hk, ENCRYPT, 12, 16)),
        AeadError::KeyNotPermitted,
    );
    c.refused(
        "the HMAC key for HMAC-SHA-512",
        counted(mac.open_session_by_key(MacAlgorithm::Sha512, hk, SIGN)),
        MacError::KeyNotPermitted,
    );
    let macs = [
        counted(mac.open_session_by_key(MacAlgorithm::Sha256, hk, SIGN | VERIFY)),
        counted(mac.open_session_by_key(MacAlgorithm::Sha256, hk, VERIFY)),
    ];
    let aeads = [
        counted(aead.open_session_by_key(AeadAlgorithm::AesGcm, gk, ENCRYPT, 12, 16)),
        counted(aead.open_session_by_key(AeadAlgorithm::AesGcm, gk, DECRYPT, 12, 16)),
    ];
    c.check(
        macs.iter().all(Result::is_ok) && aeads.iter().all(Result::is_ok),
        format_args!("opens by handle: {macs:?} {aeads:?}"),
    );
    let ([Ok(m1), Ok(m2)], [Ok(a1), Ok(a2)]) = (macs, aeads) else {
        me.checks.conclude(format_args!("no sessions"));
    };
    me.sessions = [m1, m2, a1, a2];

    let v = hmac();
    let mut msg = [0u8; 128];
    let n = v.data.write(&mut msg) as u32;
    me.mac_data.write(MSG_AT, &msg[..n as usize]);
    let (tag, tag_len) = bytes(v.tag);
    me.mac_data.write(TAG_AT, &tag[..tag_len]);
    let (msg, tag, out) = ((MSG_AT, n), (TAG_AT, tag_len as u32), (OUT_AT, 64));
    for (id, s, op, segs) in [
        (FINAL, m1, MacOp::Final, [msg, out]),
        (FINAL_ON_VERIFY_ONLY, m2, MacOp::Final, [msg, out]),
        (VERIFY_ON_VERIFY_ONLY, m2, MacOp::Verify, [msg, tag]),
    ] {
        let submitted = me.mac.submit(mac::Request::over(id, s, op, &segs));
        me.checks
            .check(submitted.is_ok(), format_args!("submit {id}"));
        me.waiting |= 1 << id;
    }

    let g = gcm();
    let (nonce, _) = bytes(g.nonce);
    let (plain, _) = bytes(g.plain.unwrap_or_default());
    me.aead_data.write(NONCE_AT, &nonce[..12]);
    me.aead_data.write(PAYLOAD_AT, &plain[..16]);
    me.aead_data.write(WRONG_AT, &nonce[..12]);
    me.aead_data.write(WRONG_AT + 0x10, &[0x33; 32]);
    me.seal(SEAL, a1, AeadOp::Encrypt, 0);
    me.seal(DECRYPT_ON_ENCRYPT_ONLY, a1, AeadOp::Decrypt, WRONG_AT);
    me
}

impl KatKeyed {
    /// An Aead request over the 12-byte nonce, 16-byte payload and 16-byte tag at `at`.
    fn seal(&mut self, id: u32, session: u32, op: AeadOp, at: u32) {
        let request = aead::Request::message(
            id,
            session,
            op,
            (at + NONCE_AT, 12),
            &[],
            &[(at + PAYLOAD_AT, 16)],
            (at + SEAL_TAG_AT, 16),
        );
        let submitted = self.aead.submit(request);
        self.checks
            .check(submitted.is_ok(), format_args!("submit {id}"));
        self.waiting |= 1 << id;
    }

    fn mac_answer(&mut self, r: mac::Response) {
        let status = r.status.check();
        let c = &mut self.checks;
        match r.id {
            FINAL => {
                let (want, n) = bytes(hmac().tag);
                let mut out = [0u8; 64];
                self.mac_data.read(OUT_AT, &mut out);
                c.check(
                    status == Ok(Ok(())) && usize::from(r.tag_len) == n && out[..n] == want[..n],
                    format_args!("RFC 4231 4 by handle: {status:?}, {:02x?}", &out[..n]),
                );
            }
            VERIFY_ON_VERIFY_ONLY => c.check(
                status == Ok(Ok(())),
                format_args!("a verify by handle: {status:?}"),
            ),
            FINAL_ON_VERIFY_ONLY => c.check(
                status == Ok(Err(MacError::KeyNotPermitted)),
                format_args!("a final on a verify-only session: {status:?}"),
            ),
            id => c.check(false, format_args!("Mac answer {id} to nothing asked")),
        }
        self.waiting &= !(1 << r.id);
    }

    fn aead_answer(&mut self, r: aead::Response) {
        let status = r.status.check();
        let g = gcm();
        let mut got = [0u8; 32];
        self.aead_data.read(PAYLOAD_AT, &mut got[..16]);
        self.aead_data.read(SEAL_TAG_AT, &mut got[16..]);
        match r.id {
            SEAL => {
                let (ct, _) = bytes(g.cipher);
                let (tag, _) = bytes(g.tag);
                self.checks.check(
                    status == Ok(Ok(())) && got[..16] == ct[..16] && got[16..] == tag[..16],
                    format_args!("{} sealed by handle: {status:?}", g.source),
                );
                // The decrypt-only session opens what the encrypt-only one sealed.
                let decrypting = self.sessions[3];
                self.seal(OPEN, decrypting, AeadOp::Decrypt, 0);
            }
            OPEN => {
                let (plain, _) = bytes(g.plain.unwrap_or_default());
                self.checks.check(
                    status == Ok(Ok(())) && got[..16] == plain[..16],
                    format_args!("{} opened by handle: {status:?}", g.source),
                );
            }
            DECRYPT_ON_ENCRYPT_ONLY => {
                let mut left = [0u8; 32];
                self.aead_data.read(WRONG_AT + 0x10, &mut left);
                self.checks.check(
                    status == Ok(Err(AeadError::KeyNotPermitted)) && left == [0x33; 32],
                    format_args!("a decrypt on an encrypt-only session: {status:?}"),
                );
            }
            id => self
                .checks
                .check(false, format_args!("Aead answer {id} to nothing asked")),
        }
        self.waiting &= !(1 << r.id);
    }

    fn finish(&mut self) -> ! {
        let c = &mut self.checks;
        let mut mac_key = [0u8; 64];
        let mac_len = hmac().key.write(&mut mac_key);
        let (gcm_key, gcm_len) = bytes(gcm().key);
        let mut scanned = 0;
        let regions = [
            ("queues", pd_runtime::maybe_memory_region!(queues)),
            ("data", pd_runtime::maybe_memory_region!(data)),
            ("aead_queues", pd_runtime::maybe_memory_region!(aead_queues)),
            ("aead_data", pd_runtime::maybe_memory_region!(aead_data)),
        ];
        for (name, r) in regions {
            let Some(r) = r else { continue };
            let pieces = mac_key[..mac_len].chunks_exact(8);
            let found: usize = pieces
                .chain(gcm_key[..gcm_len].chunks_exact(8))
                .map(|k| occurrences(region(r), k))
                .sum();
            scanned += r.size;
            c.check(
                found == 0,
                format_args!("{found} pieces of a key in region {name}"),
            );
        }
        let [m1, m2, a1, a2] = self.sessions;
        let closed = [
            self.mac.close_session(m1).is_ok(),
            self.mac.close_session(m2).is_ok(),
            self.aead.close_session(a1).is_ok(),
            self.aead.close_session(a2).is_ok(),
        ];
        c.check(closed == [true; 4], format_args!("closes: {closed:?}"));
        let mut ks = store();
        for h in self.handles {
            let destroyed = ks.destroy(h);
            c.check(
                destroyed.is_ok(),
                format_args!("destroy {h:#x}: {destroyed:?}"),
            );
            c.refused("a destroyed key", ks.attributes(h), KeysError::UnknownKey);
        }
        self.checks.conclude(format_args!(
            "RFC 4231 4 (HMAC-SHA-256) and a NIST GCM case by handle, usages not granted refused, no key byte in {scanned} bytes of its regions"
        ))
    }
}

impl Handler for KatKeyed {
    fn notified(&mut self, _: ChannelSet) {
        let macs = self.mac.answers::<8>().expect("Mac response queue");
        for a in macs {
            match a {
                crypto_client::Completion::Answered(r) => self.mac_answer(r),
                crypto_client::Completion::Restarted(id) => self
                    .checks
                    .check(false, format_args!("Mac driver restarted (request {id})")),
            }
        }
        let aeads = self.aead.answers::<8>().expect("Aead response queue");
        for a in aeads {
            match a {
                crypto_client::Completion::Answered(r) => self.aead_answer(r),
                crypto_client::Completion::Restarted(id) => self
                    .checks
                    .check(false, format_args!("Aead driver restarted (request {id})")),
            }
        }
        if self.waiting == 0 {
            self.finish();
        }
    }
}

pd_runtime::protection_domain!(init);
