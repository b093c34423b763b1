//! The OMAP AES test driver: PIO as omap-aes's interrupt handler does it (the omap-aes DMA/PIO series), DMA
//! over the caller's scatter-gather list (the omap-aes DMA/PIO series's rewrite), and the old bounce-copy
//! DMA path it replaced.

use super::{Job, Mode};
use board::am335x::{AES0, EDMA_IRQ_COMPLETION, EDMA_IRQ_ERROR};
use cost_ledger::{Event, Ledger};
use engine_models::am335x::Am335x;
use engine_models::phys::PhysMap;
use mmio::edma::{self as e, p};
use mmio::omap_aes::{self as r, ctrl, irq, sysconfig};
use mmio::{BusFault, RegisterBus};

pub const AES_IRQ: u32 = AES0.irqs[0];

/// Loads key, IV and CTRL (the context), as `omap_aes_write_ctrl`.
pub fn load_context(soc: &Am335x, job: &Job) -> Result<(), BusFault> {
    let mut aes = soc.aes();
    for (i, w) in job.key.chunks(4).enumerate() {
        aes.write32(r::key(i), u32::from_le_bytes(w.try_into().unwrap()))?;
    }
    if let Some(iv) = job.iv {
        for (i, w) in iv.chunks(4).enumerate() {
            aes.write32(r::iv(i), u32::from_le_bytes(w.try_into().unwrap()))?;
        }
    }
    let size = match job.key.len() {
        16 => ctrl::KEY_128,
        24 => ctrl::KEY_192,
        32 => ctrl::KEY_256,
        _ => 0,
    };
    let mut c = ctrl::KEY_SIZE.val(size);
    if job.encrypt {
        c |= ctrl::DIRECTION;
    }
    match job.mode {
        Mode::Ecb => {}
        Mode::Cbc => c |= ctrl::CBC,
        Mode::Ctr => c |= ctrl::CTR | ctrl::CTR_WIDTH.val(ctrl::CTR_WIDTH_128),
    }
    aes.write32(r::CTRL, c)
}

/// Reads the IV registers back (the chaining value for the next request).
pub fn read_iv(soc: &Am335x) -> [u8; 16] {
    let mut aes = soc.aes();
    let mut iv = [0u8; 16];
    for i in 0..4 {
        iv[4 * i..4 * i + 4].copy_from_slice(&aes.read32(r::iv(i)).unwrap().to_le_bytes());
    }
    iv
}

/// One PIO request: DATA_IN and DATA_OUT interrupts per block, as `omap_aes_irq`.
/// Returns `None` if the engine stalls (no interrupt while work is left).
pub fn pio(soc: &Am335x, ledger: &Ledger, job: &Job, input: &[u8]) -> Option<Vec<u8>> {
    ledger.add(Event::Request, 1);
    load_context(soc, job).unwrap();
    let mut aes = soc.aes();
    // omap4 counts the payload: a length left by an earlier DMA request would stop PIO.
    aes.write32(r::C_LENGTH_0, input.len() as u32).unwrap();
    aes.write32(r::C_LENGTH_1, 0).unwrap();
    aes.write32(r::IRQ_ENABLE, irq::DATA_IN).unwrap();
    let blocks = input.len().div_ceil(r::BLOCK);
    let (mut sent, mut got) = (0, Vec::with_capacity(blocks * r::BLOCK));
    while got.len() < blocks * r::BLOCK {
        if !soc.irq_pending(AES_IRQ) {
            return None;
        }
        let status = aes.read32(r::IRQ_STATUS).unwrap();
        if status & irq::DATA_IN != 0 && sent < blocks {
            aes.write32(r::IRQ_ENABLE, 0).unwrap();
            let mut block = [0u8; 16];
            let chunk = &input[sent * r::BLOCK..input.len().min((sent + 1) * r::BLOCK)];
            block[..chunk.len()].copy_from_slice(chunk);
            for i in 0..r::BLOCK_WORDS {
                aes.write32(
                    r::data(i),
                    u32::from_le_bytes(block[4 * i..4 * i + 4].try_into().unwrap()),
                )
                .unwrap();
            }
            sent += 1;
            aes.write32(r::IRQ_STATUS, status & !irq::DATA_IN).unwrap();
            aes.write32(r::IRQ_ENABLE, irq::DATA_OUT).unwrap();
        } else if status & irq::DATA_OUT != 0 {
            aes.write32(r::IRQ_ENABLE, 0).unwrap();
            for i in 0..r::BLOCK_WORDS {
                got.extend_from_slice(&aes.read32(r::data(i)).unwrap().to_le_bytes());
            }
            aes.write32(r::IRQ_STATUS, status & !irq::DATA_OUT).unwrap();
            if got.len() < blocks * r::BLOCK {
                aes.write32(r::IRQ_ENABLE, irq::DATA_IN).unwrap();
            }
        }
        soc.irq_ack(AES_IRQ);
    }
    got.truncate(input.len());
    Some(got)
}

/// First parameter set used for links (channels use their own numbers).
const LINK_SETS: usize = 64;

/// Programs one EDMA channel over `segs`, linking one parameter set per segment.
/// `to_engine`: memory -> DATA_N (constant address), else DATA_N -> memory.
pub fn program_channel(
    dma: &mut impl RegisterBus,
    ch: usize,
    segs: &[(u32, u32)],
    port: u32,
    to_engine: bool,
    irq: bool,
    link_base: usize,
) {
    for (i, &(addr, len)) in segs.iter().enumerate() {
        let set = if i == 0 { ch } else { link_base + i };
        let last = i + 1 == segs.len();
        let link = if last {
            e::LINK_NULL
        } else {
            e::link_to(link_base + i + 1)
        };
        let mut opt = p::OPT_SYNCDIM | p::OPT_TCC.val(ch as u32);
        if last && irq {
            opt |= p::OPT_TCINTEN;
        }
        let (src, dst, bidx, cidx) = if to_engine {
            (addr, port, p::SRC_IDX.val(4), p::SRC_IDX.val(16))
        } else {
            (port, addr, p::DST_IDX.val(4), p::DST_IDX.val(16))
        };
        let words = [
            opt,
            src,
            p::ACNT.val(4) | p::BCNT.val(4),
            dst,
            bidx,
            p::LINK.val(link),
            cidx,
            p::CCNT_FIELD.val(len / 16),
        ];
        dma.write_words(e::param(set), &words).unwrap();
    }
}

/// Why a DMA request failed, as the driver learns it.
#[derive(Debug, PartialEq, Eq)]
pub enum DmaError {
    /// EDMA reported a bus error at this address.
    Bus(u32),
    /// Nothing completed.
    Stalled,
}

/// One DMA request from the caller's SG lists (whole blocks), as the omap-aes DMA/PIO series's rewrite.
pub fn dma(
    soc: &Am335x,
    ledger: &Ledger,
    job: &Job,
    src: &[(u32, u32)],
    dst: &[(u32, u32)],
) -> Result<(), DmaError> {
    ledger.add(Event::Request, 1);
    load_context(soc, job).unwrap();
    let total: u32 = src.iter().map(|s| s.1).sum();
    let (tx, rx) = AES0.dma.unwrap();
    let port = (AES0.phys + r::data(0) as u64) as u32;
    let mut aes = soc.aes();
    let mut edma = soc.edma();
    aes.write32(r::C_LENGTH_0, total).unwrap();
    aes.write32(r::C_LENGTH_1, 0).unwrap();
    program_channel(&mut edma, tx, src, port, true, false, LINK_SETS);
    program_channel(&mut edma, rx, dst, port, false, true, LINK_SETS + 32);
    edma.write32(e::IESR, 1 << rx).unwrap();
    edma.write32(e::EESR, 1 << tx).unwrap();
    edma.write32(e::EESR, 1 << rx).unwrap();
    aes.modify32(
        r::SYSCONFIG,
        0,
        sysconfig::DMA_REQ_IN | sysconfig::DMA_REQ_OUT,
    )
    .unwrap();
    let result = if soc.irq_pending(EDMA_IRQ_COMPLETION) {
        let ipr = edma.read32(e::IPR).unwrap();
        edma.write32(e::ICR, ipr).unwrap();
        soc.irq_ack(EDMA_IRQ_COMPLETION);
        Ok(())
    } else if soc.irq_pending(EDMA_IRQ_ERROR) {
        let addr = edma.read32(e::ERRADDR).unwrap();
        edma.write32(e::ERRCLR, e::ERRSTAT_BUSERR).unwrap();
        soc.irq_ack(EDMA_IRQ_ERROR);
        Err(DmaError::Bus(addr))
    } else {
        Err(DmaError::Stalled)
    };
    edma.write32(e::EECR, (1 << tx) | (1 << rx)).unwrap();
    aes.modify32(
        r::SYSCONFIG,
        sysconfig::DMA_REQ_IN | sysconfig::DMA_REQ_OUT,
        0,
    )
    .unwrap();
    result
}

/// The pre-rewrite path: copy the request into a bounce buffer, DMA it, copy it out.
pub fn dma_bounce(
    soc: &Am335x,
    mem: &PhysMap,
    ledger: &Ledger,
    job: &Job,
    bounce: (u32, u32),
    src: &[(u32, u32)],
    dst: &[(u32, u32)],
) -> Result<(), DmaError> {
    let total: u32 = src.iter().map(|s| s.1).sum();
    let mut data = Vec::new();
    for &(a, l) in src {
        data.extend(super::get(mem, a, l as usize));
    }
    mem.write(bounce.0.into(), &data).unwrap();
    ledger.add(Event::CpuCopyByte, total.into());
    dma(soc, ledger, job, &[(bounce.0, total)], &[(bounce.1, total)])?;
    let out = super::get(mem, bounce.1, total as usize);
    let mut at = 0;
    for &(a, l) in dst {
        mem.write(a.into(), &out[at..at + l as usize]).unwrap();
        at += l as usize;
    }
    ledger.add(Event::CpuCopyByte, total.into());
    Ok(())
}
