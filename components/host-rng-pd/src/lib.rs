//! The host backend's entropy device: a model, as the host's other engines are, fed
//! from the host kernel's `getrandom` (the runner's sandbox allows that call), behind the
//! Rng service in the `host-rng` driver PD. It stands where an SoC RNG or virtio-rng
//! stands on a board, so the service, its health tests and its clients run on the host
//! as they will there; it is no entropy source of its own, and says so at start.
//!
//! A test tells the model to misbehave through a region the system may map as
//! `noise_control` (read-write here and in the test client): its first byte is the
//! [`Mode`] the next samples follow. A system without it always gets
//! [`Mode::Good`].
//!
//! Assumes the host backend (std, `getrandom`). One thread, as a PD.

use rng_service::{Claim, EntropySource, SourceError};
use shared_region::SharedRegion;

/// What the model's next samples are (the control byte's values).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Mode {
    /// The host's `getrandom` bytes.
    Good = 0,
    /// One value repeated: a noise source stuck.
    Stuck = 1,
    /// Two values in turn (0x00, 0x55): never one twice in a row, so the repetition
    /// test cannot see it, but half of every window is the window's first value.
    Biased = 2,
    /// The device reports an error of its own (as an SoC RNG's seed error) on every take.
    DeviceError = 3,
}

impl Mode {
    pub fn from_u8(v: u8) -> Mode {
        match v {
            1 => Mode::Stuck,
            2 => Mode::Biased,
            3 => Mode::DeviceError,
            _ => Mode::Good,
        }
    }
}

/// The model's claim: 4 bits of min-entropy a byte. `getrandom` gives full entropy, but
/// the model stands for a raw noise source, and a lower claim draws more samples per
/// seed (a 256-bit seed is 64 samples) with looser cutoffs: the repetition test fails
/// at 6 alike, the proportion test at 62 of 512 (SP 800-90B's, computed).
pub const CLAIM_BITS: u8 = 4;

/// The model over its control region, if the system maps one.
pub struct HostNoise {
    control: Option<SharedRegion<'static>>,
    /// Samples given, so a bias alternates across takes.
    given: u64,
    pub resets: u32,
}

impl HostNoise {
    pub fn new(control: Option<SharedRegion<'static>>) -> Self {
        HostNoise {
            control,
            given: 0,
            resets: 0,
        }
    }

    pub fn mode(&self) -> Mode {
        let mut b = [0u8];
        match self.control {
            Some(r) if r.read_bytes(0, &mut b) => Mode::from_u8(b[0]),
            _ => Mode::Good,
        }
    }
}

impl EntropySource for HostNoise {
    fn claim(&self) -> Claim {
        Claim::bits(CLAIM_BITS).expect("a claim within a byte")
    }

    fn take(&mut self, out: &mut [u8]) -> Result<usize, SourceError> {
        let mode = self.mode();
        match mode {
            Mode::DeviceError => return Err(SourceError),
            Mode::Stuck => out.fill(0xa5),
            Mode::Biased => {
                for (i, b) in out.iter_mut().enumerate() {
                    *b = if (self.given + i as u64).is_multiple_of(2) {
                        0
                    } else {
                        0x55
                    };
                }
            }
            Mode::Good => {
                if getrandom::getrandom(out).is_err() {
                    return Err(SourceError);
                }
            }
        }
        self.given += out.len() as u64;
        Ok(out.len())
    }

    fn request(&mut self) {}

    fn reset(&mut self) {
        self.resets += 1;
    }
}
