//! The PIO/DMA crossover measured at init on the am335x model, against SOURCES.md: "about
//! 130-155 B (8-10 blocks)". `-- --nocapture` prints the table.

mod rig;

use pio_dma_driver::testkit as kit;
use rig::Board;

#[test]
fn crossover_is_8_to_10_blocks_for_every_mode_and_key_size() {
    kit::crossover_in(&Board::new().driver(), 128..=160);
}

#[test]
fn calibration_agrees_with_requests_on_either_side_of_it() {
    kit::calibration_agrees_with_requests(&Board::new());
}
