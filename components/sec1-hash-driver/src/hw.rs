//! What the driver needs from its PD besides the register bus: CPU access to DMA memory
//! by physical address. (The engine's interrupt reaches the driver as a call of
//! `DigestEngine::interrupt` from the PD's handler.)

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
