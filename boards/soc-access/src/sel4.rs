//! seL4: the engines' registers are device regions the `.system` file maps uncached
//! into the driver PD (`aes`, `edma`, `cryp`, `dma`, `sec`), reached by volatile MMIO;
//! interrupts arrive on the PD's `<irq>` channels with nothing to wire here.

use mmio::VolatileMmio;
use pd_runtime::{MemoryRegion, memory_region};

use crate::{Common, Scratch, common};

/// Each board's register windows.
pub type Am335xBus = VolatileMmio;
pub type Stm32mp1Bus = VolatileMmio;
pub type Mpc885Bus = VolatileMmio;

fn window(r: MemoryRegion) -> VolatileMmio {
    // SAFETY: the .system file maps the device's register window uncached for the life
    // of the PD, and nothing else in this PD touches it.
    unsafe { VolatileMmio::new(r.vaddr, r.size) }
}

/// The CPU's view of DMA memory by physical address: the driver's scratch region, the
/// only DMA memory the CPU writes for the engine (client data moves by DMA alone).
#[derive(Clone, Copy)]
pub struct DmaView(Scratch);

impl DmaView {
    fn offset(&self, phys: u64, len: usize) -> Option<usize> {
        let off = usize::try_from(phys.checked_sub(self.0.phys)?).ok()?;
        (off.checked_add(len)? <= self.0.region.len()).then_some(off)
    }

    pub fn read(&self, phys: u64, buf: &mut [u8]) -> bool {
        self.offset(phys, buf.len())
            .is_some_and(|off| self.0.region.read_bytes(off, buf))
    }

    pub fn write(&self, phys: u64, data: &[u8]) -> bool {
        self.offset(phys, data.len())
            .is_some_and(|off| self.0.region.write_bytes(off, data))
    }
}

/// The board's clock controller, as the power manager drives it: its register window
/// (`clkctrl`, mapped uncached into the power manager alone).
pub type ClockController = VolatileMmio;

pub fn clock_controller() -> ClockController {
    window(memory_region!(clkctrl))
}

pub struct Am335x {
    pub aes: VolatileMmio,
    pub edma: VolatileMmio,
    pub common: Common,
}

impl Am335x {
    pub fn take() -> Self {
        Am335x {
            aes: window(memory_region!(aes)),
            edma: window(memory_region!(edma)),
            common: common(),
        }
    }
}

pub struct Stm32mp1 {
    pub cryp: VolatileMmio,
    pub dma: VolatileMmio,
    pub common: Common,
}

impl Stm32mp1 {
    pub fn take() -> Self {
        Stm32mp1 {
            cryp: window(memory_region!(cryp)),
            dma: window(memory_region!(dma)),
            common: common(),
        }
    }
}

pub struct Mpc885 {
    pub sec: VolatileMmio,
    pub dma: DmaView,
    pub common: Common,
}

impl Mpc885 {
    pub fn take() -> Self {
        let common = common();
        Mpc885 {
            sec: window(memory_region!(sec)),
            dma: DmaView(common.scratch),
            common,
        }
    }
}
