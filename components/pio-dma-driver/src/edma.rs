//! An engine on an EDMA-style controller (am335x EDMA, and the stm32mp1 model's DMA,
//! which has its register layout): how it is wired ([`Wiring`]), which segments it can
//! take ([`reaches`]), and a transfer's start, end and recovery. Both engines move a
//! request with a tx channel into the engine and an rx channel out, a block per frame,
//! and the rx channel's completion (or the controller's bus error) ends it.

use cost_ledger::Event;
use mmio::edma::{self as e, p};
use mmio::{BusFault, RegisterBus};
use pd_idl::cipher::Segment;

use cipher_service::{BLOCK, MAX_JOINED, Segments};

use crate::{HwError, Meter};

/// Where an engine and its DMA lines sit (from the board description): the engine's
/// register window (DMA addresses its data port through it) and interrupt, the channels
/// (= request lines) into and out of it, the controller's completion and error
/// interrupts, and the first PaRAM sets this driver owns for the links of each channel's
/// chain of segments (one per segment after the first; each channel uses its own set
/// first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wiring {
    pub engine_phys: u64,
    pub engine_irq: u32,
    pub dma_tx: usize,
    pub dma_rx: usize,
    pub dma_done_irq: u32,
    pub dma_error_irq: u32,
    pub tx_links: usize,
    pub rx_links: usize,
}

impl Wiring {
    /// `engine` (a board device with DMA lines) on a controller with these interrupts,
    /// its link sets above the channels' own. A compile-time error (in a `const`) if the
    /// two chains of up to [`MAX_JOINED`] sets could meet or run past the PaRAM.
    pub const fn of(engine: board::Device, done_irq: u32, error_irq: u32) -> Wiring {
        let Some((tx, rx)) = engine.dma else {
            panic!("the engine has DMA lines")
        };
        let wiring = Wiring {
            engine_phys: engine.phys,
            engine_irq: engine.irqs[0],
            dma_tx: tx,
            dma_rx: rx,
            dma_done_irq: done_irq,
            dma_error_irq: error_irq,
            tx_links: e::CHANNELS * 2,
            rx_links: e::CHANNELS * 3,
        };
        assert!(
            wiring.tx_links + MAX_JOINED <= wiring.rx_links
                && wiring.rx_links + MAX_JOINED <= e::PARAM_SETS,
            "the two link chains meet or run past the PaRAM"
        );
        wiring
    }
}

/// The bus width both engines' DMA uses, in bytes (upstream programs 4-byte slave
/// buses for both); a segment must start on one.
pub const WORD: u64 = 4;

/// Whether the controller can move segment `s` of a region at physical `base` as it
/// lies: starting on a bus [`WORD`], ending below 4 GiB (its addresses are 32-bit), and
/// no more blocks than one PaRAM set counts. Which segments an engine lets DMA take
/// beyond that (whole blocks, a least size) is the engine's rule.
pub fn reaches(base: u64, s: &Segment) -> bool {
    let max_frames = u64::from(p::CCNT_FIELD.mask() >> p::CCNT_FIELD.shift);
    let len = u64::from(s.len);
    len / u64::from(BLOCK) <= max_frames
        && base
            .checked_add(u64::from(s.offset))
            .is_some_and(|a| a % WORD == 0 && a.checked_add(len).is_some_and(|end| end <= 1 << 32))
}

/// Starts a transfer of the first `len` bytes of `segs` (whole blocks, each segment
/// [`reaches`]-checked) of a region at physical `base` through the engine: the tx
/// channel from memory into its register at offset `ports.0`, the rx channel from its
/// register at `ports.1` back, rx's completion interrupt enabled. The engine's own DMA
/// requests are the caller's to enable.
pub fn start(
    dma: &mut impl RegisterBus,
    w: &Wiring,
    ports: (usize, usize),
    segs: &Segments,
    base: u64,
    len: u32,
) -> Result<(), BusFault> {
    let (tx, rx) = (w.dma_tx, w.dma_rx);
    let port = |offset: usize| (w.engine_phys + offset as u64) as u32;
    program(dma, tx, w.tx_links, port(ports.0), true, segs, base, len)?;
    program(dma, rx, w.rx_links, port(ports.1), false, segs, base, len)?;
    dma.write32(e::IESR, 1 << rx)?;
    dma.write32(e::EESR, 1 << tx)?;
    dma.write32(e::EESR, 1 << rx)
}

/// Programs channel `ch` over the first `len` bytes of `segs`: one AB-synchronised frame
/// (four 4-byte words) per block, one PaRAM set per piece (the channel's own, then its
/// link sets from `links` on) linked in order, empty pieces skipped (a null set would
/// stall the controller). Only the rx chain's last set raises the completion: tx
/// finishing says nothing about the engine's output.
#[allow(clippy::too_many_arguments)]
fn program(
    dma: &mut impl RegisterBus,
    ch: usize,
    links: usize,
    port: u32,
    to_engine: bool,
    segs: &Segments,
    base: u64,
    len: u32,
) -> Result<(), BusFault> {
    let word = WORD as u32;
    let mut pieces = segs
        .as_slice()
        .iter()
        .scan(len, |left, s| {
            let take = s.len.min(*left);
            *left -= take;
            Some((s.offset, take))
        })
        .filter(|&(_, bytes)| bytes > 0)
        .peekable();
    let (mut set, mut next) = (ch, links);
    while let Some((offset, bytes)) = pieces.next() {
        let last = pieces.peek().is_none();
        // `reaches` checked that every address fits the 32-bit bus.
        let addr = (base + u64::from(offset)) as u32;
        let mut opt = p::OPT_SYNCDIM | p::OPT_TCC.val(ch as u32);
        if last && !to_engine {
            opt |= p::OPT_TCINTEN;
        }
        let (src, dst, bidx, cidx) = if to_engine {
            (addr, port, p::SRC_IDX.val(word), p::SRC_IDX.val(BLOCK))
        } else {
            (port, addr, p::DST_IDX.val(word), p::DST_IDX.val(BLOCK))
        };
        let link = if last { e::LINK_NULL } else { e::link_to(next) };
        let words = [
            opt,
            src,
            p::ACNT.val(word) | p::BCNT.val(BLOCK / word),
            dst,
            bidx,
            p::LINK.val(link),
            cidx,
            p::CCNT_FIELD.val(bytes / BLOCK),
        ];
        dma.write_words(e::param(set), &words)?;
        set = next;
        next += 1;
    }
    Ok(())
}

/// Puts both channels back to a clean state after a failed transfer: disabled, their
/// completion and any bus error cleared.
pub fn stop(dma: &mut impl RegisterBus, w: &Wiring) -> Result<(), BusFault> {
    let both = (1 << w.dma_tx) | (1 << w.dma_rx);
    dma.write32(e::EECR, both)?;
    dma.write32(e::ICR, both)?;
    dma.write32(e::ERRCLR, e::ERRSTAT_BUSERR)
}

/// The DMA controller's completion or error interrupt for `w`'s channel pair:
/// `Ok(true)` when rx completed, `Err(DmaBus)` on a bus error, `Ok(false)` if the
/// interrupt was not this transfer's. Once it ended either way, the interrupt is
/// counted, both channels are disabled and then `engine_off` turns the engine's own DMA
/// requests off.
pub fn finished(
    dma: &mut impl RegisterBus,
    w: &Wiring,
    meter: &impl Meter,
    engine_off: impl FnOnce() -> Result<(), BusFault>,
) -> Result<bool, HwError> {
    let (tx, rx) = (w.dma_tx, w.dma_rx);
    let ipr = dma.read32(e::IPR)?;
    let result = if ipr & (1 << rx) != 0 {
        dma.write32(e::ICR, ipr)?;
        Ok(true)
    } else if dma.read32(e::ERRSTAT)? & e::ERRSTAT_BUSERR != 0 {
        let addr = dma.read32(e::ERRADDR)?;
        dma.write32(e::ERRCLR, e::ERRSTAT_BUSERR)?;
        Err(HwError::DmaBus(addr))
    } else {
        return Ok(false);
    };
    meter.count(Event::Interrupt, 1);
    dma.write32(e::EECR, (1 << tx) | (1 << rx))?;
    engine_off()?;
    result
}
