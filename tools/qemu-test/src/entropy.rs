//! The virtio-rng driver against QEMU's `virtio-rng-device`: 64 KiB of the device's
//! bytes through the Rng service's SP 800-90B health tests (start-up, repetition count,
//! adaptive proportion), then a CTR_DRBG seeded from what passed, as the service seeds
//! one. Polled: bare metal takes no interrupt (the driver reads the used ring on every
//! take).

use ctr_drbg::{Df, Drbg};
use mmio::VolatileMmio;
use rng_service::{Entropy, EntropySource, Gathered, NONCE_BITS, SEED_BITS, SourceState};
use virtio_mmio::DmaArea;
use virtio_rng_driver::VirtioRng;

/// Samples put through the health tests.
const SAMPLES: u64 = 64 * 1024;
/// Polls of the used ring before a request counts as unanswered.
const POLLS: u32 = 10_000_000;

/// Failures (0: every check passed).
pub fn run(bus: VolatileMmio, area: DmaArea) -> u32 {
    let dev = match VirtioRng::new(bus, area) {
        Ok(d) => d,
        Err(e) => {
            say!("qemu-test: FAIL virtio-rng init: {e:?}");
            return 1;
        }
    };
    let mut e = Entropy::new(dev);
    let cut = e.health().cutoffs();
    say!(
        "qemu-test: virtio-rng up; claim {} bits a sample: repetition cutoff {}, proportion cutoff {} of 512 (computed)",
        e.source.claim().as_sixteenths() / 16,
        cut.repetition,
        cut.proportion
    );
    let mut failed = 0;
    let seed = e.samples_for(SEED_BITS);
    let nonce = e.samples_for(NONCE_BITS);
    let mut first = [0u8; 64];
    let mut drbg = None;
    while e.health().tested() < SAMPLES {
        match gather(&mut e, seed + nonce) {
            Gathered::Ready => {}
            other => {
                say!(
                    "qemu-test: FAIL virtio-rng: {other:?} after {} samples ({:?}, last {:?}, device {:?})",
                    e.health().tested(),
                    e.health().state(),
                    e.last_failure(),
                    e.source.broken()
                );
                return failed + 1;
            }
        }
        e.take_pooled(seed + nonce, |pool| {
            if drbg.is_none() {
                first.copy_from_slice(&pool[..64]);
                drbg =
                    Drbg::instantiate(Df::Use, &pool[..seed], &pool[seed..], b"qemu-test", 1 << 16)
                        .ok();
            }
        });
    }
    let h = e.health();
    let healthy =
        h.state() == SourceState::Healthy && h.failures() == 0 && e.last_failure().is_none();
    let mut out = [0u8; 64];
    let generated = drbg
        .as_mut()
        .is_some_and(|d| d.generate(&mut out, &[]).is_ok());
    let varied = out.iter().any(|&b| b != out[0]) && first.iter().any(|&b| b != first[0]);
    say!(
        "qemu-test: virtio-rng: {} samples tested, {} failures, state {:?}; {} buffers, {} bytes from the device; DRBG seeded from them: {}",
        h.tested(),
        h.failures(),
        h.state(),
        e.source.returned,
        e.source.bytes,
        if generated && varied { "yes" } else { "NO" }
    );
    failed += u32::from(!healthy) + u32::from(!(generated && varied));
    failed
}

/// The service's gather, polled until the device answers or `POLLS` pass.
fn gather(e: &mut Entropy<VirtioRng<VolatileMmio>>, need: usize) -> Gathered {
    for _ in 0..POLLS {
        match e.gather(need) {
            Gathered::Pending => core::hint::spin_loop(),
            done => return done,
        }
    }
    Gathered::Pending
}
