//! The CPU/DMA crossover measured at init on the stm32mp1 model, against SOURCES.md:
//! "~22 B (tcrypt) to ~77-86 B (openssl through AF_ALG)". The board's cost table is
//! fitted to the stm32-cryp DMA change's openssl-through-AF_ALG figures, so the crossover to expect is
//! that one: 77-86 B, i.e. DMA from 5 blocks (80 B). `-- --nocapture` prints the table.

mod rig;

use cost_ledger::Event;
use pd_idl::cipher::{CipherOp, Mode, Path};
use rig::{Board, Layout, counted};
use stm32_cryp_driver::calibrate::{KEY_LENS, MODES};

#[test]
fn crossover_is_77_to_86_bytes_for_every_mode_and_key_size() {
    let board = Board::new();
    let driver = board.driver();
    let cal = driver.calibration();
    println!("mode key  DMA from  CPU us  DMA us (at that size)");
    for &mode in &MODES {
        for &key in &KEY_LENS {
            let c = cal.get(mode, key);
            println!(
                "{mode:?} {:3}  {:5} B  {:6.1}  {:6.1}",
                u32::from(key) * 8,
                c.dma_from_bytes,
                c.pio_ps as f64 / 1e6,
                c.dma_ps as f64 / 1e6
            );
            assert!(
                (77..=86).contains(&c.dma_from_bytes),
                "{mode:?}/{key}: DMA from {} B",
                c.dma_from_bytes
            );
            assert!(c.dma_ps < c.pio_ps);
        }
    }
}

#[test]
fn calibration_agrees_with_requests_on_either_side_of_it() {
    // One block below the crossover CPU mode is faster, at it DMA is: measured through the
    // service as clients see it (with the per-request cost on both).
    let board = Board::new();
    let mut rig = rig::rig(&board, board.driver());
    let from = rig
        .service
        .engine
        .calibration()
        .get(Mode::Cbc, 16)
        .dma_from_bytes;
    let costs = &board::stm32mp1::COSTS;
    let key = [7u8; 16];
    let mut time = |path, n: u32| {
        let s = rig.open(Mode::Cbc, path, &key, &[0; 16]).unwrap();
        let data = vec![0u8; n as usize];
        let (_, c) = counted(board.ledger, || {
            rig.crypt(s, CipherOp::Encrypt, &data, &[n], Layout::Aligned)
                .unwrap()
        });
        assert_eq!(c.get(Event::Request), 1);
        c.modelled_us(costs)
    };
    let below = from - 16;
    assert!(time(Path::Pio, below) < time(Path::Dma, below));
    assert!(time(Path::Dma, from) < time(Path::Pio, from));
}
