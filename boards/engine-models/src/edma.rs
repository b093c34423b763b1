//! The EDMA-like DMA controller model (register map in `mmio::edma`).
//!
//! The model serves one synchronisation event at a time, synchronously: the machine that
//! owns it calls [`Edma::event`] while a peripheral holds its DMA request, and the bytes
//! move at once through a [`DmaSpace`] (memory windows and peripheral data ports). Time
//! is not simulated; the ledger counts what the transfer did.

use crate::phys::DmaFault;
use crate::power::GateBlock;
use cost_ledger::{Event, Ledger};
use mmio::edma::{self as r, p};
use mmio::{BusFault, RegisterBus};

/// What a DMA master can address: memory windows and peripheral data ports.
pub trait DmaSpace {
    /// Reads `buf.len()` bytes at physical `addr`; `Err` is a bus error.
    fn read(&mut self, addr: u32, buf: &mut [u8]) -> Result<(), DmaFault>;
    /// Writes `data` at physical `addr`; `Err` is a bus error.
    fn write(&mut self, addr: u32, data: &[u8]) -> Result<(), DmaFault>;
}

/// The controller: parameter RAM, event and interrupt registers, error status.
pub struct Edma<'a> {
    ledger: &'a Ledger,
    gates: &'a GateBlock,
    gate: usize,
    params: [[u32; 8]; r::PARAM_SETS],
    er: u32,
    eer: u32,
    emr: u32,
    ier: u32,
    ipr: u32,
    errstat: u32,
    errdet: u32,
    erraddr: u32,
    /// Transfer requests each channel has submitted since it was started.
    trs: [u32; r::CHANNELS],
}

/// A null parameter set: no counts, link to nothing.
const NULL_SET: [u32; 8] = [0, 0, 0, 0, 0, r::LINK_NULL, 0, 0];

impl<'a> Edma<'a> {
    pub fn new(ledger: &'a Ledger, gates: &'a GateBlock, gate: usize) -> Self {
        Self {
            ledger,
            gates,
            gate,
            params: [NULL_SET; r::PARAM_SETS],
            er: 0,
            eer: 0,
            emr: 0,
            ier: 0,
            ipr: 0,
            errstat: 0,
            errdet: 0,
            erraddr: 0,
            trs: [0; r::CHANNELS],
        }
    }

    /// The transfer-completion interrupt line (`IPR & IER`).
    pub fn completion_line(&self) -> bool {
        self.ipr & self.ier != 0
    }

    /// The error interrupt line (a bus error is latched in ERRSTAT).
    pub fn error_line(&self) -> bool {
        self.errstat != 0
    }

    /// Serves one synchronisation event of channel `ch` (its peripheral's DMA request).
    /// Returns whether bytes moved, so the caller knows to look at the peripheral again.
    pub fn event(&mut self, ch: usize, space: &mut dyn DmaSpace) -> bool {
        let bit = 1u32 << ch;
        if !self.gates.is_clocked(self.gate) || ch >= r::CHANNELS {
            return false;
        }
        if self.eer & bit == 0 {
            self.er |= bit;
            return false;
        }
        self.er &= !bit;
        let set = self.params[ch];
        let acnt = p::ACNT.get(set[2]);
        let bcnt = p::BCNT.get(set[2]);
        let ccnt = p::CCNT_FIELD.get(set[7]);
        if acnt == 0 || bcnt == 0 || ccnt == 0 {
            self.emr |= bit;
            return false;
        }
        // Each synchronisation event is one transfer request (TR) to the transfer
        // controller; the first one beyond its destination register sets means the
        // channel's transfer no longer fits the pipeline.
        self.trs[ch] += 1;
        if self.trs[ch] == r::DST_REG_DEPTH + 1 {
            self.ledger.add(Event::DmaPipelineFull, 1);
        }
        match self.transfer(ch, space) {
            Ok(()) => true,
            Err(addr) => {
                let tcc = p::OPT_TCC.get(set[0]);
                self.errstat |= r::ERRSTAT_BUSERR;
                self.errdet = r::ERRDET_TCC.val(tcc);
                self.erraddr = addr;
                self.params[ch] = NULL_SET;
                self.eer &= !bit;
                // Bytes may have moved before the fault; report progress so the caller
                // re-examines the peripheral (it will find the channel disabled).
                true
            }
        }
    }

    /// One A- or AB-synchronised step of channel `ch`'s set, updated in place.
    fn transfer(&mut self, ch: usize, space: &mut dyn DmaSpace) -> Result<(), u32> {
        let s = &mut self.params[ch];
        let opt = s[0];
        let acnt = p::ACNT.get(s[2]);
        let mut bcnt = p::BCNT.get(s[2]);
        let sbidx = p::SRC_IDX.get(s[4]) as u16 as i16 as i32;
        let dbidx = p::DST_IDX.get(s[4]) as u16 as i16 as i32;
        let scidx = p::SRC_IDX.get(s[6]) as u16 as i16 as i32;
        let dcidx = p::DST_IDX.get(s[6]) as u16 as i16 as i32;
        let mut ccnt = p::CCNT_FIELD.get(s[7]);
        let (src, dst) = (s[1], s[3]);
        if opt & p::OPT_SYNCDIM != 0 {
            for b in 0..bcnt {
                let off_s = src.wrapping_add_signed(sbidx * b as i32);
                let off_d = dst.wrapping_add_signed(dbidx * b as i32);
                copy(space, self.ledger, off_s, off_d, acnt)?;
            }
            s[1] = src.wrapping_add_signed(scidx);
            s[3] = dst.wrapping_add_signed(dcidx);
            ccnt -= 1;
        } else {
            copy(space, self.ledger, src, dst, acnt)?;
            if bcnt > 1 {
                bcnt -= 1;
                s[1] = src.wrapping_add_signed(sbidx);
                s[3] = dst.wrapping_add_signed(dbidx);
            } else {
                bcnt = p::BCNTRLD.get(s[5]);
                s[1] = src.wrapping_add_signed(scidx);
                s[3] = dst.wrapping_add_signed(dcidx);
                ccnt -= 1;
            }
            s[2] = p::BCNT.set(s[2], bcnt);
        }
        s[7] = ccnt;
        if ccnt == 0 {
            // TCC is six bits; the model's pending register has 32 (a driver's code of
            // 32 or more raises nothing, rather than overflowing the shift).
            if opt & p::OPT_TCINTEN != 0
                && let Some(bit) = 1u32.checked_shl(p::OPT_TCC.get(opt))
            {
                self.ipr |= bit;
            }
            let link = p::LINK.get(s[5]);
            *s = NULL_SET;
            if link != r::LINK_NULL
                && let Some(n) = link_index(link)
            {
                self.params[ch] = self.params[n];
                self.ledger.add(Event::DmaDescriptor, 1);
            }
        }
        Ok(())
    }
}

/// Parameter set named by a LINK value, if it names one.
fn link_index(link: u32) -> Option<usize> {
    let off = (link as usize).checked_sub(r::PARAM)?;
    (off % r::PARAM_SIZE == 0 && off / r::PARAM_SIZE < r::PARAM_SETS).then_some(off / r::PARAM_SIZE)
}

/// Moves `len` bytes through a small bounce buffer (the transfer controller's FIFO).
fn copy(
    space: &mut dyn DmaSpace,
    ledger: &Ledger,
    src: u32,
    dst: u32,
    len: u32,
) -> Result<(), u32> {
    let mut buf = [0u8; 64];
    let mut done = 0u32;
    while done < len {
        let n = (len - done).min(buf.len() as u32);
        let chunk = &mut buf[..n as usize];
        let s = src.wrapping_add(done);
        space.read(s, chunk).map_err(|_| s)?;
        let d = dst.wrapping_add(done);
        space.write(d, chunk).map_err(|_| d)?;
        ledger.add(Event::DmaByte, u64::from(n));
        done += n;
    }
    Ok(())
}

impl RegisterBus for Edma<'_> {
    fn read32(&mut self, offset: usize) -> Result<u32, BusFault> {
        self.gates.admit(self.gate, offset, r::WINDOW)?;
        self.ledger.add(Event::RegRead, 1);
        Ok(match offset {
            r::ER => self.er,
            r::EER => self.eer,
            r::EMR => self.emr,
            r::IER => self.ier,
            r::IPR => self.ipr,
            r::ERRSTAT => self.errstat,
            r::ERRDET => self.errdet,
            r::ERRADDR => self.erraddr,
            o if (r::PARAM..r::param(r::PARAM_SETS)).contains(&o) => {
                let rel = o - r::PARAM;
                self.params[rel / r::PARAM_SIZE][(rel % r::PARAM_SIZE) / 4]
            }
            _ => 0,
        })
    }

    fn write32(&mut self, offset: usize, value: u32) -> Result<(), BusFault> {
        self.gates.admit(self.gate, offset, r::WINDOW)?;
        self.ledger.add(Event::RegWrite, 1);
        match offset {
            r::EESR => {
                // A channel start is the driver enabling its event.
                let newly = value & !self.eer;
                self.ledger
                    .add(Event::DmaStart, u64::from(newly.count_ones()));
                for (ch, trs) in self.trs.iter_mut().enumerate() {
                    if newly & (1 << ch) != 0 {
                        *trs = 0;
                    }
                }
                self.eer |= value;
            }
            r::EECR => self.eer &= !value,
            r::IESR => self.ier |= value,
            r::IECR => self.ier &= !value,
            r::ICR => self.ipr &= !value,
            r::ERRCLR => self.errstat &= !value,
            o if (r::PARAM..r::param(r::PARAM_SETS)).contains(&o) => {
                let rel = o - r::PARAM;
                self.params[rel / r::PARAM_SIZE][(rel % r::PARAM_SIZE) / 4] = value;
            }
            _ => {}
        }
        Ok(())
    }
}
