//! ST STM32 CRYP (stm32mp1 CRYP1), as used by Linux `stm32-cryp.c`.
//!
//! Keys and IVs are written as big-endian words (`be32_to_cpu` of the key bytes), the key
//! right-aligned so that its last word lands in K3RR. Data goes through the DIN/DOUT FIFOs
//! with CR.DATATYPE = [`cr::DATATYPE_8`] (byte swap), so a word is the block's bytes
//! loaded little-endian, as upstream does.

use crate::{Field, bit};

/// Size of the register window.
pub const WINDOW: usize = 0x400;

/// Control.
pub const CR: usize = 0x00;
pub mod cr {
    use super::*;
    /// 1 = decrypt.
    pub const ALGODIR: u32 = bit(2);
    /// ALGOMODE bits 2:0; ALGOMODE bit 3 is CR bit 19 and must be 0 for the modes modelled.
    pub const ALGOMODE: Field = Field::new(3, 3);
    pub const ALGOMODE3: u32 = bit(19);
    pub const MODE_AES_ECB: u32 = 0b100;
    pub const MODE_AES_CBC: u32 = 0b101;
    pub const MODE_AES_CTR: u32 = 0b110;
    /// Key preparation for ECB/CBC decryption (run once after loading a key).
    pub const MODE_AES_KP: u32 = 0b111;
    /// Data swapping: 32-bit (none), 16-bit, 8-bit, 1-bit.
    pub const DATATYPE: Field = Field::new(6, 2);
    pub const DATATYPE_32: u32 = 0;
    pub const DATATYPE_16: u32 = 1;
    pub const DATATYPE_8: u32 = 2;
    pub const DATATYPE_1: u32 = 3;
    /// Key size: 128, 192, 256; 3 is reserved (CRYPEN does not set).
    pub const KEYSIZE: Field = Field::new(8, 2);
    pub const KEY_128: u32 = 0;
    pub const KEY_192: u32 = 1;
    pub const KEY_256: u32 = 2;
    /// Flush both FIFOs (self-clearing).
    pub const FFLUSH: u32 = bit(14);
    /// Enable; cleared by the engine when key preparation ends.
    pub const CRYPEN: u32 = bit(15);
    /// GCM/CCM phase (must be 0, init, for the modes modelled here).
    pub const GCM_CCMPH: Field = Field::new(16, 2);
}

/// Status (RO).
pub const SR: usize = 0x04;
pub mod sr {
    use super::*;
    /// Input FIFO empty.
    pub const IFEM: u32 = bit(0);
    /// Input FIFO not full.
    pub const IFNF: u32 = bit(1);
    /// Output FIFO not empty.
    pub const OFNE: u32 = bit(2);
    /// Output FIFO full.
    pub const OFFU: u32 = bit(3);
    /// Processing (or key preparation) in progress.
    pub const BUSY: u32 = bit(4);
}

/// Data input FIFO.
pub const DIN: usize = 0x08;
/// Data output FIFO.
pub const DOUT: usize = 0x0c;

/// DMA control.
pub const DMACR: usize = 0x10;
pub mod dmacr {
    use super::*;
    /// DMA requests for the input FIFO.
    pub const DIEN: u32 = bit(0);
    /// DMA requests for the output FIFO.
    pub const DOEN: u32 = bit(1);
}

/// Interrupt mask set/clear (1 = enabled).
pub const IMSCR: usize = 0x14;
/// Raw interrupt status (RO).
pub const RISR: usize = 0x18;
/// Masked interrupt status (RO).
pub const MISR: usize = 0x1c;
pub mod it {
    use super::*;
    /// Input FIFO can take a block (fewer than 4 words queued).
    pub const IN: u32 = bit(0);
    /// Output FIFO holds data.
    pub const OUT: u32 = bit(1);
}

/// Key registers K0LR..K3RR: word `i` (0..8) of a 256-bit key.
pub const fn key(i: usize) -> usize {
    0x20 + 4 * i
}
/// The register of word `j` of a key of `words` words (right-aligned to K3RR).
pub const fn key_word(words: usize, j: usize) -> usize {
    key(8 - words + j)
}

/// IV registers IV0LR..IV1RR: word `i` (0..4).
pub const fn iv(i: usize) -> usize {
    0x40 + 4 * i
}

/// FIFO depth in words (each direction).
pub const FIFO_WORDS: usize = 8;
/// Bytes per AES block.
pub const BLOCK: usize = 16;
pub const BLOCK_WORDS: usize = 4;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_right_aligned() {
        assert_eq!(key_word(8, 0), 0x20);
        assert_eq!(key_word(4, 0), 0x30);
        assert_eq!(key_word(4, 3), 0x3c);
        assert_eq!(key_word(6, 5), 0x3c);
    }
}
