//! The device side of a split virtqueue (virtio 1.2 §2.7): take chains off the
//! available ring, read and write their buffers through the physical map, return them on
//! the used ring. Anything malformed is reported as [`Broken`], which the device turns
//! into DEVICE_NEEDS_RESET as QEMU's `virtio_error` does.

use engine_models::phys::PhysMap;
use virtio_crypto_driver::wire::{VirtqDesc, desc_flags};
use zerocopy::{FromBytes, IntoBytes};

/// The chain or the ring could not be used: the driver broke the protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Broken;

/// Longest chain the model follows (QEMU's own limit is the queue size).
pub const MAX_CHAIN: usize = 64;

/// A queue as the driver configured it, and the device's private index.
#[derive(Clone, Copy, Debug, Default)]
pub struct QueueState {
    pub num: u32,
    pub ready: bool,
    pub desc: u64,
    pub driver: u64,
    pub device: u64,
    /// Next available-ring entry to take (free-running).
    pub last_avail: u16,
    /// Next used-ring entry to fill (free-running).
    pub used_idx: u16,
}

/// One buffer of a chain.
#[derive(Clone, Copy, Debug, Default)]
pub struct Seg {
    pub addr: u64,
    pub len: u32,
}

/// A chain taken off the ring: its head, device-readable and device-writable buffers.
#[derive(Debug)]
pub struct Chain {
    pub head: u16,
    pub outs: [Seg; MAX_CHAIN],
    pub nout: usize,
    pub ins: [Seg; MAX_CHAIN],
    pub nin: usize,
}

fn read_u16(mem: &PhysMap<'_>, addr: u64) -> Result<u16, Broken> {
    let mut b = [0u8; 2];
    mem.read(addr, &mut b).map_err(|_| Broken)?;
    Ok(u16::from_le_bytes(b))
}

impl QueueState {
    /// Chains made available and not yet taken.
    pub fn waiting(&self, mem: &PhysMap<'_>) -> u16 {
        if !self.ready {
            return 0;
        }
        read_u16(mem, self.driver + 2).map_or(0, |i| i.wrapping_sub(self.last_avail))
    }

    /// The next chain the driver made available, if any (§2.7.6, §2.7.5).
    pub fn pop(&mut self, mem: &PhysMap<'_>) -> Result<Option<Chain>, Broken> {
        if !self.ready || self.num == 0 {
            return Ok(None);
        }
        let avail_idx = read_u16(mem, self.driver + 2)?;
        let pending = avail_idx.wrapping_sub(self.last_avail);
        if pending == 0 {
            return Ok(None);
        }
        if u32::from(pending) > self.num {
            return Err(Broken);
        }
        let slot = u64::from(u32::from(self.last_avail) % self.num);
        let head = read_u16(mem, self.driver + 4 + 2 * slot)?;
        self.last_avail = self.last_avail.wrapping_add(1);
        let mut chain = Chain {
            head,
            outs: [Seg::default(); MAX_CHAIN],
            nout: 0,
            ins: [Seg::default(); MAX_CHAIN],
            nin: 0,
        };
        let mut i = head;
        for _ in 0..self.num.min(MAX_CHAIN as u32) {
            if u32::from(i) >= self.num {
                return Err(Broken);
            }
            let mut raw = [0u8; 16];
            mem.read(self.desc + 16 * u64::from(i), &mut raw)
                .map_err(|_| Broken)?;
            let d = VirtqDesc::read_from_bytes(&raw).map_err(|_| Broken)?;
            let flags = d.flags.get();
            if flags & desc_flags::INDIRECT != 0 {
                return Err(Broken); // not negotiated
            }
            let seg = Seg {
                addr: d.addr.get(),
                len: d.len.get(),
            };
            if flags & desc_flags::WRITE != 0 {
                chain.ins[chain.nin] = seg;
                chain.nin += 1;
            } else if chain.nin > 0 {
                return Err(Broken); // a readable buffer after a writable one (§2.7.5.2)
            } else {
                chain.outs[chain.nout] = seg;
                chain.nout += 1;
            }
            if flags & desc_flags::NEXT == 0 {
                return Ok(Some(chain));
            }
            i = d.next.get();
        }
        Err(Broken) // a loop, or longer than the queue
    }

    /// Returns chain `head` with `written` bytes written (§2.7.8).
    pub fn push(&mut self, mem: &PhysMap<'_>, head: u16, written: u32) -> Result<(), Broken> {
        let slot = u64::from(u32::from(self.used_idx) % self.num);
        let mut elem = [0u8; 8];
        elem[..4].copy_from_slice(u32::from(head).as_bytes());
        elem[4..].copy_from_slice(written.as_bytes());
        mem.write(self.device + 4 + 8 * slot, &elem)
            .map_err(|_| Broken)?;
        self.used_idx = self.used_idx.wrapping_add(1);
        mem.write(self.device + 2, &self.used_idx.to_le_bytes())
            .map_err(|_| Broken)
    }
}

/// Reads or writes a chain's buffers as one stream of bytes.
#[derive(Debug)]
pub struct Stream<'c> {
    segs: &'c [Seg],
    seg: usize,
    at: u32,
}

impl<'c> Stream<'c> {
    pub fn new(segs: &'c [Seg]) -> Self {
        Self {
            segs,
            seg: 0,
            at: 0,
        }
    }

    /// Bytes left.
    pub fn remaining(&self) -> u64 {
        let rest: u64 = self
            .segs
            .iter()
            .skip(self.seg)
            .map(|s| u64::from(s.len))
            .sum();
        rest - u64::from(self.at)
    }

    /// Fills `buf` from the stream, or fails if it runs short or hits a DMA fault.
    pub fn read(&mut self, mem: &PhysMap<'_>, buf: &mut [u8]) -> Result<(), Broken> {
        self.walk(buf.len(), |addr, range| {
            mem.read(addr, &mut buf[range]).map_err(|_| Broken)
        })
    }

    pub fn write(&mut self, mem: &PhysMap<'_>, buf: &[u8]) -> Result<(), Broken> {
        self.walk(buf.len(), |addr, range| {
            mem.write(addr, &buf[range]).map_err(|_| Broken)
        })
    }

    pub fn skip(&mut self, n: usize) -> Result<(), Broken> {
        self.walk(n, |_, _| Ok(()))
    }

    fn walk(
        &mut self,
        n: usize,
        mut f: impl FnMut(u64, core::ops::Range<usize>) -> Result<(), Broken>,
    ) -> Result<(), Broken> {
        let mut done = 0;
        while done < n {
            let seg = self.segs.get(self.seg).ok_or(Broken)?;
            let take = ((seg.len - self.at) as usize).min(n - done);
            f(
                seg.addr.checked_add(u64::from(self.at)).ok_or(Broken)?,
                done..done + take,
            )?;
            done += take;
            self.at += take as u32;
            if self.at == seg.len {
                self.seg += 1;
                self.at = 0;
            }
        }
        Ok(())
    }
}
