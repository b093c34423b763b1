//! The power/clock controller: one CLKCTRL register per engine gate, laid out like the
//! AM335x PRCM's `CM_PER_*_CLKCTRL` (MODULEMODE to request, IDLEST to observe).
//!
//! Only the power-manager PD maps this device. Gate `g` is at offset `4 * g`; the boards
//! assign gate numbers to their engines.

use crate::Field;

/// Gates modelled (one bit each in the shared gate word).
pub const GATES: usize = 32;
/// Size of the register window.
pub const WINDOW: usize = 4 * GATES;

/// CLKCTRL of gate `g`.
pub const fn clkctrl(g: usize) -> usize {
    4 * g
}

/// Requested mode: [`MODULEMODE_DISABLED`] gates the clock, [`MODULEMODE_ENABLE`] ungates.
pub const MODULEMODE: Field = Field::new(0, 2);
pub const MODULEMODE_DISABLED: u32 = 0;
pub const MODULEMODE_ENABLE: u32 = 2;
/// Observed state (RO): [`IDLEST_FUNCTIONAL`] once clocked, [`IDLEST_DISABLED`] when gated.
pub const IDLEST: Field = Field::new(16, 2);
pub const IDLEST_FUNCTIONAL: u32 = 0;
pub const IDLEST_DISABLED: u32 = 3;
