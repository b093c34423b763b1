//! The driver PD's event handling, written once for every interface: calls are answered
//! at once, a client's notification starts work on the engine, the engine's interrupt
//! finishes it; while a job is in flight, the PD goes on answering calls and
//! notifications, and requests wait in their clients' queues.

use pd_idl::power;
use pd_idl::wire::Caller;
use pd_runtime::{
    Channel, ChannelSet, Handler, MemoryRegion, MessageInfo, debug_println, ipc, pd_name,
};
use pd_trace::{Kind, Trace};
use queued_service::{
    Calls, ClientData, Interface, KeyMaterial, KeyRefusal, KeyUse, Refusal, Service, Sessions,
    record,
};
use shm_queue::SharedRegion;

use crate::clients::{BATCH, SessionCounts, dma_address};
use crate::{Clients, PowerHold};

/// Most bytes a driver PD's state may take. It lives on the stack of the PD's event loop
/// (32 KiB in the seL4 image), built in init and moved there, so twice it and the loop's
/// frames must fit: today's largest, the CPU cipher driver's, is ~8 KiB on the host. A
/// CPU engine keeping a key per session (16.7 KiB of engine alone) overflowed the
/// image's stack at start-up; over this, a driver now fails to build instead.
pub const MAX_STATE: usize = 12 * 1024;

/// A driver PD serving interface `I`: its service (engine and sessions), its clients,
/// the engine's interrupt channels, and the power grant (`None` for an engine with no
/// clock gate, the CPU).
pub struct DriverPd<I: Interface> {
    pub service: Service<'static, I>,
    clients: Clients<I::Request, I::Response>,
    irqs: ChannelSet,
    power: Option<PowerHold>,
    counts: SessionCounts,
    /// Counters and the last events, in the region `trace` if the system maps one.
    trace: Trace<'static>,
}

impl<I: Interface> DriverPd<I> {
    /// The one way a driver PD starts. With a clock gate (`power`: the engine as the
    /// power manager names it) the grant is taken for `init`, the engine's self-test
    /// and calibration, which report to the trace and the log (a failed self-test
    /// leaves the engine refusing every open). Then the PD takes over the clients the
    /// `.system` file gives it, its session ids carrying this incarnation, and gives
    /// the grant back until the first session opens. The engine's interrupts are the
    /// PD's `<irq>` channels. From here on the PD serves.
    pub fn start(
        mut engine: I::Engine,
        power: Option<power::Engine>,
        init: impl FnOnce(&mut I::Engine, &Trace<'static>),
    ) -> Self {
        const { assert!(core::mem::size_of::<Self>() <= MAX_STATE) };
        let trace = Trace::new(pd_runtime::maybe_memory_region!(trace).map(|r| {
            // SAFETY: mapped read-write for the PD's life; written only through atomics.
            unsafe { SharedRegion::from_raw(r.vaddr, r.size) }
        }));
        trace.record(Kind::Started, pd_runtime::starts());
        let power = power.map(|engine| {
            let mut hold = PowerHold::new(engine);
            let powered = hold.ensure_awake();
            match powered {
                Ok(()) => trace.record(Kind::PowerAcquire, 0),
                Err(e) => debug_println!("{}: no power for the self-test: {e:?}", pd_name()),
            }
            hold
        });
        init(&mut engine, &trace);
        if I::KEYED {
            crate::keys::warn_if_unconnected();
        }
        let clients = Clients::from_system(I::CAPACITY, I::WRITES_DATA);
        let irqs = pd_runtime::irq_channels();
        debug_println!(
            "{}: serving {} client(s); engine interrupts on channels {:#x}",
            pd_name(),
            clients.count(),
            irqs.0
        );
        let mut sessions = Sessions::for_incarnation(clients.incarnation());
        sessions.share_among(clients.count());
        let mut pd = DriverPd {
            service: Service::new(engine, sessions),
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
        pd.follow_power();
        pd
    }

    /// Which incarnation of the driver this is (1 at first boot; each restart adds one).
    pub fn incarnation(&self) -> u32 {
        self.clients.incarnation()
    }

    /// Keeps the grant while a session is open or a job is in flight (the engine must
    /// stay clocked until it finishes, even if its session closed meanwhile).
    fn follow_power(&mut self) {
        if let Some(p) = &mut self.power {
            let held = p.held();
            p.follow(self.service.sessions.open_count() + usize::from(self.service.busy()));
            if held && !p.held() {
                self.trace.record(Kind::PowerRelease, 0);
            }
        }
        self.trace.set_busy(self.service.busy());
    }

    /// Acquires the grant for a session about to open.
    fn ensure_power(&mut self) -> bool {
        let Some(p) = &mut self.power else {
            return true;
        };
        let held = p.held();
        let ok = p.ensure().is_ok();
        if !held && p.held() {
            self.trace.record(Kind::PowerAcquire, 0);
            I::powered_on(&mut self.service.engine);
        }
        ok
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

    /// Closes every session of `caller` (its jobs in flight finish unanswered).
    fn close_all(&mut self, caller: Caller) -> usize {
        let closed = self.service.cut_off(caller);
        self.counts.closed(caller, closed);
        for _ in 0..closed {
            self.trace.record(Kind::SessionClosed, caller.0);
        }
        closed
    }

    /// A client that died and came back (a new incarnation announced in its queue
    /// pair), or `ended` for good: what the dead one held goes, its queued requests
    /// (dropped by `came_back`), its sessions (its jobs in flight finish unanswered)
    /// and with them the power grant.
    fn check_client(&mut self, caller: Caller, ended: bool) {
        let back = self.clients.came_back(caller);
        if back.is_some() || ended {
            // One trace kind for both: the dead incarnation's state went.
            self.trace.record(Kind::ClientBack, caller.0);
            let closed = self.close_all(caller);
            debug_println!(
                "{}: client {} {}: closed {closed} session(s) and dropped {} queued request(s) of its previous incarnation",
                pd_name(),
                caller.0,
                if ended { "ended" } else { "came back" },
                back.unwrap_or(0)
            );
            self.follow_power();
        }
    }

    /// The engine's interrupts first (a job finishing frees the engine for the clients'
    /// waiting requests), then the clients.
    fn on_notified(&mut self, channels: ChannelSet) {
        let mut serve = channels;
        let irqs = ChannelSet(channels.0 & self.irqs.0);
        if channels.contains(crate::POWER)
            && let Some(p) = &mut self.power
            && p.reacquire()
        {
            // A power manager that restarted rebuilds its grants from ours; it may have
            // gated the engine before we came back.
            self.trace.record(Kind::PowerAcquire, 0);
            I::powered_on(&mut self.service.engine);
        }
        let clients = ChannelSet(channels.0 & !self.irqs.0 & !(1 << crate::POWER.index()));
        // Every client, not only those notified: an engine's interrupt serves them all,
        // and one that came back must not have its dead incarnation's jobs answered or
        // its requests served. A look at a word per client. Those their supervisor said
        // ended for good (the key store tells, on its channel) go the same way.
        let ended = crate::keys::ended(channels);
        for ch in self.clients.all().iter() {
            let i = ch.index();
            self.check_client(Caller(u32::from(i)), ended >> i & 1 != 0);
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
            let landed = self.service.interrupt();
            for job in landed.jobs() {
                // None: its client was cut off meanwhile.
                let Some(caller) = job.to else { continue };
                for r in job.answers() {
                    record::<I>(&self.trace, caller, &r);
                    if let Some(broken) = self.clients.answer(caller, r) {
                        self.cut_off(broken);
                    }
                }
            }
            if landed.count() > 0 {
                // Requests may have waited for the engine in any client's queue.
                serve = ChannelSet(serve.0 | self.clients.all().0);
            }
            for ch in irqs.iter() {
                ch.irq_ack();
            }
        }
        let (service, trace) = (&mut self.service, &self.trace);
        let cut = self
            .clients
            .serve(serve, &mut |caller, rx, tx, data, budget| {
                service.serve_within(caller, rx, tx, client_data(data), BATCH, budget, trace)
            });
        for caller in cut.into_iter().flatten() {
            self.cut_off(caller);
        }
        self.follow_power();
        if I::touched_keys(&mut self.service.engine) {
            // A key expanded in the serving pass left its temporaries on the stack.
            ipc::scrub_stack();
        }
    }
}

/// A client's data region as its engine reaches it.
fn client_data(data: MemoryRegion) -> ClientData<'static> {
    ClientData {
        // SAFETY: the runtime mapped the region for the life of the PD (read-write if
        // the interface writes it: checked when the client was taken on); engines reach
        // it only through volatile copies or DMA, never through Rust references.
        region: unsafe { SharedRegion::from_raw(data.vaddr, data.size) },
        phys: dma_address(&data),
    }
}

impl<I: Interface> Calls<I> for DriverPd<I> {
    fn open(&mut self, caller: Caller, args: I::Open) -> Result<u32, I::Error> {
        if self.clients.get(caller).is_none() {
            return Err(I::refuse(Refusal::NotAClient));
        }
        // Refuse what is known to fail before touching power.
        I::precheck(&self.service.engine, &args)?;
        if !self.ensure_power() {
            return Err(I::refuse(Refusal::NoPower));
        }
        let result = self.service.open(caller, args);
        if result.is_ok() {
            let peak = self.counts.opened(caller);
            self.trace.record(Kind::SessionOpened, caller.0);
            if let Some(clients) = peak {
                self.trace.record(Kind::ClientsAtOnce, clients as u32);
            }
        }
        self.follow_power();
        result
    }

    fn close(&mut self, caller: Caller, session: u32) -> Result<(), I::Error> {
        let result = self.service.close(caller, session);
        if result.is_ok() {
            self.counts.closed(caller, 1);
            self.trace.record(Kind::SessionClosed, caller.0);
        }
        self.follow_power();
        result
    }

    /// To any caller: what the engine offers is the same for all and tells nothing of
    /// anyone's sessions (and the `.system` decides who may call at all).
    fn capabilities(&mut self, _: Caller) -> Result<u64, I::Error> {
        Ok(I::offers(&self.service.engine))
    }

    fn data(&self, caller: Caller) -> Option<ClientData<'static>> {
        self.clients.get(caller).map(|c| client_data(c.data))
    }

    /// For any caller: the store knows which of this driver's channels are whose, and
    /// a channel that is no client's is none of its clients' (`NotPermitted`).
    fn fetch_key(&mut self, caller: Caller, key: KeyUse) -> Result<KeyMaterial, KeyRefusal> {
        self.trace.record(Kind::KeyFetched, caller.0);
        crate::keys::fetch(caller, key)
    }

    fn raw_keys(&self, caller: Caller) -> bool {
        crate::keys::raw_allowed(caller)
    }

    fn other(
        &mut self,
        caller: Caller,
        msg: &pd_idl::wire::Message,
    ) -> Option<pd_idl::wire::Message> {
        I::call(
            &mut self.service.engine,
            &mut self.service.sessions,
            caller,
            msg,
        )
    }
}

impl<I: Interface> Handler for DriverPd<I> {
    /// A keyed interface's sessions hold keys (raw or fetched by handle).
    const SECRETS: bool = I::KEYED;

    fn protected(&mut self, channel: Channel, msg: MessageInfo) -> MessageInfo {
        if self.service.busy() {
            self.trace
                .record(Kind::CallWhileBusy, u32::from(channel.index()));
        }
        let label = msg.label();
        let keyed = I::KEYED && (label == I::OP_OPEN_SESSION || label == I::OP_OPEN_BY_KEY);
        let dispatch = |caller, m: &_| {
            // The request is copied out of the message words by now: what this may
            // call (the power manager, the key store) cannot overwrite it.
            self.check_client(caller, false);
            queued_service::dispatch::<I>(self, caller, m)
        };
        if !keyed {
            let reply = ipc::serve(channel, msg, dispatch);
            if I::touched_keys(&mut self.service.engine) {
                // A close: the engine's copies of the key on the stack go too.
                ipc::scrub_stack();
            }
            return reply;
        }
        // A raw key in the call, or the key store's reply: no copy outlives the open but
        // the session's own, which its close wipes.
        let reply = ipc::serve_secret(channel, msg, dispatch);
        ipc::scrub_stack();
        reply
    }

    fn notified(&mut self, channels: ChannelSet) {
        self.on_notified(channels);
    }
}
