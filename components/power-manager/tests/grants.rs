//! The power manager against the clock-controller model: transitions happen once per
//! session burst, autosuspend gates later, faulted holders lose their grants.

use core::cell::Cell;

use cost_ledger::{Event, Ledger};
use engine_models::power::{ClockController, GateBlock};
use mmio::clkctrl::{IDLEST, MODULEMODE, MODULEMODE_ENABLE};
use mmio::{BusFault, RegisterBus};
use pd_idl::power::{Engine, PowerError};
use pd_idl::wire::Caller;
use power_manager::{ConfigError, EngineConfig, PowerManager};

const OMAP: EngineConfig = EngineConfig {
    engine: Engine::OmapAes,
    gate: 3,
    autosuspend_ms: 1000,
};
const STM: EngineConfig = EngineConfig {
    engine: Engine::Stm32Cryp,
    gate: 5,
    autosuspend_ms: 50,
};
const DRIVER: Caller = Caller(1);
const OTHER: Caller = Caller(2);

struct Rig {
    gates: GateBlock,
    ledger: Ledger,
}

impl Rig {
    fn new() -> Self {
        Rig {
            gates: GateBlock::new(),
            ledger: Ledger::new(),
        }
    }
    fn manager(&self) -> PowerManager<ClockController<'_>> {
        PowerManager::new(
            ClockController::new(&self.gates, &self.ledger),
            &[OMAP, STM],
        )
        .unwrap()
    }
}

#[test]
fn engine_values_index_the_table() {
    for (i, e) in Engine::ALL.iter().enumerate() {
        assert_eq!(
            *e as usize,
            i + 1,
            "slot_index assumes values 1..=N in order"
        );
    }
}

#[test]
fn one_power_cycle_per_session_burst() {
    let rig = Rig::new();
    let mut pm = rig.manager();
    assert!(!rig.gates.is_clocked(OMAP.gate));
    // A burst of sessions, back to back: the engine stays up between them.
    for burst in 0..100u64 {
        let grant = pm.acquire(DRIVER, Engine::OmapAes).unwrap();
        assert!(rig.gates.is_clocked(OMAP.gate));
        pm.release(DRIVER, grant, burst * 10).unwrap();
        assert_eq!(pm.poll(burst * 10 + 5).next, Some(burst * 10 + 1000));
    }
    assert_eq!(rig.ledger.get(Event::PowerOn), 1);
    assert_eq!(rig.ledger.get(Event::PowerOff), 0);
    // Quiet for the autosuspend delay: gated once.
    assert_eq!(pm.poll(990 + 999).next, Some(990 + 1000));
    assert!(rig.gates.is_clocked(OMAP.gate));
    assert_eq!(pm.poll(990 + 1000).next, None);
    assert!(!rig.gates.is_clocked(OMAP.gate));
    assert_eq!(rig.ledger.get(Event::PowerOff), 1);
    assert_eq!(pm.stats().power_on, 1);
    assert_eq!(pm.stats().power_off, 1);
}

#[test]
fn holders_are_counted_and_acquire_is_idempotent() {
    let rig = Rig::new();
    let mut pm = rig.manager();
    let a = pm.acquire(DRIVER, Engine::Stm32Cryp).unwrap();
    assert_eq!(
        pm.acquire(DRIVER, Engine::Stm32Cryp).unwrap(),
        a,
        "same grant"
    );
    let b = pm.acquire(OTHER, Engine::Stm32Cryp).unwrap();
    assert_eq!(pm.holders(Engine::Stm32Cryp), 2);
    pm.release(DRIVER, a, 0).unwrap();
    assert_eq!(
        pm.release(DRIVER, a, 0),
        Err(PowerError::NotHeld),
        "released twice"
    );
    assert_eq!(
        pm.poll(10_000).next,
        None,
        "still held by OTHER: no deadline"
    );
    assert!(pm.is_clocked(Engine::Stm32Cryp));
    pm.release(OTHER, b, 100).unwrap();
    assert_eq!(pm.poll(149).next, Some(150));
    assert_eq!(pm.poll(150).next, None);
    assert!(!rig.gates.is_clocked(STM.gate));
    assert_eq!(rig.ledger.get(Event::PowerOn), 1);
}

#[test]
fn faulted_holder_loses_its_grants() {
    let rig = Rig::new();
    let mut pm = rig.manager();
    let old = pm.acquire(DRIVER, Engine::OmapAes).unwrap();
    let stm = pm.acquire(DRIVER, Engine::Stm32Cryp).unwrap();
    pm.revoke(DRIVER, 0);
    assert_eq!(pm.holders(Engine::OmapAes), 0);
    assert_eq!(pm.holders(Engine::Stm32Cryp), 0);
    // The restarted driver's predecessor's grants are refused...
    assert_eq!(pm.release(DRIVER, old, 1), Err(PowerError::StaleGrant));
    assert_eq!(pm.release(DRIVER, stm, 1), Err(PowerError::StaleGrant));
    // ...and the new incarnation gets a new generation, with no power cycle if it comes
    // back within the autosuspend delay.
    let new = pm.acquire(DRIVER, Engine::OmapAes).unwrap();
    assert_ne!(new.generation, old.generation);
    assert_eq!(pm.release(DRIVER, new, 2), Ok(()));
    assert_eq!(
        rig.ledger.get(Event::PowerOn),
        2,
        "one per engine, none for the restart"
    );
    assert_eq!(pm.stats().refused, 2);
}

#[test]
fn bad_requests_are_refused() {
    let rig = Rig::new();
    let mut pm = rig.manager();
    assert_eq!(
        pm.acquire(DRIVER, Engine::Sec1),
        Err(PowerError::UnknownEngine)
    );
    let mut grant = pm.acquire(DRIVER, Engine::OmapAes).unwrap();
    assert_eq!(
        pm.release(OTHER, grant, 0),
        Err(PowerError::NotHeld),
        "not yours"
    );
    grant.engine.0 = 0xEE;
    assert_eq!(pm.release(DRIVER, grant, 0), Err(PowerError::UnknownEngine));
    grant.engine = Engine::VirtioCrypto.into();
    assert_eq!(pm.release(DRIVER, grant, 0), Err(PowerError::UnknownEngine));
    assert_eq!(
        pm.acquire(Caller(62), Engine::OmapAes),
        Err(PowerError::NotHeld)
    );
    assert!(rig.gates.is_clocked(OMAP.gate), "refusals change nothing");
}

#[test]
fn bad_configurations_are_refused() {
    let rig = Rig::new();
    let bus = || ClockController::new(&rig.gates, &rig.ledger);
    let far = EngineConfig { gate: 99, ..OMAP };
    assert_eq!(
        PowerManager::new(bus(), &[far]).err(),
        Some(ConfigError::GateOutOfRange(Engine::OmapAes))
    );
    assert_eq!(
        PowerManager::new(bus(), &[OMAP, OMAP]).err(),
        Some(ConfigError::Duplicate(Engine::OmapAes))
    );
}

/// A controller whose modules answer IDLEST "in transition" (1) for `reads` reads after
/// each ungate: a slow interface clock.
struct SlowWake<B> {
    bus: B,
    reads: u32,
    left: u32,
}

impl<B: RegisterBus> RegisterBus for SlowWake<B> {
    fn read32(&mut self, offset: usize) -> Result<u32, BusFault> {
        let v = self.bus.read32(offset)?;
        if self.left > 0 {
            self.left -= 1;
            return Ok(IDLEST.set(v, 1));
        }
        Ok(v)
    }
    fn write32(&mut self, offset: usize, value: u32) -> Result<(), BusFault> {
        if MODULEMODE.get(value) == MODULEMODE_ENABLE {
            self.left = self.reads;
        }
        self.bus.write32(offset, value)
    }
}

fn slow_manager(rig: &Rig, reads: u32) -> PowerManager<SlowWake<ClockController<'_>>> {
    let bus = SlowWake {
        bus: ClockController::new(&rig.gates, &rig.ledger),
        reads,
        left: 0,
    };
    PowerManager::new(bus, &[OMAP, STM]).unwrap()
}

#[test]
fn a_module_still_waking_is_not_granted_and_nothing_waits_for_it() {
    let rig = Rig::new();
    let mut pm = slow_manager(&rig, 1);
    assert_eq!(pm.poll(100).fault, None);
    assert_eq!(
        pm.acquire(DRIVER, Engine::OmapAes),
        Err(PowerError::Waking),
        "one IDLEST read, not functional yet"
    );
    assert_eq!(pm.holders(Engine::OmapAes), 0, "nothing is held");
    assert!(pm.is_clocked(Engine::OmapAes), "the ungate stands");
    let grant = pm.acquire(DRIVER, Engine::OmapAes).expect("functional now");
    assert_eq!(pm.holders(Engine::OmapAes), 1);
    assert_eq!(pm.stats().power_on, 1, "one transition for both acquires");
    pm.release(DRIVER, grant, 200).unwrap();
}

#[test]
fn a_waking_engine_nobody_comes_back_for_is_gated_at_its_autosuspend_deadline() {
    let rig = Rig::new();
    let mut pm = slow_manager(&rig, 1);
    assert_eq!(pm.poll(100).fault, None);
    assert_eq!(pm.acquire(DRIVER, Engine::OmapAes), Err(PowerError::Waking));
    assert_eq!(pm.poll(100 + OMAP.autosuspend_ms).fault, None);
    assert!(!pm.is_clocked(Engine::OmapAes));
    assert!(!rig.gates.is_clocked(OMAP.gate));
    assert_eq!(pm.stats().power_off, 1);
}

/// A manager that restarts finds an engine still clocked (its driver held it): it
/// adopts it with no holder, to be gated at the autosuspend deadline unless the driver
/// acquires it again first, which keeps it clocked for that driver.
#[test]
fn a_restarted_manager_adopts_what_is_clocked_and_gates_it_unless_re_acquired() {
    let rig = Rig::new();
    {
        let mut before = rig.manager();
        before.acquire(DRIVER, Engine::OmapAes).unwrap();
        before.acquire(OTHER, Engine::Stm32Cryp).unwrap();
        // Then it dies with both held.
    }
    let mut pm = rig.manager();
    assert_eq!(pm.adopt(1000), Ok(2));
    assert!(pm.is_clocked(Engine::OmapAes) && pm.is_clocked(Engine::Stm32Cryp));
    assert_eq!(pm.holders(Engine::OmapAes), 0);
    // The OMAP driver re-acquires (told to by the restarted manager); STM32's does not.
    let grant = pm.acquire(DRIVER, Engine::OmapAes).unwrap();
    assert_eq!(pm.stats().power_on, 0, "still clocked: no transition");
    assert_eq!(pm.poll(1000 + STM.autosuspend_ms).fault, None);
    assert!(
        !rig.gates.is_clocked(STM.gate),
        "nobody came back for STM32"
    );
    assert!(rig.gates.is_clocked(OMAP.gate), "held again");
    assert_eq!(pm.poll(1000 + OMAP.autosuspend_ms).fault, None);
    assert!(
        rig.gates.is_clocked(OMAP.gate),
        "a holder: never gated under it"
    );
    pm.release(DRIVER, grant, 5000).unwrap();
    assert_eq!(pm.poll(5000 + OMAP.autosuspend_ms).fault, None);
    assert!(!rig.gates.is_clocked(OMAP.gate));
}

/// A controller that fails the next `reads` reads, or the next `gate_writes` writes
/// that gate a module.
struct Flaky<'c, B> {
    bus: B,
    reads: &'c Cell<u32>,
    gate_writes: &'c Cell<u32>,
}

/// Takes one from `left` if any is left.
fn spend(left: &Cell<u32>) -> bool {
    let n = left.get();
    left.set(n.saturating_sub(1));
    n > 0
}

impl<B: RegisterBus> RegisterBus for Flaky<'_, B> {
    fn read32(&mut self, offset: usize) -> Result<u32, BusFault> {
        if spend(self.reads) {
            return Err(BusFault::NoDevice);
        }
        self.bus.read32(offset)
    }
    fn write32(&mut self, offset: usize, value: u32) -> Result<(), BusFault> {
        if MODULEMODE.get(value) != MODULEMODE_ENABLE && spend(self.gate_writes) {
            return Err(BusFault::NoDevice);
        }
        self.bus.write32(offset, value)
    }
}

fn flaky_manager<'c>(
    rig: &'c Rig,
    reads: &'c Cell<u32>,
    gate_writes: &'c Cell<u32>,
) -> PowerManager<Flaky<'c, ClockController<'c>>> {
    let bus = Flaky {
        bus: ClockController::new(&rig.gates, &rig.ledger),
        reads,
        gate_writes,
    };
    PowerManager::new(bus, &[OMAP, STM]).unwrap()
}

/// The ungate went through and the read that follows it failed: the acquire fails
/// typed, and the engine it left clocked, held by no one, is still gated by autosuspend
/// (it was left clocked for good).
#[test]
fn an_engine_ungated_behind_a_failed_read_is_still_autosuspended() {
    let (rig, reads, gate_writes) = (Rig::new(), Cell::new(0), Cell::new(0));
    let mut pm = flaky_manager(&rig, &reads, &gate_writes);
    assert_eq!(pm.poll(100).fault, None);
    reads.set(1);
    assert_eq!(
        pm.acquire(DRIVER, Engine::OmapAes),
        Err(PowerError::ControllerFault)
    );
    assert!(rig.gates.is_clocked(OMAP.gate), "the ungate stands");
    assert_eq!(pm.holders(Engine::OmapAes), 0);
    assert_eq!(pm.poll(100 + OMAP.autosuspend_ms - 1).next, Some(1100));
    assert_eq!(pm.poll(100 + OMAP.autosuspend_ms).fault, None);
    assert!(!rig.gates.is_clocked(OMAP.gate));
    assert_eq!(pm.stats().power_off, 1);
}

/// A gate write that fails leaves that engine due (tried at the next poll, which the
/// deadline returned asks for) and does not keep the engines after it from being gated.
#[test]
fn a_failed_gate_is_tried_again_and_stops_no_other() {
    let (rig, reads, gate_writes) = (Rig::new(), Cell::new(0), Cell::new(0));
    let mut pm = flaky_manager(&rig, &reads, &gate_writes);
    assert_eq!(pm.poll(0).fault, None);
    for (engine, at) in [(Engine::OmapAes, 0), (Engine::Stm32Cryp, 950)] {
        let grant = pm.acquire(DRIVER, engine).unwrap();
        pm.release(DRIVER, grant, at).unwrap();
    }
    // Both due at 1000; the first gate write (OMAP's, the first slot) fails.
    gate_writes.set(1);
    let polled = pm.poll(1000);
    assert_eq!(polled.fault, Some(BusFault::NoDevice));
    assert_eq!(polled.next, Some(1000), "OMAP is still due");
    assert!(rig.gates.is_clocked(OMAP.gate));
    assert!(!rig.gates.is_clocked(STM.gate), "gated all the same");
    assert_eq!(pm.poll(1001), Default::default());
    assert!(!rig.gates.is_clocked(OMAP.gate));
    assert_eq!(pm.stats().power_off, 2);
}
