//! How a driver PD reaches its SoC, the one part of a driver PD that differs between the
//! host, seL4 on a board and seL4 under QEMU, so that each driver PD is one source for all:
//!
//! * register windows as [`mmio::RegisterBus`]es (`Am335x::aes`, ...): on seL4 volatile
//!   MMIO over the device regions the `.system` file maps into the PD (`aes`, `edma`,
//!   `cryp`, `dma`, `sec`, mapped uncached); on the host, ports of the board's engine
//!   model, built inside the PD's process with the client data regions and the scratch
//!   as its DMA-reachable memory; on either, if the PD has a
//!   [`pd_runtime::device_channel`], calls to the device PD standing in for the silicon
//!   ([`device`]), whose notifications are the engine's interrupts;
//! * the driver's DMA scratch (`scratch`, with `scratch_paddr` on seL4) and the CPU's
//!   view of DMA memory by physical address ([`DmaView`]);
//! * the cost ledger (`ledger`), which the models count into (in the driver PD on the
//!   host, in the device PD where there is one);
//! * for the power manager, the board's clock controller ([`clock_controller`]: the
//!   `clkctrl` window on seL4, the model over the shared gate block on the host, or the
//!   device PD's clock window);
//! * interrupts: nothing here on seL4 (the kernel signals the PD's `<irq>` channels, or
//!   the device PD its channel); on the host the in-PD model's rising lines go to the
//!   runtime's `raise_irq`, and a line still asserted when the driver acknowledges it is
//!   delivered again (level-triggered, as a GIC does).
//!
//! Assumes one board per driver PD, built once at init (the host model is leaked: it
//! stands in for silicon that lives as long as the PD). `no_std`; the host half uses
//! `std`.
#![no_std]

#[cfg(not(target_os = "none"))]
extern crate std;

pub mod device;
pub mod shared;

pub use device::{Bus, DeviceBus};

#[cfg(not(target_os = "none"))]
mod host;
#[cfg(not(target_os = "none"))]
pub use host::{Am335xBus, ClockController, DmaView, Mpc885Bus, Stm32mp1Bus, clock_controller};

#[cfg(target_os = "none")]
mod sel4;
#[cfg(target_os = "none")]
pub use sel4::{Am335xBus, ClockController, DmaView, Mpc885Bus, Stm32mp1Bus, clock_controller};

use cost_ledger::Ledger;
use shared_region::SharedRegion;

/// The CPU's view of DMA memory by physical address where the driver's scratch is the
/// only DMA memory the CPU writes for the engine (client data moves by DMA alone): on
/// seL4, and wherever a device PD does the DMA.
#[derive(Clone, Copy)]
pub struct ScratchView(Scratch);

impl ScratchView {
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

/// The windows of a device PD, if this PD has one: `(engine, dma)`.
fn device_windows() -> Option<(DeviceBus, DeviceBus)> {
    let ch = pd_runtime::device_channel()?;
    Some((
        DeviceBus::new(ch, device::window::ENGINE),
        DeviceBus::new(ch, device::window::DMA),
    ))
}

/// The driver's own DMA buffer: where self-tests and calibration run.
#[derive(Clone, Copy)]
pub struct Scratch {
    pub region: SharedRegion<'static>,
    /// Its physical (bus) address.
    pub phys: u64,
}

/// BeagleBone's AES0 and EDMA (`engine_models::am335x`); each backend's `take`.
pub struct Am335x {
    pub aes: Am335xBus,
    pub edma: Am335xBus,
    pub common: Common,
}

/// stm32mp1's CRYP1 and its DMA (`engine_models::stm32mp1`); each backend's `take`.
pub struct Stm32mp1 {
    pub cryp: Stm32mp1Bus,
    pub dma: Stm32mp1Bus,
    pub common: Common,
}

/// mpc885's SEC 1.2 (`engine_models::mpc885`); each backend's `take`.
pub struct Mpc885 {
    pub sec: Mpc885Bus,
    pub dma: DmaView,
    pub common: Common,
}

/// What every board gives its driver besides registers.
pub struct Common {
    pub scratch: Scratch,
    pub ledger: &'static Ledger,
}

/// The PD's scratch region (`setvar_vaddr="scratch"`, mapped read-write).
fn scratch() -> Scratch {
    let r = pd_runtime::memory_region!(scratch);
    assert!(r.writable, "scratch must be mapped rw");
    assert!(
        r.paddr != 0,
        "scratch needs a physical address (DMA runs there)"
    );
    // SAFETY: mapped read-write for the life of the PD and by no other PD; reached only
    // by volatile copies and DMA.
    let region = unsafe { SharedRegion::from_raw(r.vaddr, r.size) };
    Scratch {
        region,
        phys: r.paddr,
    }
}

fn common() -> Common {
    Common {
        scratch: scratch(),
        ledger: shared::ledger(),
    }
}
