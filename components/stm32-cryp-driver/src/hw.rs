//! Register-level work on the STM32 CRYP engine and its two DMA channels, following
//! upstream `stm32-cryp.c`: `stm32_cryp_hw_init` (key, IV, key preparation for ECB/CBC
//! decryption, enable), IT ("CPU") mode as a state machine advanced by each IN/OUT
//! interrupt, DMA mode over the caller's segments finished by the DMA completion or
//! error interrupt, then a partial tail block by the CPU on the OUT interrupt (upstream
//! polls for that block; here it is one more interrupt).

use board::stm32mp1::{CRYP1, DMA_IRQ_COMPLETION, DMA_IRQ_ERROR};
use cipher_service::{Job, Segments, Session, sg};
use cost_ledger::Event;
use mmio::stm32_cryp::{self as r, cr, dmacr, it};
use mmio::{BusFault, RegisterBus};
use pd_idl::cipher::{CipherOp, Mode};
use pio_dma_driver::edma::{self, Wiring};
use pio_dma_driver::pio::Blocks;
use pio_dma_driver::regs::{iv_after, read_words, write_words};
use pio_dma_driver::{HwError, Meter, PioDmaEngine, Route, kat};

use crate::route;

/// The stm32mp1 board's CRYP1, as this driver drives it.
pub const STM32MP1: Wiring = Wiring::of(CRYP1, DMA_IRQ_COMPLETION, DMA_IRQ_ERROR);

pub struct Engine<C, D> {
    pub cryp: C,
    pub dma: D,
    pub cfg: Wiring,
    state: State,
}

/// What the engine is doing, so an interrupt knows what to do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Idle,
    /// IT mode.
    Pio(Blocks),
    /// DMA over the block-aligned `aligned` bytes; the rest is a CPU tail block.
    Dma {
        aligned: usize,
    },
    /// The partial last block is in the engine; OUT brings it back.
    Tail {
        at: usize,
    },
}

impl<C: RegisterBus, D: RegisterBus> Engine<C, D> {
    pub fn new(cfg: Wiring, cryp: C, dma: D) -> Self {
        Engine {
            cryp,
            dma,
            cfg,
            state: State::Idle,
        }
    }
}

impl<C: RegisterBus, D: RegisterBus> PioDmaEngine for Engine<C, D> {
    // Upstream's rule gives DMA nothing of 16 bytes or fewer.
    const MIN_DMA_BLOCKS: u32 = 2;
    const KATS: &'static [&'static kat::Kat] = &kat::ALL_WITH_CTR_TAIL;

    fn dma_capable(&self, segs: &Segments, phys: Option<u64>) -> bool {
        route::dma_capable(segs, phys)
    }

    fn load(&mut self, job: &Job<'_>, kept: bool) -> Result<(), HwError> {
        self.hw_init(&job.session, job.op, kept)
    }

    fn start(&mut self, route: Route, job: &Job<'_>, meter: &impl Meter) -> Result<(), HwError> {
        match route {
            Route::Pio => {
                self.state = State::Pio(Blocks::of(job));
                self.cryp.write32(r::IMSCR, it::IN | it::OUT)?;
                Ok(())
            }
            Route::Dma => {
                let total = job.segs.total() as usize;
                let aligned = total - total % r::BLOCK;
                if aligned == 0 {
                    return self.tail(job, 0, meter);
                }
                self.state = State::Dma { aligned };
                self.dma_start(&job.segs, job.data.phys.unwrap_or_default(), aligned as u32)
            }
        }
    }

    fn interrupt(&mut self, job: &Job<'_>, meter: &impl Meter) -> Result<bool, HwError> {
        match self.state {
            State::Idle => Ok(false),
            State::Pio(_) => self.pio_step(job, meter),
            State::Dma { aligned } => self.dma_step(meter).and_then(|done| match done {
                true if aligned < job.segs.total() as usize => {
                    self.tail(job, aligned, meter).map(|()| false)
                }
                done => Ok(done),
            }),
            State::Tail { at } => self.tail_step(job, at, meter),
        }
    }

    fn finish(&mut self, job: &Job<'_>) -> Result<[u8; 16], HwError> {
        self.state = State::Idle;
        let iv = iv_after(&mut self.cryp, r::iv, job, u32::to_be_bytes);
        // Disabled between requests (the key and IV registers keep their values).
        let _ = self.cryp.write32(r::CR, 0);
        Ok(iv?)
    }

    /// Engine disabled, FIFOs flushed, channels stopped.
    fn reset(&mut self) {
        self.state = State::Idle;
        let _ = self.cryp.write32(r::CR, 0);
        let _ = self.recover();
    }

    fn clear_key(&mut self) -> Result<(), HwError> {
        Ok(write_words(
            &mut self.cryp,
            r::key,
            &[0; 32],
            u32::from_be_bytes,
        )?)
    }
}

impl<C: RegisterBus, D: RegisterBus> Engine<C, D> {
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

    /// `stm32_cryp_hw_init`: the whole context from the session, unless `kept` (the
    /// engine still holds this session's key, prepared for this direction, and IV:
    /// its last job), when only the configuration is written and the engine enabled.
    fn hw_init(&mut self, session: &Session, op: CipherOp, kept: bool) -> Result<(), HwError> {
        let cfg = Self::config(session, op);
        self.cryp.write32(r::IMSCR, 0)?;
        self.cryp.write32(r::CR, cfg)?;
        if !kept {
            self.load_key(session, op, cfg)?;
        }
        self.cryp.write32(r::CR, cfg | cr::CRYPEN | cr::FFLUSH)?;
        if self.cryp.read32(r::CR)? & cr::CRYPEN == 0 {
            return Err(HwError::Refused);
        }
        Ok(())
    }

    /// Key and IV from the session (big-endian words: `be32_to_cpu` upstream), and for
    /// an ECB/CBC decryption the key prepared.
    fn load_key(&mut self, session: &Session, op: CipherOp, cfg: u32) -> Result<(), HwError> {
        let key = session.key();
        let words = key.len() / 4;
        let key_reg = |j| r::key_word(words, j);
        write_words(&mut self.cryp, key_reg, key, u32::from_be_bytes)?;
        if session.mode != Mode::Ecb {
            write_words(&mut self.cryp, r::iv, &session.iv, u32::from_be_bytes)?;
        }
        // ECB/CBC decryption runs the key schedule backwards: the engine must derive the
        // decryption key first (ALGOMODE = key preparation), which ends by clearing
        // CRYPEN. Without it the engine produces wrong data. It raises no interrupt and
        // takes a few dozen engine clocks; upstream polls BUSY here, but a handler may
        // not wait on a device: CRYPEN is read once, and an engine still preparing then
        // fails the request as stalled (`EngineFault`), reset for the next.
        if op == CipherOp::Decrypt && session.mode != Mode::Ctr {
            let kp = cr::ALGOMODE.set(cfg, cr::MODE_AES_KP) & !cr::ALGODIR;
            self.cryp.write32(r::CR, kp | cr::CRYPEN)?;
            if self.cryp.read32(r::CR)? & cr::CRYPEN != 0 {
                return Err(HwError::Stalled);
            }
        }
        Ok(())
    }

    /// The FIFOs take a block's bytes little-endian (CR.DATATYPE = 8-bit swap).
    fn write_block(&mut self, block: &[u8; r::BLOCK]) -> Result<(), BusFault> {
        write_words(&mut self.cryp, |_| r::DIN, block, u32::from_le_bytes)
    }

    fn read_block(&mut self) -> Result<[u8; r::BLOCK], BusFault> {
        let mut block = [0u8; r::BLOCK];
        read_words(&mut self.cryp, |_| r::DOUT, &mut block, u32::to_le_bytes)?;
        Ok(block)
    }

    /// One IT-mode interrupt: on OUT read a block back, on IN write the next (a partial
    /// last block is padded on the way in and trimmed on the way out). `true` when the
    /// last block is back.
    fn pio_step(&mut self, job: &Job<'_>, meter: &impl Meter) -> Result<bool, HwError> {
        let State::Pio(mut blocks) = self.state else {
            return Ok(false);
        };
        let misr = self.cryp.read32(r::MISR)?;
        if misr & (it::IN | it::OUT) == 0 {
            return Ok(false);
        }
        meter.count(Event::Interrupt, 1);
        if misr & it::OUT != 0 {
            blocks.put_out(job, &self.read_block()?);
        }
        if misr & it::IN != 0
            && let Some(block) = blocks.next_in(job)
        {
            self.write_block(&block)?;
        }
        let mut mask = it::IN | it::OUT;
        if blocks.all_in() {
            mask &= !it::IN;
        }
        if blocks.done() {
            mask &= !it::OUT;
        }
        self.state = State::Pio(blocks);
        self.cryp.write32(r::IMSCR, mask)?;
        Ok(blocks.done())
    }

    /// After DMA, the partial last block by the CPU, as upstream: into the engine now,
    /// back on the OUT interrupt. Upstream assembles it in a bounce block: those bytes
    /// count as copied.
    fn tail(&mut self, job: &Job<'_>, at: usize, meter: &impl Meter) -> Result<(), HwError> {
        let mut block = [0u8; r::BLOCK];
        let n = sg::gather(&job.segs, &job.data, at, &mut block);
        meter.count(Event::CpuCopyByte, n as u64);
        self.state = State::Tail { at };
        self.write_block(&block)?;
        self.cryp.write32(r::IMSCR, it::OUT)?;
        Ok(())
    }

    fn tail_step(&mut self, job: &Job<'_>, at: usize, meter: &impl Meter) -> Result<bool, HwError> {
        if self.cryp.read32(r::MISR)? & it::OUT == 0 {
            return Ok(false);
        }
        meter.count(Event::Interrupt, 1);
        self.cryp.write32(r::IMSCR, 0)?;
        sg::scatter(&job.segs, &job.data, at, &self.read_block()?);
        Ok(true)
    }

    /// DMA over the first `len` bytes of the client's segments: tx from memory to DIN,
    /// rx from DOUT to memory.
    fn dma_start(&mut self, segs: &Segments, base: u64, len: u32) -> Result<(), HwError> {
        edma::start(&mut self.dma, &self.cfg, (r::DIN, r::DOUT), segs, base, len)?;
        self.cryp.write32(r::DMACR, dmacr::DIEN | dmacr::DOEN)?;
        Ok(())
    }

    /// The DMA controller's completion or error interrupt: `true` when the transfer is
    /// done.
    fn dma_step(&mut self, meter: &impl Meter) -> Result<bool, HwError> {
        let cryp = &mut self.cryp;
        let engine_off = || cryp.write32(r::DMACR, 0);
        edma::finished(&mut self.dma, &self.cfg, meter, engine_off)
    }

    fn recover(&mut self) -> Result<(), BusFault> {
        edma::stop(&mut self.dma, &self.cfg)?;
        self.cryp.write32(r::DMACR, 0)?;
        self.cryp.write32(r::IMSCR, 0)?;
        self.cryp.write32(r::CR, cr::FFLUSH)?;
        Ok(())
    }
}
