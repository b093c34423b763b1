//! Register access for crypto-engine drivers.
//!
//! Every MMIO access a driver makes goes through one trait, [`RegisterBus`]: 32-bit reads
//! and writes at byte offsets inside one device's register window. On seL4 the bus is
//! [`VolatileMmio`], volatile loads and stores to the mapped device frame; on the host it
//! is a device model (crate `engine-models`) standing in for the silicon. Drivers are
//! generic over the bus and so run unchanged on both.
//!
//! The register maps ([`omap_aes`], [`stm32_cryp`], [`talitos`], [`edma`], [`clkctrl`],
//! and the console's [`pl011`])
//! name every offset and bit field the drivers and models use, with the names of the Linux
//! drivers the project's source documents patch; driver code holds no magic numbers.
//!
//! Assumptions:
//! - Registers are 32 bits wide and 4-byte aligned; offsets are bytes from the window base.
//! - Values cross the bus in CPU byte order: a big-endian device (talitos on PowerPC) is
//!   the bus implementation's business, not the driver's.
//! - A clock-gated device does not answer. Models report it as [`BusFault::Gated`]; on
//!   silicon it is a synchronous external abort that seL4 delivers as a fault of the
//!   touching PD, so the runtime turns `Err(BusFault::Gated)` into a PD fault too.
//! - `no_std`, no heap: builds for `aarch64-unknown-none`.
#![no_std]
#![deny(unsafe_op_in_unsafe_fn)]

pub mod clkctrl;
pub mod edma;
mod field;
pub mod omap_aes;
pub mod pl011;
pub mod stm32_cryp;
pub mod talitos;
mod volatile;

pub use field::{Field, bit};
pub use volatile::VolatileMmio;

/// Why a register access did not complete.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BusFault {
    /// The device's clock is gated: unclocked silicon does not answer. The runtime turns
    /// this into a fault of the touching PD, as seL4 does with the external abort.
    Gated,
    /// The offset lies outside the device's register window.
    OutOfWindow { offset: usize },
    /// The offset is not a multiple of 4.
    Misaligned { offset: usize },
    /// Nothing answered at all: on silicon an external abort; where a device PD stands
    /// in for the silicon, one that refused the access (not this caller's window) or is
    /// gone.
    NoDevice,
}

/// 32-bit register access at byte offsets inside one device's register window.
///
/// Implemented by [`VolatileMmio`] for real hardware and by the device models for the
/// host. `&mut self` because models change state on reads (FIFO pops) and because a
/// driver owns its device exclusively.
pub trait RegisterBus {
    /// Reads the register at `offset`.
    fn read32(&mut self, offset: usize) -> Result<u32, BusFault>;

    /// Writes `value` to the register at `offset`.
    fn write32(&mut self, offset: usize, value: u32) -> Result<(), BusFault>;

    /// Read-modify-write: clears the bits of `clear`, then sets the bits of `set`.
    fn modify32(&mut self, offset: usize, clear: u32, set: u32) -> Result<(), BusFault> {
        let v = self.read32(offset)?;
        self.write32(offset, (v & !clear) | set)
    }

    /// Writes consecutive words at `offset`, `offset + 4`, ... (key and IV loads).
    fn write_words(&mut self, offset: usize, words: &[u32]) -> Result<(), BusFault> {
        for (i, w) in words.iter().enumerate() {
            self.write32(offset + 4 * i, *w)?;
        }
        Ok(())
    }
}

impl<T: RegisterBus + ?Sized> RegisterBus for &mut T {
    fn read32(&mut self, offset: usize) -> Result<u32, BusFault> {
        (**self).read32(offset)
    }
    fn write32(&mut self, offset: usize, value: u32) -> Result<(), BusFault> {
        (**self).write32(offset, value)
    }
}

/// Checks that `offset` names a whole register inside a window of `len` bytes.
pub fn check_offset(offset: usize, len: usize) -> Result<(), BusFault> {
    if offset & 3 != 0 {
        Err(BusFault::Misaligned { offset })
    } else if offset.checked_add(4).is_none_or(|end| end > len) {
        Err(BusFault::OutOfWindow { offset })
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_checked() {
        assert_eq!(check_offset(0, 8), Ok(()));
        assert_eq!(check_offset(4, 8), Ok(()));
        assert_eq!(check_offset(8, 8), Err(BusFault::OutOfWindow { offset: 8 }));
        assert_eq!(check_offset(2, 8), Err(BusFault::Misaligned { offset: 2 }));
        assert_eq!(
            check_offset(usize::MAX - 3, usize::MAX),
            Err(BusFault::OutOfWindow {
                offset: usize::MAX - 3
            })
        );
    }
}
