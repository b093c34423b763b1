//! Register-level work on the OMAP AES engine and its two EDMA channels: loading a
//! session's context, PIO as a per-block state machine driven by the engine's
//! interrupts (`omap_aes_irq`), the DMA transfer finished by EDMA's completion or error
//! interrupt, reading the IV back, recovery. The sequences follow upstream `omap-aes.c`
//! (omap4 layout) after "crypto: omap-aes: DMA and PIO mode improvements" (2013).

use cipher_service::{Job, Segments, Session, sg};
use cost_ledger::Event;
use mmio::edma::{self as e, p};
use mmio::omap_aes::{self as r, ctrl, irq, sysconfig};
use mmio::{BusFault, RegisterBus};
use pd_idl::cipher::{CipherOp, Mode};
use pio_dma_driver::edma::Wiring;
use pio_dma_driver::{HwStep, Meter, Route};

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

    /// Loads the job's context (unless `kept`: the engine still holds it) and starts it
    /// on `route`; the engine's interrupts do the rest ([`interrupt`](Self::interrupt)).
    pub fn start(&mut self, route: Route, job: &Job<'_>, kept: bool) -> HwStep<HwError> {
        let total = job.segs.total();
        if total == 0 {
            return HwStep::Done(Ok(job.session.iv));
        }
        if let Err(err) = self.reset_done() {
            return HwStep::Done(Err(err));
        }
        let started = self
            .load_context(&job.session, job.op, kept)
            .and_then(|()| {
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
                        self.dma_start(&job.segs, job.data.phys.unwrap_or_default())
                    }
                }
            });
        match started {
            Ok(()) => HwStep::Pending,
            Err(err) => self.fail(err),
        }
    }

    /// Advances the job in flight on an interrupt (see `PioDmaEngine::interrupt`).
    pub fn interrupt(&mut self, job: &Job<'_>, meter: &impl Meter) -> HwStep<HwError> {
        let step = match self.state {
            State::Idle => Ok(None),
            State::Pio { .. } => self.pio_step(job, meter),
            State::Dma => self.dma_step(meter),
        };
        match step {
            Ok(None) => HwStep::Pending,
            Ok(Some(())) => {
                self.state = State::Idle;
                let mut iv = job.session.iv;
                match self.read_iv(job.session.mode, &mut iv) {
                    Ok(()) => HwStep::Done(Ok(iv)),
                    Err(e) => self.fail(e.into()),
                }
            }
            Err(err) => self.fail(err),
        }
    }

    /// Ends a job with `err`, the engine and channels reset so the next starts clean.
    pub(crate) fn fail(&mut self, err: HwError) -> HwStep<HwError> {
        self.state = State::Idle;
        // Best effort: an engine that cannot even be reset reports the first error; the
        // next request will find it again.
        let _ = self.recover();
        HwStep::Done(Err(err))
    }

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
    /// DATA_OUT read one back. `Some` when the last block is back.
    fn pio_step(&mut self, job: &Job<'_>, meter: &impl Meter) -> Result<Option<()>, HwError> {
        let State::Pio {
            mut sent,
            mut got,
            blocks,
        } = self.state
        else {
            return Ok(None);
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
            return Ok(None);
        }
        self.state = State::Pio { sent, got, blocks };
        Ok((got == blocks).then_some(()))
    }

    /// Programs `ch` over the segments: one AB-synchronised frame (4 words of 4 bytes)
    /// per block, one PaRAM set per segment linked in order, the last raising `TCC = ch`
    /// if `notify`. Zero-length segments are skipped (a null set would stall EDMA).
    fn program(
        &mut self,
        ch: usize,
        links: usize,
        segs: &Segments,
        base: u64,
        to_engine: bool,
        notify: bool,
    ) -> Result<(), BusFault> {
        let port = (self.cfg.engine_phys + r::data(0) as u64) as u32;
        let mut list = segs.as_slice().iter().filter(|s| s.len > 0).peekable();
        let mut set = ch;
        let mut next = links;
        while let Some(s) = list.next() {
            let last = list.peek().is_none();
            // `route::dma_capable` checked that every address fits the 32-bit bus.
            let addr = (base + u64::from(s.offset)) as u32;
            let mut opt = p::OPT_SYNCDIM | p::OPT_TCC.val(ch as u32);
            if last && notify {
                opt |= p::OPT_TCINTEN;
            }
            let word = r::BLOCK / r::BLOCK_WORDS;
            let (src, dst, bidx, cidx) = if to_engine {
                (
                    addr,
                    port,
                    p::SRC_IDX.val(word as u32),
                    p::SRC_IDX.val(r::BLOCK as u32),
                )
            } else {
                (
                    port,
                    addr,
                    p::DST_IDX.val(word as u32),
                    p::DST_IDX.val(r::BLOCK as u32),
                )
            };
            let link = if last { e::LINK_NULL } else { e::link_to(next) };
            let words = [
                opt,
                src,
                p::ACNT.val(word as u32) | p::BCNT.val(r::BLOCK_WORDS as u32),
                dst,
                bidx,
                p::LINK.val(link),
                cidx,
                p::CCNT_FIELD.val(s.len / r::BLOCK as u32),
            ];
            self.edma.write_words(e::param(set), &words)?;
            set = next;
            next += 1;
        }
        Ok(())
    }

    /// DMA straight from the client's segments ("DMA and PIO mode improvements"): tx
    /// channel memory to DATA_N, rx channel DATA_N to memory, completion on rx's last set.
    fn dma_start(&mut self, segs: &Segments, base: u64) -> Result<(), HwError> {
        let (tx, rx) = (self.cfg.dma_tx, self.cfg.dma_rx);
        self.program(tx, self.cfg.tx_links, segs, base, true, false)?;
        self.program(rx, self.cfg.rx_links, segs, base, false, true)?;
        self.edma.write32(e::IESR, 1 << rx)?;
        self.edma.write32(e::EESR, 1 << tx)?;
        self.edma.write32(e::EESR, 1 << rx)?;
        let reqs = sysconfig::DMA_REQ_IN | sysconfig::DMA_REQ_OUT;
        self.aes.modify32(r::SYSCONFIG, 0, reqs)?;
        Ok(())
    }

    /// EDMA's completion or error interrupt. `Some` when the transfer is done.
    fn dma_step(&mut self, meter: &impl Meter) -> Result<Option<()>, HwError> {
        let result =
            pio_dma_driver::edma::finished(&mut self.edma, self.cfg.dma_tx, self.cfg.dma_rx, meter);
        if matches!(result, Ok(false)) {
            return Ok(None);
        }
        let reqs = sysconfig::DMA_REQ_IN | sysconfig::DMA_REQ_OUT;
        self.aes.modify32(r::SYSCONFIG, reqs, 0)?;
        result.map(|_| Some(()))
    }

    /// Puts engine and channels back to a clean state after a failed request. The soft
    /// reset raises no interrupt and takes a few interface clocks; it is not waited for
    /// here: the next request checks it once ([`reset_done`](Self::reset_done)).
    fn recover(&mut self) -> Result<(), HwError> {
        let (tx, rx) = (self.cfg.dma_tx, self.cfg.dma_rx);
        self.edma.write32(e::EECR, (1 << tx) | (1 << rx))?;
        self.edma.write32(e::ICR, (1 << tx) | (1 << rx))?;
        self.edma.write32(e::ERRCLR, e::ERRSTAT_BUSERR)?;
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
