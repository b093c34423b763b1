//! The power-manager PD over `power-manager`: `pd-idl` Power served by PPC to the driver
//! PDs, which are its children.
//!
//! * Callers are channel ids; by this crate's convention a driver that is the power
//!   manager's child `k` talks to it on channel `k`, so a child's fault names the holder
//!   whose grants go ([`PowerManager::revoke`]); then the child is restarted (Microkit's
//!   monitor model: the parent decides).
//! * Autosuspend: the runtime offers no timer, so the manager polls its deadlines on
//!   every event (call, notification, fault). A system that wires a timer PD (the end
//!   with `setvar_id="timer"`; on the host, the `timer-tick` PD) gets a notification
//!   asked for whenever a deadline is pending, so engines are gated on time; without one
//!   an engine stays clocked past its deadline until the next event.
//! * Platform DMA controllers (EDMA, STM32 MDMA) are shared infrastructure, not an
//!   engine of the Power interface: the manager ungates them once at start.
//!
//! Host: the clock controller is the model over the gate block the engine models read.

use boards::Device;
use engine_models::power::ClockController;
use mmio::RegisterBus;
use mmio::clkctrl::{self, MODULEMODE, MODULEMODE_ENABLE};
use pd_idl::power::{self, Engine, Grant, PowerError};
use pd_idl::wire::Caller;
use pd_runtime::{
    Channel, ChannelSet, Child, FaultKind, Handler, MessageInfo, debug_println, get_mr, ipc,
};
use power_manager::{EngineConfig, PowerManager};
use std::time::Instant;

/// A board's engines and always-on DMA controllers.
pub struct BoardPower {
    pub engines: &'static [(Engine, Device)],
    pub always_on: &'static [Device],
}

pub struct PowerPd {
    pm: PowerManager<ClockController<'static>>,
    start: Instant,
    /// The timer PD's channel, if the system has one, and whether a tick is asked for.
    timer: Option<Channel>,
    tick_pending: bool,
}

impl PowerPd {
    fn now_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    fn poll(&mut self) {
        let now = self.now_ms();
        let before = self.pm.stats().power_off;
        let next = match self.pm.poll(now) {
            Ok(next) => next,
            Err(e) => {
                debug_println!("power: clock controller fault while gating: {e:?}");
                None
            }
        };
        let gated = self.pm.stats().power_off - before;
        if gated > 0 {
            debug_println!("power: autosuspend gated {gated} engine(s) at {now} ms");
        }
        if let (Some(timer), Some(_), false) = (self.timer, next, self.tick_pending) {
            self.tick_pending = true;
            timer.notify();
        }
    }
}

/// The Power server for one call, with the time it arrived.
struct Call<'a> {
    pm: &'a mut PowerManager<ClockController<'static>>,
    now_ms: u64,
}

impl power::Server for Call<'_> {
    fn acquire(&mut self, caller: Caller, engine: Engine) -> Result<Grant, PowerError> {
        let on = self.pm.stats().power_on;
        let r = self.pm.acquire(caller, engine);
        let resumed = self.pm.stats().power_on > on;
        let holders = self.pm.holders(engine);
        match &r {
            Ok(g) => debug_println!(
                "power: acquire {engine:?} by channel {}: granted, generation {} \
                 (holders {holders}, resumed {resumed})",
                caller.0,
                g.generation
            ),
            Err(e) => debug_println!(
                "power: acquire {engine:?} by channel {}: refused {e:?}",
                caller.0
            ),
        }
        r
    }

    fn release(&mut self, caller: Caller, grant: Grant) -> Result<(), PowerError> {
        let r = self.pm.release(caller, grant, self.now_ms);
        debug_println!(
            "power: release by channel {} (generation {}): {r:?} at {} ms",
            caller.0,
            grant.generation,
            self.now_ms
        );
        r
    }
}

/// The PD's `init`: the controller over the shared gate block, the board's engines.
pub fn init(board: &BoardPower) -> PowerPd {
    let gates = crate::shared::gates().expect("the power manager maps the gates region");
    let ledger = crate::shared::ledger().expect("the power manager maps the ledger region");
    for dev in board.always_on {
        let gate = dev.gate.expect("an always-on device with a gate");
        ClockController::new(gates, ledger)
            .write32(clkctrl::clkctrl(gate), MODULEMODE.val(MODULEMODE_ENABLE))
            .expect("the clock controller takes MODULEMODE");
    }
    let mut configs = [EngineConfig {
        engine: Engine::OmapAes,
        gate: 0,
        autosuspend_ms: 0,
    }; Engine::ALL.len()];
    for (slot, (engine, dev)) in configs.iter_mut().zip(board.engines) {
        *slot = EngineConfig {
            engine: *engine,
            gate: dev.gate.expect("an engine with a clock gate"),
            autosuspend_ms: u64::from(dev.autosuspend_ms),
        };
    }
    let pm = PowerManager::new(
        ClockController::new(gates, ledger),
        &configs[..board.engines.len()],
    )
    .expect("the board's engines have distinct gates");
    debug_println!("power: managing {} engine(s)", board.engines.len());
    PowerPd {
        pm,
        start: Instant::now(),
        timer: pd_runtime::var("timer")
            .and_then(|id| u8::try_from(id).ok())
            .map(Channel::new),
        tick_pending: false,
    }
}

impl Handler for PowerPd {
    fn protected(&mut self, channel: Channel, msg: MessageInfo) -> MessageInfo {
        self.poll();
        let now_ms = self.now_ms();
        let pm = &mut self.pm;
        let reply = ipc::serve(channel, msg, |caller, m| {
            power::dispatch(&mut Call { pm, now_ms }, caller, m)
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
        let now = self.now_ms();
        let kind = FaultKind::from_label(msg.label());
        let stale = self.pm.stats();
        self.pm.revoke(Caller(u32::from(child.index())), now);
        debug_println!(
            "power: driver (child {}) faulted: {kind:?} ({}); its grants revoked \
             (acquires so far {}), restarting it",
            child.index(),
            get_mr(0),
            stale.acquires
        );
        child.restart();
        self.poll();
        None
    }
}
