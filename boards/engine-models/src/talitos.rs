//! Freescale talitos SEC1 model (MPC885): channel 0 with next-descriptor chaining and the
//! MDEUA hash unit. No link tables: each pointer is one contiguous physical range.
//!
//! Writing a descriptor's address to FF_LO queues it; the machine then calls
//! [`Sec1::run`], which fetches and executes the chain through the physical map. For each
//! descriptor: fetch 64 bytes; check the type (IDH) and unit (IEU); check every pointer
//! length against 32768 (GRL); INIT or load the context from `ptr[1]`; hash `ptr[3]`; with PAD
//! write the digest to `ptr[5]`, otherwise the context; write DONE back into the header when
//! CCCR.CDWE; raise channel-done when the header asks (DONE_NOTIFY) and CCCR.CDIE; follow
//! `next_desc` when CCCR.NE. Any error stops the channel with the CCPSR bit and ISR
//! CH0_ERR until a channel reset; a pointer outside DMA-reachable memory is MDTE plus
//! TEA_ERR.

use crate::mdeu::{HashAlg, Mdeu};
use crate::phys::PhysMap;
use crate::power::GateBlock;
use cost_ledger::{Event, Ledger};
use mmio::talitos::{
    self as r, Desc, HASH_BLOCK, MAX_DATA_LEN, MDEU_CONTEXT_SIZE, cccr, ccpsr, hdr, isr, slot,
};
use mmio::{BusFault, RegisterBus};
use zerocopy::FromBytes;

/// Longest chain the model follows before declaring the header illegal (a cycle of
/// `next_desc` would hang the silicon; the model reports instead).
pub const MAX_CHAIN: usize = 1024;

/// The SEC1 crypto engine, channel 0.
pub struct Sec1<'a> {
    ledger: &'a Ledger,
    gates: &'a GateBlock,
    gate: usize,
    imr: u32,
    isr: u32,
    cccr: u32,
    ccpsr: u32,
    cdpr: u32,
    pending: Option<u32>,
    /// The MDEU's state between descriptors (a chained descriptor without INIT and
    /// without a context-in pointer continues from it).
    mdeu: Option<Mdeu>,
}

/// A stop of the channel, with the CCPSR error bits that say why.
struct Stop(u32);

impl<'a> Sec1<'a> {
    pub fn new(ledger: &'a Ledger, gates: &'a GateBlock, gate: usize) -> Self {
        Self {
            ledger,
            gates,
            gate,
            imr: u32::MAX,
            isr: 0,
            cccr: 0,
            ccpsr: 0,
            cdpr: 0,
            pending: None,
            mdeu: None,
        }
    }

    /// The interrupt line: an unmasked ISR bit (SEC1: a set IMR bit masks).
    pub fn irq_line(&self) -> bool {
        self.gates.is_clocked(self.gate) && self.isr & !self.imr != 0
    }

    /// Executes a queued descriptor chain, if any.
    pub fn run(&mut self, mem: &PhysMap) {
        let Some(mut addr) = self.pending.take() else {
            return;
        };
        if !self.gates.is_clocked(self.gate) {
            return;
        }
        for _ in 0..MAX_CHAIN {
            self.cdpr = addr;
            let next = match self.execute(addr, mem) {
                Ok(next) => next,
                Err(Stop(bits)) => {
                    self.ccpsr |= bits;
                    self.isr |= isr::CH0_ERR;
                    if bits & ccpsr::MDTE != 0 {
                        self.isr |= isr::TEA_ERR;
                    }
                    return;
                }
            };
            match next {
                Some(n) if self.cccr & cccr::NE != 0 => addr = n,
                _ => return,
            }
        }
        self.ccpsr |= ccpsr::IDH;
        self.isr |= isr::CH0_ERR;
    }

    /// Runs one descriptor; returns its `next_desc` (if non-zero).
    fn execute(&mut self, addr: u32, mem: &PhysMap) -> Result<Option<u32>, Stop> {
        if addr == 0 {
            return Err(Stop(ccpsr::FPZ));
        }
        let mut raw = [0u8; r::DESC_SIZE];
        mem.read(addr.into(), &mut raw)
            .map_err(|_| Stop(ccpsr::MDTE))?;
        self.ledger.add(Event::DmaDescriptor, 1);
        let d = Desc::read_from_bytes(&raw).map_err(|_| Stop(ccpsr::IDH))?;
        let h = d.hdr.get();
        if h & hdr::TYPE_MASK != hdr::TYPE_COMMON_NONSNOOP_NO_AFEU {
            return Err(Stop(ccpsr::IDH));
        }
        if h & hdr::SEL0_MASK != hdr::SEL0_MDEUA {
            return Err(Stop(ccpsr::IEU));
        }
        if d.ptr
            .iter()
            .any(|p| usize::from(p.len.get()) > MAX_DATA_LEN)
        {
            return Err(Stop(ccpsr::GRL));
        }
        let alg = HashAlg::from_hdr(h).ok_or(Stop(ccpsr::EU))?;
        if h & hdr::MDEU_HMAC != 0 {
            return Err(Stop(ccpsr::EU));
        }
        let ctx_in = d.ptr[slot::CONTEXT_IN];
        let mut m = if h & hdr::MDEU_INIT != 0 {
            Mdeu::init(alg)
        } else if ctx_in.len.get() != 0 {
            if usize::from(ctx_in.len.get()) != MDEU_CONTEXT_SIZE {
                return Err(Stop(ccpsr::EU));
            }
            let mut ctx = [0u8; MDEU_CONTEXT_SIZE];
            mem.read(ctx_in.ptr.get().into(), &mut ctx)
                .map_err(|_| Stop(ccpsr::MDTE))?;
            self.ledger.add(Event::DmaByte, MDEU_CONTEXT_SIZE as u64);
            Mdeu::restore(alg, &ctx)
        } else {
            match self.mdeu {
                Some(m) if m.alg == alg => m,
                _ => return Err(Stop(ccpsr::EU)),
            }
        };

        let data = d.ptr[slot::DATA_IN];
        let len = usize::from(data.len.get());
        let pad = h & hdr::MDEU_PAD != 0;
        // SEC1 cannot hash an empty message (upstream: talitos_handle_buggy_hash), and
        // without PAD it can only continue from whole blocks.
        if (pad && len == 0 && h & hdr::MDEU_INIT != 0) || (!pad && len % HASH_BLOCK != 0) {
            return Err(Stop(ccpsr::EU));
        }
        let base = u64::from(data.ptr.get());
        let mut block = [0u8; HASH_BLOCK];
        let whole = len / HASH_BLOCK;
        for i in 0..whole {
            let at = base + (i * HASH_BLOCK) as u64;
            mem.read(at, &mut block).map_err(|_| Stop(ccpsr::MDTE))?;
            m.block(&block);
        }
        let tail = len % HASH_BLOCK;
        if tail > 0 {
            mem.read(base + (whole * HASH_BLOCK) as u64, &mut block[..tail])
                .map_err(|_| Stop(ccpsr::MDTE))?;
        }
        self.ledger.add(Event::DmaByte, len as u64);
        let blocks = whole as u64 + u64::from(pad) * (1 + u64::from(tail >= HASH_BLOCK - 8));
        self.ledger
            .add(Event::EngineCycle, blocks * alg.cycles_per_block());

        let out = d.ptr[slot::OUT];
        let out_len = usize::from(out.len.get());
        if pad {
            let digest = m.finish(&block[..tail]);
            let n = out_len.min(alg.digest_len());
            mem.write(out.ptr.get().into(), &digest[..n])
                .map_err(|_| Stop(ccpsr::MDTE))?;
            self.ledger.add(Event::DmaByte, n as u64);
            self.mdeu = None;
        } else {
            let ctx = m.save();
            let n = out_len.min(MDEU_CONTEXT_SIZE);
            mem.write(out.ptr.get().into(), &ctx[..n])
                .map_err(|_| Stop(ccpsr::MDTE))?;
            self.ledger.add(Event::DmaByte, n as u64);
            self.mdeu = Some(m);
        }

        if self.cccr & cccr::CDWE != 0 {
            let done = (h | hdr::DONE).to_be_bytes();
            mem.write(addr.into(), &done)
                .map_err(|_| Stop(ccpsr::MDTE))?;
        }
        if h & hdr::DONE_NOTIFY != 0 && self.cccr & cccr::CDIE != 0 {
            self.isr |= isr::CH0_DONE;
        }
        Ok(match d.next_desc.get() {
            0 => None,
            n => Some(n),
        })
    }
}

impl RegisterBus for Sec1<'_> {
    fn read32(&mut self, offset: usize) -> Result<u32, BusFault> {
        self.gates.admit(self.gate, offset, r::WINDOW)?;
        self.ledger.add(Event::RegRead, 1);
        Ok(match offset {
            r::IMR => self.imr,
            r::ISR => self.isr,
            r::CCCR_LO => self.cccr,
            r::CCPSR_LO => self.ccpsr,
            r::CDPR_LO => self.cdpr,
            _ => 0,
        })
    }

    fn write32(&mut self, offset: usize, value: u32) -> Result<(), BusFault> {
        self.gates.admit(self.gate, offset, r::WINDOW)?;
        self.ledger.add(Event::RegWrite, 1);
        match offset {
            r::IMR => self.imr = value,
            r::ICR => self.isr &= !value,
            r::MCR if value & r::MCR_SWR != 0 => {
                *self = Self::new(self.ledger, self.gates, self.gate);
            }
            r::CCCR_LO => {
                if value & cccr::RESET != 0 {
                    self.ccpsr = 0;
                    self.pending = None;
                    self.mdeu = None;
                    self.isr &= !(isr::CH0_DONE | isr::CH0_ERR);
                }
                self.cccr = value & !cccr::RESET;
            }
            // A halted channel ignores new work until it is reset.
            r::FF_LO if self.ccpsr == 0 => self.pending = Some(value),
            _ => {}
        }
        Ok(())
    }
}
