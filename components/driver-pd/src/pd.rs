//! The driver PD's event handling, written once for Cipher and Digest: calls are
//! answered at once, a client's notification starts work on the engine, the engine's
//! interrupt finishes it; while a request is in flight, the PD goes on answering calls
//! and notifications, and requests wait in their clients' queues.

use pd_idl::power::PowerError;
use pd_idl::wire::{CallError, Caller};

/// Acquires tried at init while the engine's module is still waking.
const WAKE_TRIES: u32 = 1000;
use pd_runtime::{ChannelSet, MemoryRegion, debug_println, pd_name};
use pd_trace::{Kind, Trace};
use shm_queue::{Consumer, Descriptor, Producer, QueueError, SharedRegion};

use crate::clients::{Served, SessionCounts};

use crate::{Clients, PowerHold};

/// A service (`cipher_service::Service`, `digest_service::Service`) as the PD drives it.
pub trait Serving {
    type Request: Descriptor + 'static;
    type Response: Descriptor + 'static;
    /// The interface's request queue capacity (both queues have it).
    const CAPACITY: u32;
    /// Whether the engine writes client data (a cipher works in place).
    const WRITES_DATA: bool;

    /// A request is in flight on the engine.
    fn busy(&self) -> bool;
    /// Takes `caller`'s requests until its queue is empty, its answers have no room, or
    /// the engine (or the session of its next request) is busy; how many were answered,
    /// each shown to `observe`, and whether the engine can take no more.
    fn serve(
        &mut self,
        caller: Caller,
        rx: &mut Consumer<'static, Self::Request>,
        tx: &mut Producer<'static, Self::Response>,
        data: MemoryRegion,
        observe: &mut dyn FnMut(&Self::Response),
    ) -> Result<Served, QueueError>;
    /// How an answer goes in the trace: its kind and argument.
    fn outcome(response: &Self::Response) -> (Kind, u32);
    /// The engine's interrupt: gives `answer` each request in flight that finished;
    /// returns how many finished (each freed a place in the engine).
    fn interrupt(&mut self, answer: &mut dyn FnMut(Caller, Self::Response)) -> usize;
    /// Closes `caller`'s sessions (and orphans its request in flight); how many.
    fn cut_off(&mut self, caller: Caller) -> usize;
    /// Shares the session table among `clients` clients (a quota each).
    fn share_sessions(&mut self, clients: usize);
    /// The engine was (re)acquired: it may have been gated meanwhile, which loses what
    /// it held (keys, IVs), so it must load them again. Nothing by default.
    fn powered_on(&mut self) {}
    fn open_sessions(&self) -> usize;
}

/// Most bytes a driver PD's state may take. It lives on the stack of the PD's event loop
/// (32 KiB in the seL4 image), built in init and moved there, so twice it and the loop's
/// frames must fit: today's largest, the CPU cipher driver's, is ~8 KiB on the host. A
/// CPU engine keeping a key per session (16.7 KiB of engine alone) overflowed the
/// image's stack at start-up; over this, a driver now fails to build instead.
pub const MAX_STATE: usize = 12 * 1024;

/// A driver PD: its service (engine and sessions), its clients, the engine's interrupt
/// channels, and the power grant (`None` for an engine with no clock gate, the CPU).
pub struct DriverPd<S: Serving> {
    pub service: S,
    pub(crate) clients: Clients<S::Request, S::Response>,
    irqs: ChannelSet,
    power: Option<PowerHold>,
    pub(crate) counts: SessionCounts,
    /// Counters and the last events, in the region `trace` if the system maps one.
    pub(crate) trace: Trace<'static>,
}

impl<S: Serving> DriverPd<S> {
    /// Takes over the clients the `.system` file gives this PD (`make` builds the
    /// service, given this incarnation's number for its session ids). The engine's
    /// interrupts are the PD's `<irq>` channels. Call after the engine's self-test
    /// passed: from here on the PD serves.
    pub fn new(make: impl FnOnce(u32) -> S, power: Option<PowerHold>) -> Self {
        const { assert!(core::mem::size_of::<Self>() <= MAX_STATE) };
        let clients = Clients::from_system(S::CAPACITY, S::WRITES_DATA);
        let irqs = pd_runtime::irq_channels();
        debug_println!(
            "{}: serving {} client(s); engine interrupts on channels {:#x}",
            pd_name(),
            clients.count(),
            irqs.0
        );
        let trace = Trace::new(pd_runtime::maybe_memory_region!(trace).map(|r| {
            // SAFETY: mapped read-write for the PD's life; written only through atomics.
            unsafe { SharedRegion::from_raw(r.vaddr, r.size) }
        }));
        trace.record(Kind::Started, clients.incarnation());
        let mut service = make(clients.incarnation());
        service.share_sessions(clients.count());
        let mut pd = DriverPd {
            service,
            clients,
            irqs,
            power,
            counts: SessionCounts::default(),
            trace,
        };
        let pending = pd.clients.pending();
        if !pending.is_empty() {
            pd.on_notified(pending);
        }
        pd
    }

    /// A driver whose engine has a clock gate: the grant is taken for `init` (the
    /// engine's self-test and calibration need it clocked), `report` says what init
    /// found (or the failure is reported and every open then gets `EngineFault` from
    /// the engine), the PD is built by `make` over the driver, and the grant is given
    /// back until the first session opens.
    pub fn bring_up<D, T, E: core::fmt::Debug>(
        mut driver: D,
        engine: pd_idl::power::Engine,
        init: impl FnOnce(&mut D) -> Result<T, E>,
        report: impl FnOnce(&T),
        make: impl FnOnce(D, u32) -> S,
    ) -> Self {
        let mut power = PowerHold::new(engine);
        // BOUNDED POLL (init: the self-test needs the engine functional; the manager
        // answers `Waking` while its module is not, looking once per acquire).
        let mut tries = 0;
        let powered = loop {
            match power.ensure() {
                Err(CallError::Server(PowerError::Waking)) if tries < WAKE_TRIES => tries += 1,
                r => break r,
            }
        };
        if let Err(e) = powered {
            debug_println!("{}: no power for the self-test: {e:?}", pd_name());
        }
        match init(&mut driver) {
            Ok(found) => report(&found),
            Err(e) => debug_println!("{}: SELF-TEST FAILED: {e:?}; not serving", pd_name()),
        }
        let held = power.held();
        let mut pd = DriverPd::new(|incarnation| make(driver, incarnation), Some(power));
        if held {
            // The self-test's grant, taken before the trace began.
            pd.trace.record(Kind::PowerAcquire, 0);
        }
        pd.release_idle_power();
        pd
    }

    /// Which incarnation of the driver this is (1 at first boot; each restart adds one).
    pub fn incarnation(&self) -> u32 {
        self.clients.incarnation()
    }

    /// Records an event of the driver's own (what its init found, say) in its trace.
    pub fn record(&self, kind: Kind, arg: u32) {
        self.trace.record(kind, arg);
    }

    /// Gives the grant back if no session is open (after an init that needed it).
    pub fn release_idle_power(&mut self) {
        self.follow_power();
    }

    /// Keeps the grant while a session is open or a request is in flight (the engine
    /// must stay clocked until it finishes, even if its session closed meanwhile).
    pub(crate) fn follow_power(&mut self) {
        if let Some(p) = &mut self.power {
            let held = p.held();
            p.follow(self.service.open_sessions() + usize::from(self.service.busy()));
            if held && !p.held() {
                self.trace.record(Kind::PowerRelease, 0);
            }
        }
        self.trace.set_busy(self.service.busy());
    }

    /// Acquires the grant for a session about to open.
    pub(crate) fn ensure_power(&mut self) -> bool {
        let Some(p) = &mut self.power else {
            return true;
        };
        let held = p.held();
        let ok = p.ensure().is_ok();
        if !held && p.held() {
            self.trace.record(Kind::PowerAcquire, 0);
            self.service.powered_on();
        }
        ok
    }

    /// Before a call is answered: counted if a request is in flight meanwhile.
    pub(crate) fn on_call(&mut self, caller: u8) {
        if self.service.busy() {
            self.trace.record(Kind::CallWhileBusy, u32::from(caller));
        }
    }

    /// A session opened or closed, for the trace and the interleaving report.
    pub(crate) fn session_opened(&mut self, caller: Caller) {
        let peak = self.counts.opened(caller);
        self.trace.record(Kind::SessionOpened, caller.0);
        if let Some(clients) = peak {
            self.trace.record(Kind::ClientsAtOnce, clients as u32);
        }
    }

    pub(crate) fn session_closed(&mut self, caller: Caller) {
        self.counts.closed(caller, 1);
        self.trace.record(Kind::SessionClosed, caller.0);
    }

    /// Whether `caller` is a client this PD serves (not cut off).
    pub(crate) fn serves(&self, caller: Caller) -> bool {
        self.clients.get(caller).is_some()
    }

    fn cut_off(&mut self, caller: Caller) {
        self.trace.record(Kind::CutOff, caller.0);
        let closed = self.close_all(caller);
        debug_println!(
            "{}: closed {closed} session(s) of cut-off client {}",
            pd_name(),
            caller.0
        );
    }

    /// Closes every session of `caller` (its requests in flight finish unanswered).
    fn close_all(&mut self, caller: Caller) -> usize {
        let closed = self.service.cut_off(caller);
        self.counts.closed(caller, closed);
        for _ in 0..closed {
            self.trace.record(Kind::SessionClosed, caller.0);
        }
        closed
    }

    /// A client that died and came back (a new incarnation announced in its queue
    /// pair): what the dead one held goes, its sessions and with them the power grant.
    pub(crate) fn check_client(&mut self, caller: Caller) {
        if self.clients.came_back(caller) {
            self.trace.record(Kind::ClientBack, caller.0);
            let closed = self.close_all(caller);
            debug_println!(
                "{}: client {} came back: closed {closed} session(s) of its previous incarnation",
                pd_name(),
                caller.0
            );
            self.follow_power();
        }
    }

    /// `Handler::notified`: the engine's interrupts first (a request finishing frees
    /// the engine for the clients' waiting requests), then the clients.
    pub fn on_notified(&mut self, channels: ChannelSet) {
        let mut serve = channels;
        let irqs = ChannelSet(channels.0 & self.irqs.0);
        if channels.contains(crate::POWER)
            && let Some(p) = &mut self.power
            && p.reacquire()
        {
            // A power manager that restarted rebuilds its grants from ours; it may have
            // gated the engine before we came back.
            self.trace.record(Kind::PowerAcquire, 0);
            self.service.powered_on();
        }
        let clients = ChannelSet(channels.0 & !self.irqs.0 & !(1 << crate::POWER.index()));
        for ch in clients.iter() {
            self.check_client(Caller(u32::from(ch.index())));
        }
        if self.service.busy() {
            for ch in clients.iter() {
                self.trace
                    .record(Kind::NotifiedWhileBusy, u32::from(ch.index()));
            }
        }
        if !irqs.is_empty() {
            for ch in irqs.iter() {
                self.trace.record(Kind::Interrupt, u32::from(ch.index()));
            }
            let (clients, trace) = (&mut self.clients, &self.trace);
            let mut cut = [None; crate::clients::MAX_CLIENTS];
            let finished = self.service.interrupt(&mut |caller, r| {
                let (kind, arg) = S::outcome(&r);
                trace.record(kind, if kind == Kind::Refused { arg } else { caller.0 });
                if let Some(slot) = clients
                    .answer(caller, r)
                    .and_then(|c| cut.get_mut(c.0 as usize))
                {
                    *slot = Some(caller);
                }
            });
            for caller in cut.into_iter().flatten() {
                self.cut_off(caller);
            }
            if finished > 0 {
                // Requests may have waited for the engine in any client's queue.
                serve = ChannelSet(serve.0 | self.clients.all().0);
            }
            for ch in irqs.iter() {
                ch.irq_ack();
            }
        }
        let (service, trace) = (&mut self.service, &self.trace);
        let cut = self.clients.serve(serve, &mut |caller, rx, tx, region| {
            let mut observe = |r: &S::Response| {
                let (kind, arg) = S::outcome(r);
                trace.record(kind, if kind == Kind::Refused { arg } else { caller.0 });
            };
            service.serve(caller, rx, tx, region, &mut observe)
        });
        for caller in cut.into_iter().flatten() {
            self.cut_off(caller);
        }
        self.follow_power();
    }
}
