//! The host: no crypto engine, the CPU engine (RustCrypto, AES-NI/SHA-NI where present).
//! Figures from SOURCES.md "This machine" (openssl 3.0 speed and probes, one run each).

use crate::{Board, CostTable};

/// Measured on this machine (SOURCES.md): AES-128-CBC 1.42 GB/s, SHA-256 1.78 GB/s at
/// 16 KiB, memcpy 6.8 GB/s, a shared-memory round trip between processes 0.06 us.
pub const COSTS: CostTable = CostTable {
    // 1 / 1.42 GB/s.
    cpu_cipher_byte_ps: 704,
    // 1 / 1.78 GB/s.
    cpu_digest_byte_ps: 562,
    // 1 / 6.8 GB/s.
    cpu_copy_byte_ps: 147,
    // One shared-memory queue round trip per request.
    request_ps: 60_000,
    ..CostTable::ZERO
};

pub const BOARD: Board = Board {
    name: "host",
    devices: &[],
    dma_regions: &[],
    costs: COSTS,
};
