//! The host backend's entropy device: a model, as the host's other engines are, fed
//! from the host kernel's `getrandom` (the runner's sandbox allows that call), behind the
//! Rng service in the `host-rng` driver PD. It stands where an SoC RNG or virtio-rng
//! stands on a board, so the service, its health tests and its clients run on the host
//! as they will there; it is no entropy source of its own, and says so at start.
//!
//! A test tells the model to misbehave through a region the system may map as
//! `noise_control` (read-write here and in the test client): its first byte is the
//! `engine_models::noise_control::Fault` the next samples follow (stuck: 0xa5 for ever;
//! biased: 0x00 and 0x55 in turn; device error: every take refused). A system without
//! it always gets good samples.
//!
//! Assumes the host backend (std, `getrandom`). One thread, as a PD.

use engine_models::noise_control::Fault;
use rng_service::{Claim, EntropySource, SourceError};
use shared_region::SharedRegion;

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
}

impl HostNoise {
    pub fn new(control: Option<SharedRegion<'static>>) -> Self {
        HostNoise { control, given: 0 }
    }

    pub fn fault(&self) -> Fault {
        let mut b = [0u8];
        match self.control {
            Some(r) if r.read_bytes(0, &mut b) => Fault::from_byte(b[0]),
            _ => Fault::None,
        }
    }
}

impl EntropySource for HostNoise {
    fn claim(&self) -> Claim {
        Claim::bits(CLAIM_BITS).expect("a claim within a byte")
    }

    fn take(&mut self, out: &mut [u8]) -> Result<usize, SourceError> {
        match self.fault() {
            Fault::DeviceError => return Err(SourceError),
            Fault::Stuck => out.fill(0xa5),
            Fault::Biased => {
                for (i, b) in out.iter_mut().enumerate() {
                    *b = if (self.given + i as u64).is_multiple_of(2) {
                        0
                    } else {
                        0x55
                    };
                }
            }
            Fault::None => {
                if getrandom::getrandom(out).is_err() {
                    return Err(SourceError);
                }
            }
        }
        self.given += out.len() as u64;
        Ok(out.len())
    }

    fn request(&mut self) {}

    /// Nothing to do: the model recovers when the test says so.
    fn reset(&mut self) {}
}
