//! The power manager's logic, as a host-testable library (the PD entry only wires its
//! channels and timer to it).
//!
//! The power manager is the only PD that maps the power/clock controller. Drivers
//! `acquire` an engine when their first client session opens and `release` it when the
//! last one closes: a power transition per session burst, never per request (the omap-aes idle/start patch:
//! runtime PM per request cost OMAP AES 42% of its throughput at 16 bytes).
//!
//! * Each engine has a set of holders (the callers' channel ids): the reference count is
//!   its size. Acquiring twice is idempotent: the same grant, no second hold.
//! * The first acquire of a gated engine ungates it (the board's cost table charges the
//!   resume latency) and looks once at IDLEST: a module not functional yet is not
//!   granted (`Waking`: acquire again; nothing waits on the controller, and an engine
//!   nobody comes back for is gated at its autosuspend deadline); the last release arms an autosuspend deadline (per engine: Linux
//!   uses 1000 ms for omap-aes, 50 ms for stm32-cryp), and [`PowerManager::poll`] gates
//!   the engine once it passes. An acquire before then cancels it, with no transition.
//! * A grant carries the holder's generation. When a holder faults, the runtime tells the
//!   power manager ([`PowerManager::revoke`]): its holds go and its generation moves on, so
//!   a grant from a previous incarnation is refused as `StaleGrant`.
//!
//! Assumes callers are Microkit channel ids (0..=61) and time is milliseconds from a
//! monotonic clock the PD reads. `no_std`, no heap: fixed tables.
#![no_std]
#![forbid(unsafe_code)]

use mmio::clkctrl::{
    self, IDLEST, IDLEST_FUNCTIONAL, MODULEMODE, MODULEMODE_DISABLED, MODULEMODE_ENABLE,
};
use mmio::{BusFault, RegisterBus};
use pd_idl::power::{Engine, Grant, PowerError};
use pd_idl::wire::Caller;

/// Callers are channel ids, 0..=61 (Microkit's limit).
pub const MAX_CALLERS: usize = 62;

/// How one engine is wired on this board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineConfig {
    pub engine: Engine,
    /// Its gate in the clock controller.
    pub gate: usize,
    /// Delay between the last release and gating.
    pub autosuspend_ms: u64,
}

#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    config: Option<EngineConfig>,
    /// Bit `c` set while caller `c` holds the engine.
    holders: u64,
    clocked: bool,
    /// IDLEST has read functional since the engine was last ungated.
    functional: bool,
    suspend_at: Option<u64>,
}

/// Power transitions and calls, for tests and the observability ring.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub power_on: u32,
    pub power_off: u32,
    pub acquires: u32,
    pub releases: u32,
    pub refused: u32,
}

/// Why the manager could not be set up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfigError {
    GateOutOfRange(Engine),
    Duplicate(Engine),
}

/// What a [`PowerManager::poll`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Polled {
    /// The earliest deadline still ahead, or passed but not yet met (an engine the
    /// controller failed to gate): for the PD to set its timer.
    pub next: Option<u64>,
    /// The first controller fault met while gating.
    pub fault: Option<BusFault>,
}

pub struct PowerManager<B> {
    bus: B,
    slots: [Slot; Engine::ALL.len()],
    generations: [u32; MAX_CALLERS],
    stats: Stats,
    /// The time of the last [`poll`](PowerManager::poll) (the PD polls on every event).
    now_ms: u64,
}

fn slot_index(engine: Engine) -> usize {
    // Engine values are 1..=N in declaration order (asserted in the tests).
    engine as usize - 1
}

impl<B: RegisterBus> PowerManager<B> {
    /// A manager for the engines this board has, all gated (the controller's reset state).
    pub fn new(bus: B, engines: &[EngineConfig]) -> Result<Self, ConfigError> {
        let mut slots = [Slot::default(); Engine::ALL.len()];
        for config in engines {
            if config.gate >= clkctrl::GATES {
                return Err(ConfigError::GateOutOfRange(config.engine));
            }
            let slot = &mut slots[slot_index(config.engine)];
            if slot.config.is_some() {
                return Err(ConfigError::Duplicate(config.engine));
            }
            slot.config = Some(*config);
        }
        Ok(PowerManager {
            bus,
            slots,
            generations: [1; MAX_CALLERS],
            stats: Stats::default(),
            now_ms: 0,
        })
    }

    /// At start, which may be a restart: an engine the controller shows ungated has no
    /// holder this manager knows of. It is adopted as clocked, to be gated at its
    /// autosuspend deadline unless a driver acquires it first (the PD tells its drivers
    /// to re-acquire what they hold), so nothing stays clocked without a holder and
    /// nothing a driver still uses is gated under it. Returns how many were adopted.
    pub fn adopt(&mut self, now_ms: u64) -> Result<usize, PowerError> {
        self.now_ms = now_ms;
        let mut adopted = 0;
        for slot in &mut self.slots {
            let Some(config) = slot.config else { continue };
            let v = self
                .bus
                .read32(clkctrl::clkctrl(config.gate))
                .map_err(|_| PowerError::ControllerFault)?;
            if MODULEMODE.get(v) == MODULEMODE_ENABLE {
                slot.clocked = true;
                slot.functional = IDLEST.get(v) == IDLEST_FUNCTIONAL;
                slot.suspend_at = Some(now_ms.saturating_add(config.autosuspend_ms));
                adopted += 1;
            }
        }
        Ok(adopted)
    }

    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// Callers holding `engine`.
    pub fn holders(&self, engine: Engine) -> u32 {
        self.slots[slot_index(engine)].holders.count_ones()
    }

    pub fn is_clocked(&self, engine: Engine) -> bool {
        self.slots[slot_index(engine)].clocked
    }

    /// See the crate docs.
    pub fn acquire(&mut self, caller: Caller, engine: Engine) -> Result<Grant, PowerError> {
        let c = self.caller_index(caller)?;
        let i = slot_index(engine);
        let config = self.slots[i].config.ok_or(PowerError::UnknownEngine)?;
        if !self.slots[i].clocked {
            self.ungate(config.gate)?;
            self.slots[i].clocked = true;
            self.slots[i].functional = false;
            self.stats.power_on += 1;
        }
        if !self.slots[i].functional {
            let ready = self.is_functional(config.gate);
            if ready != Ok(true) {
                // Clocked and granted to no one, waking or behind a controller that
                // did not answer: autosuspend gates it unless an acquire comes back.
                let slot = &mut self.slots[i];
                if slot.holders == 0 {
                    slot.suspend_at = Some(self.now_ms.saturating_add(config.autosuspend_ms));
                }
                return Err(ready.err().unwrap_or(PowerError::Waking));
            }
            self.slots[i].functional = true;
        }
        let slot = &mut self.slots[i];
        slot.suspend_at = None;
        slot.holders |= 1 << c;
        self.stats.acquires += 1;
        Ok(Grant {
            engine: engine.into(),
            reserved: [0; 3],
            generation: self.generations[c],
        })
    }

    /// See the crate docs.
    pub fn release(&mut self, caller: Caller, grant: Grant, now_ms: u64) -> Result<(), PowerError> {
        let c = self.caller_index(caller)?;
        let result = self.check_grant(c, grant);
        match result {
            Ok(i) => {
                self.drop_hold(i, c, now_ms);
                self.stats.releases += 1;
            }
            Err(_) => self.stats.refused += 1,
        }
        result.map(|_| ())
    }

    /// The holder on `caller` faulted: drop all its holds and refuse its old grants.
    pub fn revoke(&mut self, caller: Caller, now_ms: u64) {
        let Ok(c) = self.caller_index(caller) else {
            return;
        };
        self.generations[c] = self.generations[c].wrapping_add(1).max(1);
        for i in 0..self.slots.len() {
            if self.slots[i].holders & (1 << c) != 0 {
                self.drop_hold(i, c, now_ms);
            }
        }
    }

    /// Gates every engine whose autosuspend deadline has passed. An engine the
    /// controller failed to gate stays due, tried again at the next poll, and the
    /// engines after it are still gated.
    pub fn poll(&mut self, now_ms: u64) -> Polled {
        self.now_ms = now_ms;
        let mut polled = Polled::default();
        for i in 0..self.slots.len() {
            let Some(at) = self.slots[i].suspend_at else {
                continue;
            };
            if at <= now_ms {
                let gate = self.slots[i].config.map_or(0, |c| c.gate);
                let off = MODULEMODE.val(MODULEMODE_DISABLED);
                match self.bus.write32(clkctrl::clkctrl(gate), off) {
                    Ok(()) => {
                        let slot = &mut self.slots[i];
                        slot.clocked = false;
                        slot.functional = false;
                        slot.suspend_at = None;
                        self.stats.power_off += 1;
                        continue;
                    }
                    // Still due: the next poll tries again.
                    Err(e) => {
                        polled.fault.get_or_insert(e);
                    }
                }
            }
            polled.next = Some(polled.next.map_or(at, |n| n.min(at)));
        }
        polled
    }

    fn caller_index(&self, caller: Caller) -> Result<usize, PowerError> {
        let c = caller.0 as usize;
        if c < MAX_CALLERS {
            Ok(c)
        } else {
            Err(PowerError::NotHeld)
        }
    }

    fn check_grant(&self, c: usize, grant: Grant) -> Result<usize, PowerError> {
        let engine = grant.engine.get().map_err(|_| PowerError::UnknownEngine)?;
        let i = slot_index(engine);
        if self.slots[i].config.is_none() {
            return Err(PowerError::UnknownEngine);
        }
        if grant.generation != self.generations[c] {
            return Err(PowerError::StaleGrant);
        }
        if self.slots[i].holders & (1 << c) == 0 {
            return Err(PowerError::NotHeld);
        }
        Ok(i)
    }

    fn drop_hold(&mut self, i: usize, c: usize, now_ms: u64) {
        let slot = &mut self.slots[i];
        slot.holders &= !(1 << c);
        if slot.holders == 0 {
            let delay = slot.config.map_or(0, |c| c.autosuspend_ms);
            slot.suspend_at = Some(now_ms.saturating_add(delay));
        }
    }

    /// Ungates: MODULEMODE enabled; the module turns functional a few controller clocks
    /// later and raises no interrupt, so [`is_functional`](Self::is_functional) looks.
    fn ungate(&mut self, gate: usize) -> Result<(), PowerError> {
        self.bus
            .write32(clkctrl::clkctrl(gate), MODULEMODE.val(MODULEMODE_ENABLE))
            .map_err(|_| PowerError::ControllerFault)
    }

    /// Whether IDLEST reads functional: one read, never a wait (Linux's omap_hwmod
    /// polls here; a Microkit handler may not, so a caller that finds the module still
    /// waking acquires again).
    fn is_functional(&mut self, gate: usize) -> Result<bool, PowerError> {
        let v = self
            .bus
            .read32(clkctrl::clkctrl(gate))
            .map_err(|_| PowerError::ControllerFault)?;
        Ok(IDLEST.get(v) == IDLEST_FUNCTIONAL)
    }
}
