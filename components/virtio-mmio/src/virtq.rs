//! A split virtqueue (virtio 1.2 §2.7) holding a few chains at fixed places.
//!
//! Each chain the driver posts lives in a fixed range of descriptors chosen by the
//! caller (`head..head + n`), so there is no free list to corrupt and a used element
//! naming a head with no chain posted is the device's error (the caller checks). Indices
//! run free as §2.7.6 and §2.7.8 say; the driver's own copies are authoritative and the
//! device's used index is checked against them (it may move by at most the chains
//! outstanding).

use crate::dma::DmaArea;
use crate::ring::{AVAIL_F_NO_INTERRUPT, UsedElem, VirtqDesc, desc_flags};
use crate::{Error, regs};
use core::sync::atomic::{Ordering, fence};
use mmio::RegisterBus;
use zerocopy::{FromBytes, IntoBytes};

pub use crate::ring::{avail_bytes, desc_bytes, used_bytes};

/// One buffer of a chain: where the device finds it and which way data flows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Buf {
    pub phys: u64,
    pub len: u32,
    /// The device writes it (a "device-writable" / "in" buffer, §2.7.5).
    pub device_writes: bool,
}

/// A chain being built; §2.7.5.2 wants every device-readable buffer before every
/// device-writable one, which [`Chain::push`] enforces.
#[derive(Debug, Default)]
pub struct Chain {
    bufs: [Buf; 32],
    n: usize,
}

impl Chain {
    pub fn push(&mut self, buf: Buf) -> Result<(), Error> {
        if self.n > 0 && self.bufs[self.n - 1].device_writes && !buf.device_writes {
            return Err(Error::BadChain);
        }
        *self.bufs.get_mut(self.n).ok_or(Error::BadChain)? = buf;
        self.n += 1;
        Ok(())
    }

    pub fn as_slice(&self) -> &[Buf] {
        &self.bufs[..self.n]
    }
}

/// A queue's place in the DMA area and the driver's indices.
#[derive(Debug)]
pub struct Virtq {
    pub index: u16,
    pub size: u16,
    desc: usize,
    avail: usize,
    used: usize,
    /// Next available-ring index to publish (free-running).
    avail_idx: u16,
    /// Next used-ring index to consume (free-running).
    used_idx: u16,
}

impl Virtq {
    pub const fn new(index: u16, size: u16, desc: usize, avail: usize, used: usize) -> Self {
        Self {
            index,
            size,
            desc,
            avail,
            used,
            avail_idx: 0,
            used_idx: 0,
        }
    }

    /// Clears the queue's memory and gives its addresses to the device (§4.2.3.2
    /// "Virtqueue Configuration"): select, check it is not in use and large enough, set
    /// the size and the three addresses, then mark it ready.
    pub fn configure<B: RegisterBus>(
        &mut self,
        bus: &mut B,
        dma: &mut DmaArea,
    ) -> Result<(), Error> {
        dma.fill(self.desc, desc_bytes(self.size), 0);
        dma.fill(self.avail, avail_bytes(self.size), 0);
        dma.fill(self.used, used_bytes(self.size), 0);
        // Polled until told otherwise ([`Virtq::want_interrupts`]): no interrupts (§2.7.7).
        dma.write_u16(self.avail, AVAIL_F_NO_INTERRUPT);
        self.avail_idx = 0;
        self.used_idx = 0;

        let queue = self.index;
        bus.write32(regs::QUEUE_SEL, u32::from(queue))?;
        if bus.read32(regs::QUEUE_READY)? != 0 {
            return Err(Error::QueueInUse { queue });
        }
        let max = bus.read32(regs::QUEUE_NUM_MAX)?;
        if max == 0 {
            return Err(Error::NoQueue { queue });
        }
        if max < u32::from(self.size) {
            return Err(Error::QueueTooSmall { queue, max });
        }
        bus.write32(regs::QUEUE_NUM, u32::from(self.size))?;
        for (low, off) in [
            (regs::QUEUE_DESC_LOW, self.desc),
            (regs::QUEUE_DRIVER_LOW, self.avail),
            (regs::QUEUE_DEVICE_LOW, self.used),
        ] {
            let phys = dma.phys(off);
            bus.write32(low, phys as u32)?;
            bus.write32(low + 4, (phys >> 32) as u32)?;
        }
        bus.write32(regs::QUEUE_READY, 1)?;
        Ok(())
    }

    /// Whether the device should interrupt when it returns a chain (the available ring's
    /// NO_INTERRUPT flag, §2.7.7).
    pub fn want_interrupts(&self, dma: &mut DmaArea, on: bool) {
        dma.write_u16(self.avail, if on { 0 } else { AVAIL_F_NO_INTERRUPT });
    }

    /// Writes `chain` into descriptors `head..head + n`, publishes `head` in the available
    /// ring and notifies the device (§2.7.13 "Supplying Buffers to The Device").
    pub fn submit<B: RegisterBus>(
        &mut self,
        bus: &mut B,
        dma: &mut DmaArea,
        chain: &Chain,
        head: u16,
    ) -> Result<(), Error> {
        let bufs = chain.as_slice();
        if bufs.is_empty() || usize::from(head) + bufs.len() > usize::from(self.size) {
            return Err(Error::BadChain);
        }
        for (i, b) in bufs.iter().enumerate() {
            let last = i + 1 == bufs.len();
            let mut flags = if last { 0 } else { desc_flags::NEXT };
            if b.device_writes {
                flags |= desc_flags::WRITE;
            }
            let d = VirtqDesc {
                addr: b.phys.into(),
                len: b.len.into(),
                flags: flags.into(),
                next: if last { 0 } else { head + (i + 1) as u16 }.into(),
            };
            dma.write_bytes(self.desc + 16 * (usize::from(head) + i), d.as_bytes());
        }
        let slot = usize::from(self.avail_idx % self.size);
        dma.write_u16(self.avail + 4 + 2 * slot, head);
        // The descriptors and the ring entry must be visible before the index that
        // publishes them (§2.7.13.3.1), and the index before the notification (§2.7.13.4).
        fence(Ordering::SeqCst);
        self.avail_idx = self.avail_idx.wrapping_add(1);
        dma.write_u16(self.avail + 2, self.avail_idx);
        fence(Ordering::SeqCst);
        bus.write32(regs::QUEUE_NOTIFY, u32::from(self.index))?;
        Ok(())
    }

    /// The next completed chain, if the device has returned one; `outstanding` chains
    /// are posted and not yet returned, so the device's index may lead by no more. The
    /// caller checks the element's head is one it posted.
    pub fn poll(&mut self, dma: &DmaArea, outstanding: u16) -> Result<Option<UsedElem>, Error> {
        let device_idx = dma.read_u16(self.used + 2);
        match device_idx.wrapping_sub(self.used_idx) {
            0 => return Ok(None),
            n if n <= outstanding => {}
            _ => return Err(Error::BadUsedRing),
        }
        // Read the element (and, after return, the buffers) only after the index
        // (§2.7.14 "Receiving Used Buffers From The Device").
        fence(Ordering::SeqCst);
        let slot = usize::from(self.used_idx % self.size);
        let mut raw = [0u8; 8];
        dma.read_bytes(self.used + 4 + 8 * slot, &mut raw);
        self.used_idx = self.used_idx.wrapping_add(1);
        let elem = UsedElem::read_from_bytes(&raw).map_err(|_| Error::BadUsedRing)?;
        Ok(Some(elem))
    }
}
