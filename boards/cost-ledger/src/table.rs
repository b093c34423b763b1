//! The price of each event on one board.

use crate::Event;

/// Picoseconds charged per event, one field per [`Event`].
///
/// Boards fill these from fitted figures (`boards` crate, one table per board, each
/// constant citing its source). Picoseconds keep sub-nanosecond per-byte costs exact in
/// integers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CostTable {
    pub reg_read_ps: u64,
    pub reg_write_ps: u64,
    pub pio_word_ps: u64,
    pub dma_start_ps: u64,
    pub dma_descriptor_ps: u64,
    pub dma_byte_ps: u64,
    pub dma_pipeline_full_ps: u64,
    pub interrupt_ps: u64,
    pub power_on_ps: u64,
    pub power_off_ps: u64,
    pub engine_cycle_ps: u64,
    pub cpu_copy_byte_ps: u64,
    pub cpu_cipher_byte_ps: u64,
    pub cpu_digest_byte_ps: u64,
    pub request_ps: u64,
}

impl CostTable {
    /// A table that charges nothing; a base for struct-update syntax.
    pub const ZERO: CostTable = CostTable {
        reg_read_ps: 0,
        reg_write_ps: 0,
        pio_word_ps: 0,
        dma_start_ps: 0,
        dma_descriptor_ps: 0,
        dma_byte_ps: 0,
        dma_pipeline_full_ps: 0,
        interrupt_ps: 0,
        power_on_ps: 0,
        power_off_ps: 0,
        engine_cycle_ps: 0,
        cpu_copy_byte_ps: 0,
        cpu_cipher_byte_ps: 0,
        cpu_digest_byte_ps: 0,
        request_ps: 0,
    };

    /// The price of one event.
    pub const fn ps(&self, event: Event) -> u64 {
        match event {
            Event::RegRead => self.reg_read_ps,
            Event::RegWrite => self.reg_write_ps,
            Event::PioWord => self.pio_word_ps,
            Event::DmaStart => self.dma_start_ps,
            Event::DmaDescriptor => self.dma_descriptor_ps,
            Event::DmaByte => self.dma_byte_ps,
            Event::DmaPipelineFull => self.dma_pipeline_full_ps,
            Event::Interrupt => self.interrupt_ps,
            Event::PowerOn => self.power_on_ps,
            Event::PowerOff => self.power_off_ps,
            Event::EngineCycle => self.engine_cycle_ps,
            Event::CpuCopyByte => self.cpu_copy_byte_ps,
            Event::CpuCipherByte => self.cpu_cipher_byte_ps,
            Event::CpuDigestByte => self.cpu_digest_byte_ps,
            Event::Request => self.request_ps,
            Event::ContextKept | Event::KeyLoaded | Event::KeyCleared => 0,
        }
    }
}
