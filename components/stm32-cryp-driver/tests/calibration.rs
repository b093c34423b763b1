//! The CPU/DMA crossover measured at init on the stm32mp1 model, against SOURCES.md:
//! "~22 B (tcrypt) to ~77-86 B (openssl through AF_ALG)". The board's cost table is
//! fitted to the stm32-cryp DMA change's openssl-through-AF_ALG figures, so the crossover to expect is
//! that one: 77-86 B, i.e. DMA from 5 blocks (80 B). `-- --nocapture` prints the table.

mod rig;

#[test]
fn crossover_is_77_to_86_bytes_and_requests_agree_with_it() {
    pio_dma_driver::testkit::calibration_matches::<rig::Stm32>(77..=86);
}
