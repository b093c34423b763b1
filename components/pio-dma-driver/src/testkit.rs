//! Test support shared by the PIO/DMA engines' tests (feature `testkit`, host only):
//! the checks OMAP AES and STM32 CRYP must both pass, written once over the shared
//! driver half; each engine's tests give only their board (its model, its gate, the
//! crossover SOURCES.md publishes for it).

use std::ops::RangeInclusive;
use std::vec;

use cipher_service::testkit::{Layout, Rig};
use cost_ledger::{CostTable, Counts, Event, Ledger};
use mmio::{BusFault, RegisterBus};
use pd_idl::cipher::{CipherError, CipherOp, Mode, Path};

use crate::calibrate::{KEY_LENS, MODES};
use crate::{Driver, Health, InitError, Meter, PioDmaEngine, Route};

/// SP 800-38A's AES-128 key.
const KEY: [u8; 16] = [
    0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6, 0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c,
];

/// Ledger counts of what `f` did.
pub fn counted<R>(ledger: &Ledger, f: impl FnOnce() -> R) -> (R, Counts) {
    let before = ledger.snapshot();
    let r = f();
    (r, ledger.snapshot().since(&before))
}

/// CPU-copied client bytes in a count.
pub fn copied(c: &Counts) -> u64 {
    c.get(Event::CpuCopyByte)
}

/// The crossover calibrated at init lies in `bytes` for every mode and key size, with DMA
/// faster there than PIO. `-- --nocapture` prints the table.
pub fn crossover_in<E: PioDmaEngine, M: Meter>(
    driver: &Driver<'_, E, M>,
    bytes: RangeInclusive<u32>,
) {
    let cal = driver.calibration();
    std::println!("mode key  DMA from  PIO us  DMA us (at that size)");
    for &mode in &MODES {
        for &key in &KEY_LENS {
            let c = cal.get(mode, key);
            std::println!(
                "{mode:?} {:3}  {:5} B  {:6.1}  {:6.1}",
                u32::from(key) * 8,
                c.dma_from_bytes,
                c.pio_ps as f64 / 1e6,
                c.dma_ps as f64 / 1e6
            );
            assert!(
                bytes.contains(&c.dma_from_bytes),
                "{mode:?}/{key}: DMA from {} B, not in {bytes:?}",
                c.dma_from_bytes
            );
            assert!(c.dma_ps < c.pio_ps);
        }
    }
}

/// One block below the crossover PIO is faster, at it DMA is: measured through the
/// service as clients see it (with the per-request cost on both), in `costs`' time.
pub fn calibration_agrees_with_requests<E: PioDmaEngine, M: Meter>(
    rig: &mut Rig<Driver<'static, E, M>>,
    ledger: &Ledger,
    costs: &CostTable,
) {
    let from = rig
        .service
        .engine
        .calibration()
        .get(Mode::Cbc, 16)
        .dma_from_bytes;
    let key = [7u8; 16];
    let mut time = |path, n: u32| {
        let s = rig.open(Mode::Cbc, path, &key, &[0; 16]).unwrap();
        let data = vec![0u8; n as usize];
        let (_, c) = counted(ledger, || {
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

/// A driver whose `init` never ran serves nobody.
pub fn an_untested_driver_serves_nobody<E: PioDmaEngine, M: Meter>(
    rig: &mut Rig<Driver<'static, E, M>>,
) {
    assert_eq!(rig.service.engine.health(), Health::Untested);
    assert_eq!(
        rig.open(Mode::Ecb, Path::Pio, &KEY, &[0; 16]),
        Err(CipherError::EngineFault)
    );
}

/// A ready driver whose engine loses its clock (its grant revoked: `gate` gates it)
/// answers `NoPower`.
pub fn a_gated_engine_says_no_power<E: PioDmaEngine, M: Meter>(
    rig: &mut Rig<Driver<'static, E, M>>,
    gate: impl FnOnce(),
) {
    let s = rig.open(Mode::Ecb, Path::Pio, &KEY, &[0; 16]).unwrap();
    gate();
    assert_eq!(
        rig.crypt(s, CipherOp::Encrypt, &[0; 16], &[16], Layout::Aligned),
        Err(CipherError::NoPower)
    );
}

/// A DMA bus on which the out channel (`.1`) never starts: the DMA path stalls.
pub struct DeadRxChannel<B>(pub B, pub usize);

impl<B: RegisterBus> RegisterBus for DeadRxChannel<B> {
    fn read32(&mut self, offset: usize) -> Result<u32, BusFault> {
        self.0.read32(offset)
    }
    fn write32(&mut self, offset: usize, value: u32) -> Result<(), BusFault> {
        let value = if offset == mmio::edma::EESR {
            value & !(1 << self.1)
        } else {
            value
        };
        self.0.write32(offset, value)
    }
}

/// The self-test of a driver whose DMA stalls (a [`DeadRxChannel`]) refuses it, though
/// PIO alone would work: DMA is a path it would use. `rig` makes the client rig.
pub fn the_self_test_covers_the_dma_path<E: PioDmaEngine, M: Meter>(
    mut driver: Driver<'static, E, M>,
    rig: impl FnOnce(Driver<'static, E, M>) -> Rig<Driver<'static, E, M>>,
) {
    let Err(InitError::SelfTest(failure)) = driver.init() else {
        panic!("a dead DMA channel fails the self-test")
    };
    assert_eq!(failure.route, Route::Dma);
    assert!(
        failure.engine_error.is_some(),
        "the engine stalled: {failure:?}"
    );
    let mut rig = rig(driver);
    assert_eq!(
        rig.open(Mode::Ctr, Path::Pio, &KEY, &[0; 16]),
        Err(CipherError::EngineFault),
        "not even PIO is served by a driver that failed its self-test"
    );
}

/// A driver whose self-test failed on `route` for `op` (the engine answered, wrongly)
/// reports it and opens no session.
pub fn a_wrong_answer_refuses_service<E: PioDmaEngine, M: Meter>(
    mut driver: Driver<'static, E, M>,
    route: Route,
    op: CipherOp,
    rig: impl FnOnce(Driver<'static, E, M>) -> Rig<Driver<'static, E, M>>,
) {
    let err = driver.init().unwrap_err();
    let InitError::SelfTest(failure) = err else {
        panic!("expected a self-test failure, got {err:?}")
    };
    assert_eq!((failure.route, failure.op), (route, op), "{failure:?}");
    assert_eq!(failure.engine_error, None, "the engine answered, wrongly");
    assert_eq!(driver.health(), Health::Failed(failure));
    let mut rig = rig(driver);
    assert_eq!(
        rig.open(Mode::Cbc, Path::Adaptive, &KEY, &[0; 16]),
        Err(CipherError::EngineFault),
        "a failed engine opens no session"
    );
}
