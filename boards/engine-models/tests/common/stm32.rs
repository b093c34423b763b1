//! The STM32 CRYP test driver: IT (CPU) mode and DMA mode with upstream's eligibility
//! rules (stm32-cryp.c, 2024), as the stm32-cryp DMA change measured them.

use super::{Job, Mode};
use board::stm32mp1::{CRYP1, DMA_IRQ_COMPLETION};
use cost_ledger::{Event, Ledger};
use engine_models::stm32mp1::Stm32mp1;
use mmio::RegisterBus;
use mmio::edma as e;
use mmio::stm32_cryp::{self as r, cr, dmacr, it, sr};

pub const CRYP_IRQ: u32 = CRYP1.irqs[0];

/// Upstream's rule: DMA only for len > 16, every segment 4-byte aligned, every segment
/// but the last a whole number of blocks.
pub fn dma_eligible(segs: &[(u32, u32)]) -> bool {
    let total: u32 = segs.iter().map(|s| s.1).sum();
    total > 16
        && segs.iter().all(|s| s.0.is_multiple_of(4))
        && segs[..segs.len() - 1]
            .iter()
            .all(|s| s.1.is_multiple_of(16))
}

fn config(key: &[u8], mode: Mode, encrypt: bool) -> u32 {
    let size = match key.len() {
        16 => cr::KEY_128,
        24 => cr::KEY_192,
        32 => cr::KEY_256,
        _ => 3,
    };
    let m = match mode {
        Mode::Ecb => cr::MODE_AES_ECB,
        Mode::Cbc => cr::MODE_AES_CBC,
        Mode::Ctr => cr::MODE_AES_CTR,
    };
    let mut c = cr::ALGOMODE.val(m) | cr::KEYSIZE.val(size) | cr::DATATYPE.val(cr::DATATYPE_8);
    if !encrypt {
        c |= cr::ALGODIR;
    }
    c
}

/// `stm32_cryp_hw_init`: key, IV, key preparation for ECB/CBC decryption, enable.
/// Returns whether CRYPEN stuck.
pub fn hw_init(soc: &Stm32mp1, job: &Job) -> bool {
    let mut c = soc.cryp();
    let cfg = config(job.key, job.mode, job.encrypt);
    c.write32(r::IMSCR, 0).unwrap();
    c.write32(r::CR, cfg).unwrap();
    let words = job.key.len() / 4;
    for (j, w) in job.key.chunks(4).enumerate() {
        c.write32(
            r::key_word(words, j),
            u32::from_be_bytes(w.try_into().unwrap()),
        )
        .unwrap();
    }
    if let Some(iv) = job.iv {
        for (i, w) in iv.chunks(4).enumerate() {
            c.write32(r::iv(i), u32::from_be_bytes(w.try_into().unwrap()))
                .unwrap();
        }
    }
    if !job.encrypt && job.mode != Mode::Ctr {
        let kp = cr::ALGOMODE.set(cfg, cr::MODE_AES_KP) & !cr::ALGODIR;
        c.write32(r::CR, kp | cr::CRYPEN).unwrap();
        while c.read32(r::CR).unwrap() & cr::CRYPEN != 0 {}
    }
    c.write32(r::CR, cfg | cr::CRYPEN | cr::FFLUSH).unwrap();
    c.read32(r::CR).unwrap() & cr::CRYPEN != 0
}

/// One block by CPU with polling (upstream's tail of a DMA request).
fn cpu_block(soc: &Stm32mp1, block: &[u8; 16]) -> [u8; 16] {
    let mut c = soc.cryp();
    for w in block.chunks(4) {
        c.write32(r::DIN, u32::from_le_bytes(w.try_into().unwrap()))
            .unwrap();
    }
    while c.read32(r::SR).unwrap() & sr::OFNE == 0 {}
    let mut out = [0u8; 16];
    for w in out.chunks_mut(4) {
        w.copy_from_slice(&c.read32(r::DOUT).unwrap().to_le_bytes());
    }
    out
}

/// One request in IT mode: IN/OUT interrupts, one block each way per service.
/// `None` if the engine stalls.
pub fn it_mode(soc: &Stm32mp1, ledger: &Ledger, job: &Job, input: &[u8]) -> Option<Vec<u8>> {
    ledger.add(Event::Request, 1);
    if !hw_init(soc, job) {
        return None;
    }
    let mut c = soc.cryp();
    let blocks = input.len().div_ceil(16);
    let (mut sent, mut got) = (0, Vec::new());
    c.write32(r::IMSCR, it::IN | it::OUT).unwrap();
    while got.len() < blocks * 16 {
        if !soc.irq_pending(CRYP_IRQ) {
            return None;
        }
        let misr = c.read32(r::MISR).unwrap();
        if misr & it::OUT != 0 {
            for _ in 0..r::BLOCK_WORDS {
                got.extend_from_slice(&c.read32(r::DOUT).unwrap().to_le_bytes());
            }
        }
        if misr & it::IN != 0 && sent < blocks {
            let mut block = [0u8; 16];
            let chunk = &input[sent * 16..input.len().min(sent * 16 + 16)];
            block[..chunk.len()].copy_from_slice(chunk);
            for w in block.chunks(4) {
                c.write32(r::DIN, u32::from_le_bytes(w.try_into().unwrap()))
                    .unwrap();
            }
            sent += 1;
        }
        let mut mask = it::IN | it::OUT;
        if sent == blocks {
            mask &= !it::IN;
        }
        if got.len() == blocks * 16 {
            mask &= !it::OUT;
        }
        c.write32(r::IMSCR, mask).unwrap();
        soc.irq_ack(CRYP_IRQ);
    }
    c.write32(r::CR, 0).unwrap();
    got.truncate(input.len());
    Some(got)
}

/// One request in DMA mode (the caller checked [`dma_eligible`]): the block-aligned part
/// by DMA straight from the SG lists, a last partial block by CPU. `tail` is the
/// request's last `len % 16` input bytes (already outside `src`/`dst`); its output is
/// returned.
pub fn dma_mode(
    soc: &Stm32mp1,
    ledger: &Ledger,
    job: &Job,
    src: &[(u32, u32)],
    dst: &[(u32, u32)],
    tail: &[u8],
) -> Option<Vec<u8>> {
    ledger.add(Event::Request, 1);
    if !hw_init(soc, job) {
        return None;
    }
    let (tx, rx) = CRYP1.dma.unwrap();
    let mut c = soc.cryp();
    let mut d = soc.dma();
    let din = (CRYP1.phys + r::DIN as u64) as u32;
    let dout = (CRYP1.phys + r::DOUT as u64) as u32;
    if !src.is_empty() {
        super::omap::program_channel(&mut d, tx, src, din, true, false, 64);
        super::omap::program_channel(&mut d, rx, dst, dout, false, true, 96);
        d.write32(e::IESR, 1 << rx).unwrap();
        d.write32(e::EESR, 1 << tx).unwrap();
        d.write32(e::EESR, 1 << rx).unwrap();
        c.write32(r::DMACR, dmacr::DIEN | dmacr::DOEN).unwrap();
        if !soc.irq_pending(DMA_IRQ_COMPLETION) {
            return None;
        }
        let ipr = d.read32(e::IPR).unwrap();
        d.write32(e::ICR, ipr).unwrap();
        soc.irq_ack(DMA_IRQ_COMPLETION);
        d.write32(e::EECR, (1 << tx) | (1 << rx)).unwrap();
        c.write32(r::DMACR, 0).unwrap();
    }
    let mut out = Vec::new();
    if !tail.is_empty() {
        let mut block = [0u8; 16];
        block[..tail.len()].copy_from_slice(tail);
        out.extend_from_slice(&cpu_block(soc, &block)[..tail.len()]);
        ledger.add(Event::CpuCopyByte, tail.len() as u64);
    }
    c.write32(r::CR, 0).unwrap();
    Some(out)
}
