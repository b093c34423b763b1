//! TI OMAP AES, omap4 register layout (AM335x AES0), as used by Linux `omap-aes.c`.
//!
//! Key, IV and data words are the bytes of memory loaded little-endian (the Linux driver
//! writes `__le32_to_cpu` of the key and raw `u32` of IV and data on a little-endian CPU):
//! word `i` of a 16-byte block is `u32::from_le_bytes(block[4i..4i + 4])`.

use crate::{Field, bit};

/// Size of the register window (am335x device tree: `reg = <0x53500000 0xa0>`).
pub const WINDOW: usize = 0xa0;

/// Key word `x` (0..8): `0x3c - ((x ^ 1) * 4)`, so words pair up backwards from 0x3c.
pub const fn key(x: usize) -> usize {
    0x3c - ((x ^ 1) * 4)
}

/// IV word `x` (0..4).
pub const fn iv(x: usize) -> usize {
    0x40 + 4 * x
}

/// Control and status.
pub const CTRL: usize = 0x50;
pub mod ctrl {
    use super::*;
    /// RO: an output block can be read from DATA_N.
    pub const OUTPUT_READY: u32 = bit(0);
    /// RO: the engine accepts an input block in DATA_N.
    pub const INPUT_READY: u32 = bit(1);
    /// 1 = encrypt, 0 = decrypt.
    pub const DIRECTION: u32 = bit(2);
    /// Key size: [`KEY_128`], [`KEY_192`], [`KEY_256`]; 0 is reserved (the engine does
    /// not start).
    pub const KEY_SIZE: Field = Field::new(3, 2);
    pub const KEY_128: u32 = 1;
    pub const KEY_192: u32 = 2;
    pub const KEY_256: u32 = 3;
    /// CBC mode (with CTR clear); both clear is ECB.
    pub const CBC: u32 = bit(5);
    /// Counter mode.
    pub const CTR: u32 = bit(6);
    /// Width of the counter incremented in CTR mode: 32 << value bits.
    pub const CTR_WIDTH: Field = Field::new(7, 2);
    pub const CTR_WIDTH_32: u32 = 0;
    pub const CTR_WIDTH_64: u32 = 1;
    pub const CTR_WIDTH_96: u32 = 2;
    pub const CTR_WIDTH_128: u32 = 3;
    /// RO: the engine is idle and accepts a new context (key, IV, CTRL).
    pub const CONTEXT_READY: u32 = bit(31);
    /// The bits a driver writes (the rest are status).
    pub const WRITABLE: u32 = DIRECTION | KEY_SIZE.mask() | CBC | CTR | CTR_WIDTH.mask();
}

/// Payload length in bytes, low word (0 means "unbounded", as PIO-mode Linux leaves it).
pub const C_LENGTH_0: usize = 0x54;
/// Payload length, high word.
pub const C_LENGTH_1: usize = 0x58;

/// Data word `x` (0..4), in and out. Consecutive accesses fill or drain one block in order
/// whatever the index, so a DMA channel writing DATA_N(0) four times (constant address,
/// 4-byte width, burst 4) moves a whole block.
pub const fn data(x: usize) -> usize {
    0x60 + 4 * x
}

/// Revision (RO).
pub const REV: usize = 0x80;
pub const REV_MAJOR: Field = Field::new(8, 3);
pub const REV_MINOR: Field = Field::new(6, 2);

/// MASK / SYSCONFIG.
pub const SYSCONFIG: usize = 0x84;
pub mod sysconfig {
    use super::*;
    pub const AUTOIDLE: u32 = bit(0);
    /// Self-clearing soft reset; SYSSTATUS.RESETDONE reports completion.
    pub const SOFTRESET: u32 = bit(1);
    /// omap4: DMA request for input blocks enabled.
    pub const DMA_REQ_IN: u32 = bit(5);
    /// omap4: DMA request for output blocks enabled.
    pub const DMA_REQ_OUT: u32 = bit(6);
}

/// SYSSTATUS (RO).
pub const SYSSTATUS: usize = 0x88;
pub const SYSSTATUS_RESETDONE: u32 = bit(0);

/// Interrupt status (RO levels masked by [`IRQ_ENABLE`]: DATA_IN = an input block is
/// wanted, DATA_OUT = an output block is waiting). Writes are accepted and change nothing:
/// a source stays set until its condition ends, so a driver masks it with IRQ_ENABLE.
pub const IRQ_STATUS: usize = 0x8c;
/// Interrupt enable.
pub const IRQ_ENABLE: usize = 0x90;
pub mod irq {
    use super::*;
    pub const CONTEXT_IN: u32 = bit(0);
    pub const DATA_IN: u32 = bit(1);
    pub const DATA_OUT: u32 = bit(2);
}

/// Bytes per AES block and per PIO interrupt.
pub const BLOCK: usize = 16;
/// Words per block through DATA_N.
pub const BLOCK_WORDS: usize = 4;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_words_pair_backwards() {
        let offs: [usize; 8] = core::array::from_fn(key);
        assert_eq!(offs, [0x38, 0x3c, 0x30, 0x34, 0x28, 0x2c, 0x20, 0x24]);
        assert_eq!(ctrl::KEY_SIZE.val(ctrl::KEY_256), 0x18);
    }
}
