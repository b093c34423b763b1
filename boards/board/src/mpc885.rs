//! MPC885 (PowerQUICC I): talitos SEC 1.2, hash channel. Source document: the talitos chaining change.

use crate::{Board, CostTable, Device, DeviceKind, PS_PER_NS, Region};

/// The SEC (device tree `crypto@20000` under IMMR 0xff000000; SIU interrupt 1).
pub const SEC: Device = Device {
    name: "sec1",
    kind: DeviceKind::TalitosSec1,
    phys: 0xff02_0000,
    size: 0x8000,
    irqs: &[1],
    gate: Some(0),
    dma: None,
    autosuspend_ms: 1000,
};

/// The clock controller model, placed in the IMMR's clock block.
pub const CLOCKS: Device = Device::clock_controller("clocks", 0xff00_0200);

/// SDRAM.
pub const SDRAM: Region = Region {
    name: "sdram",
    phys: 0,
    len: 128 << 20,
};

/// Fitted to the talitos chaining change (md5sum of a 90 MB file through AF_ALG: 6 s copying, 3 s chained).
///
/// AF_ALG's splice hands the hash one page per update (the source's perf trace:
/// hash_sendpage -> ahash_process_req), so 90e6 B is ~21973 updates of 4096 B, each
/// keeping one block buffered (talitos's "keep one block" rule). Copy path: the driver
/// copies the buffered block and the new data into one buffer (n bytes) plus the block
/// kept (64 B); chained: only the block kept. The source fixes the per-byte sum; the split
/// is: per update a request, 1 interrupt, 1-2 descriptors, a few registers; per byte the
/// MDEU (80 cycles per 64 B at the 66 MHz bus clock = 18.9 ns/B) and the bus reading the
/// data; the copy is the rest of the 6 s.
pub const COSTS: CostTable = CostTable {
    // Nominal 66 MHz bus read.
    reg_read_ps: 150 * PS_PER_NS,
    reg_write_ps: 60 * PS_PER_NS,
    pio_word_ps: 0,
    dma_start_ps: 0,
    // Nominal: a 64-byte descriptor fetch over the 60x bus.
    dma_descriptor_ps: 1_000 * PS_PER_NS,
    // The talitos chaining change: chained 3 s = per-update costs (~0.5 s) + n (MDEU + bus); the bus share
    // after the MDEU's 18.9 ns/B.
    dma_byte_ps: 8_800,
    // SEC1 is not an EDMA: no transfer-controller pipeline.
    dma_pipeline_full_ps: 0,
    // Nominal PowerPC 8xx interrupt entry, handler and done tasklet.
    interrupt_ps: 5_000 * PS_PER_NS,
    power_on_ps: 37_000 * PS_PER_NS,
    power_off_ps: 37_000 * PS_PER_NS,
    // Nominal 66 MHz SEC clock.
    engine_cycle_ps: 15_150,
    // The talitos chaining change: 6 s - 3 s over 90e6 B copied (+128 B per update): ~33 ns/B, an 8xx
    // memcpy of uncached-then-flushed pages.
    cpu_copy_byte_ps: 33_800,
    cpu_cipher_byte_ps: 0,
    cpu_digest_byte_ps: 0,
    // Nominal: AF_ALG sendpage and talitos submission per update.
    request_ps: 12_000 * PS_PER_NS,
};

pub const BOARD: Board = Board {
    name: "mpc885",
    devices: &[SEC, CLOCKS],
    dma_regions: &[SDRAM],
    costs: COSTS,
};
