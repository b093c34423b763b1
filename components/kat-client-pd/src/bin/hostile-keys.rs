#![cfg_attr(target_os = "none", no_std, no_main)]
//! A client trying every way to get or misuse a key, each of which must be refused with
//! its typed error: export of its own non-exportable key, derive from a key that may
//! not derive, import without the right, a decrypting session (and a decrypt request)
//! on an encrypt-only key, a mode its key does not allow, a raw-key session where its
//! system forbids them, the drivers' own calls (`fetch`, `raw_keys`) made from a client
//! channel, handles guessed, a flood of `generate` past its quota; and, once
//! `kat-keys` notifies it on channel 2, that client's own handles (from the region
//! `leak`), at the key store and at the driver. Exits 0 only when every attempt was
//! refused as it should have been.
use crypto_client::driver::Cipher;
use kat_client_pd::keys::{Checks, DECRYPT, ENCRYPT, generate, open_by_key, policy, store};
use pd_idl::cipher::{CipherError, CipherOp, Mode, Path, Request};
use pd_idl::keys::{KeyAlgorithm as A, KeyUsage as U, KeysError};
use pd_runtime::{Channel, ChannelSet, Handler, debug_println};
use shared_region::SharedRegion;

const NAME: &str = "hostile-keys";
const VICTIM: Channel = Channel::new(2);
/// Guesses at handles: the low ids every table hands out first, and a spread.
const GUESSES: u32 = 256;

struct Hostile {
    driver: crypto_client::driver::Driver<Cipher>,
    checks: Checks,
    own: [u32; 2],
    /// Whether the decrypt request's answer and the victim's handles were seen.
    answered: bool,
    tried_victim: bool,
}

fn init() -> Hostile {
    let mut me = Hostile {
        driver: crypto_client::driver::Driver::map(),
        checks: Checks::new(NAME),
        own: [0; 2],
        answered: false,
        tried_victim: false,
    };
    let c = &mut me.checks;
    let mut ks = store();
    // A first start has no keys to lose; a restarted one loses its predecessor's.
    let hello = ks.hello(pd_runtime::starts());
    c.check(
        hello == Ok(0) || pd_runtime::starts() > 1,
        format_args!("hello: {hello:?}"),
    );
    let encrypt_only = generate(&mut ks, policy(&[A::AesCbc], &[U::Encrypt]), 16);
    let mac_only = generate(&mut ks, policy(&[A::HmacSha256], &[U::Sign]), 32);
    c.check(
        encrypt_only.is_ok() && mac_only.is_ok(),
        format_args!("its own keys: {encrypt_only:?} {mac_only:?}"),
    );
    let (Ok(e), Ok(m)) = (encrypt_only, mac_only) else {
        c.conclude(format_args!("no keys of its own"));
    };
    me.own = [e, m];
    c.refused(
        "export without the right",
        ks.export(e),
        KeysError::NotPermitted,
    );
    c.refused(
        "export of the MAC key",
        ks.export(m),
        KeysError::NotPermitted,
    );
    c.refused(
        "derive from a key that may not derive",
        ks.derive(
            m,
            policy(&[A::HmacSha256], &[U::Sign, U::Export]),
            32,
            0,
            [0; 32],
        ),
        KeysError::NotPermitted,
    );
    c.refused(
        "import without the right",
        ks.import(policy(&[A::AesCbc], &[U::Encrypt, U::Export]), 16, [7; 8]),
        KeysError::NotPermitted,
    );
    c.refused(
        "fetch from a client channel",
        ks.fetch(0, e, A::AesCbc, ENCRYPT),
        KeysError::NotPermitted,
    );
    c.refused(
        "raw_keys from a client channel",
        ks.raw_keys(),
        KeysError::NotPermitted,
    );
    // Its quota is 3: one more key, then every generate is refused.
    let one_more = generate(&mut ks, policy(&[A::AesCtr], &[U::Encrypt]), 16);
    c.check(
        one_more.is_ok(),
        format_args!("the last key of its quota: {one_more:?}"),
    );
    let mut flood = 0;
    for _ in 0..100 {
        if generate(&mut ks, policy(&[A::AesCtr], &[U::Encrypt]), 16)
            == Err(pd_idl::wire::CallError::Server(KeysError::QuotaExceeded))
        {
            flood += 1;
        }
    }
    c.check(
        flood == 100,
        format_args!("{flood} of 100 generates past the quota refused"),
    );
    let calls = &mut me.driver.calls;
    c.refused(
        "a raw-key session",
        calls.open_session(Mode::Cbc, Path::Adaptive, 16, [0; 32], [0; 16]),
        CipherError::RawKeysForbidden,
    );
    c.refused(
        "a decrypting session on an encrypt-only key",
        open_by_key(calls, Mode::Cbc, Path::Adaptive, e, DECRYPT, [0; 16]),
        CipherError::KeyNotPermitted,
    );
    c.refused(
        "a mode the key does not allow",
        open_by_key(calls, Mode::Ctr, Path::Adaptive, e, ENCRYPT, [0; 16]),
        CipherError::KeyNotPermitted,
    );
    c.refused(
        "an AES session on the MAC key",
        open_by_key(calls, Mode::Cbc, Path::Adaptive, m, ENCRYPT, [0; 16]),
        CipherError::KeyNotPermitted,
    );
    let mut unknown = 0;
    let mut tried = 0;
    for g in (0..GUESSES).chain((0..GUESSES).map(|i| i.wrapping_mul(0x9E37_79B9))) {
        if g == e || g == m || Ok(g) == one_more {
            continue;
        }
        tried += 1;
        let at_store = ks.attributes(g);
        let at_driver = open_by_key(calls, Mode::Cbc, Path::Adaptive, g, ENCRYPT, [0; 16]);
        if at_store == Err(pd_idl::wire::CallError::Server(KeysError::UnknownKey))
            && at_driver == Err(pd_idl::wire::CallError::Server(CipherError::UnknownKey))
        {
            unknown += 1;
        }
    }
    c.check(
        unknown == tried,
        format_args!("{unknown} of {tried} guessed handles unknown"),
    );
    // Encrypt-only: a session that may encrypt is refused each decrypt request.
    match open_by_key(calls, Mode::Cbc, Path::Adaptive, e, ENCRYPT, [0; 16]) {
        Ok(s) => me
            .driver
            .submit(Request::over(1, s, CipherOp::Decrypt, &[(0, 16)]))
            .expect("room"),
        Err(err) => c.check(false, format_args!("encrypting session: {err:?}")),
    }
    debug_println!("{NAME}: {tried} handles guessed; waiting for the other client's handles");
    me
}

impl Hostile {
    fn try_victim(&mut self) {
        let Some(leak) = pd_runtime::maybe_memory_region!(leak) else {
            return;
        };
        // SAFETY: mapped for the PD's life; read through a volatile copy.
        let region = unsafe { SharedRegion::from_raw(leak.vaddr, leak.size) };
        let mut bytes = [0u8; 8];
        region.read_bytes(0, &mut bytes);
        let mut ks = store();
        for h in [&bytes[..4], &bytes[4..]].map(|b| u32::from_le_bytes(b.try_into().unwrap())) {
            let c = &mut self.checks;
            c.refused(
                "the other client's key: attributes",
                ks.attributes(h),
                KeysError::UnknownKey,
            );
            c.refused(
                "the other client's key: export",
                ks.export(h),
                KeysError::UnknownKey,
            );
            c.refused(
                "the other client's key: destroy",
                ks.destroy(h),
                KeysError::UnknownKey,
            );
            c.refused(
                "the other client's key: derive",
                ks.derive(h, policy(&[A::AesCbc], &[U::Encrypt]), 16, 0, [0; 32]),
                KeysError::UnknownKey,
            );
            for (mode, usage) in [
                (Mode::Ecb, ENCRYPT),
                (Mode::Ctr, ENCRYPT),
                (Mode::Ctr, DECRYPT),
            ] {
                c.refused(
                    "the other client's key at the driver",
                    open_by_key(
                        &mut self.driver.calls,
                        mode,
                        Path::Adaptive,
                        h,
                        usage,
                        [0; 16],
                    ),
                    CipherError::UnknownKey,
                );
            }
        }
        self.tried_victim = true;
        // Its keys may go now.
        VICTIM.notify();
    }
}

impl Handler for Hostile {
    fn notified(&mut self, channels: ChannelSet) {
        if channels.contains(VICTIM) && !self.tried_victim {
            self.try_victim();
        }
        if channels.contains(crypto_client::pd::DRIVER) {
            for a in self.driver.answers::<4>().expect("response queue") {
                let ok = matches!(a, crypto_client::Completion::Answered(r)
                    if r.id == 1 && r.status == CipherError::KeyNotPermitted.into());
                self.checks.check(
                    ok,
                    format_args!("decrypt on an encrypt-only session: {a:?}"),
                );
                self.answered = true;
            }
        }
        if self.answered && self.tried_victim {
            self.checks.conclude(format_args!(
                "foreign and guessed handles unknown, misuse not permitted, quota and raw keys enforced"
            ));
        }
    }
}

pd_runtime::protection_domain!(init);
