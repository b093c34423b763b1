//! The PIO/DMA crossover measured at init on the am335x model, against SOURCES.md: "about
//! 130-155 B (8-10 blocks)". `-- --nocapture` prints the table.

mod rig;

#[test]
fn crossover_is_8_to_10_blocks_and_requests_agree_with_it() {
    pio_dma_driver::testkit::calibration_matches::<rig::Omap>(128..=160);
}
