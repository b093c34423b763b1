//! seL4: the engines' registers are device regions the `.system` file maps uncached
//! into the driver PD (`aes`, `edma`, `cryp`, `dma`, `sec`), reached by volatile MMIO,
//! or a device PD's windows where one stands in for the silicon; interrupts arrive on
//! the PD's `<irq>` channels (or the device channel) with nothing to wire here.

use mmio::VolatileMmio;
use pd_runtime::{MemoryRegion, memory_region};

use crate::device::{Bus, DeviceBus, window as w};
use crate::{Am335x, Common, Mpc885, ScratchView, Stm32mp1, common, device_windows};

/// Each board's register windows.
pub type Am335xBus = Bus<VolatileMmio>;
pub type Stm32mp1Bus = Bus<VolatileMmio>;
pub type Mpc885Bus = Bus<VolatileMmio>;

fn window(r: MemoryRegion) -> Bus<VolatileMmio> {
    // SAFETY: the .system file maps the device's register window uncached for the life
    // of the PD, and nothing else in this PD touches it.
    Bus::Local(unsafe { VolatileMmio::new(r.vaddr, r.size) })
}

/// The CPU's view of DMA memory by physical address: the driver's scratch region.
pub type DmaView = ScratchView;

/// The board's clock controller, as the power manager drives it: its register window
/// (`clkctrl`, mapped uncached into the power manager alone), or the device PD's.
pub type ClockController = Bus<VolatileMmio>;

pub fn clock_controller() -> ClockController {
    match pd_runtime::device_channel() {
        Some(ch) => Bus::Device(DeviceBus::new(ch, w::CLOCKS)),
        None => window(memory_region!(clkctrl)),
    }
}

/// An engine with a DMA controller (am335x, stm32mp1): their windows, `(engine, dma)`,
/// from a device PD or as the regions `regions` names (looked up only without one).
fn engine_and_dma(
    regions: impl FnOnce() -> (MemoryRegion, MemoryRegion),
) -> ((Bus<VolatileMmio>, Bus<VolatileMmio>), Common) {
    let buses = match device_windows() {
        Some((e, d)) => (Bus::Device(e), Bus::Device(d)),
        None => {
            let (e, d) = regions();
            (window(e), window(d))
        }
    };
    (buses, common())
}

impl Am335x {
    pub fn take() -> Self {
        let ((aes, edma), common) = engine_and_dma(|| (memory_region!(aes), memory_region!(edma)));
        Am335x { aes, edma, common }
    }
}

impl Stm32mp1 {
    pub fn take() -> Self {
        let ((cryp, dma), common) = engine_and_dma(|| (memory_region!(cryp), memory_region!(dma)));
        Stm32mp1 { cryp, dma, common }
    }
}

impl Mpc885 {
    pub fn take() -> Self {
        let common = common();
        let sec = match device_windows() {
            Some((e, _)) => Bus::Device(e),
            None => window(memory_region!(sec)),
        };
        Mpc885 {
            sec,
            dma: ScratchView(common.scratch),
            common,
        }
    }
}
