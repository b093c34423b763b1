//! Register-level work on the STM32 CRYP engine and its two DMA channels, following
//! upstream `stm32-cryp.c`: `stm32_cryp_hw_init` (key, IV, key preparation for ECB/CBC
//! decryption, enable), IT ("CPU") mode with one block per IN/OUT interrupt, DMA mode
//! over the caller's segments with a polled CPU block for a partial tail.

use cipher_service::{ClientData, Segments, Session};
use cost_ledger::Event;
use mmio::edma::{self as e, p};
use mmio::stm32_cryp::{self as r, cr, dmacr, it, sr};
use mmio::{BusFault, RegisterBus};
use pd_idl::cipher::{CipherOp, Mode, Segment};
use pio_dma_driver::{IrqSource, Meter, Route, sg};

/// Where the engine and its DMA lines sit (from the board description).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Physical base of the CRYP register window (DMA addresses DIN/DOUT through it).
    pub cryp_phys: u64,
    pub cryp_irq: u32,
    /// DMA channels (= request lines) into and out of the engine.
    pub dma_tx: usize,
    pub dma_rx: usize,
    pub dma_done_irq: u32,
    pub dma_error_irq: u32,
    /// First PaRAM sets this driver owns for each channel's segment links.
    pub tx_links: usize,
    pub rx_links: usize,
}

impl Config {
    /// stm32mp1 CRYP1 with MDMA requests 29 (in) and 30 (out).
    pub const STM32MP1: Config = {
        let cryp = boards::stm32mp1::CRYP1;
        let Some((tx, rx)) = cryp.dma else {
            panic!("CRYP1 has DMA lines")
        };
        Config {
            cryp_phys: cryp.phys,
            cryp_irq: cryp.irqs[0],
            dma_tx: tx,
            dma_rx: rx,
            dma_done_irq: boards::stm32mp1::DMA_IRQ_COMPLETION,
            dma_error_irq: boards::stm32mp1::DMA_IRQ_ERROR,
            tx_links: e::CHANNELS * 2,
            rx_links: e::CHANNELS * 3,
        }
    };
}

/// Polls of a status bit before the engine counts as stalled.
const POLLS: u32 = 1000;

pub use pio_dma_driver::HwError;

pub struct Engine<C, D, I> {
    pub cryp: C,
    pub dma: D,
    pub irqs: I,
    pub cfg: Config,
}

/// A FIFO word: the block's bytes loaded little-endian (CR.DATATYPE = 8-bit swap).
fn fifo_word(bytes: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([
        bytes[4 * i],
        bytes[4 * i + 1],
        bytes[4 * i + 2],
        bytes[4 * i + 3],
    ])
}

/// A key or IV register word: big-endian (`be32_to_cpu` upstream).
fn reg_word(bytes: &[u8], i: usize) -> u32 {
    u32::from_be_bytes([
        bytes[4 * i],
        bytes[4 * i + 1],
        bytes[4 * i + 2],
        bytes[4 * i + 3],
    ])
}

impl<C: RegisterBus, D: RegisterBus, I: IrqSource> Engine<C, D, I> {
    pub fn new(cfg: Config, cryp: C, dma: D, irqs: I) -> Self {
        Engine {
            cryp,
            dma,
            irqs,
            cfg,
        }
    }

    /// Runs one request on `route`, in place, leaving the next IV in the session. On
    /// error the engine is disabled, FIFOs flushed and channels stopped.
    pub fn transfer(
        &mut self,
        route: Route,
        session: &mut Session,
        op: CipherOp,
        segs: &Segments,
        data: &mut ClientData<'_>,
        meter: &impl Meter,
    ) -> Result<(), HwError> {
        if segs.total() == 0 {
            return Ok(());
        }
        let result = self.hw_init(session, op).and_then(|()| match route {
            Route::Pio => self.it_mode(segs, data.bytes),
            Route::Dma => self.dma_mode(segs, data, meter),
        });
        let result = result.and_then(|()| self.save_iv(session).map_err(HwError::from));
        // Disabled between requests; on error also flushed and stopped.
        let _ = self.cryp.write32(r::CR, 0);
        if result.is_err() {
            let _ = self.recover();
        }
        result
    }

    fn config(session: &Session, op: CipherOp) -> u32 {
        let size = match session.key_len {
            16 => cr::KEY_128,
            24 => cr::KEY_192,
            _ => cr::KEY_256,
        };
        let mode = match session.mode {
            Mode::Ecb => cr::MODE_AES_ECB,
            Mode::Cbc => cr::MODE_AES_CBC,
            Mode::Ctr => cr::MODE_AES_CTR,
        };
        let mut c =
            cr::ALGOMODE.val(mode) | cr::KEYSIZE.val(size) | cr::DATATYPE.val(cr::DATATYPE_8);
        if op == CipherOp::Decrypt {
            c |= cr::ALGODIR;
        }
        c
    }

    /// `stm32_cryp_hw_init`: the whole context from the session, every request.
    fn hw_init(&mut self, session: &Session, op: CipherOp) -> Result<(), HwError> {
        let cfg = Self::config(session, op);
        self.cryp.write32(r::IMSCR, 0)?;
        self.cryp.write32(r::CR, cfg)?;
        let key = session.key();
        let words = key.len() / 4;
        for j in 0..words {
            self.cryp.write32(r::key_word(words, j), reg_word(key, j))?;
        }
        if session.mode != Mode::Ecb {
            for i in 0..r::BLOCK_WORDS {
                self.cryp.write32(r::iv(i), reg_word(&session.iv, i))?;
            }
        }
        // ECB/CBC decryption runs the key schedule backwards: the engine must derive the
        // decryption key first (ALGOMODE = key preparation), which ends by clearing
        // CRYPEN. Without it the engine produces wrong data.
        if op == CipherOp::Decrypt && session.mode != Mode::Ctr {
            let kp = cr::ALGOMODE.set(cfg, cr::MODE_AES_KP) & !cr::ALGODIR;
            self.cryp.write32(r::CR, kp | cr::CRYPEN)?;
            self.poll(r::CR, cr::CRYPEN, 0)?;
        }
        self.cryp.write32(r::CR, cfg | cr::CRYPEN | cr::FFLUSH)?;
        if self.cryp.read32(r::CR)? & cr::CRYPEN == 0 {
            return Err(HwError::Refused);
        }
        Ok(())
    }

    /// Waits (bounded) until `reg & mask == want`.
    fn poll(&mut self, reg: usize, mask: u32, want: u32) -> Result<(), HwError> {
        for _ in 0..POLLS {
            if self.cryp.read32(reg)? & mask == want {
                return Ok(());
            }
        }
        Err(HwError::Stalled)
    }

    fn save_iv(&mut self, session: &mut Session) -> Result<(), BusFault> {
        if session.mode == Mode::Ecb {
            return Ok(());
        }
        for i in 0..r::BLOCK_WORDS {
            let w = self.cryp.read32(r::iv(i))?;
            session.iv[4 * i..4 * i + 4].copy_from_slice(&w.to_be_bytes());
        }
        Ok(())
    }

    /// IT mode: on IN write one block, on OUT read one back (a partial last block is
    /// padded on the way in and trimmed on the way out).
    fn it_mode(&mut self, segs: &Segments, data: &mut [u8]) -> Result<(), HwError> {
        let list = segs.as_slice();
        let blocks = (segs.total() as usize).div_ceil(r::BLOCK);
        let (mut sent, mut got) = (0, 0);
        let mut block = [0u8; r::BLOCK];
        self.cryp.write32(r::IMSCR, it::IN | it::OUT)?;
        while got < blocks {
            if !self.irqs.wait(self.cfg.cryp_irq) {
                return Err(HwError::Stalled);
            }
            let misr = self.cryp.read32(r::MISR)?;
            if misr & it::OUT != 0 {
                for i in 0..r::BLOCK_WORDS {
                    let w = self.cryp.read32(r::DOUT)?;
                    block[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
                }
                sg::scatter(list, data, got * r::BLOCK, &block);
                got += 1;
            }
            if misr & it::IN != 0 && sent < blocks {
                sg::gather(list, data, sent * r::BLOCK, &mut block);
                for i in 0..r::BLOCK_WORDS {
                    self.cryp.write32(r::DIN, fifo_word(&block, i))?;
                }
                sent += 1;
            }
            let mut mask = it::IN | it::OUT;
            if sent == blocks {
                mask &= !it::IN;
            }
            if got == blocks {
                mask &= !it::OUT;
            }
            self.cryp.write32(r::IMSCR, mask)?;
            self.irqs.ack(self.cfg.cryp_irq);
        }
        Ok(())
    }

    /// DMA for the block-aligned part straight from the segments, then a partial last
    /// block by the CPU with polling, as upstream does.
    fn dma_mode(
        &mut self,
        segs: &Segments,
        data: &mut ClientData<'_>,
        meter: &impl Meter,
    ) -> Result<(), HwError> {
        let total = segs.total() as usize;
        let aligned = total - total % r::BLOCK;
        if aligned > 0 {
            self.dma_blocks(segs, data.phys.unwrap_or_default(), aligned as u32)?;
        }
        if aligned < total {
            let list = segs.as_slice();
            let mut block = [0u8; r::BLOCK];
            // Upstream assembles the tail in a bounce block: those bytes count as copied.
            let n = sg::gather(list, data.bytes, aligned, &mut block);
            meter.count(Event::CpuCopyByte, n as u64);
            for i in 0..r::BLOCK_WORDS {
                self.cryp.write32(r::DIN, fifo_word(&block, i))?;
            }
            self.poll(r::SR, sr::OFNE, sr::OFNE)?;
            for i in 0..r::BLOCK_WORDS {
                let w = self.cryp.read32(r::DOUT)?;
                block[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
            }
            sg::scatter(list, data.bytes, aligned, &block);
        }
        Ok(())
    }

    /// Programs the tx (memory to DIN) or rx (DOUT to memory) channel over the first
    /// `len` bytes of the segments: one 16-byte frame per block, one linked set per
    /// segment, empty pieces skipped; rx's last set raises the completion.
    fn program(
        &mut self,
        to_engine: bool,
        list: &[Segment],
        len: u32,
        base: u64,
    ) -> Result<(), BusFault> {
        let (ch, links, port) = if to_engine {
            (self.cfg.dma_tx, self.cfg.tx_links, r::DIN)
        } else {
            (self.cfg.dma_rx, self.cfg.rx_links, r::DOUT)
        };
        let port = (self.cfg.cryp_phys + port as u64) as u32;
        let word = (r::BLOCK / r::BLOCK_WORDS) as u32;
        let mut pieces = [(0u32, 0u32); 8];
        let (mut n, mut left) = (0, len);
        for s in list {
            let take = s.len.min(left);
            if take > 0 {
                pieces[n] = ((base + u64::from(s.offset)) as u32, take);
                n += 1;
                left -= take;
            }
        }
        for (i, &(addr, bytes)) in pieces[..n].iter().enumerate() {
            let set = if i == 0 { ch } else { links + i };
            let last = i + 1 == n;
            let mut opt = p::OPT_SYNCDIM | p::OPT_TCC.val(ch as u32);
            if last && !to_engine {
                opt |= p::OPT_TCINTEN;
            }
            let (src, dst, bidx, cidx) = if to_engine {
                (
                    addr,
                    port,
                    p::SRC_IDX.val(word),
                    p::SRC_IDX.val(r::BLOCK as u32),
                )
            } else {
                (
                    port,
                    addr,
                    p::DST_IDX.val(word),
                    p::DST_IDX.val(r::BLOCK as u32),
                )
            };
            let link = if last {
                e::LINK_NULL
            } else {
                e::link_to(links + i + 1)
            };
            let words = [
                opt,
                src,
                p::ACNT.val(word) | p::BCNT.val(r::BLOCK_WORDS as u32),
                dst,
                bidx,
                p::LINK.val(link),
                cidx,
                p::CCNT_FIELD.val(bytes / r::BLOCK as u32),
            ];
            self.dma.write_words(e::param(set), &words)?;
        }
        Ok(())
    }

    fn dma_blocks(&mut self, segs: &Segments, base: u64, len: u32) -> Result<(), HwError> {
        let (tx, rx) = (self.cfg.dma_tx, self.cfg.dma_rx);
        let list = segs.as_slice();
        self.program(true, list, len, base)?;
        self.program(false, list, len, base)?;
        self.dma.write32(e::IESR, 1 << rx)?;
        self.dma.write32(e::EESR, 1 << tx)?;
        self.dma.write32(e::EESR, 1 << rx)?;
        self.cryp.write32(r::DMACR, dmacr::DIEN | dmacr::DOEN)?;
        let result = if self.irqs.wait(self.cfg.dma_done_irq) {
            let ipr = self.dma.read32(e::IPR)?;
            self.dma.write32(e::ICR, ipr)?;
            self.irqs.ack(self.cfg.dma_done_irq);
            Ok(())
        } else if self.irqs.wait(self.cfg.dma_error_irq) {
            let addr = self.dma.read32(e::ERRADDR)?;
            self.dma.write32(e::ERRCLR, e::ERRSTAT_BUSERR)?;
            self.irqs.ack(self.cfg.dma_error_irq);
            Err(HwError::DmaBus(addr))
        } else {
            Err(HwError::Stalled)
        };
        self.dma.write32(e::EECR, (1 << tx) | (1 << rx))?;
        self.cryp.write32(r::DMACR, 0)?;
        result
    }

    fn recover(&mut self) -> Result<(), BusFault> {
        let (tx, rx) = (self.cfg.dma_tx, self.cfg.dma_rx);
        self.dma.write32(e::EECR, (1 << tx) | (1 << rx))?;
        self.dma.write32(e::ICR, (1 << tx) | (1 << rx))?;
        self.dma.write32(e::ERRCLR, e::ERRSTAT_BUSERR)?;
        self.cryp.write32(r::DMACR, 0)?;
        self.cryp.write32(r::IMSCR, 0)?;
        self.cryp.write32(r::CR, cr::FFLUSH)?;
        self.irqs.ack(self.cfg.cryp_irq);
        self.irqs.ack(self.cfg.dma_done_irq);
        self.irqs.ack(self.cfg.dma_error_irq);
        Ok(())
    }
}
