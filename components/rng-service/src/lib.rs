//! The Rng interface (random bytes, SP 800-90A/B) as an instance of `queued-service`.
//! Here is what is Rng's own: the entropy source trait a driver implements
//! ([`EntropySource`]: raw samples from a device), the engine the service drives
//! ([`Entropy`]: the source behind SP 800-90B's health tests and a pool of samples that
//! passed them), the session ([`Session`]: one CTR_DRBG instance of one client) and
//! [`Rng`], which tells the one service how a fill is checked, seeded and answered.
//!
//! Seeding: a session's DRBG is instantiated at its first request, not at open (open is
//! a call: it cannot wait for a device), from [`SEED_BITS`] of min-entropy and a nonce
//! of [`NONCE_BITS`] (SP 800-90A §8.6.7), counted in samples from the source's claim,
//! personalized with the caller's channel and the session id. It reseeds when its
//! interval has passed, on a `Reseed` request, before every fill with prediction
//! resistance, and after any health failure of the source: a failure is detected at a
//! sample, but may have begun before it, so no seed drawn before a failure is trusted
//! after one.
//!
//! Failing closed: a sample failing a health test (or a device reporting its own error)
//! empties the pool, resets the source and restarts its start-up test; from then until
//! that test passes every fill of every session is answered `EntropyFailure` and writes
//! nothing. Each fill tries the source again, so the service recovers when the source
//! does.
//!
//! Wiping: a DRBG's state is wiped when its session closes or its client is cut off or
//! comes back (the table drops it), and the pool's bytes when used or discarded.
//!
//! Assumes one job in flight (depth 1): a job carries its session's DRBG while it waits
//! for samples, so no other job of that session may start meanwhile. `no_std`, no heap.
#![no_std]
#![forbid(unsafe_code)]

mod interface;

pub use entropy_health::{Claim, Cutoffs, Failure, Health, State as SourceState};
pub use interface::{Fill, Rng};

use ctr_drbg::Drbg;
use zeroize::Zeroize;

/// A Rng driver's service: the one `queued-service` over an entropy source.
pub type Service<'a, S> = queued_service::Service<'a, Rng<S>>;

/// Min-entropy a seed carries: the DRBG's security strength (AES-256).
pub const SEED_BITS: u32 = 256;
/// Min-entropy of an instantiation's nonce: half the strength (SP 800-90A §8.6.7).
pub const NONCE_BITS: u32 = 128;
/// Lowest claim a source may make: one bit a sample, so a seed and a nonce fit the pool.
pub const MIN_CLAIM: Claim = match Claim::bits(1) {
    Some(c) => c,
    None => panic!(),
};
/// Samples the pool holds: an instantiation's at the lowest claim.
pub const POOL: usize = (SEED_BITS + NONCE_BITS) as usize;
/// Fills between reseeds when the client asks for the driver's default. Linux's crng
/// reseeds once a minute; a count is what a PD without a clock can keep.
pub const DEFAULT_INTERVAL: u64 = 1 << 16;
/// Samples taken from the source per look (private buffer, tested one by one).
const BATCH: usize = 64;

/// A device the source's raw samples come from (an SoC RNG, virtio-rng, a model).
pub trait EntropySource {
    /// Min-entropy each 8-bit sample carries, as the device's documentation or its
    /// assessment says: the health tests' cutoffs and the samples a seed takes follow
    /// from it.
    fn claim(&self) -> Claim;
    /// Copies samples that have arrived into `out`, at most its length, and says how
    /// many; never waits. `Err`: the device reports an error of its own (a seed or
    /// clock error), and nothing it gave since its last reset may be used.
    fn take(&mut self, out: &mut [u8]) -> Result<usize, SourceError>;
    /// Asks the device for more: its interrupt will say they came. A device that always
    /// has samples does nothing.
    fn request(&mut self);
    /// The device's interrupt arrived (acknowledge it, take what it says came). Nothing
    /// by default: a device with no interrupt.
    fn interrupted(&mut self) {}
    /// Brings the device back after an error (its driver's recovery sequence).
    fn reset(&mut self);
}

/// A device's own error report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SourceError;

/// What the pool could give.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gathered {
    /// The samples asked for are in the pool.
    Ready,
    /// Not yet: the source was asked for more; its interrupt will say.
    Pending,
    /// A health test or the device failed now or since the last good start-up.
    Failed,
}

/// The source behind its health tests, and the samples that passed them.
pub struct Entropy<S> {
    pub source: S,
    health: Health,
    pool: [u8; POOL],
    pooled: usize,
    /// Failures so far: a session seeded under an earlier count reseeds.
    epoch: u32,
    /// The last failure, as the `health` call reports it.
    last: Option<FailedBy>,
}

/// Which check failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailedBy {
    Test(Failure),
    Device,
}

impl<S: EntropySource> Entropy<S> {
    /// `source` behind fresh health tests (start-up first). A source claiming less than
    /// [`MIN_CLAIM`] is refused (a panic: the claim is its driver's constant), since a
    /// seed and a nonce at a lower claim would not fit the pool.
    pub fn new(source: S) -> Self {
        let claim = source.claim();
        assert!(
            claim.as_sixteenths() >= MIN_CLAIM.as_sixteenths(),
            "an entropy source claims at least one bit a sample"
        );
        Entropy {
            source,
            health: Health::new(claim),
            pool: [0; POOL],
            pooled: 0,
            epoch: 0,
            last: None,
        }
    }

    pub fn health(&self) -> &Health {
        &self.health
    }

    pub fn epoch(&self) -> u32 {
        self.epoch
    }

    pub fn last_failure(&self) -> Option<FailedBy> {
        self.last
    }

    /// Samples that carry `bits` of min-entropy.
    pub fn samples_for(&self, bits: u32) -> usize {
        self.source.claim().samples_for(bits) as usize
    }

    /// Tests what the source has and pools what passed, until `need` samples are pooled
    /// or the source has no more now.
    pub fn gather(&mut self, need: usize) -> Gathered {
        let need = need.min(POOL);
        let mut buf = [0u8; BATCH];
        while self.pooled < need {
            let got = match self.source.take(&mut buf) {
                Ok(n) => n.min(BATCH),
                Err(SourceError) => {
                    self.fail(FailedBy::Device);
                    buf.zeroize();
                    return Gathered::Failed;
                }
            };
            if got == 0 {
                break;
            }
            for &sample in &buf[..got] {
                let usable = self.health.test(sample);
                if let SourceState::Failed(f) = self.health.state() {
                    self.fail(FailedBy::Test(f));
                    buf.zeroize();
                    return Gathered::Failed;
                }
                if usable && self.pooled < POOL {
                    self.pool[self.pooled] = sample;
                    self.pooled += 1;
                }
            }
        }
        buf.zeroize();
        if self.pooled >= need {
            Gathered::Ready
        } else {
            self.source.request();
            Gathered::Pending
        }
    }

    /// Hands the first `n` pooled samples to `use_them` (after a [`Gathered::Ready`] for
    /// at least `n`), then wipes them and keeps the rest.
    pub fn take_pooled<T>(&mut self, n: usize, use_them: impl FnOnce(&[u8]) -> T) -> T {
        let n = n.min(self.pooled);
        let out = use_them(&self.pool[..n]);
        self.pool.copy_within(n..self.pooled, 0);
        self.pool[self.pooled - n..].zeroize();
        self.pooled -= n;
        out
    }

    fn fail(&mut self, by: FailedBy) {
        self.pool.zeroize();
        self.pooled = 0;
        self.epoch = self.epoch.wrapping_add(1);
        self.last = Some(by);
        self.source.reset();
        self.health.restart();
    }
}

/// One client's DRBG instance.
pub struct Session {
    /// `None` until the first request instantiates it, and while a job of the session
    /// carries it.
    pub drbg: Option<Drbg>,
    pub prediction_resistance: bool,
    pub interval: u64,
    /// The source's failure count when the DRBG was last seeded.
    pub seeded_at: u32,
    pub reseeds: u32,
    /// Generates since the last (re)seed, as the health call reports them while a job
    /// carries the DRBG.
    pub since_reseed: u32,
    /// A fill's job carries the DRBG (a draw waits for it: `NotReady`).
    pub carried: bool,
}

impl core::fmt::Debug for Session {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "Session(seeded: {}, {} reseeds)",
            self.drbg.is_some(),
            self.reseeds
        )
    }
}
