//! STM32MP1 (e.g. STM32MP157 DK2): CRYP1 with DMA. Source document: the stm32-cryp DMA change.

use crate::{Board, CostTable, Device, DeviceKind, PS_PER_NS, Region};

/// CRYP1 (GIC SPI 79 = INTID 111; MDMA requests 29 = in, 30 = out). stm32-cryp uses
/// 50 ms autosuspend.
pub const CRYP1: Device = Device {
    name: "cryp1",
    kind: DeviceKind::Stm32Cryp,
    phys: 0x5400_1000,
    size: 0x400,
    irqs: &[111],
    gate: Some(0),
    dma: Some((29, 30)),
    autosuspend_ms: 50,
};

/// RNG1, the true random number generator (RM0436; DT `rng@54003000`, GIC SPI 124 =
/// INTID 156). Not gated by the power manager here: its driver holds no grant.
pub const RNG1_PHYS: u64 = 0x5400_3000;
pub const RNG1_IRQ: u32 = 156;

/// The DMA controller's completion and error interrupts (MDMA is SPI 122 = INTID 154; the
/// model's separate error line takes the next number).
pub const DMA_IRQ_COMPLETION: u32 = 154;
pub const DMA_IRQ_ERROR: u32 = 155;

/// The EDMA-like controller standing in for MDMA, at MDMA's address (the model's window
/// is larger than MDMA's; nothing else of the board sits there).
pub const DMA: Device = Device::edma(
    "mdma1",
    0x5800_0000,
    &[DMA_IRQ_COMPLETION, DMA_IRQ_ERROR],
    1,
);

/// The clock controller at RCC.
pub const CLOCKS: Device = Device::clock_controller("rcc", 0x5000_0000);

/// DDR.
pub const DDR: Region = Region {
    name: "ddr",
    phys: 0xc000_0000,
    len: 512 << 20,
};

/// Fitted to the stm32-cryp DMA change (openssl speed through AF_ALG, AES-256-CBC encrypt).
///
/// What the source fixes: CPU (IT) = 125.7 us + 0.408 us/B (6.53 us per block); DMA =
/// 155.5 us + 0.0196 us/B (>= 64 B). Upstream's IT mode takes one interrupt per block
/// plus one (the model's count: IN for the first block, IN+OUT for each next, OUT for the
/// last), each with an MISR read, an IMSCR write and 8 FIFO words. Register, FIFO and
/// engine figures are nominal; interrupts take the remainder of the per-block cost,
/// channel starts the remainder of the DMA fixed cost, DMA bytes the DMA slope.
pub const COSTS: CostTable = CostTable {
    // Nominal APB read from a 650 MHz Cortex-A7.
    reg_read_ps: 150 * PS_PER_NS,
    // Nominal posted APB write.
    reg_write_ps: 60 * PS_PER_NS,
    // Nominal FIFO word.
    pio_word_ps: 100 * PS_PER_NS,
    // The stm32-cryp DMA change: DMA fixed 155.3 us (the minimax intercept for SOURCES.md's slope; its
    // rounded 155.5 puts 1024 B just past 0.7%) minus request, register and interrupt
    // costs, halved over the two channels (dmaengine prep and completion per channel).
    dma_start_ps: 14_100 * PS_PER_NS,
    dma_descriptor_ps: 50 * PS_PER_NS,
    // The stm32-cryp DMA change: DMA slope 19.6 ns/B = 2 bytes moved + engine (16 cycles per 16 B at
    // 7.5 ns = 7.5 ns/B): 6.05 ns per byte moved.
    dma_byte_ps: 6_050,
    // The stm32-cryp DMA change shows no step in its DMA line from 64 B up (0.7% fit): nothing extra.
    dma_pipeline_full_ps: 0,
    // The stm32-cryp DMA change: 6.53 us per block minus 8 FIFO words, one MISR read, one IMSCR write and
    // 16 engine cycles (1.13 us): 5.40 us per interrupt (threaded IRQ).
    interrupt_ps: 5_400 * PS_PER_NS,
    // No source measures power on this board; the power manager's acquire is charged at the
    // am335x figure's order of magnitude so that per-request gating shows.
    power_on_ps: 37_000 * PS_PER_NS,
    power_off_ps: 37_000 * PS_PER_NS,
    // Nominal 133 MHz engine clock.
    engine_cycle_ps: 7_500,
    // Nominal Cortex-A7 memcpy with cache maintenance (not in the source).
    cpu_copy_byte_ps: 2_000,
    cpu_cipher_byte_ps: 0,
    cpu_digest_byte_ps: 0,
    // The stm32-cryp DMA change: CPU fixed 125.7 us minus register setup and the extra interrupt: openssl
    // through AF_ALG (SOURCES.md: AF_ALG adds ~60-80 us per request) plus the crypto API.
    request_ps: 119_070 * PS_PER_NS,
};

pub const BOARD: Board = Board {
    name: "stm32mp1",
    devices: &[CRYP1, DMA, CLOCKS],
    dma_regions: &[DDR],
    costs: COSTS,
};
