//! A hostile or careless client, two clients interleaved, a broken engine: typed errors,
//! the engine keeps working, and a driver whose self-test fails serves nobody.

mod rig;

use cipher_service::testkit::suite;
use pio_dma_driver::testkit as kit;

use mmio::stm32_cryp::{self as r, cr};
use mmio::{BusFault, RegisterBus};
use pd_idl::cipher::{CipherError, CipherOp, Mode, Path};
use pd_idl::wire::Caller;
use rig::{Board, CLIENT, Layout, hex, request, status};
use stm32_cryp_driver::{Health, InitError, Route};

const KEY: &str = "2b7e151628aed2a6abf7158809cf4f3c";

#[test]
fn each_bad_request_gets_its_own_error_and_the_engine_keeps_working() {
    let board = Board::new();
    let mut rig = rig::rig(&board, board.driver());
    suite::bad_requests_get_their_own_errors(&mut rig, true);
}

#[test]
fn dma_to_an_unreachable_address_is_a_typed_error_and_the_engine_recovers() {
    let board = Board::new();
    let mut rig = rig::rig(&board, board.driver());
    suite::dma_fault_is_typed_and_recovers(&mut rig);
}

#[test]
fn two_clients_with_different_keys_and_modes_interleave() {
    let board = Board::new();
    let mut rig = rig::rig(&board, board.driver());
    let plain = hex(
        "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51\
         30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710",
    );
    // Client A: CBC-AES128 (F.2.1) forced DMA; client B: CTR-AES256 (F.5.5) adaptive.
    let a = rig
        .open_as(
            CLIENT,
            Mode::Cbc,
            Path::Dma,
            &hex(KEY),
            &hex("000102030405060708090a0b0c0d0e0f"),
        )
        .unwrap();
    let b = rig
        .open_as(
            Caller(9),
            Mode::Ctr,
            Path::Pio,
            &hex("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4"),
            &hex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"),
        )
        .unwrap();
    let (mut out_a, mut out_b) = (Vec::new(), Vec::new());
    // A's requests are two blocks (upstream DMAs only more than 16 bytes); B's one block,
    // two of them between each of A's.
    for half in 0..2 {
        let chunk = &plain[32 * half..32 * half + 32];
        out_a.extend(
            rig.crypt(a, CipherOp::Encrypt, chunk, &[32], Layout::Aligned)
                .unwrap(),
        );
        for block in chunk.chunks(16) {
            // Client B's request through its own channel.
            let at = 2048u32;
            rig.bytes()[at as usize..at as usize + 16].copy_from_slice(block);
            let answer = rig.exchange(Caller(9), &[request(100, b, &[(at, 16)])]);
            assert_eq!(status(&answer[0]), Ok(()));
            out_b.extend_from_slice(&rig.bytes()[at as usize..at as usize + 16]);
        }
    }
    assert_eq!(
        out_a,
        hex(
            "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2\
             73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7"
        )
    );
    assert_eq!(
        out_b,
        hex(
            "601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c5\
             2b0930daa23de94ce87017ba2d84988ddfc9c58db67aada613c2dd08457941a6"
        )
    );
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

/// A CRYP bus whose last key register loses a bit on the way in.
struct StuckKeyBit<B>(B);

impl<B: RegisterBus> RegisterBus for StuckKeyBit<B> {
    fn read32(&mut self, offset: usize) -> Result<u32, BusFault> {
        self.0.read32(offset)
    }
    fn write32(&mut self, offset: usize, value: u32) -> Result<(), BusFault> {
        let value = if offset == r::key(7) {
            value ^ 1
        } else {
            value
        };
        self.0.write32(offset, value)
    }
}

#[test]
fn a_self_test_failure_refuses_service() {
    let board = Board::new();
    let mut stuck = board.driver_with(StuckKeyBit(board.soc.cryp()));
    let Err(InitError::SelfTest(failure)) = stuck.init() else {
        panic!("a corrupted key passes no vector")
    };
    assert_eq!((failure.route, failure.op), (Route::Pio, CipherOp::Encrypt));
    let board = Board::new();
    let mut driver = board.driver_with(NoKeyPreparation(board.soc.cryp()));
    let err = driver.init().unwrap_err();
    let InitError::SelfTest(failure) = err else {
        panic!("expected a self-test failure, got {err:?}")
    };
    // Encryption passes; the first decryption (ECB needs the prepared key) does not.
    assert_eq!(failure.route, Route::Pio);
    assert_eq!(failure.op, CipherOp::Decrypt);
    assert_eq!(failure.engine_error, None, "the engine answered, wrongly");
    assert_eq!(driver.health(), Health::Failed(failure));
    let mut rig = rig::rig(&board, driver);
    assert_eq!(
        rig.open(Mode::Cbc, Path::Adaptive, &hex(KEY), &[0; 16]),
        Err(CipherError::EngineFault),
        "a failed engine opens no session"
    );
}

#[test]
fn an_untested_driver_serves_nobody_and_a_gated_engine_says_no_power() {
    let board = Board::new();
    let driver = board.driver_with(board.soc.cryp());
    kit::an_untested_driver_serves_nobody(&mut rig::rig(&board, driver));
    let board = Board::new();
    let gate = board::stm32mp1::CRYP1.gate.unwrap();
    kit::a_gated_engine_says_no_power(&mut rig::rig(&board, board.driver()), || {
        engine_models::power::ClockController::new(board.gates, board.ledger)
            .write32(
                mmio::clkctrl::clkctrl(gate),
                mmio::clkctrl::MODULEMODE.val(mmio::clkctrl::MODULEMODE_DISABLED),
            )
            .unwrap()
    });
}

#[test]
fn the_self_test_covers_the_dma_path_too() {
    let board = Board::new();
    let rx = board::stm32mp1::CRYP1.dma.unwrap().1;
    let dead = kit::DeadRxChannel(board.soc.dma(), rx);
    let driver = board.driver_with_buses(board.soc.cryp(), dead);
    kit::the_self_test_covers_the_dma_path(driver, |d| rig::rig(&board, d));
}
