//! Board descriptions: what hardware each board has, where, and what its events cost.
//!
//! Each board is a small constant [`Board`]: its devices (physical base, register window,
//! interrupts, clock gate, DMA request lines), the physical ranges DMA may reach, and a
//! [`CostTable`] fitted to the project's source documents (`boards/SOURCES.md`,
//! `boards/SOURCES.md`), every constant citing its source. Drivers take addresses and IRQ
//! numbers from here; the device models (crate `engine-models`) take gate numbers and DMA
//! request lines; the speed tool takes the cost tables.
//!
//! Assumptions: 32-bit physical addresses on the modelled SoCs (stored as `u64` for the
//! aarch64 boards to come); `no_std`, data only.
#![no_std]
#![forbid(unsafe_code)]

pub mod am335x;
pub mod host;
pub mod mpc885;
pub mod published;
pub mod stm32mp1;

pub use cost_ledger::CostTable;

/// What kind of device sits at an address (selects the driver and the model).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceKind {
    /// TI OMAP AES, omap4 register layout.
    OmapAes,
    /// ST STM32 CRYP.
    Stm32Cryp,
    /// Freescale talitos SEC1 (hash channel).
    TalitosSec1,
    /// The EDMA-like DMA controller.
    Edma,
    /// The power/clock controller (mapped only by the power manager).
    ClockController,
}

/// A device on a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Device {
    pub name: &'static str,
    pub kind: DeviceKind,
    /// Physical base of the register window.
    pub phys: u64,
    /// Size of the register window in bytes (a driver maps at least this).
    pub size: usize,
    /// Interrupt numbers, in the order the device's docs list them.
    pub irqs: &'static [u32],
    /// Clock gate in the board's clock controller, if the device has one.
    pub gate: Option<usize>,
    /// DMA request lines (EDMA channel numbers): `(to device, from device)`.
    pub dma: Option<(usize, usize)>,
    /// Delay after the last release before the power manager gates the engine.
    pub autosuspend_ms: u32,
}

impl Device {
    /// The clock controller model at `phys`: one CLKCTRL word for each of its 32 gates
    /// (`mmio::clkctrl::WINDOW`), no interrupts, never itself gated; only the power
    /// manager maps it.
    pub const fn clock_controller(name: &'static str, phys: u64) -> Self {
        Self {
            name,
            kind: DeviceKind::ClockController,
            phys,
            size: 0x80,
            irqs: &[],
            gate: None,
            dma: None,
            autosuspend_ms: 0,
        }
    }

    /// The EDMA-like DMA controller model at `phys` (`mmio::edma::WINDOW`), with its
    /// completion and error interrupts, behind clock gate `gate`.
    pub const fn edma(name: &'static str, phys: u64, irqs: &'static [u32; 2], gate: usize) -> Self {
        Self {
            name,
            kind: DeviceKind::Edma,
            phys,
            size: 0x8000,
            irqs,
            gate: Some(gate),
            dma: None,
            autosuspend_ms: 0,
        }
    }
}

/// A range of physical memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    pub name: &'static str,
    pub phys: u64,
    pub len: u64,
}

impl Region {
    /// Whether `[phys, phys + len)` lies inside this region.
    pub const fn contains(&self, phys: u64, len: u64) -> bool {
        match phys.checked_add(len) {
            Some(end) => phys >= self.phys && end <= self.phys + self.len,
            None => false,
        }
    }
}

/// A board: devices, DMA-reachable memory, costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Board {
    pub name: &'static str,
    pub devices: &'static [Device],
    /// Physical ranges DMA masters may reach; the host backend places DMA-able regions
    /// inside them and the models fault anything else.
    pub dma_regions: &'static [Region],
    pub costs: CostTable,
}

impl Board {
    /// The first device of `kind`.
    pub fn device(&self, kind: DeviceKind) -> Option<&'static Device> {
        self.devices.iter().find(|d| d.kind == kind)
    }

    /// Whether DMA may reach `[phys, phys + len)`.
    pub fn dma_reachable(&self, phys: u64, len: u64) -> bool {
        self.dma_regions.iter().any(|r| r.contains(phys, len))
    }
}

/// Every board, for tools that iterate.
pub const ALL: [&Board; 4] = [
    &am335x::BOARD,
    &stm32mp1::BOARD,
    &mpc885::BOARD,
    &host::BOARD,
];

/// Picoseconds in a microsecond, for tables written in the sources' units.
pub const PS_PER_US: u64 = 1_000_000;
/// Picoseconds in a nanosecond.
pub const PS_PER_NS: u64 = 1_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boards_are_consistent() {
        for b in ALL {
            for (i, d) in b.devices.iter().enumerate() {
                assert!(d.size > 0, "{}: {} has no window", b.name, d.name);
                for o in &b.devices[i + 1..] {
                    let apart =
                        d.phys + d.size as u64 <= o.phys || o.phys + o.size as u64 <= d.phys;
                    assert!(apart, "{}: {} overlaps {}", b.name, d.name, o.name);
                    if let (Some(g), Some(h)) = (d.gate, o.gate) {
                        assert_ne!(g, h, "{}: {} and {} share a gate", b.name, d.name, o.name);
                    }
                }
                for r in b.dma_regions {
                    assert!(!r.contains(d.phys, 1), "{}: {} inside RAM", b.name, d.name);
                }
            }
        }
        assert!(am335x::BOARD.dma_reachable(0x8000_0000, 4096));
        assert!(!am335x::BOARD.dma_reachable(0x5350_0000, 16));
        assert!(
            !Region {
                name: "x",
                phys: u64::MAX,
                len: 1
            }
            .contains(u64::MAX, 2)
        );
    }
}
