#![cfg_attr(target_os = "none", no_std, no_main)]
//! Client of an Rng driver, checking what can be checked of random bytes from outside:
//! a fill over three segments is answered with their length, changes them and nothing
//! around them, and two fills differ; a prediction-resistant session and a reseed
//! request reseed (the `health` call counts them); out-of-region and over-long fills
//! are refused by type. Where the system maps the model's `noise_control` region (the
//! host's getrandom-fed device), it then turns the source stuck, biased and erroring in
//! turn: each fill is `EntropyFailure`, writes nothing, and `health` names the check
//! that failed (repetition count, adaptive proportion, the device's own); back to
//! good, fills pass again and a session seeded before the failures has reseeded. Exits
//! 0 only when every answer is the expected one.
use crypto_client::driver::Rng;
use engine_models::noise_control::Fault;
use kat_client_pd::{About, Client, Passed};
use pd_idl::rng::{self, HealthTest, RngAlgorithm, RngError, RngOp, SourceState};
use pd_runtime::{ChannelSet, Handler};
use shared_region::SharedRegion;

const LEGEND: &str = "fills: fills answered as expected; refused: bad requests refused by type; closed: fills refused while the source failed, nothing written; recovered: fills passing once it was good again";
const ABOUT: About = About::new("kat-rng", "answers", "SP 800-90A/B behaviour", LEGEND);

/// A fill's three segments (odd places and lengths) and the bytes around them.
const SEGS: [(u32, u32); 3] = [(0x11, 1), (0x101, 37), (0x401, 4096)];
const AROUND: [u32; 6] = [0x10, 0x12, 0x100, 0x126, 0x400, 0x1401];
const PR_AT: (u32, u32) = (0x2001, 64);
/// What the client writes before a fill: bytes a fill must change (all but by chance).
const MARK: u8 = 0xee;

#[derive(Clone, Copy, Debug)]
enum Step {
    Fill,
    FillAgain,
    Resistant,
    Reseed,
    OutOfRange,
    TooLong,
    Closed(Fault, HealthTest),
    Recovered,
    RecoveredPlain,
}

const STEPS: [Step; 12] = [
    Step::Fill,
    Step::FillAgain,
    Step::Resistant,
    Step::Reseed,
    Step::OutOfRange,
    Step::TooLong,
    // A source with a stuck detector of its own (an SoC RNG's seed error) reports it
    // before the service's repetition test sees 6 alike: either names a stuck source.
    Step::Closed(Fault::Stuck, HealthTest::RepetitionCount),
    Step::Closed(Fault::Biased, HealthTest::AdaptiveProportion),
    Step::Recovered,
    Step::RecoveredPlain,
    Step::Closed(Fault::DeviceError, HealthTest::DeviceError),
    Step::Recovered,
];
/// The steps a system without the control region runs.
const UNCONTROLLED: usize = 6;

struct Kat {
    client: Client<Rng>,
    control: Option<SharedRegion<'static>>,
    plain: u32,
    resistant: u32,
    step: usize,
    first: [u8; 64],
    passed: Passed<4>,
}

impl Kat {
    fn steps(&self) -> usize {
        if self.control.is_some() {
            STEPS.len()
        } else {
            UNCONTROLLED
        }
    }

    fn set_mode(&self, fault: Fault) {
        if let Some(c) = self.control {
            c.write_bytes(0, &[fault.byte()]);
        }
    }

    fn mark(&self, (at, len): (u32, u32)) {
        for i in 0..len {
            self.client.data.write(at + i, &[MARK]);
        }
    }

    fn unchanged(&self, (at, len): (u32, u32)) -> bool {
        (0..len).all(|i| {
            let mut b = [0];
            self.client.data.read(at + i, &mut b);
            b[0] == MARK
        })
    }

    fn health(&mut self, session: u32) -> Option<rng::Health> {
        match self.client.driver.calls.health(session) {
            Ok(h) => Some(h),
            Err(e) => {
                self.client.fail(format_args!("health: {e:?}"));
                None
            }
        }
    }

    fn send(&mut self) {
        if self.step == self.steps() {
            self.finish();
        }
        let id = self.client.fresh_id();
        let req = match STEPS[self.step] {
            Step::Fill | Step::FillAgain | Step::RecoveredPlain => {
                for &s in &SEGS {
                    self.mark(s);
                }
                for &a in &AROUND {
                    self.mark((a, 1));
                }
                rng::Request::over(id, self.plain, RngOp::Fill, &SEGS)
            }
            Step::Resistant | Step::Recovered => {
                self.set_mode(Fault::None);
                self.mark(PR_AT);
                rng::Request::over(id, self.resistant, RngOp::Fill, &[PR_AT])
            }
            Step::Closed(mode, _) => {
                self.set_mode(mode);
                self.mark(PR_AT);
                rng::Request::over(id, self.resistant, RngOp::Fill, &[PR_AT])
            }
            Step::Reseed => rng::Request::over(id, self.plain, RngOp::Reseed, &[]),
            Step::OutOfRange => {
                let end = self.client.data.0.size as u32;
                rng::Request::over(id, self.plain, RngOp::Fill, &[(end - 8, 16)])
            }
            Step::TooLong => {
                rng::Request::over(id, self.plain, RngOp::Fill, &[(0, 1 << 16), (1 << 16, 1)])
            }
        };
        self.client.submit(req);
    }

    fn check(&mut self, resp: rng::Response) {
        let step = STEPS[self.step];
        let status = resp.status.check();
        let total: u32 = SEGS.iter().map(|s| s.1).sum();
        let (right, counter) = match step {
            Step::Fill | Step::FillAgain | Step::RecoveredPlain => {
                let mut head = [0u8; 64];
                self.client.data.read(SEGS[2].0, &mut head);
                let around = AROUND.iter().all(|&a| self.unchanged((a, 1)));
                let changed = SEGS.iter().filter(|&&s| !self.unchanged(s)).count();
                let fresh = match step {
                    Step::Fill => {
                        self.first = head;
                        true
                    }
                    _ => head != self.first,
                };
                let reseeded = match step {
                    // Its Reseed, then the failures' reseed.
                    Step::RecoveredPlain => self.health(self.plain).is_some_and(|h| h.reseeds == 2),
                    _ => true,
                };
                let ok = status == Ok(Ok(())) && resp.bytes_done == total;
                // The 1-byte segment is MARK again by chance once in 256: not counted.
                (ok && around && changed >= 2 && fresh && reseeded, 0)
            }
            Step::Resistant | Step::Recovered => {
                let ok =
                    status == Ok(Ok(())) && resp.bytes_done == PR_AT.1 && !self.unchanged(PR_AT);
                // The first fill instantiates (no reseed); each later one reseeds first.
                let recovered = matches!(step, Step::Recovered);
                let healthy = self.health(self.resistant).is_some_and(|h| {
                    h.state.get() == Ok(SourceState::Healthy) && (h.reseeds >= 1) == recovered
                });
                (ok && healthy, if recovered { 3 } else { 0 })
            }
            Step::Reseed => {
                let ok = status == Ok(Ok(())) && resp.bytes_done == 0;
                (
                    ok && self.health(self.plain).is_some_and(|h| h.reseeds == 1),
                    0,
                )
            }
            Step::OutOfRange => (status == Ok(Err(RngError::SegmentOutOfRange)), 1),
            Step::TooLong => (status == Ok(Err(RngError::TooLong)), 1),
            Step::Closed(mode, test) => {
                let refused = status == Ok(Err(RngError::EntropyFailure)) && resp.bytes_done == 0;
                let h = self.health(self.resistant);
                let by = h.map(|h| h.last_failure.get());
                let stuck_by_device =
                    mode == Fault::Stuck && by == Some(Ok(HealthTest::DeviceError));
                let named = h.is_some_and(|h| h.state.get() != Ok(SourceState::Healthy))
                    && (by == Some(Ok(test)) || stuck_by_device);
                pd_runtime::debug_println!("kat-rng: mode {}: closed by {by:?}", mode.byte());
                (refused && self.unchanged(PR_AT) && named, 2)
            }
        };
        if right {
            self.passed.counts[counter] += 1;
        } else {
            self.client.fail(format_args!(
                "{step:?}: {:?}, {} bytes",
                resp.status, resp.bytes_done
            ));
        }
        self.step += 1;
        self.send();
    }

    fn finish(&mut self) -> ! {
        self.set_mode(Fault::None);
        self.client.opened(RngAlgorithm::CtrDrbgAes256 as u8);
        let offered = self.client.driver.calls.capabilities();
        self.client.agree(offered);
        self.client.close(self.plain);
        self.client.close(self.resistant);
        let control = if self.control.is_some() {
            "; stuck, biased and erroring source injected"
        } else {
            "; no noise_control: no faults injected"
        };
        self.client
            .conclude(self.passed.total(), &self.passed, &control)
    }
}

impl Handler for Kat {
    fn notified(&mut self, _: ChannelSet) {
        for r in self.client.answers::<4>() {
            self.check(r);
        }
    }
}

fn init() -> Kat {
    let mut client = Client::<Rng>::map(&ABOUT);
    let mut open =
        |pr: u8| match client
            .driver
            .calls
            .open_session(RngAlgorithm::CtrDrbgAes256, pr, 0)
        {
            Ok(s) => s,
            Err(e) => panic!("kat-rng: open_session: {e:?}"),
        };
    let (plain, resistant) = (open(0), open(1));
    let control = pd_runtime::maybe_memory_region!(noise_control).map(|r| {
        // SAFETY: mapped read-write for the PD's life; written only by volatile copies.
        unsafe { SharedRegion::from_raw(r.vaddr, r.size) }
    });
    let mut kat = Kat {
        client,
        control,
        plain,
        resistant,
        step: 0,
        first: [0; 64],
        passed: Passed::new(["fills", "refused", "closed", "recovered"]),
    };
    kat.send();
    kat
}

pd_runtime::protection_domain!(init);
