//! The stm32mp1's RNG (RM0436 "RNG": RNG_CR, RNG_SR, RNG_DR) as an [`EntropySource`] of
//! the Rng service, driven as Linux's stm32-rng.c drives it: enabled with clock error
//! detection on, 32-bit words read while RNG_SR says DRDY, a word of 0 checked against
//! a seed error that may have struck between the status read and the data read.
//!
//! Event-driven: [`EntropySource::request`] sets IE, so the RNG interrupts when data is
//! ready or an error flag rises; [`EntropySource::interrupted`] clears IE again (the
//! line is level-triggered: it stays up while IE and DRDY), and the service then takes
//! the words. A seed error (SECS/SEIS) or a clock error (CECS/CEIS) is the device's own
//! error report: `take` answers `SourceError` and the service fails closed (its start-up
//! test must pass again). [`EntropySource::reset`] is the reference manual's recovery:
//! clear SEIS and CEIS, then disable and re-enable the generator, which restarts its
//! seed-error detector; a source still stuck fails again.
//!
//! The RNG's output is conditioned by the IP; the driver claims [`CLAIM_BITS`] a byte,
//! as the other sources here. Assumes registers through [`mmio::RegisterBus`] (volatile
//! MMIO on silicon; a device PD standing in for it elsewhere). `no_std`, no heap.
#![no_std]

use mmio::{BusFault, RegisterBus};
use rng_service::{Claim, EntropySource, SourceError};

/// Register offsets and bits (RM0436 RNG register map).
pub mod regs {
    pub const CR: usize = 0x00;
    pub const SR: usize = 0x04;
    pub const DR: usize = 0x08;
    pub const CR_RNGEN: u32 = 1 << 2;
    pub const CR_IE: u32 = 1 << 3;
    pub const SR_DRDY: u32 = 1 << 0;
    pub const SR_CECS: u32 = 1 << 1;
    pub const SR_SECS: u32 = 1 << 2;
    pub const SR_CEIS: u32 = 1 << 5;
    pub const SR_SEIS: u32 = 1 << 6;
    /// Any error, standing or flagged.
    pub const SR_ERRORS: u32 = SR_CECS | SR_SECS | SR_CEIS | SR_SEIS;
}

/// Min-entropy claimed per byte.
pub const CLAIM_BITS: u8 = 4;
/// Words read per take at most: bounds one event's register traffic (each word is a
/// status read and a data read; through a device PD, two calls).
const MAX_WORDS: usize = 64;

/// The RNG behind its register bus.
pub struct Stm32Rng<B> {
    bus: B,
    /// The last word's bytes not handed out yet.
    word: [u8; 4],
    left: usize,
    pub words: u64,
    /// Recoveries run ([`EntropySource::reset`]).
    pub recoveries: u32,
    /// Errors the device reported, by kind.
    pub seed_errors: u32,
    pub clock_errors: u32,
}

impl<B: RegisterBus> Stm32Rng<B> {
    /// Enables the generator (clock error detection on, no interrupt yet).
    pub fn new(mut bus: B) -> Result<Self, BusFault> {
        bus.write32(regs::CR, regs::CR_RNGEN)?;
        Ok(Stm32Rng {
            bus,
            word: [0; 4],
            left: 0,
            words: 0,
            recoveries: 0,
            seed_errors: 0,
            clock_errors: 0,
        })
    }

    /// The status, with an error counted and turned into `SourceError`.
    fn status(&mut self) -> Result<u32, SourceError> {
        let sr = self.bus.read32(regs::SR).map_err(|_| SourceError)?;
        if sr & regs::SR_ERRORS != 0 {
            if sr & (regs::SR_SECS | regs::SR_SEIS) != 0 {
                self.seed_errors += 1;
            } else {
                self.clock_errors += 1;
            }
            return Err(SourceError);
        }
        Ok(sr)
    }
}

impl<B: RegisterBus> EntropySource for Stm32Rng<B> {
    fn claim(&self) -> Claim {
        Claim::bits(CLAIM_BITS).expect("a claim within a byte")
    }

    fn take(&mut self, out: &mut [u8]) -> Result<usize, SourceError> {
        let mut n = 0;
        let mut words = 0;
        while n < out.len() {
            if self.left == 0 {
                if words == MAX_WORDS || self.status()? & regs::SR_DRDY == 0 {
                    break;
                }
                let w = self.bus.read32(regs::DR).map_err(|_| SourceError)?;
                // stm32-rng.c: a seed error between the status and the data read leaves
                // a 0 word; the status says which.
                if w == 0 {
                    self.status()?;
                }
                self.word = w.to_le_bytes();
                self.left = 4;
                self.words += 1;
                words += 1;
            }
            let k = self.left.min(out.len() - n);
            let at = 4 - self.left;
            out[n..n + k].copy_from_slice(&self.word[at..at + k]);
            self.left -= k;
            n += k;
        }
        Ok(n)
    }

    fn request(&mut self) {
        let _ = self.bus.modify32(regs::CR, 0, regs::CR_IE);
    }

    fn interrupted(&mut self) {
        let _ = self.bus.modify32(regs::CR, regs::CR_IE, 0);
    }

    fn reset(&mut self) {
        self.recoveries += 1;
        self.left = 0;
        self.word = [0; 4];
        // RM0436 error management: clear the flags (rc_w0), then restart the generator.
        let _ = self.bus.write32(regs::SR, 0);
        let _ = self.bus.modify32(regs::CR, regs::CR_RNGEN | regs::CR_IE, 0);
        let _ = self.bus.modify32(regs::CR, 0, regs::CR_RNGEN);
    }
}
