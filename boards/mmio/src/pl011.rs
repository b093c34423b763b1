//! The Arm PrimeCell UART (PL011), the console of QEMU's `virt` board (its `pl011@9000000`,
//! interrupt SPI 1): the registers the serial driver's transmit side uses, as the PL011
//! Technical Reference Manual (ARM DDI 0183) names them and Linux's amba-pl011.c uses them.
//!
//! The driver transmits only: the boot loader set the baud rate and line control, which
//! the driver leaves alone (as Linux's earlycon does).

use crate::bit;

/// Size of the register window (one 4 KiB frame).
pub const WINDOW: usize = 0x1000;

/// Data: a write queues one byte in the transmit FIFO.
pub const DR: usize = 0x000;
/// Flags (RO).
pub const FR: usize = 0x018;
/// Transmit FIFO full: a write to [`DR`] now would be lost.
pub const FR_TXFF: u32 = bit(5);
/// Transmitting: the FIFO or the shift register holds bytes.
pub const FR_BUSY: u32 = bit(3);
/// Control.
pub const CR: usize = 0x030;
pub const CR_UARTEN: u32 = bit(0);
pub const CR_TXE: u32 = bit(8);
/// Interrupt mask set/clear: a set bit lets that interrupt reach the interrupt line.
pub const IMSC: usize = 0x038;
/// Masked interrupt status (RO).
pub const MIS: usize = 0x040;
/// Interrupt clear (WO): a set bit clears that interrupt.
pub const ICR: usize = 0x044;
/// The transmit interrupt: the FIFO drained to its trigger level, there is room again.
pub const INT_TX: u32 = bit(5);
