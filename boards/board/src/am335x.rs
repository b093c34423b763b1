//! BeagleBone (TI AM335x): OMAP AES0 (omap4 layout) with EDMA, runtime-PM clock gate.
//! Source documents: the omap-aes idle/start patch (power per session) and 001 (PIO and direct-SG DMA).

use crate::{Board, CostTable, Device, DeviceKind, PS_PER_NS, PS_PER_US, Region};

/// AES0 (device tree `aes@53500000`; INTC line 103; EDMA events 6 = tx, 5 = rx).
/// omap-aes uses 1000 ms autosuspend.
pub const AES0: Device = Device {
    name: "aes0",
    kind: DeviceKind::OmapAes,
    phys: 0x5350_0000,
    size: 0xa0,
    irqs: &[103],
    gate: Some(0),
    dma: Some((6, 5)),
    autosuspend_ms: 1000,
};

/// EDMA3 completion interrupt (EDMACOMPINT) and error interrupt.
pub const EDMA_IRQ_COMPLETION: u32 = 12;
pub const EDMA_IRQ_ERROR: u32 = 14;

/// The EDMA-like controller at the TPCC's address.
pub const EDMA: Device = Device::edma(
    "edma",
    0x4900_0000,
    &[EDMA_IRQ_COMPLETION, EDMA_IRQ_ERROR],
    1,
);

/// The clock controller at CM_PER (only the power manager maps it).
pub const CLOCKS: Device = Device::clock_controller("cm_per", 0x44e0_0000);

/// DDR, all of which EDMA reaches.
pub const DDR: Region = Region {
    name: "ddr",
    phys: 0x8000_0000,
    len: 512 << 20,
};

/// Fitted to the omap-aes idle/start patch and the omap-aes DMA/PIO series (tcrypt on their 2013 kernel, AES-128-CBC).
///
/// What the sources fix: PIO = 23.5 us + 25.06 us per 16-byte block (the omap-aes DMA/PIO series; SOURCES.md
/// gives 25, we take the minimax slope over the five sizes); direct-SG DMA = 262.3 us +
/// 0.0355 us/B and the old bounce-copy path 0.0147 us/B more (the omap-aes DMA/PIO series, >= 256 B: the
/// minimax lines, worst errors 2.1% and 2.9% against SOURCES.md's least-squares 2.3% and
/// 3.1%); a power cycle is 74 us (the omap-aes idle/start patch). They do not fix how a fixed cost splits
/// between events, so register and PIO accesses and engine cycles get nominal L4
/// figures, and the remainder goes to the events whose count the strategy changes
/// (interrupts per block for PIO, channel starts for DMA, bytes for the copy). Per
/// request the source's PIO driver makes 12 register writes (key, IV, CTRL, C_LENGTH,
/// IRQ_ENABLE), and per block 2 reads, 6 writes (5 on the last), 8 PIO words and 2
/// interrupts; its DMA driver makes ~36 writes, 3 reads, 2 channel starts and 1
/// interrupt, and moves every byte twice.
///
/// The source's DMA figure is flat (~230 us) up to 64 B and ~32 us higher from 256 B on
/// (SOURCES.md's piecewise fit). The event that explains the step: EDMA submits one
/// transfer request per 16-byte block, and its transfer controller holds 4 in flight
/// (`mmio::edma::DST_REG_DEPTH`), so a transfer of up to 4 blocks is absorbed at once and
/// completes while the requester is still in the submit path, while a longer one runs
/// paced by the engine and the requester sleeps and is woken by the completion. The
/// model counts `DmaPipelineFull` once per channel whose transfer passes 4 requests.
pub const COSTS: CostTable = CostTable {
    // Nominal L4 peripheral read round trip (not resolved by the sources).
    reg_read_ps: 200 * PS_PER_NS,
    // Nominal posted L4 write.
    reg_write_ps: 80 * PS_PER_NS,
    // Nominal data-port word, the mean of a posted write and a read.
    pio_word_ps: 140 * PS_PER_NS,
    // The omap-aes DMA/PIO series: DMA fixed 229.9 us (the <= 64 B level) minus request, register and
    // interrupt costs (~37 us), halved over the two channels. This is Linux's per-transfer dmaengine work (SG
    // mapping, cache maintenance, EDMA descriptor prep, completion tasklet), which the
    // source cannot separate from the hardware start itself.
    dma_start_ps: 96_300 * PS_PER_NS,
    // Nominal: a PaRAM link reload inside the controller.
    dma_descriptor_ps: 50 * PS_PER_NS,
    // The omap-aes DMA/PIO series: DMA slope 35.5 ns/B = 2 DMA bytes + engine time (12 cycles per 16 B at
    // 10 ns = 7.5 ns/B), so 14.0 ns per byte moved.
    dma_byte_ps: 14_000,
    // The omap-aes DMA/PIO series: the step from the <= 64 B level (229.9 us) to the >= 256 B line's
    // intercept (262.3 us), 32.4 us: a sleep and wake-up of the requester (the 2013
    // kernel's completion, scheduler and done tasklet), halved over the two channels.
    dma_pipeline_full_ps: 16_200 * PS_PER_NS,
    // The omap-aes DMA/PIO series: PIO 25.06 us per block = 2 interrupts + 2.12 us of register, PIO and
    // engine time (2 reads, 6 writes, 8 words, 12 cycles): 11.47 us per interrupt (ISR
    // entry, handler, exit on the 2013 kernel).
    interrupt_ps: 11_470 * PS_PER_NS,
    // The omap-aes idle/start patch: 74 us per resume + suspend cycle (67-80 measured); the source does not
    // split it, so half each way.
    power_on_ps: 37 * PS_PER_US,
    power_off_ps: 37 * PS_PER_US,
    // Nominal 100 MHz engine clock.
    engine_cycle_ps: 10 * PS_PER_NS,
    // The omap-aes DMA/PIO series: the old path's extra 14.7 ns/B is the bounce copy in and out: 7.35 ns per
    // byte copied.
    cpu_copy_byte_ps: 7_350,
    cpu_cipher_byte_ps: 0,
    cpu_digest_byte_ps: 0,
    // The omap-aes DMA/PIO series: PIO fixed 23.5 us minus its 11 net register writes (0.88 us): the crypto
    // API and tcrypt per request.
    request_ps: 22_620 * PS_PER_NS,
};

pub const BOARD: Board = Board {
    name: "am335x",
    devices: &[AES0, EDMA, CLOCKS],
    dma_regions: &[DDR],
    costs: COSTS,
};
