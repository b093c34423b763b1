#![cfg_attr(target_os = "none", no_std, no_main)]
//! The CPU engine (RustCrypto AES-GCM and the engine's CCM) as an Aead driver PD. Where
//! the system gives it an Rng driver (a channel with `setvar_id="rng"`, this PD the
//! caller: the Rng driver at a higher priority, with this PD as one of its clients), it
//! opens a session there at start and draws the nonces of `EncryptNewNonce` from it by
//! `draw` calls; without one, those are `NoRandomness`.
use core::sync::atomic::{AtomicU32, Ordering};

use aead_service::Aead;
use cpu_engine::aead::CpuAead;
use driver_pd::DriverPd;
use pd_idl::rng::{self, RngAlgorithm};
use pd_runtime::ipc::PpcTransport;
use pd_runtime::{Channel, debug_println, pd_name};

/// The Rng driver's channel (`u32::MAX`: none) and this PD's session there.
static RNG: AtomicU32 = AtomicU32::new(u32::MAX);
static SESSION: AtomicU32 = AtomicU32::new(0);

fn rng() -> Option<rng::Client<PpcTransport>> {
    let ch = u8::try_from(RNG.load(Ordering::Relaxed)).ok()?;
    Some(rng::Client::new(PpcTransport(Channel::new(ch))))
}

/// A nonce's bytes from the Rng driver: one `draw` call.
fn draw(out: &mut [u8]) -> bool {
    let (Some(mut c), Ok(len)) = (rng(), u8::try_from(out.len())) else {
        return false;
    };
    match c.draw(SESSION.load(Ordering::Relaxed), len) {
        Ok(r) if usize::from(r.len) == out.len() => {
            out.copy_from_slice(&r.bytes[..out.len()]);
            true
        }
        other => {
            debug_println!("{}: no nonce drawn: {other:?}", pd_name());
            false
        }
    }
}

fn init() -> DriverPd<Aead<CpuAead>> {
    let engine = match pd_runtime::maybe_var!(rng).and_then(|v| u8::try_from(v).ok()) {
        Some(ch) => {
            RNG.store(u32::from(ch), Ordering::Relaxed);
            match rng().map(|mut c| c.open_session(RngAlgorithm::CtrDrbgAes256, 0, 0)) {
                Some(Ok(s)) => {
                    SESSION.store(s, Ordering::Relaxed);
                    // A draw of nothing seeds the session now (or asks the source for
                    // the samples, if it answers by interrupt), so the first nonce a
                    // client asks for need not wait for them.
                    let _ = rng().map(|mut c| c.draw(s, 0));
                    debug_println!(
                        "{}: nonces of its own from the Rng driver on channel {ch}",
                        pd_name()
                    );
                    CpuAead::with_random(draw)
                }
                other => {
                    debug_println!(
                        "{}: no Rng session ({other:?}): no nonces of its own",
                        pd_name()
                    );
                    RNG.store(u32::MAX, Ordering::Relaxed);
                    CpuAead::default()
                }
            }
        }
        None => CpuAead::default(),
    };
    DriverPd::start(engine, None, |_, _| {})
}

pd_runtime::protection_domain!(init);
