//! A driver PD's own randomness: a session on the Rng driver its system names (a channel
//! whose end here has `setvar_id="rng"`; the Rng driver at a higher priority, serving
//! this PD as one of its clients by calls alone), and `draw` calls on it for the few
//! bytes a driver chooses itself (a GCM nonce, a CBC IV). One per PD, so the channel and
//! the session are statics, and [`draw`] is a plain `fn` an engine can hold.

use core::sync::atomic::{AtomicU32, Ordering};

use pd_idl::rng::{self, RngAlgorithm};
use pd_runtime::ipc::PpcTransport;
use pd_runtime::{Channel, debug_println, pd_name};

/// The Rng driver's channel (`u32::MAX`: none) and this PD's session there.
static CHANNEL: AtomicU32 = AtomicU32::new(u32::MAX);
static SESSION: AtomicU32 = AtomicU32::new(0);

fn client() -> Option<rng::Client<PpcTransport>> {
    let ch = u8::try_from(CHANNEL.load(Ordering::Relaxed)).ok()?;
    Some(rng::Client::new(PpcTransport(Channel::new(ch))))
}

/// At init: opens the session if the system gives an Rng driver, and seeds it (a draw
/// of nothing, which asks an interrupt-driven source for its samples now); whether this
/// PD has randomness of its own.
pub fn connect() -> bool {
    let Some(ch) = pd_runtime::maybe_var!(rng).and_then(|v| u8::try_from(v).ok()) else {
        return false;
    };
    CHANNEL.store(u32::from(ch), Ordering::Relaxed);
    match client().map(|mut c| c.open_session(RngAlgorithm::CtrDrbgAes256, 0, 0)) {
        Some(Ok(s)) => {
            SESSION.store(s, Ordering::Relaxed);
            let _ = client().map(|mut c| c.draw(s, 0));
            debug_println!(
                "{}: randomness of its own from the Rng driver on channel {ch}",
                pd_name()
            );
            true
        }
        other => {
            debug_println!(
                "{}: no Rng session ({other:?}): no randomness of its own",
                pd_name()
            );
            CHANNEL.store(u32::MAX, Ordering::Relaxed);
            false
        }
    }
}

/// Fills `out` (at most 32 bytes) from the session: one `draw` call; whether it could
/// (`false` with no Rng driver, or while its source is failing or not ready).
pub fn draw(out: &mut [u8]) -> bool {
    let (Some(mut c), Ok(len)) = (client(), u8::try_from(out.len())) else {
        return false;
    };
    match c.draw(SESSION.load(Ordering::Relaxed), len) {
        Ok(r) if usize::from(r.len) == out.len() => {
            out.copy_from_slice(&r.bytes[..out.len()]);
            true
        }
        other => {
            debug_println!("{}: nothing drawn: {other:?}", pd_name());
            false
        }
    }
}
