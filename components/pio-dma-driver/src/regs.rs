//! Bytes through register words, as both register halves move keys, IVs and data
//! blocks: a run of registers (or one FIFO register, every word), each word in the
//! engine's byte order (OMAP: little-endian throughout; STM32: key and IV big-endian, the
//! FIFO little-endian). The order is given as a function (`u32::from_le_bytes`, ...)
//! and taken as a generic, so each use compiles to a plain loop of register accesses.

use cipher_service::Job;
use mmio::{BusFault, RegisterBus};
use pd_idl::cipher::Mode;

/// Writes `bytes` (whole words), word `i` made from its four bytes by `word`, to the
/// register at `reg(i)`.
pub fn write_words(
    bus: &mut impl RegisterBus,
    reg: impl Fn(usize) -> usize,
    bytes: &[u8],
    word: impl Fn([u8; 4]) -> u32,
) -> Result<(), BusFault> {
    for (i, b) in bytes.chunks_exact(4).enumerate() {
        bus.write32(reg(i), word([b[0], b[1], b[2], b[3]]))?;
    }
    Ok(())
}

/// Fills `bytes` (whole words), word `i` read from the register at `reg(i)` and made
/// bytes by `bytes_of`.
pub fn read_words(
    bus: &mut impl RegisterBus,
    reg: impl Fn(usize) -> usize,
    bytes: &mut [u8],
    bytes_of: impl Fn(u32) -> [u8; 4],
) -> Result<(), BusFault> {
    for (i, b) in bytes.chunks_exact_mut(4).enumerate() {
        b.copy_from_slice(&bytes_of(bus.read32(reg(i))?));
    }
    Ok(())
}

/// The IV `job` leaves for its session's next request: the chaining value the engine
/// left in its IV registers at `reg(i)` (CBC: the last ciphertext block; CTR: the
/// counter after the last block used). ECB chains nothing: the session's IV stands.
pub fn iv_after(
    bus: &mut impl RegisterBus,
    reg: impl Fn(usize) -> usize,
    job: &Job<'_>,
    bytes_of: impl Fn(u32) -> [u8; 4],
) -> Result<[u8; 16], BusFault> {
    let mut iv = job.session.iv;
    if job.session.mode != Mode::Ecb {
        read_words(bus, reg, &mut iv, bytes_of)?;
    }
    Ok(iv)
}
