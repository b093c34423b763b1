//! The end of a DMA transfer on an EDMA-style controller (am335x EDMA, and the stm32mp1
//! model's DMA, which has its register layout): both engines move a request with a tx
//! channel into the engine and an rx channel out, and the rx channel's completion (or
//! the controller's bus error) ends it.

use cost_ledger::Event;
use mmio::RegisterBus;
use mmio::edma as e;

use crate::{HwError, Meter};

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
