//! A hostile or careless client, two clients interleaved, a broken engine: typed errors,
//! the engine keeps working, and a driver whose self-test fails serves nobody. What both
//! engines check alike is `pio_dma_driver::testkit::hostile_suite`.

mod rig;

use pio_dma_driver::testkit as kit;

use mmio::stm32_cryp::{self as r, cr};
use mmio::{BusFault, RegisterBus};
use pd_idl::cipher::{CipherError, CipherOp, Mode, Path};
use rig::{Board, Layout, hex};
use stm32_cryp_driver::{InitError, Route};

const KEY: &str = "2b7e151628aed2a6abf7158809cf4f3c";

#[test]
fn the_hostile_cases_both_engines_survive() {
    kit::hostile_suite::<rig::Stm32>();
}

/// A CRYP bus that swallows the key-preparation command: decryption then runs without
/// the derived decryption key, and the engine answers wrongly.
struct NoKeyPreparation<B>(B);

impl<B: RegisterBus> RegisterBus for NoKeyPreparation<B> {
    fn read32(&mut self, offset: usize) -> Result<u32, BusFault> {
        self.0.read32(offset)
    }
    fn write32(&mut self, offset: usize, value: u32) -> Result<(), BusFault> {
        let kp = offset == r::CR && cr::ALGOMODE.get(value) == cr::MODE_AES_KP;
        if kp {
            Ok(())
        } else {
            self.0.write32(offset, value)
        }
    }
}

/// A CRYP bus whose key preparation still runs for the next `slow` CR reads after it
/// starts (armed by the test once the self-test has passed).
struct SlowKeyPreparation<B> {
    bus: B,
    slow: std::rc::Rc<std::cell::Cell<u32>>,
    left: u32,
}

impl<B: RegisterBus> RegisterBus for SlowKeyPreparation<B> {
    fn read32(&mut self, offset: usize) -> Result<u32, BusFault> {
        let v = self.bus.read32(offset)?;
        if offset == r::CR && self.left > 0 {
            self.left -= 1;
            return Ok(v | cr::CRYPEN);
        }
        Ok(v)
    }
    fn write32(&mut self, offset: usize, value: u32) -> Result<(), BusFault> {
        if offset == r::CR && cr::ALGOMODE.get(value) == cr::MODE_AES_KP {
            self.left = self.slow.take();
        }
        self.bus.write32(offset, value)
    }
}

#[test]
fn a_key_preparation_not_finished_at_once_fails_that_request_alone() {
    let board = Board::new();
    let slow = std::rc::Rc::new(std::cell::Cell::new(0));
    let mut driver = board.driver_with(SlowKeyPreparation {
        bus: board.soc.cryp(),
        slow: slow.clone(),
        left: 0,
    });
    driver.init().expect("self-test and calibration pass");
    let mut rig = rig::rig(&board, driver);
    let iv = hex("000102030405060708090a0b0c0d0e0f");
    let s = rig.open(Mode::Cbc, Path::Pio, &hex(KEY), &iv).unwrap();
    let ct = rig
        .crypt(s, CipherOp::Encrypt, &[7; 32], &[32], Layout::Aligned)
        .unwrap();
    let d = rig.open(Mode::Cbc, Path::Pio, &hex(KEY), &iv).unwrap();
    slow.set(1);
    assert_eq!(
        rig.crypt(d, CipherOp::Decrypt, &ct, &[32], Layout::Aligned),
        Err(CipherError::EngineFault),
        "looked at once, not waited for"
    );
    assert_eq!(
        rig.crypt(d, CipherOp::Decrypt, &ct, &[32], Layout::Aligned),
        Ok(vec![7; 32]),
        "the next request is served"
    );
}

#[test]
fn a_self_test_failure_refuses_service() {
    let board = Board::new();
    let mut stuck = board.driver_with(kit::StuckBit(board.soc.cryp(), r::key(7)));
    let Err(InitError::SelfTest(failure)) = stuck.init() else {
        panic!("a corrupted key passes no vector")
    };
    assert_eq!((failure.route, failure.op), (Route::Pio, CipherOp::Encrypt));
    let board = Board::new();
    let driver = board.driver_with(NoKeyPreparation(board.soc.cryp()));
    // Encryption passes; the first decryption (ECB needs the prepared key) does not.
    kit::a_wrong_answer_refuses_service(&board, driver, Route::Pio, CipherOp::Decrypt);
}
