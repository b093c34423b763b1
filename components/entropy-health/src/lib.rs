//! The health tests NIST SP 800-90B §4.4 requires of a noise source, run on its raw
//! samples (bytes) before any of them seeds a DRBG: the repetition count test (a stuck
//! source: one value repeated), the adaptive proportion test (a biased one: a value
//! far more frequent in a window of [`WINDOW`] samples than the claimed entropy
//! allows), and the start-up test (§4.3: [`STARTUP_SAMPLES`] consecutive samples through
//! both before the first is used).
//!
//! The cutoffs are computed here from the source's claim of min-entropy per sample `H`
//! and the false-alarm probability α = 2^-[`ALPHA_LOG2`] (§4.4.1-2: C = 1 + ⌈-log2 α /
//! H⌉ for the repetition count, C = 1 + CRITBINOM(W, 2^-H, 1 - α) for the adaptive
//! proportion), never typed in: a source says what it claims, and its tests follow.
//! The tests check them against §4.4.2's table.
//!
//! A failure is sticky: [`Health`] answers `Failed` until [`Health::restart`] (the
//! source was reset) and a fresh start-up test passes, so nothing drawn since the
//! failure is ever usable. What to do about the samples drawn before it is the caller's:
//! the Rng service drops every sample not yet used.
//!
//! Assumes 8-bit samples. `no_std`, no heap.
#![no_std]
#![forbid(unsafe_code)]

/// Samples in one adaptive proportion window (§4.4.2: 512 for non-binary samples).
pub const WINDOW: u32 = 512;
/// Samples a start-up test passes through both tests (§4.3 item 8: at least 1024).
pub const STARTUP_SAMPLES: u32 = 1024;
/// α = 2^-20, the false-positive probability §4.4 recommends (between 2^-20 and 2^-40).
pub const ALPHA_LOG2: u32 = 20;

/// Min-entropy a source claims per 8-bit sample, in sixteenths of a bit: from 1/16 to 8
/// bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Claim(u8);

impl Claim {
    /// `sixteenths`/16 bits per sample; `None` outside 1..=128.
    pub const fn sixteenths(sixteenths: u8) -> Option<Claim> {
        if sixteenths == 0 || sixteenths > 128 {
            None
        } else {
            Some(Claim(sixteenths))
        }
    }

    /// Whole bits per sample (1 to 8).
    pub const fn bits(bits: u8) -> Option<Claim> {
        if bits == 0 || bits > 8 {
            None
        } else {
            Some(Claim(bits * 16))
        }
    }

    pub const fn as_sixteenths(self) -> u8 {
        self.0
    }

    fn as_f64(self) -> f64 {
        f64::from(self.0) / 16.0
    }

    /// Samples that carry at least `bits` of min-entropy between them.
    pub const fn samples_for(self, bits: u32) -> u32 {
        (bits * 16).div_ceil(self.0 as u32)
    }
}

/// The two tests' cutoffs: a count reaching one is a failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cutoffs {
    /// Repetition count: identical consecutive samples.
    pub repetition: u32,
    /// Adaptive proportion: occurrences of a window's first sample in the window.
    pub proportion: u32,
}

impl Cutoffs {
    /// §4.4.1 and §4.4.2 for `claim` at α = 2^-20.
    pub fn for_claim(claim: Claim) -> Cutoffs {
        // ⌈20 / H⌉ with H = s/16: ⌈320 / s⌉, exact in integers.
        let repetition = 1 + (ALPHA_LOG2 * 16).div_ceil(u32::from(claim.0));
        Cutoffs {
            repetition,
            proportion: 1 + critbinom(WINDOW, libm::exp2(-claim.as_f64()), ALPHA_LOG2),
        }
    }
}

/// The smallest k with P(X <= k) >= 1 - 2^-alpha_log2 for X ~ Binomial(n, p): summed
/// from the top tail down in log space, so that (1-p)^n underflowing for a low claim
/// changes nothing.
fn critbinom(n: u32, p: f64, alpha_log2: u32) -> u32 {
    let alpha = libm::exp2(-f64::from(alpha_log2));
    let (ln_p, ln_q) = (libm::log(p), libm::log1p(-p));
    // ln C(n, k), walked down from C(n, n) = 1.
    let mut ln_choose = 0.0;
    let (mut k, mut tail) = (n, 0.0);
    while k > 0 {
        let pmf = libm::exp(ln_choose + f64::from(k) * ln_p + f64::from(n - k) * ln_q);
        if tail + pmf > alpha {
            break;
        }
        tail += pmf;
        // C(n, k-1) = C(n, k) * k / (n - k + 1).
        ln_choose += libm::log(f64::from(k) / f64::from(n - k + 1));
        k -= 1;
    }
    k
}

/// Which test failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// A value repeated [`Cutoffs::repetition`] times in a row: stuck.
    Repetition,
    /// A window's first value seen [`Cutoffs::proportion`] times in its window: biased.
    Proportion,
}

/// Where the source stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Start-up test in progress: this many samples to go. Nothing is usable yet.
    StartUp(u32),
    /// Every sample so far passed: samples are usable.
    Healthy,
    /// A test failed; nothing is usable until a restart's start-up test passes.
    Failed(Failure),
}

/// The continuous tests' state over one source.
#[derive(Clone, Debug)]
pub struct Health {
    cutoffs: Cutoffs,
    state: State,
    last: u8,
    run: u32,
    window_first: u8,
    window_seen: u32,
    window_count: u32,
    failures: u32,
    tested: u64,
}

impl Health {
    /// A source claiming `claim`, starting its start-up test.
    pub fn new(claim: Claim) -> Health {
        Health {
            cutoffs: Cutoffs::for_claim(claim),
            state: State::StartUp(STARTUP_SAMPLES),
            last: 0,
            run: 0,
            window_first: 0,
            window_seen: 0,
            window_count: 0,
            failures: 0,
            tested: 0,
        }
    }

    pub fn cutoffs(&self) -> Cutoffs {
        self.cutoffs
    }

    pub fn state(&self) -> State {
        self.state
    }

    /// Failures since the source was first started.
    pub fn failures(&self) -> u32 {
        self.failures
    }

    /// Samples tested since the source was first started.
    pub fn tested(&self) -> u64 {
        self.tested
    }

    /// Whether samples are usable now.
    pub fn healthy(&self) -> bool {
        self.state == State::Healthy
    }

    /// Runs both tests on the next sample and says whether it may be used: only while
    /// [`State::Healthy`] and it passed (a start-up's samples are not used).
    pub fn test(&mut self, sample: u8) -> bool {
        if let State::Failed(_) = self.state {
            return false;
        }
        self.tested += 1;
        let failure = self.repetition(sample).or(self.proportion(sample));
        if let Some(f) = failure {
            self.state = State::Failed(f);
            self.failures += 1;
            return false;
        }
        match self.state {
            State::StartUp(1) => {
                self.state = State::Healthy;
                false
            }
            State::StartUp(n) => {
                self.state = State::StartUp(n - 1);
                false
            }
            _ => true,
        }
    }

    /// The source was reset after a failure: the tests start over with a start-up
    /// test. (Also valid on a healthy source: it must prove itself again.)
    pub fn restart(&mut self) {
        self.state = State::StartUp(STARTUP_SAMPLES);
        self.run = 0;
        self.window_seen = 0;
    }

    /// §4.4.1.
    fn repetition(&mut self, sample: u8) -> Option<Failure> {
        if self.run > 0 && sample == self.last {
            self.run += 1;
        } else {
            self.last = sample;
            self.run = 1;
        }
        (self.run >= self.cutoffs.repetition).then_some(Failure::Repetition)
    }

    /// §4.4.2.
    fn proportion(&mut self, sample: u8) -> Option<Failure> {
        if self.window_seen == 0 {
            self.window_first = sample;
            self.window_count = 1;
        } else if sample == self.window_first {
            self.window_count += 1;
        }
        self.window_seen += 1;
        let failed = self.window_count >= self.cutoffs.proportion;
        if self.window_seen == WINDOW {
            self.window_seen = 0;
        }
        failed.then_some(Failure::Proportion)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A xorshift stream: uniform enough bytes for the tests' false-alarm checks, and
    /// repeatable.
    fn uniform(seed: u64) -> impl Iterator<Item = u8> {
        let mut x = seed | 1;
        core::iter::from_fn(move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            Some((x >> 32) as u8)
        })
    }

    #[test]
    fn cutoffs_are_sp_800_90b_tables() {
        // §4.4.2 Table 2 (non-binary, W = 512) and §4.4.1's formula at α = 2^-20:
        // (H in sixteenths, proportion cutoff, repetition cutoff).
        let table = [
            (8, 410, 41),
            (16, 311, 21),
            (32, 177, 11),
            (64, 62, 6),
            (128, 13, 4),
        ];
        for (sixteenths, proportion, repetition) in table {
            let c = Cutoffs::for_claim(Claim::sixteenths(sixteenths).unwrap());
            assert_eq!(
                (c.proportion, c.repetition),
                (proportion, repetition),
                "H = {sixteenths}/16"
            );
        }
        // H = 1/16 bit: (1-p)^512 underflows in a direct sum; the log-space one holds.
        let low = Cutoffs::for_claim(Claim::sixteenths(1).unwrap());
        assert!(low.proportion > 480 && low.proportion <= WINDOW, "{low:?}");
        assert_eq!(low.repetition, 321);
    }

    #[test]
    fn a_good_source_passes_start_up_then_every_sample_is_usable() {
        let mut h = Health::new(Claim::bits(7).unwrap());
        let usable = uniform(1).take(10_000).filter(|&s| h.test(s)).count();
        assert_eq!(usable, 10_000 - STARTUP_SAMPLES as usize);
        assert_eq!(
            (h.state(), h.failures(), h.tested()),
            (State::Healthy, 0, 10_000)
        );
    }

    #[test]
    fn a_stuck_source_fails_within_the_repetition_cutoff() {
        let mut h = Health::new(Claim::bits(4).unwrap());
        uniform(2).take(2000).for_each(|s| {
            h.test(s);
        });
        assert!(h.healthy());
        let cutoff = h.cutoffs().repetition as usize;
        let until = (0..).take_while(|_| h.test(0x42)).count();
        assert!(until < cutoff, "caught after {until} of cutoff {cutoff}");
        assert_eq!(h.state(), State::Failed(Failure::Repetition));
        // Sticky: good samples change nothing until a restart.
        assert_eq!(uniform(3).take(5000).filter(|&s| h.test(s)).count(), 0);
        h.restart();
        assert_eq!(h.state(), State::StartUp(STARTUP_SAMPLES));
        let usable = uniform(4).take(2000).filter(|&s| h.test(s)).count();
        assert_eq!(usable, 2000 - STARTUP_SAMPLES as usize, "recovered");
    }

    #[test]
    fn a_biased_source_fails_the_proportion_test_within_a_window_or_two() {
        let mut h = Health::new(Claim::bits(4).unwrap());
        uniform(5).take(2000).for_each(|s| {
            h.test(s);
        });
        // Every other sample 0x00, the rest uniform and never 0: no two in a row alike
        // (the repetition test sees nothing), but half of a window starting on a 0x00 is
        // 0x00, where 4 bits a sample allow an eighth.
        let mut noise = uniform(6);
        let mut n = 0;
        while h.healthy() && n < 4 * WINDOW {
            let s = noise.next().unwrap();
            h.test(if n.is_multiple_of(2) { 0 } else { s | 1 });
            n += 1;
        }
        assert_eq!(h.state(), State::Failed(Failure::Proportion), "after {n}");
        assert!(n < 3 * WINDOW, "caught after {n} samples");
    }

    #[test]
    fn a_stuck_start_up_never_becomes_healthy() {
        let mut h = Health::new(Claim::bits(8).unwrap());
        assert!(!(0..2000).any(|_| h.test(0)));
        assert_eq!(h.state(), State::Failed(Failure::Repetition));
    }

    #[test]
    fn claims_outside_a_byte_are_refused() {
        assert_eq!(Claim::bits(0), None);
        assert_eq!(Claim::bits(9), None);
        assert_eq!(Claim::sixteenths(129), None);
        assert_eq!(Claim::bits(2).unwrap().samples_for(256), 128);
        assert_eq!(Claim::sixteenths(24).unwrap().samples_for(256), 171);
    }
}
