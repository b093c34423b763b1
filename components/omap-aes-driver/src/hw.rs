//! Register-level work on the OMAP AES engine and its two EDMA channels: loading a
//! session's context, PIO as a per-block state machine driven by the engine's
//! interrupts (`omap_aes_irq`), the DMA transfer finished by EDMA's completion or error
//! interrupt, reading the IV back, recovery. The sequences follow upstream `omap-aes.c`
//! (omap4 layout) after "crypto: omap-aes: DMA and PIO mode improvements" (2013).

use board::am335x::{AES0, EDMA_IRQ_COMPLETION, EDMA_IRQ_ERROR};
use cipher_service::{Job, Segments, Session};
use cost_ledger::Event;
use mmio::omap_aes::{self as r, ctrl, irq, sysconfig};
use mmio::{BusFault, RegisterBus};
use pd_idl::cipher::{CipherOp, Mode};
use pio_dma_driver::edma::{self, Wiring};
use pio_dma_driver::pio::Blocks;
use pio_dma_driver::regs::{iv_after, read_words, write_words};
use pio_dma_driver::{HwError, Meter, PioDmaEngine, Route, kat};

use crate::route;

/// The am335x board's AES0, as this driver drives it.
pub const AM335X: Wiring = Wiring::of(AES0, EDMA_IRQ_COMPLETION, EDMA_IRQ_ERROR);

/// The engine's buses and the job in flight.
pub struct Engine<A, D> {
    pub aes: A,
    pub edma: D,
    pub cfg: Wiring,
    state: State,
    /// A soft reset was issued after a failed request and not yet seen complete.
    resetting: bool,
}

/// What the engine is doing, so an interrupt knows what to do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Idle,
    Pio(Blocks),
    /// Both channels run; rx's completion ends the job.
    Dma,
}

impl<A: RegisterBus, D: RegisterBus> Engine<A, D> {
    pub fn new(cfg: Wiring, aes: A, edma: D) -> Self {
        Engine {
            aes,
            edma,
            cfg,
            state: State::Idle,
            resetting: false,
        }
    }
}

impl<A: RegisterBus, D: RegisterBus> PioDmaEngine for Engine<A, D> {
    const MIN_DMA_BLOCKS: u32 = 1;
    const KATS: &'static [&'static kat::Kat] = &kat::ALL;

    fn dma_capable(&self, segs: &Segments, phys: Option<u64>) -> bool {
        route::dma_capable(segs, phys)
    }

    fn load(&mut self, job: &Job<'_>, kept: bool) -> Result<(), HwError> {
        self.reset_done()?;
        self.load_context(&job.session, job.op, kept)?;
        Ok(self.set_length(job.segs.total())?)
    }

    fn start(&mut self, route: Route, job: &Job<'_>, _: &impl Meter) -> Result<(), HwError> {
        match route {
            Route::Pio => {
                self.aes.write32(r::IRQ_ENABLE, irq::DATA_IN)?;
                self.state = State::Pio(Blocks::of(job));
                Ok(())
            }
            Route::Dma => {
                self.state = State::Dma;
                let total = job.segs.total();
                self.dma_start(&job.segs, job.data.phys.unwrap_or_default(), total)
            }
        }
    }

    fn interrupt(&mut self, job: &Job<'_>, meter: &impl Meter) -> Result<bool, HwError> {
        match self.state {
            State::Idle => Ok(false),
            State::Pio(_) => self.pio_step(job, meter),
            State::Dma => self.dma_step(meter),
        }
    }

    fn finish(&mut self, job: &Job<'_>) -> Result<[u8; 16], HwError> {
        self.state = State::Idle;
        Ok(iv_after(&mut self.aes, r::iv, job, u32::to_le_bytes)?)
    }

    /// Engine and channels back to a clean state. A soft reset still under way (the
    /// request that found it so fails at once) is not issued again.
    fn reset(&mut self) {
        self.state = State::Idle;
        if !self.resetting {
            // Best effort: an engine that cannot even be reset reports the first error;
            // the next request will find it again.
            let _ = self.recover();
        }
    }

    fn clear_key(&mut self) -> Result<(), HwError> {
        Ok(write_words(
            &mut self.aes,
            r::key,
            &[0; 32],
            u32::from_le_bytes,
        )?)
    }
}

impl<A: RegisterBus, D: RegisterBus> Engine<A, D> {
    /// Key, IV and CTRL from the session (`omap_aes_write_ctrl`), so sessions of
    /// different clients interleave; `kept`: the engine still holds this session's key
    /// and IV (its last job, same direction), so only CTRL is written.
    fn load_context(&mut self, session: &Session, op: CipherOp, kept: bool) -> Result<(), HwError> {
        let key = session.key();
        if !kept {
            write_words(&mut self.aes, r::key, key, u32::from_le_bytes)?;
            if session.mode != Mode::Ecb {
                write_words(&mut self.aes, r::iv, &session.iv, u32::from_le_bytes)?;
            }
        }
        let size = match key.len() {
            16 => ctrl::KEY_128,
            24 => ctrl::KEY_192,
            _ => ctrl::KEY_256,
        };
        let mut c = ctrl::KEY_SIZE.val(size);
        if op == CipherOp::Encrypt {
            c |= ctrl::DIRECTION;
        }
        c |= match session.mode {
            Mode::Ecb => 0,
            Mode::Cbc => ctrl::CBC,
            // The session's IV is a 128-bit big-endian counter, as Linux's ctr(aes).
            Mode::Ctr => ctrl::CTR | ctrl::CTR_WIDTH.val(ctrl::CTR_WIDTH_128),
        };
        self.aes.write32(r::CTRL, c)?;
        Ok(())
    }

    fn set_length(&mut self, total: u32) -> Result<(), BusFault> {
        // omap4 counts the payload; a stale length would stop the engine early.
        self.aes.write32(r::C_LENGTH_0, total)?;
        self.aes.write32(r::C_LENGTH_1, 0)
    }

    /// One PIO interrupt, as `omap_aes_irq`: on DATA_IN write the next block, on
    /// DATA_OUT read one back. `true` when the last block is back.
    fn pio_step(&mut self, job: &Job<'_>, meter: &impl Meter) -> Result<bool, HwError> {
        let State::Pio(mut blocks) = self.state else {
            return Ok(false);
        };
        let status = self.aes.read32(r::IRQ_STATUS)?;
        if status & irq::DATA_IN != 0
            && let Some(block) = blocks.next_in(job)
        {
            meter.count(Event::Interrupt, 1);
            self.aes.write32(r::IRQ_ENABLE, 0)?;
            write_words(&mut self.aes, r::data, &block, u32::from_le_bytes)?;
            self.aes.write32(r::IRQ_ENABLE, irq::DATA_OUT)?;
        } else if status & irq::DATA_OUT != 0 {
            meter.count(Event::Interrupt, 1);
            self.aes.write32(r::IRQ_ENABLE, 0)?;
            let mut block = [0u8; r::BLOCK];
            read_words(&mut self.aes, r::data, &mut block, u32::to_le_bytes)?;
            blocks.put_out(job, &block);
            if !blocks.done() {
                self.aes.write32(r::IRQ_ENABLE, irq::DATA_IN)?;
            }
        } else {
            // Not ours (or already handled): nothing changes.
            return Ok(false);
        }
        self.state = State::Pio(blocks);
        Ok(blocks.done())
    }

    /// DMA straight from the client's segments ("DMA and PIO mode improvements"): tx
    /// channel memory to DATA_N, rx channel DATA_N to memory, completion on rx's last set.
    fn dma_start(&mut self, segs: &Segments, base: u64, len: u32) -> Result<(), HwError> {
        let data = (r::data(0), r::data(0));
        edma::start(&mut self.edma, &self.cfg, data, segs, base, len)?;
        let reqs = sysconfig::DMA_REQ_IN | sysconfig::DMA_REQ_OUT;
        self.aes.modify32(r::SYSCONFIG, 0, reqs)?;
        Ok(())
    }

    /// EDMA's completion or error interrupt. `true` when the transfer is done.
    fn dma_step(&mut self, meter: &impl Meter) -> Result<bool, HwError> {
        let reqs = sysconfig::DMA_REQ_IN | sysconfig::DMA_REQ_OUT;
        let aes = &mut self.aes;
        let engine_off = || aes.modify32(r::SYSCONFIG, reqs, 0);
        edma::finished(&mut self.edma, &self.cfg, meter, engine_off)
    }

    /// Puts engine and channels back to a clean state after a failed request. The soft
    /// reset raises no interrupt and takes a few interface clocks; it is not waited for
    /// here: the next request checks it once ([`reset_done`](Self::reset_done)).
    fn recover(&mut self) -> Result<(), HwError> {
        edma::stop(&mut self.edma, &self.cfg)?;
        self.aes.write32(r::SYSCONFIG, sysconfig::SOFTRESET)?;
        self.resetting = true;
        Ok(())
    }

    /// Whether the last soft reset has finished: one SYSSTATUS read, never a wait. The
    /// reset has had the whole round trip of the failed request's answer to finish; one
    /// still running then means a stuck engine, and this request fails `Stalled`
    /// (`EngineFault` to its client) rather than wait on it.
    fn reset_done(&mut self) -> Result<(), HwError> {
        if self.resetting {
            if self.aes.read32(r::SYSSTATUS)? & r::SYSSTATUS_RESETDONE == 0 {
                return Err(HwError::Stalled);
            }
            self.resetting = false;
        }
        Ok(())
    }
}
