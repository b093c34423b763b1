//! What `kat-keys` and `hostile-keys` share: the key store on channel 1, policies, the
//! usage bits a Cipher session by handle asks for, and the check that a call was refused
//! with exactly the error it should have been.

use pd_idl::keys::{self, KeyUsage, Policy};
use pd_idl::wire::CallError;
use pd_runtime::Channel;
use pd_runtime::ipc::PpcTransport;
use shared_region::SharedRegion;

/// The key store's channel in a keys client.
pub const STORE: Channel = Channel::new(1);

pub fn store() -> keys::Client<PpcTransport> {
    keys::Client::new(PpcTransport(STORE))
}

pub use pd_idl::key_bits::policy;
use pd_idl::key_bits::usage;

pub const ENCRYPT: u8 = usage(KeyUsage::Encrypt);
pub const DECRYPT: u8 = usage(KeyUsage::Decrypt);

/// Generates retried while the store has no randomness yet, at most this many times.
const SEED_TRIES: u32 = 100_000;

/// `generate`, retried while it is `NoRandomness`: the store's Rng driver seeds from
/// its device's interrupt after boot (virtio-rng under QEMU), and a generate before the
/// first samples arrive finds no bytes. BOUNDED POLL: the Rng driver outranks this
/// client, so its interrupt is served between two tries.
pub fn generate(
    ks: &mut keys::Client<PpcTransport>,
    policy: Policy,
    len: u8,
) -> Result<u32, CallError<keys::KeysError>> {
    let mut tries = 0;
    loop {
        match ks.generate(policy, len) {
            Err(CallError::Server(keys::KeysError::NoRandomness)) if tries < SEED_TRIES => {
                tries += 1
            }
            r => return r,
        }
    }
}

/// `open_session_by_key` calls this PD made: its verdict reports them, so that a test
/// can set them beside the key store fetches its driver made (one each).
static BY_HANDLE: core::sync::atomic::AtomicU32 = core::sync::atomic::AtomicU32::new(0);

/// A Cipher `open_session_by_key` call, counted.
pub fn open_by_key(
    calls: &mut pd_idl::cipher::Client<PpcTransport>,
    mode: pd_idl::cipher::Mode,
    path: pd_idl::cipher::Path,
    handle: u32,
    usage: u8,
    iv: [u8; 16],
) -> Result<u32, CallError<pd_idl::cipher::CipherError>> {
    counted(calls.open_session_by_key(mode, path, handle, usage, iv))
}

/// The result of an `open_session_by_key` call (of any interface), counted.
pub fn counted<T>(opened: T) -> T {
    BY_HANDLE.fetch_add(1, core::sync::atomic::Ordering::Relaxed);
    opened
}

/// Tallies checks; each failure is logged with what was expected.
pub struct Checks {
    pub name: &'static str,
    pub passed: u32,
    pub failed: u32,
}

impl Checks {
    pub const fn new(name: &'static str) -> Self {
        Checks {
            name,
            passed: 0,
            failed: 0,
        }
    }

    pub fn check(&mut self, ok: bool, what: core::fmt::Arguments<'_>) {
        if ok {
            self.passed += 1;
        } else {
            self.failed += 1;
            pd_runtime::debug_println!("{}: FAIL {what}", self.name);
        }
    }

    /// `got` must be the server's error `want`.
    pub fn refused<T: core::fmt::Debug, E: core::fmt::Debug + PartialEq>(
        &mut self,
        what: &str,
        got: Result<T, CallError<E>>,
        want: E,
    ) {
        let ok = matches!(&got, Err(CallError::Server(e)) if *e == want);
        self.check(ok, format_args!("{what}: {got:?}, expected {want:?}"));
    }

    /// The verdict line, the report, and the exit: 0 only with all passed.
    pub fn conclude(&self, what: core::fmt::Arguments<'_>) -> ! {
        let (name, passed, failed) = (self.name, self.passed, self.failed);
        let opens = BY_HANDLE.load(core::sync::atomic::Ordering::Relaxed);
        if failed == 0 && passed > 0 {
            pd_runtime::debug_println!(
                "{name}: verdict: all {passed} checks passed: {what}; {opens} opens by handle"
            );
            crate::report(true, format_args!("all {passed} key checks passed"));
            pd_runtime::exit(0);
        }
        pd_runtime::debug_println!("{name}: verdict: {failed} failed, {passed} passed");
        crate::report(false, format_args!("{failed} failed, {passed} passed"));
        pd_runtime::exit(1);
    }
}

/// Times `needle` occurs in the region (read through volatile copies, a page at a time,
/// overlapping by the needle's length so that no occurrence straddles unseen).
pub fn occurrences(region: SharedRegion<'_>, needle: &[u8]) -> usize {
    const PAGE: usize = 4096;
    let mut buf = [0u8; PAGE + 64];
    let (mut at, mut found) = (0, 0);
    while at < region.len() {
        let n = (PAGE + needle.len() - 1).min(region.len() - at);
        if !region.read_bytes(at, &mut buf[..n]) {
            break;
        }
        found += buf[..n]
            .windows(needle.len())
            .filter(|w| *w == needle)
            .count();
        at += PAGE;
    }
    found
}
