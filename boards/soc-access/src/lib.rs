//! How a driver PD reaches its SoC, the one part of a driver PD that differs between the
//! host and seL4, so that each driver PD is one source for both:
//!
//! * register windows as [`mmio::RegisterBus`]es (`Am335x::aes`, ...): on seL4 volatile
//!   MMIO over the device regions the `.system` file maps into the PD (`aes`, `edma`,
//!   `cryp`, `dma`, `sec`, mapped uncached); on the host, ports of the board's engine
//!   model, built inside the PD's process with the client data regions and the scratch
//!   as its DMA-reachable memory;
//! * the driver's DMA scratch (`scratch`, with `scratch_paddr` on seL4) and the CPU's
//!   view of DMA memory by physical address ([`DmaView`]);
//! * the cost ledger (`ledger`), which the models count into on the host and the device
//!   PDs will on seL4;
//! * for the power manager, the board's clock controller ([`clock_controller`]: the
//!   `clkctrl` window on seL4, the model over the shared gate block on the host);
//! * interrupts: nothing here on seL4 (the kernel signals the PD's `<irq>` channels); on
//!   the host the model's rising lines go to the runtime's `raise_irq`, and a line still
//!   asserted when the driver acknowledges it is delivered again (level-triggered, as a
//!   GIC does).
//!
//! Assumes one board per driver PD, built once at init (the host model is leaked: it
//! stands in for silicon that lives as long as the PD). `no_std`; the host half uses
//! `std`.
#![no_std]

#[cfg(not(target_os = "none"))]
extern crate std;

pub mod shared;

#[cfg(not(target_os = "none"))]
mod host;
#[cfg(not(target_os = "none"))]
pub use host::{
    Am335x, Am335xBus, ClockController, DmaView, Mpc885, Mpc885Bus, Stm32mp1, Stm32mp1Bus,
    clock_controller,
};

#[cfg(target_os = "none")]
mod sel4;
#[cfg(target_os = "none")]
pub use sel4::{
    Am335x, Am335xBus, ClockController, DmaView, Mpc885, Mpc885Bus, Stm32mp1, Stm32mp1Bus,
    clock_controller,
};

use cost_ledger::Ledger;
use shm_queue::SharedRegion;

/// The driver's own DMA buffer: where self-tests and calibration run.
#[derive(Clone, Copy)]
pub struct Scratch {
    pub region: SharedRegion<'static>,
    /// Its physical (bus) address.
    pub phys: u64,
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
