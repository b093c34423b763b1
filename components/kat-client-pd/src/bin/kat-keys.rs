#![cfg_attr(target_os = "none", no_std, no_main)]
//! Keys by handle through a Cipher driver: the client provisions FIPS-197 C.3's AES-256
//! key into the key store (encrypt-only, ECB, not exportable) and has the store generate
//! a 256-bit CTR key it never sees; it opens driver sessions naming them by handle and
//! checks FIPS-197 C.3's ciphertext, a CTR round trip (encrypted by one session by
//! handle, decrypted by another), that the encrypt-only key neither decrypts nor opens a
//! decrypting session, and that raw keys are refused (its system allows it keys by
//! handle only). Then it scans its own regions (queues, data) for any 8 bytes of the
//! provisioned key: the handle path must have put none there. It writes its handles to
//! the region `leak` and notifies channel 2 (`hostile-keys`, which tries them and
//! notifies back: the keys live until then), and at the end destroys both keys and checks the store has forgotten them. Exits 0 only when
//! every check passed.
//!
//! Its end, for a test (a system that maps the region `end`): with every check passed
//! it keeps its keys and sessions and faults, for its supervisor to report (a failed
//! check leaves it waiting, and no report comes).
//!
//! Its death, for a test (a system that maps the region `hold`): it keeps its keys and
//! sessions instead of destroying them, says so, and waits to be killed. Its restarted
//! incarnation ([`came_back`]) checks that the store wiped its predecessor's keys when it
//! said hello (their handles, from `leak`, are unknown) and lets its driver see it back
//! (a call), which closes and wipes the dead one's sessions; then its verdict.
use crypto_client::driver::Cipher;
use kat_client_pd::keys::{
    Checks, DECRYPT, ENCRYPT, generate, occurrences, open_by_key, policy, store,
};
use kat_vectors::{FIPS197_C, FIPS197_PT, hex_array};
use pd_idl::cipher::{CipherError, CipherErrorRaw, CipherOp, Mode, Path, Request};
use pd_idl::keys::{KeyAlgorithm as A, KeyUsage as U, KeysError};
use pd_runtime::{Channel, ChannelSet, Handler, debug_println};
use shared_region::SharedRegion;

const NAME: &str = "kat-keys";
/// The attacker's channel: told when the handles are in `leak`.
const HOSTILE: Channel = Channel::new(2);
/// Where each request's bytes are in the data region.
const KAT_AT: u32 = 0;
const CTR_AT: u32 = 256;
const CTR_LEN: usize = 96;
const WRONG_WAY_AT: u32 = 512;

fn ctr_plain() -> [u8; CTR_LEN] {
    core::array::from_fn(|i| (i as u8).wrapping_mul(37) ^ 0xA5)
}

fn region(r: pd_runtime::MemoryRegion) -> SharedRegion<'static> {
    // SAFETY: mapped for the PD's life; read only through volatile copies.
    unsafe { SharedRegion::from_raw(r.vaddr, r.size) }
}

struct KatKeys {
    driver: crypto_client::driver::Driver<Cipher>,
    data: crypto_client::pd::Data,
    checks: Checks,
    handles: [u32; 2],
    sessions: [u32; 3],
    /// Answers still expected (by request id 1..=4).
    waiting: u32,
    /// Whether `hostile-keys` is still trying the handles (they stay alive until then,
    /// or its attempts would meet keys already destroyed).
    hostile_trying: bool,
}

fn init() -> KatKeys {
    let mut me = KatKeys {
        driver: crypto_client::driver::Driver::map(),
        data: crypto_client::pd::Data::map(),
        checks: Checks::new(NAME),
        handles: [0; 2],
        sessions: [0; 3],
        waiting: 0,
        hostile_trying: false,
    };
    if pd_runtime::starts() > 1 && pd_runtime::maybe_memory_region!(hold).is_some() {
        came_back(&mut me);
    }
    let c = &mut me.checks;
    let mut ks = store();
    // A first start has no keys to lose.
    let hello = ks.hello(pd_runtime::starts());
    c.check(hello == Ok(0), format_args!("hello: {hello:?}"));
    let (_, key_hex, ct_hex) = FIPS197_C[2];
    let key: [u8; 32] = hex_array(key_hex);
    let words = pd_idl::key_words::pack(&key);
    let provisioned = ks.import(policy(&[A::AesEcb], &[U::Encrypt]), 32, words);
    let generated = generate(&mut ks, policy(&[A::AesCtr], &[U::Encrypt, U::Decrypt]), 32);
    c.check(
        provisioned.is_ok() && generated.is_ok(),
        format_args!("import {provisioned:?}, generate {generated:?}"),
    );
    let (Ok(k1), Ok(k2)) = (provisioned, generated) else {
        c.conclude(format_args!("no keys"));
    };
    me.handles = [k1, k2];
    // What an attacker would do with them: `hostile-keys` is told where they are.
    if let Some(leak) = pd_runtime::maybe_memory_region!(leak) {
        let bytes = [k1.to_le_bytes(), k2.to_le_bytes()];
        region(leak).write_bytes(0, bytes.as_flattened());
        if pd_runtime::notifiable().contains(HOSTILE) {
            HOSTILE.notify();
            me.hostile_trying = true;
        }
    }
    let calls = &mut me.driver.calls;
    c.refused(
        "a raw-key session",
        calls.open_session(Mode::Ecb, Path::Adaptive, 32, key, [0; 16]),
        CipherError::RawKeysForbidden,
    );
    c.refused(
        "a decrypting session on the encrypt-only key",
        open_by_key(calls, Mode::Ecb, Path::Adaptive, k1, DECRYPT, [0; 16]),
        CipherError::KeyNotPermitted,
    );
    c.refused(
        "the ECB-only key in CBC",
        open_by_key(calls, Mode::Cbc, Path::Adaptive, k1, ENCRYPT, [0; 16]),
        CipherError::KeyNotPermitted,
    );
    let iv = [0x5Au8; 16];
    let opened = [
        open_by_key(calls, Mode::Ecb, Path::Adaptive, k1, ENCRYPT, [0; 16]),
        open_by_key(calls, Mode::Ctr, Path::Adaptive, k2, ENCRYPT, iv),
        open_by_key(calls, Mode::Ctr, Path::Adaptive, k2, DECRYPT, iv),
    ];
    c.check(
        opened.iter().all(Result::is_ok),
        format_args!("opens by handle: {opened:?}"),
    );
    let [Ok(s1), Ok(s2), Ok(s3)] = opened else {
        me.checks.conclude(format_args!("no sessions"));
    };
    me.sessions = [s1, s2, s3];
    me.data.write(KAT_AT, &hex_array::<16>(FIPS197_PT));
    me.data.write(CTR_AT, &ctr_plain());
    me.data.write(WRONG_WAY_AT, &[0; 16]);
    let requests = [
        Request::over(1, s1, CipherOp::Encrypt, &[(KAT_AT, 16)]),
        Request::over(2, s2, CipherOp::Encrypt, &[(CTR_AT, CTR_LEN as u32)]),
        // An encrypting session asked to decrypt.
        Request::over(3, s1, CipherOp::Decrypt, &[(WRONG_WAY_AT, 16)]),
    ];
    for r in requests {
        me.driver.submit(r).expect("room for three requests");
    }
    me.waiting = 0b1110;
    debug_println!(
        "{NAME}: keys {k1:#x} (provisioned, expecting {ct_hex}) and {k2:#x} (generated); three requests by handle submitted"
    );
    me
}

impl KatKeys {
    fn answered(&mut self, id: u32, status: CipherErrorRaw) {
        let c = &mut self.checks;
        let ok = status == CipherErrorRaw::OK;
        match id {
            1 => {
                let mut out = [0u8; 16];
                self.data.read(KAT_AT, &mut out);
                let want: [u8; 16] = hex_array(FIPS197_C[2].2);
                c.check(
                    ok && out == want,
                    format_args!("FIPS-197 C.3 by handle: {status:?} {out:02x?}"),
                );
            }
            2 => {
                let mut out = [0u8; CTR_LEN];
                self.data.read(CTR_AT, &mut out);
                c.check(
                    ok && out != ctr_plain(),
                    format_args!("CTR encrypt by handle: {status:?}"),
                );
                let back = Request::over(
                    4,
                    self.sessions[2],
                    CipherOp::Decrypt,
                    &[(CTR_AT, CTR_LEN as u32)],
                );
                self.driver.submit(back).expect("room");
                self.waiting |= 1 << 4;
            }
            3 => c.check(
                status == CipherError::KeyNotPermitted.into(),
                format_args!("decrypt on an encrypting session: {status:?}"),
            ),
            4 => {
                let mut out = [0u8; CTR_LEN];
                self.data.read(CTR_AT, &mut out);
                c.check(
                    ok && out == ctr_plain(),
                    format_args!("CTR round trip by handle: {status:?}"),
                );
            }
            _ => c.check(false, format_args!("answer {id} to nothing asked")),
        }
        self.waiting &= !(1 << id);
    }

    fn finish(&mut self) {
        if pd_runtime::maybe_memory_region!(end).is_some() {
            let (passed, failed) = (self.checks.passed, self.checks.failed);
            if failed > 0 {
                debug_println!("{NAME}: verdict: {failed} failed, {passed} passed; not ending");
                self.waiting = u32::MAX;
                return;
            }
            debug_println!(
                "{NAME}: all {passed} checks passed; ending with its keys and sessions live"
            );
            // A fault (on the host an exit status 1; on seL4 any exit but 0): its parent
            // hears of it.
            pd_runtime::exit(1);
        }
        if pd_runtime::maybe_memory_region!(hold).is_some() {
            debug_println!(
                "{NAME}: holding its keys and sessions until killed ({} checks passed so far)",
                self.checks.passed
            );
            // Nothing more to wait for: later notifications do not come back here.
            self.waiting = u32::MAX;
            return;
        }
        let c = &mut self.checks;
        let key: [u8; 32] = hex_array(FIPS197_C[2].1);
        let regions = [
            ("queues", pd_runtime::maybe_memory_region!(queues)),
            ("data", pd_runtime::maybe_memory_region!(data)),
        ];
        let mut scanned = 0;
        for (name, r) in regions {
            let Some(r) = r else { continue };
            let found: usize = key.chunks(8).map(|k| occurrences(region(r), k)).sum();
            scanned += r.size;
            c.check(
                found == 0,
                format_args!("{found} pieces of the key in region {name}"),
            );
        }
        for s in self.sessions {
            let closed = self.driver.close_session(s);
            c.check(closed.is_ok(), format_args!("close {s:#x}: {closed:?}"));
        }
        let mut ks = store();
        for h in self.handles {
            let destroyed = ks.destroy(h);
            c.check(
                destroyed.is_ok(),
                format_args!("destroy {h:#x}: {destroyed:?}"),
            );
            c.refused("a destroyed key", ks.attributes(h), KeysError::UnknownKey);
        }
        let gone = open_by_key(
            &mut self.driver.calls,
            Mode::Ecb,
            Path::Adaptive,
            self.handles[0],
            ENCRYPT,
            [0; 16],
        );
        c.refused(
            "a session on a destroyed key",
            gone,
            CipherError::UnknownKey,
        );
        self.checks.conclude(format_args!(
            "FIPS-197 C.3 and a CTR round trip by handle, no key byte in {scanned} bytes of its regions, raw keys and wrong uses refused"
        ))
    }
}

/// The restarted incarnation of a client killed while holding keys: say hello (the
/// store wipes the dead incarnation's keys: two), find the old handles unknown, call
/// the driver (it sees the new incarnation and closes the old one's sessions), conclude.
fn came_back(me: &mut KatKeys) -> ! {
    let c = &mut me.checks;
    let mut ks = store();
    let hello = ks.hello(pd_runtime::starts());
    c.check(
        hello == Ok(2),
        format_args!("came back: hello wiped {hello:?} key(s), expected 2"),
    );
    let mut bytes = [0u8; 8];
    if let Some(leak) = pd_runtime::maybe_memory_region!(leak) {
        region(leak).read_bytes(0, &mut bytes);
    }
    for h in [&bytes[..4], &bytes[4..]].map(|b| u32::from_le_bytes(b.try_into().unwrap())) {
        c.refused(
            "its predecessor's key",
            ks.attributes(h),
            KeysError::UnknownKey,
        );
    }
    let seen = me.driver.calls.capabilities();
    c.check(
        seen.is_ok(),
        format_args!("the driver sees it back: {seen:?}"),
    );
    me.checks.conclude(format_args!(
        "came back: its predecessor's keys wiped and unknown"
    ))
}

impl Handler for KatKeys {
    fn notified(&mut self, channels: ChannelSet) {
        if channels.contains(HOSTILE) {
            self.hostile_trying = false;
        }
        let answers = self.driver.answers::<8>().expect("response queue");
        for a in answers {
            match a {
                crypto_client::Completion::Answered(r) => self.answered(r.id, r.status),
                crypto_client::Completion::Restarted(id) => self
                    .checks
                    .check(false, format_args!("driver restarted (request {id})")),
            }
        }
        if self.waiting == 0 && !self.hostile_trying {
            self.finish();
        }
    }
}

pd_runtime::protection_domain!(init);
