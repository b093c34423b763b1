//! Test support shared by the PIO/DMA engines' tests (feature `testkit`, host only):
//! the checks OMAP AES and STM32 CRYP must both pass, written once over the shared
//! driver half; each engine's tests give only their board (its model, its gate, the
//! crossover SOURCES.md publishes for it).

use std::ops::RangeInclusive;
use std::vec;

use std::vec::Vec;

use cipher_service::testkit::{CLIENT, Layout, Rig, hex, request, status};
use cost_ledger::{CostTable, Counts, Event, Ledger};
use engine_models::power::{ClockController, GateBlock};
use kat_vectors::{CipherVector, PLAIN, SP800_38A};
use mmio::{BusFault, RegisterBus};
use pd_idl::cipher::{CipherError, CipherOp, Mode, Path};
use pd_idl::wire::Caller;

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

/// A ready driver whose engine `device` loses its clock (its grant revoked: the gate is
/// turned off in the board's clock controller over `gates`) answers `NoPower`.
pub fn a_gated_engine_says_no_power<E: PioDmaEngine, M: Meter>(
    rig: &mut Rig<Driver<'static, E, M>>,
    gates: &GateBlock,
    ledger: &Ledger,
    device: board::Device,
) {
    let s = rig.open(Mode::Ecb, Path::Pio, &KEY, &[0; 16]).unwrap();
    let gate = device.gate.expect("the engine has a clock gate");
    ClockController::new(gates, ledger)
        .write32(
            mmio::clkctrl::clkctrl(gate),
            mmio::clkctrl::MODULEMODE.val(mmio::clkctrl::MODULEMODE_DISABLED),
        )
        .unwrap();
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

/// Encrypts and decrypts `vector` on `path` with each split (the vector's first bytes,
/// as many as the split covers), a session each; checks the path the driver reports
/// (`Adaptive` takes PIO at these sizes).
pub fn both_ways<E: PioDmaEngine, M: Meter>(
    rig: &mut Rig<Driver<'static, E, M>>,
    vector: CipherVector,
    path: Path,
    splits: &[Vec<u32>],
    layout: Layout,
) {
    let (name, mode, key, iv, ct) = vector;
    let (plain, ct, key, iv) = (hex(PLAIN), hex(ct), hex(key), hex(iv));
    let want_path = if path == Path::Adaptive {
        Path::Pio
    } else {
        path
    };
    for split in splits {
        let n: u32 = split.iter().sum();
        let (plain, ct) = (&plain[..n as usize], &ct[..n as usize]);
        for (op, input, want) in [
            (CipherOp::Encrypt, plain, ct),
            (CipherOp::Decrypt, ct, plain),
        ] {
            let s = rig.open(mode, path, &key, &iv).unwrap();
            let got = rig.crypt(s, op, input, split, layout);
            assert_eq!(got.as_deref(), Ok(want), "{name} {op:?} {path:?} {split:?}");
            assert_eq!(rig.last_path, Some(want_path), "{name} {split:?}");
            rig.service.close(CLIENT, s).unwrap();
        }
    }
}

/// Every SP 800-38A vector on PIO, split at every byte offset (and once in four odd
/// pieces), scattered: the PIO path gathers blocks across segments.
pub fn sp800_38a_pio_split_at_every_offset<E: PioDmaEngine, M: Meter>(
    rig: &mut Rig<Driver<'static, E, M>>,
) {
    let mut splits: Vec<Vec<u32>> = vec![vec![64]];
    splits.extend((1..64).map(|k| vec![k, 64 - k]));
    splits.push(vec![5, 27, 1, 31]);
    for &v in SP800_38A {
        both_ways(rig, v, Path::Pio, &splits, Layout::Scattered);
    }
}

/// Two clients with different keys and modes interleave on one engine: client A
/// CBC-AES128 (SP 800-38A F.2.1) forced DMA in requests of `a_bytes`, client B CTR-AES256
/// (F.5.5) on PIO a block at a time through its own channel between A's; both get the
/// published ciphertext.
pub fn two_clients_interleave<E: PioDmaEngine, M: Meter>(
    rig: &mut Rig<Driver<'static, E, M>>,
    a_bytes: usize,
) {
    let plain = hex(PLAIN);
    let vector = |name| *SP800_38A.iter().find(|v| v.0 == name).expect("published");
    let (cbc, ctr) = (vector("F.2.1 CBC-AES128"), vector("F.5.5 CTR-AES256"));
    let a = rig
        .open_as(CLIENT, cbc.1, Path::Dma, &hex(cbc.2), &hex(cbc.3))
        .unwrap();
    let b = rig
        .open_as(Caller(9), ctr.1, Path::Pio, &hex(ctr.2), &hex(ctr.3))
        .unwrap();
    let (mut out_a, mut out_b) = (Vec::new(), Vec::new());
    let mut id = 100;
    for chunk in plain.chunks(a_bytes) {
        let split = [a_bytes as u32];
        out_a.extend(
            rig.crypt(a, CipherOp::Encrypt, chunk, &split, Layout::Aligned)
                .unwrap(),
        );
        for block in chunk.chunks(16) {
            let at = 2048usize;
            rig.bytes()[at..at + 16].copy_from_slice(block);
            let answer = rig.exchange(Caller(9), &[request(id, b, &[(at as u32, 16)])]);
            id += 1;
            assert_eq!(status(&answer[0]), Ok(()));
            out_b.extend_from_slice(&rig.bytes()[at..at + 16]);
        }
    }
    assert_eq!(out_a, hex(cbc.4));
    assert_eq!(out_b, hex(ctr.4));
}
