//! What the driver needs from its PD besides the register bus: CPU access to DMA memory
//! by physical address, and the engine's interrupt.

/// A DMA memory access outside what the PD maps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DmaFault;

/// The CPU's view of the driver's DMA memory (its scratch region), by physical address.
/// On seL4: volatile copies to the mapped region at `vaddr + (phys - paddr)`; on the
/// host: the board model's physical map. Copies, never references, because the engine
/// reads and writes the same memory behind the compiler's back.
pub trait DmaMemory {
    fn read(&self, phys: u32, buf: &mut [u8]) -> Result<(), DmaFault>;
    fn write(&self, phys: u32, data: &[u8]) -> Result<(), DmaFault>;
}

/// The engine's interrupt line.
pub trait Irq {
    /// Waits for the interrupt; `false` if none is coming (the engine stalled).
    fn wait(&mut self) -> bool;
    /// Ends service of the interrupt (Microkit's `irq_ack`).
    fn ack(&mut self);
}
