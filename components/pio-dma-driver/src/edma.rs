//! An engine on an EDMA-style controller (am335x EDMA, and the stm32mp1 model's DMA,
//! which has its register layout): how it is wired ([`Wiring`]), and the end of a
//! transfer. Both engines move a request with a tx channel into the engine and an rx
//! channel out, and the rx channel's completion (or the controller's bus error) ends it.

use cost_ledger::Event;
use mmio::RegisterBus;
use mmio::edma as e;

use cipher_service::MAX_JOINED;

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

/// The DMA controller's completion or error interrupt for the channel pair (`tx`,
/// `rx`): `Ok(true)` when rx completed, `Err(DmaBus)` on a bus error, `Ok(false)` if the
/// interrupt was not this transfer's. Once it ended either way, both channels are
/// disabled and the interrupt counted.
pub fn finished(
    dma: &mut impl RegisterBus,
    tx: usize,
    rx: usize,
    meter: &impl Meter,
) -> Result<bool, HwError> {
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
    result
}
