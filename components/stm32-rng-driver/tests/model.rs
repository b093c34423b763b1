//! The driver against the stm32mp1 RNG model (engine-models), through the Rng service:
//! fills come by the RNG's interrupt; a stuck noise source is caught by the RNG's own
//! seed-error detector (the device's error, `DeviceError` in `health`), a biased one the
//! detector cannot see by the service's proportion test, a clock error as the device's
//! error; each fails the service closed, writing nothing, and it recovers once the noise
//! is good again, through the reference manual's recovery sequence.
use std::cell::RefCell;
use std::rc::Rc;

use engine_models::stm32_rng::{Noise, Stm32Rng as Model};
use mmio::{BusFault, RegisterBus};
use pd_idl::rng::{HealthTest, OpenSessionArgs, Request, RngAlgorithm, RngError, RngOp};
use pd_idl::wire::{self, Message};
use queued_service::Interface;
use queued_service::testkit::{CLIENT, Region, Rig};
use rng_service::{Entropy, Rng};
use stm32_rng_driver::Stm32Rng;

/// The model shared by the driver's bus and the test.
#[derive(Clone)]
struct Bus(Rc<RefCell<Model>>);

impl RegisterBus for Bus {
    fn read32(&mut self, offset: usize) -> Result<u32, BusFault> {
        self.0.borrow_mut().read32(offset)
    }
    fn write32(&mut self, offset: usize, value: u32) -> Result<(), BusFault> {
        self.0.borrow_mut().write32(offset, value)
    }
}

type R = Rig<Rng<Stm32Rng<Bus>>>;

fn rig() -> (R, Rc<RefCell<Model>>, u32) {
    let model = Rc::new(RefCell::new(Model::default()));
    let dev = Stm32Rng::new(Bus(model.clone())).unwrap();
    let mut rig = Rig::new(Entropy::new(dev), Region::new(4096), None);
    let args = OpenSessionArgs {
        algorithm: RngAlgorithm::CtrDrbgAes256,
        prediction_resistance: 1,
        reseed_interval: 0,
    };
    let id = rig.open_as(CLIENT, args).unwrap();
    (rig, model, id)
}

/// One fill of 32 bytes at offset 0, served with the RNG's interrupts as the PD takes
/// them: while the line is up, the service's interrupt, then the acknowledgement.
fn fill(rig: &mut R, model: &Rc<RefCell<Model>>, id: u32) -> Result<u32, RngError> {
    let mut answers = rig.serve_once(CLIENT, &[Request::over(id, id, RngOp::Fill, &[(0, 32)])]);
    let mut polls = 0;
    while answers.is_empty() {
        assert!(model.borrow().irq(), "waiting with no interrupt coming");
        answers.extend(rig.interrupt().1.into_iter().map(|(_, r)| r));
        polls += 1;
        assert!(polls < 1000, "no answer");
    }
    match answers[0].status.check() {
        Ok(Ok(())) => Ok(answers[0].bytes_done),
        Ok(Err(e)) => Err(e),
        Err(raw) => panic!("{raw:?}"),
    }
}

fn last_failure(rig: &mut R, id: u32) -> HealthTest {
    let msg = Message::encode(pd_idl::rng::OP_HEALTH, &id);
    let reply = Rng::<Stm32Rng<Bus>>::call(
        &mut rig.service.engine,
        &mut rig.service.sessions,
        CLIENT,
        &msg,
    )
    .unwrap();
    let h: pd_idl::rng::Health = wire::decode_args(&reply).unwrap();
    h.last_failure.get().unwrap()
}

#[test]
fn fills_come_by_the_rng_interrupt() {
    let (mut rig, model, id) = rig();
    assert_eq!(fill(&mut rig, &model, id), Ok(32));
    assert!(
        model.borrow().words >= 256 + 16,
        "start-up and a seed from the RNG"
    );
    assert!(!model.borrow().irq(), "IE cleared when done");
    assert!(
        rig.data.bytes()[..32]
            .iter()
            .any(|&b| b != rig.data.bytes()[0])
    );
}

#[test]
fn each_fault_fails_closed_and_the_recovery_brings_it_back() {
    let cases = [
        (Noise::Stuck, false, HealthTest::DeviceError),
        (Noise::Biased, false, HealthTest::AdaptiveProportion),
        (Noise::Good, true, HealthTest::DeviceError),
    ];
    for (noise, clock, want) in cases {
        let (mut rig, model, id) = rig();
        assert_eq!(fill(&mut rig, &model, id), Ok(32));
        model.borrow_mut().set_noise(noise);
        model.borrow_mut().clock_error(clock);
        rig.data.write(0, &[0xee; 32]);
        let mut refused = false;
        for _ in 0..40 {
            match fill(&mut rig, &model, id) {
                Ok(_) => {}
                Err(e) => {
                    assert_eq!(e, RngError::EntropyFailure, "{noise:?} {clock}");
                    refused = true;
                    break;
                }
            }
            rig.data.write(0, &[0xee; 32]);
        }
        assert!(refused, "{noise:?} clock {clock}: never caught");
        assert_eq!(
            &rig.data.bytes()[..32],
            &[0xee; 32],
            "{noise:?}: nothing written"
        );
        assert_eq!(last_failure(&mut rig, id), want, "{noise:?} clock {clock}");
        // Still bad: still refused.
        assert_eq!(fill(&mut rig, &model, id), Err(RngError::EntropyFailure));
        model.borrow_mut().set_noise(Noise::Good);
        model.borrow_mut().clock_error(false);
        assert_eq!(fill(&mut rig, &model, id), Ok(32), "{noise:?}: recovered");
        assert!(rig.service.engine.source.recoveries >= 1);
    }
}
