//! A virtio-rng driver (virtio 1.2 §5.4, the entropy device) over the virtio-mmio
//! transport (`virtio-mmio`), for QEMU's `virtio-rng-device` and anything else that
//! speaks it: an [`EntropySource`] of the Rng service, so the service's health tests and
//! DRBGs run over it as over any source.
//!
//! The device has one queue (requestq, §5.4.2) and no configuration or features of its
//! own: the driver posts a device-writable buffer, the device fills some or all of it
//! and returns it (§5.4.6). One buffer of [`BUF_LEN`] bytes is posted at a time, on
//! [`EntropySource::request`]; its interrupt ([`EntropySource::interrupted`])
//! acknowledges the transport and takes the returned length, and
//! [`EntropySource::take`] hands the bytes out, each once. A device that returns more
//! than it was given, names a chain not posted or moves its used ring too far is an
//! error of the device: every take from then on is `SourceError` (the service fails
//! closed), and [`EntropySource::reset`] does not revive it (its buffer may still be the
//! device's); a restart of the PD does.
//!
//! What the device gives is the host's (QEMU's default backend draws on the host's
//! getrandom): conditioned output, not raw noise. The driver claims [`CLAIM_BITS`] a
//! byte, not 8, so that a seed draws twice the bytes it would need at full entropy.
//!
//! Assumes memory coherent with the device (virtio under QEMU) and a [`DmaArea`] of
//! [`layout::LEN`] bytes. `no_std`, no heap.
#![no_std]

use mmio::RegisterBus;
use rng_service::{Claim, EntropySource, SourceError};
use virtio_mmio::{Buf, Chain, DmaArea, Error, Virtq, regs};

/// Bytes a posted buffer asks for.
pub const BUF_LEN: usize = 256;
/// Descriptors in the request queue: one buffer in flight (a power of two, §2.7).
pub const QUEUE_SIZE: u16 = 1;
/// Min-entropy claimed per byte (see the crate docs).
pub const CLAIM_BITS: u8 = 4;

/// Byte offsets in the driver's DMA area.
pub mod layout {
    use virtio_mmio::ring::{avail_bytes, desc_bytes, used_bytes};

    pub const DESC: usize = 0x000;
    pub const AVAIL: usize = 0x040;
    pub const USED: usize = 0x080;
    pub const BUF: usize = 0x100;
    pub const LEN: usize = BUF + super::BUF_LEN;
    const _: () = {
        assert!(DESC + desc_bytes(super::QUEUE_SIZE) <= AVAIL);
        assert!(AVAIL + avail_bytes(super::QUEUE_SIZE) <= USED);
        assert!(USED + used_bytes(super::QUEUE_SIZE) <= BUF);
    };
}

/// The device and its one buffer.
pub struct VirtioRng<B> {
    bus: B,
    dma: DmaArea,
    queue: Virtq,
    /// The buffer is the device's.
    posted: bool,
    /// Bytes of the returned buffer not handed out yet: `BUF + taken..BUF + filled`.
    filled: usize,
    taken: usize,
    /// The device broke a rule: nothing it gives is used again.
    broken: Option<Error>,
    /// Buffers the device returned, and bytes in them.
    pub returned: u64,
    pub bytes: u64,
}

impl<B: RegisterBus> VirtioRng<B> {
    /// Probes and initialises the device behind `bus` (§3.1), its request queue in `dma`,
    /// interrupts on; on failure the device is told the driver gave up (FAILED).
    pub fn new(mut bus: B, mut dma: DmaArea) -> Result<Self, Error> {
        virtio_mmio::probe(&mut bus, regs::device_id::ENTROPY)?;
        if !dma.usable(layout::LEN) {
            return Err(Error::DmaArea);
        }
        let mut queue = Virtq::new(0, QUEUE_SIZE, layout::DESC, layout::AVAIL, layout::USED);
        let up = virtio_mmio::negotiate(&mut bus)
            .and_then(|()| queue.configure(&mut bus, &mut dma))
            .and_then(|()| virtio_mmio::driver_ok(&mut bus));
        if let Err(e) = up {
            virtio_mmio::give_up(&mut bus);
            return Err(e);
        }
        queue.want_interrupts(&mut dma, true);
        Ok(VirtioRng {
            bus,
            dma,
            queue,
            posted: false,
            filled: 0,
            taken: 0,
            broken: None,
            returned: 0,
            bytes: 0,
        })
    }

    /// Why the device is no longer used, if it broke a rule.
    pub fn broken(&self) -> Option<Error> {
        self.broken
    }

    /// Takes the returned buffer off the used ring, if the device has given it back.
    fn poll(&mut self) {
        if !self.posted || self.broken.is_some() {
            return;
        }
        match self.queue.poll(&self.dma, 1) {
            Ok(None) => {}
            Ok(Some(elem)) => {
                let len = elem.len.get() as usize;
                if elem.id.get() != 0 || len > BUF_LEN {
                    self.broken = Some(Error::BadUsedRing);
                    return;
                }
                self.posted = false;
                (self.filled, self.taken) = (len, 0);
                self.returned += 1;
                self.bytes += len as u64;
            }
            Err(e) => self.broken = Some(e),
        }
    }
}

impl<B: RegisterBus> EntropySource for VirtioRng<B> {
    fn claim(&self) -> Claim {
        Claim::bits(CLAIM_BITS).expect("a claim within a byte")
    }

    fn take(&mut self, out: &mut [u8]) -> Result<usize, SourceError> {
        // Also here, not only at the interrupt: init and bare metal poll.
        self.poll();
        if self.broken.is_some() {
            return Err(SourceError);
        }
        let n = out.len().min(self.filled - self.taken);
        if n > 0 {
            self.dma.read_bytes(layout::BUF + self.taken, &mut out[..n]);
            self.taken += n;
        }
        Ok(n)
    }

    fn request(&mut self) {
        if self.posted || self.broken.is_some() || self.taken < self.filled {
            return;
        }
        let mut chain = Chain::default();
        let buf = Buf {
            phys: self.dma.phys(layout::BUF),
            len: BUF_LEN as u32,
            device_writes: true,
        };
        let posted = chain
            .push(buf)
            .and_then(|()| self.queue.submit(&mut self.bus, &mut self.dma, &chain, 0));
        match posted {
            Ok(()) => self.posted = true,
            Err(e) => self.broken = Some(e),
        }
    }

    fn interrupted(&mut self) {
        if let Err(e) = virtio_mmio::ack_interrupt(&mut self.bus) {
            self.broken = Some(e);
        }
        self.poll();
    }

    /// Drops what the device gave and is not yet used: after a health failure none of
    /// it may be. A buffer in flight stays the device's and is taken when it returns.
    fn reset(&mut self) {
        self.taken = self.filled;
    }
}
