//! Register-level work on the OMAP AES engine and its two EDMA channels: loading a
//! session's context, PIO as a per-block state machine driven by the engine's
//! interrupts (`omap_aes_irq`), the DMA transfer finished by EDMA's completion or error
//! interrupt, reading the IV back, recovery. The sequences follow upstream `omap-aes.c`
//! (omap4 layout) after "crypto: omap-aes: DMA and PIO mode improvements" (2013).

use cipher_service::{Job, Segments, Session, sg};
use cost_ledger::Event;
use mmio::omap_aes::{self as r, ctrl, irq, sysconfig};
use mmio::{BusFault, RegisterBus};
use pd_idl::cipher::{CipherOp, Mode};
use pio_dma_driver::edma::{self, Wiring};
use pio_dma_driver::{Meter, PioDmaEngine, Route, kat};

use crate::route;

/// Where the engine and its DMA lines sit (`pio_dma_driver::edma::Wiring`).
pub type Config = Wiring;

/// The am335x board's AES0, as this driver drives it.
pub const AM335X: Config = Wiring::of(
    board::am335x::AES0,
    board::am335x::EDMA_IRQ_COMPLETION,
    board::am335x::EDMA_IRQ_ERROR,
);

pub use pio_dma_driver::HwError;

/// The engine's buses and the job in flight.
pub struct Engine<A, D> {
    pub aes: A,
    pub edma: D,
    pub cfg: Config,
    state: State,
    /// A soft reset was issued after a failed request and not yet seen complete.
    resetting: bool,
}

/// What the engine is doing, so an interrupt knows what to do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Idle,
    /// PIO: blocks written to the engine and read back so far, of `blocks`.
    Pio {
        sent: usize,
        got: usize,
        blocks: usize,
    },
    /// Both channels run; rx's completion ends the job.
    Dma,
}

fn word(bytes: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([
        bytes[4 * i],
        bytes[4 * i + 1],
        bytes[4 * i + 2],
        bytes[4 * i + 3],
    ])
}

impl<A: RegisterBus, D: RegisterBus> Engine<A, D> {
    pub fn new(cfg: Config, aes: A, edma: D) -> Self {
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
    type Error = HwError;
    const STALLED: HwError = HwError::Stalled;
    const MIN_DMA_BLOCKS: u32 = 1;
    const DMA_ALIGN: u64 = edma::WORD;
    const KATS: &'static [&'static kat::Kat] = &kat::ALL;

    fn dma_capable(&self, segs: &Segments, phys: Option<u64>) -> bool {
        route::dma_capable(segs, phys)
    }

    /// Loads the job's context (unless `kept`) and starts it on `route`; the engine's
    /// interrupts do the rest.
    fn start(
        &mut self,
        route: Route,
        job: &Job<'_>,
        kept: bool,
        _: &impl Meter,
    ) -> Result<(), HwError> {
        let total = job.segs.total();
        self.reset_done()?;
        self.load_context(&job.session, job.op, kept)?;
        self.set_length(total)?;
        match route {
            Route::Pio => {
                self.aes.write32(r::IRQ_ENABLE, irq::DATA_IN)?;
                let blocks = (total as usize).div_ceil(r::BLOCK);
                self.state = State::Pio {
                    sent: 0,
                    got: 0,
                    blocks,
                };
                Ok(())
            }
            Route::Dma => {
                self.state = State::Dma;
                self.dma_start(&job.segs, job.data.phys.unwrap_or_default(), total)
            }
        }
    }

    fn interrupt(&mut self, job: &Job<'_>, meter: &impl Meter) -> Result<bool, HwError> {
        match self.state {
            State::Idle => Ok(false),
            State::Pio { .. } => self.pio_step(job, meter),
            State::Dma => self.dma_step(meter),
        }
    }

    fn finish(&mut self, job: &Job<'_>) -> Result<[u8; 16], HwError> {
        self.state = State::Idle;
        let mut iv = job.session.iv;
        self.read_iv(job.session.mode, &mut iv)?;
        Ok(iv)
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
}

impl<A: RegisterBus, D: RegisterBus> Engine<A, D> {
    /// Key, IV and CTRL from the session (`omap_aes_write_ctrl`), so sessions of
    /// different clients interleave; `kept`: the engine still holds this session's key
    /// and IV (its last job, same direction), so only CTRL is written.
    fn load_context(&mut self, session: &Session, op: CipherOp, kept: bool) -> Result<(), HwError> {
        let key = session.key();
        if !kept {
            for i in 0..key.len() / 4 {
                self.aes.write32(r::key(i), word(key, i))?;
            }
            if session.mode != Mode::Ecb {
                for i in 0..r::BLOCK_WORDS {
                    self.aes.write32(r::iv(i), word(&session.iv, i))?;
                }
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

    /// The chaining value the engine left in its IV registers (CBC: the last ciphertext
    /// block; CTR: the counter after the last block used).
    fn read_iv(&mut self, mode: Mode, iv: &mut [u8; 16]) -> Result<(), BusFault> {
        if mode == Mode::Ecb {
            return Ok(());
        }
        for i in 0..r::BLOCK_WORDS {
            let w = self.aes.read32(r::iv(i))?;
            iv[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
        }
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
        let State::Pio {
            mut sent,
            mut got,
            blocks,
        } = self.state
        else {
            return Ok(false);
        };
        let status = self.aes.read32(r::IRQ_STATUS)?;
        let mut block = [0u8; r::BLOCK];
        if status & irq::DATA_IN != 0 && sent < blocks {
            meter.count(Event::Interrupt, 1);
            self.aes.write32(r::IRQ_ENABLE, 0)?;
            sg::gather(&job.segs, &job.data, sent * r::BLOCK, &mut block);
            for i in 0..r::BLOCK_WORDS {
                self.aes.write32(r::data(i), word(&block, i))?;
            }
            sent += 1;
            self.aes.write32(r::IRQ_ENABLE, irq::DATA_OUT)?;
        } else if status & irq::DATA_OUT != 0 {
            meter.count(Event::Interrupt, 1);
            self.aes.write32(r::IRQ_ENABLE, 0)?;
            for i in 0..r::BLOCK_WORDS {
                let w = self.aes.read32(r::data(i))?;
                block[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
            }
            sg::scatter(&job.segs, &job.data, got * r::BLOCK, &block);
            got += 1;
            if got < blocks {
                self.aes.write32(r::IRQ_ENABLE, irq::DATA_IN)?;
            }
        } else {
            // Not ours (or already handled): nothing changes.
            return Ok(false);
        }
        self.state = State::Pio { sent, got, blocks };
        Ok(got == blocks)
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
        let result = edma::finished(&mut self.edma, &self.cfg, meter);
        if matches!(result, Ok(false)) {
            return Ok(false);
        }
        let reqs = sysconfig::DMA_REQ_IN | sysconfig::DMA_REQ_OUT;
        self.aes.modify32(r::SYSCONFIG, reqs, 0)?;
        result
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
