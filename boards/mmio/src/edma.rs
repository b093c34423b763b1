//! The EDMA-like DMA controller: the subset of TI EDMA3's channel controller that the
//! models implement, with the transfer controller's error registers folded in.
//!
//! A channel is triggered by its peripheral's DMA request (event `n` = channel `n`, and
//! channel `n` starts from parameter set `n`). A parameter set (PaRAM, 32 bytes at
//! `PARAM + 32 * n`) describes a three-dimensional transfer; on completion it may raise
//! transfer-complete code `TCC` in IPR and then reload itself from the set at `LINK`,
//! which is how a scatter-gather list is chained. Addresses are physical; one that hits
//! no DMA-reachable window is a bus error: the transfer stops, `ERRSTAT.BUSERR` is set and
//! the error interrupt asserts. The stm32mp1 board reuses this controller in place of its
//! MDMA so that both boards' drivers share one DMA module (a simplification).

use crate::{Field, bit};

/// Size of the register window.
pub const WINDOW: usize = 0x8000;

/// Event register (RO): events latched but not yet served.
pub const ER: usize = 0x1000;
/// Event enable (RO), set/clear by writing 1s to EESR/EECR.
pub const EER: usize = 0x1020;
pub const EECR: usize = 0x1028;
pub const EESR: usize = 0x1030;
/// Event missed (RO): an event arrived for a channel whose set was null.
pub const EMR: usize = 0x0300;
/// Interrupt enable (RO), set/clear via IESR/IECR.
pub const IER: usize = 0x1050;
pub const IECR: usize = 0x1058;
pub const IESR: usize = 0x1060;
/// Interrupt pending (RO): bit `TCC` set when a set with TCINTEN completes.
pub const IPR: usize = 0x1068;
/// Interrupt clear: write 1s to clear IPR bits.
pub const ICR: usize = 0x1070;

/// Transfer-controller error status (RO).
pub const ERRSTAT: usize = 0x0400;
pub const ERRSTAT_BUSERR: u32 = bit(0);
/// Write 1s to clear ERRSTAT bits.
pub const ERRCLR: usize = 0x0408;
/// Error details (RO): the TCC of the failing set and the failing address.
pub const ERRDET: usize = 0x040c;
pub const ERRDET_TCC: Field = Field::new(0, 6);
pub const ERRADDR: usize = 0x0410;

/// Channels (and events) modelled.
pub const CHANNELS: usize = 32;
/// Parameter sets modelled (channels use 0..32, links use the rest).
pub const PARAM_SETS: usize = 128;
/// Destination register sets of the transfer controller (EDMA3TC `DSTREGDEPTH`): how
/// many transfer requests it holds in flight. A channel's TR beyond these waits until
/// the peripheral has taken an earlier one. TI documents a depth of "usually 2 or 4";
/// the am335x fit (the omap-aes DMA/PIO series's step above 64 B = 4 blocks) says 4.
pub const DST_REG_DEPTH: u32 = 4;

/// Base of the parameter RAM.
pub const PARAM: usize = 0x4000;
/// Bytes per parameter set.
pub const PARAM_SIZE: usize = 32;
/// The `LINK` value that ends a chain.
pub const LINK_NULL: u32 = 0xffff;

/// Offset of parameter set `n`.
pub const fn param(n: usize) -> usize {
    PARAM + PARAM_SIZE * n
}
/// The `LINK` field value naming parameter set `n`.
pub const fn link_to(n: usize) -> u32 {
    param(n) as u32
}

/// Word offsets inside a parameter set.
pub mod p {
    use super::*;
    pub const OPT: usize = 0x00;
    pub const SRC: usize = 0x04;
    pub const A_B_CNT: usize = 0x08;
    pub const DST: usize = 0x0c;
    pub const SRC_DST_BIDX: usize = 0x10;
    pub const LINK_BCNTRLD: usize = 0x14;
    pub const SRC_DST_CIDX: usize = 0x18;
    pub const CCNT: usize = 0x1c;

    /// OPT: AB-synchronised (one event moves ACNT * BCNT bytes) instead of A-synchronised.
    pub const OPT_SYNCDIM: u32 = bit(2);
    /// OPT: transfer-complete code (IPR bit) raised on completion.
    pub const OPT_TCC: Field = Field::new(12, 6);
    /// OPT: raise `IPR[TCC]` when the set's whole transfer completes.
    pub const OPT_TCINTEN: u32 = bit(20);

    pub const ACNT: Field = Field::new(0, 16);
    pub const BCNT: Field = Field::new(16, 16);
    /// Signed 16-bit strides between arrays (B) and frames (C).
    pub const SRC_IDX: Field = Field::new(0, 16);
    pub const DST_IDX: Field = Field::new(16, 16);
    pub const LINK: Field = Field::new(0, 16);
    pub const BCNTRLD: Field = Field::new(16, 16);
    pub const CCNT_FIELD: Field = Field::new(0, 16);
}
