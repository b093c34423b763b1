//! The power-manager PD over `power-manager`: `pd-idl` Power served by PPC to the driver
//! PDs, which are its children. One source for every board and both backends; a board's
//! binary names its engines and always-on devices and how to reach its clock controller.
//!
//! * Callers are channel ids; by convention a driver that is the manager's child `k`
//!   talks to it on channel `k`, so a child's fault names the holder whose grants go
//!   (`PowerManager::revoke`); then the child is restarted (Microkit's monitor model:
//!   the parent decides).
//! * Time: milliseconds since start from the host's monotonic clock. On seL4 the PD has
//!   no clock of its own yet (it needs a timer driver): time stands still, so a released
//!   engine stays clocked (never gated early, never wrongly); its deadline is kept.
//! * Autosuspend: the manager polls its deadlines on every event (call, notification,
//!   fault). A system that wires a timer PD (the channel end with `setvar_id="timer"`; on
//!   the host the `timer-tick` PD) is asked for a tick whenever a deadline is pending.
//! * Platform DMA controllers (EDMA, STM32 MDMA) are shared infrastructure, not an
//!   engine of the Power interface: the manager ungates them once at start.
//! * A board with no clock controller (QEMU `virt`) gets [`AlwaysOn`]: grants are kept
//!   as everywhere else (holders, generations, stale grants refused), nothing is gated.
//!
//! `no_std`, no heap; the host half reads `std`'s clock.
#![no_std]

#[cfg(not(target_os = "none"))]
extern crate std;

use mmio::clkctrl::{self, IDLEST, IDLEST_FUNCTIONAL, MODULEMODE, MODULEMODE_ENABLE};
use mmio::{BusFault, RegisterBus};
use pd_idl::power::{self, Engine, Grant, PowerError};
use pd_idl::wire::Caller;
use pd_runtime::{
    Channel, ChannelSet, Child, FaultKind, Handler, MessageInfo, debug_println, get_mr, ipc,
    pd_name,
};
use pd_trace::{Kind, Trace};
use power_manager::{EngineConfig, PowerManager};
use shm_queue::SharedRegion;

/// A board's engines and the gates of its always-on devices.
pub struct BoardPower {
    pub engines: &'static [EngineConfig],
    pub always_on: &'static [usize],
}

/// `dev`'s power configuration as `engine` (for a board's table, at compile time).
pub const fn engine(engine: Engine, dev: board::Device) -> EngineConfig {
    EngineConfig {
        engine,
        gate: dev.gate.expect("an engine with a clock gate"),
        autosuspend_ms: dev.autosuspend_ms as u64,
    }
}

/// The controller of a board that has none: every module reads functional, writes
/// change nothing.
pub struct AlwaysOn;

impl RegisterBus for AlwaysOn {
    fn read32(&mut self, _: usize) -> Result<u32, BusFault> {
        Ok(MODULEMODE.val(MODULEMODE_ENABLE) | IDLEST.val(IDLEST_FUNCTIONAL))
    }

    fn write32(&mut self, _: usize, _: u32) -> Result<(), BusFault> {
        Ok(())
    }
}

/// Milliseconds since the PD started (see the crate docs).
struct Clock {
    #[cfg(not(target_os = "none"))]
    start: std::time::Instant,
}

impl Clock {
    fn new() -> Self {
        Clock {
            #[cfg(not(target_os = "none"))]
            start: std::time::Instant::now(),
        }
    }

    #[cfg(not(target_os = "none"))]
    fn now_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    #[cfg(target_os = "none")]
    fn now_ms(&self) -> u64 {
        0
    }
}

pub struct PowerPd<C> {
    pm: PowerManager<C>,
    /// Counters and the last events, in the region `trace` if the system maps one.
    trace: Trace<'static>,
    clock: Clock,
    /// The timer PD's channel, if the system has one, and whether a tick is asked for.
    timer: Option<Channel>,
    tick_pending: bool,
}

/// The PD's `init`: the board's always-on devices ungated, its engines managed through
/// the controller `controller` makes (called once per use).
pub fn start<C: RegisterBus>(board: &BoardPower, mut controller: impl FnMut() -> C) -> PowerPd<C> {
    for &gate in board.always_on {
        controller()
            .write32(clkctrl::clkctrl(gate), MODULEMODE.val(MODULEMODE_ENABLE))
            .expect("the clock controller takes MODULEMODE");
    }
    let pm = PowerManager::new(controller(), board.engines)
        .expect("the board's engines have distinct gates");
    debug_println!("{}: managing {} engine(s)", pd_name(), board.engines.len());
    let trace = Trace::new(pd_runtime::maybe_memory_region!(trace).map(|r| {
        // SAFETY: mapped read-write for the PD's life; written only through atomics.
        unsafe { SharedRegion::from_raw(r.vaddr, r.size) }
    }));
    trace.record(Kind::Started, 0);
    let clock = Clock::new();
    let mut pm = pm;
    // Perhaps a restart: what is clocked has no holder we know of until its driver
    // acquires it again, which every driver is told to do when something is (a
    // notification on our end of its channel: `PowerHold::reacquire`; a driver holding
    // nothing ignores it).
    let timer = pd_runtime::maybe_var!(timer)
        .and_then(|id| u8::try_from(id).ok())
        .map(Channel::new);
    match pm.adopt(clock.now_ms()) {
        // A first start: nothing is clocked, nobody holds anything to tell us about.
        Ok(0) => {}
        Ok(n) => {
            debug_println!(
                "{}: {n} engine(s) found clocked with no holder; gated at their autosuspend deadline unless re-acquired",
                pd_name()
            );
            for ch in pd_runtime::notifiable().iter() {
                if Some(ch) != timer {
                    ch.notify();
                }
            }
        }
        Err(e) => debug_println!("{}: clock controller unreadable: {e:?}", pd_name()),
    }
    PowerPd {
        pm,
        trace,
        clock,
        timer,
        tick_pending: false,
    }
}

impl<C: RegisterBus> PowerPd<C> {
    fn poll(&mut self) {
        let now = self.clock.now_ms();
        let before = self.pm.stats().power_off;
        let polled = self.pm.poll(now);
        if let Some(e) = polled.fault {
            debug_println!(
                "{}: clock controller fault while gating (tried again at the next tick): {e:?}",
                pd_name()
            );
        }
        let next = polled.next;
        let gated = self.pm.stats().power_off - before;
        for _ in 0..gated {
            self.trace.record(Kind::Gated, now as u32);
        }
        if gated > 0 {
            debug_println!(
                "{}: autosuspend gated {gated} engine(s) at {now} ms",
                pd_name()
            );
        }
        if let (Some(timer), Some(_), false) = (self.timer, next, self.tick_pending) {
            self.tick_pending = true;
            timer.notify();
        }
    }
}

/// The Power server for one call, with the time it arrived.
struct Call<'a, C> {
    pm: &'a mut PowerManager<C>,
    trace: &'a Trace<'static>,
    now_ms: u64,
}

impl<C: RegisterBus> power::Server for Call<'_, C> {
    fn acquire(&mut self, caller: Caller, engine: Engine) -> Result<Grant, PowerError> {
        let on = self.pm.stats().power_on;
        let r = self.pm.acquire(caller, engine);
        let resumed = self.pm.stats().power_on > on;
        let holders = self.pm.holders(engine);
        if resumed {
            self.trace.record(Kind::PowerOn, engine as u32);
        }
        match &r {
            Ok(g) => self.trace.record(Kind::Granted, g.generation),
            Err(e) => self.trace.record(Kind::Refused, *e as u32),
        }
        match &r {
            Ok(g) => debug_println!(
                "{}: acquire {engine:?} by channel {}: granted, generation {} \
                 (holders {holders}, resumed {resumed})",
                pd_name(),
                caller.0,
                g.generation
            ),
            Err(e) => debug_println!(
                "{}: acquire {engine:?} by channel {}: refused {e:?}",
                pd_name(),
                caller.0
            ),
        }
        r
    }

    fn release(&mut self, caller: Caller, grant: Grant) -> Result<(), PowerError> {
        let r = self.pm.release(caller, grant, self.now_ms);
        match r {
            Ok(()) => self.trace.record(Kind::TakenBack, self.now_ms as u32),
            Err(e) => self.trace.record(Kind::Refused, e as u32),
        }
        debug_println!(
            "{}: release by channel {} (generation {}): {r:?} at {} ms",
            pd_name(),
            caller.0,
            grant.generation,
            self.now_ms
        );
        r
    }
}

impl<C: RegisterBus> Handler for PowerPd<C> {
    fn protected(&mut self, channel: Channel, msg: MessageInfo) -> MessageInfo {
        self.poll();
        let now_ms = self.clock.now_ms();
        let (pm, trace) = (&mut self.pm, &self.trace);
        let reply = ipc::serve(channel, msg, |caller, m| {
            power::dispatch(&mut Call { pm, trace, now_ms }, caller, m)
        });
        // A release may have armed a deadline: ask the timer for a tick (touches no
        // message words, so the reply stands).
        self.poll();
        reply
    }

    fn notified(&mut self, channels: ChannelSet) {
        if self.timer.is_some_and(|t| channels.contains(t)) {
            self.tick_pending = false;
        }
        self.poll();
    }

    fn fault(&mut self, child: Child, msg: MessageInfo) -> Option<MessageInfo> {
        let now = self.clock.now_ms();
        let kind = FaultKind::from_label(msg.label());
        let stale = self.pm.stats();
        self.pm.revoke(Caller(u32::from(child.index())), now);
        self.trace.record(Kind::Revoked, u32::from(child.index()));
        debug_println!(
            "{}: driver (child {}) faulted: {kind:?} ({}); its grants revoked \
             (acquires so far {}), restarting it",
            pd_name(),
            child.index(),
            get_mr(0),
            stale.acquires
        );
        child.restart();
        self.poll();
        None
    }
}
