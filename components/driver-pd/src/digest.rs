//! A Digest driver PD over any [`DigestEngine`]: [`DigestPd`] is the generic
//! [`DriverPd`] over `digest-service`, plus the interface's calls.

use digest_service::{Calls, ClientData, DigestEngine, Service, Sessions};
use pd_idl::digest::{
    self, Algorithm, DigestError, HashPath, REQUEST_QUEUE_CAPACITY, Request, Response, Server,
};
use pd_idl::wire::Caller;
use pd_runtime::{Channel, ChannelSet, Handler, MemoryRegion, MessageInfo, ipc};
use shm_queue::{Consumer, Producer, QueueError, SharedRegion};

use crate::PowerHold;
use crate::clients::Served;
use crate::pd::{DriverPd, Serving};
use pd_trace::Kind;

/// A Digest driver PD.
pub type DigestPd<E> = DriverPd<Service<'static, E>>;

/// Builds the PD over `engine` (see [`DriverPd::new`]).
pub fn pd<E: DigestEngine + 'static>(engine: E, power: Option<PowerHold>) -> DigestPd<E> {
    DriverPd::new(
        |incarnation| Service::new(engine, Sessions::for_incarnation(incarnation)),
        power,
    )
}

/// Brings up a driver whose engine has a clock gate (see [`DriverPd::bring_up`]).
pub fn bring_up<E: DigestEngine + 'static, T, Err: core::fmt::Debug>(
    engine: E,
    power: pd_idl::power::Engine,
    init: impl FnOnce(&mut E) -> Result<T, Err>,
    report: impl FnOnce(&T),
) -> DigestPd<E> {
    DriverPd::bring_up(engine, power, init, report, |engine, incarnation| {
        Service::new(engine, Sessions::for_incarnation(incarnation))
    })
}

impl<E: DigestEngine> Serving for Service<'static, E> {
    type Request = Request;
    type Response = Response;
    const CAPACITY: u32 = REQUEST_QUEUE_CAPACITY;
    const WRITES_DATA: bool = false;

    fn busy(&self) -> bool {
        Service::busy(self)
    }

    fn serve(
        &mut self,
        caller: Caller,
        rx: &mut Consumer<'static, Request>,
        tx: &mut Producer<'static, Response>,
        data: MemoryRegion,
        observe: &mut dyn FnMut(&Response),
    ) -> Result<Served, QueueError> {
        // SAFETY: the runtime mapped the region for the life of the PD; a hash only
        // reads it, through volatile copies or DMA, never through Rust references.
        let region = unsafe { SharedRegion::from_raw(data.vaddr, data.size) };
        let data = ClientData {
            region,
            phys: crate::clients::dma_address(&data),
        };
        let limit = crate::clients::BATCH;
        let answered = Service::serve_observed(self, caller, rx, tx, data, limit, observe)?;
        Ok(Served {
            answered,
            engine_full: self.busy(),
            session_busy: false,
            more: answered >= limit,
        })
    }

    fn outcome(r: &Response) -> (Kind, u32) {
        match r.status.check() {
            Ok(Ok(())) => (Kind::Hashed, 0),
            _ => (Kind::Refused, u32::from(r.status.0)),
        }
    }

    fn interrupt(&mut self, answer: &mut dyn FnMut(Caller, Response)) -> usize {
        Service::interrupt(self, answer)
    }

    fn cut_off(&mut self, caller: Caller) -> usize {
        Service::cut_off(self, caller)
    }

    fn share_sessions(&mut self, clients: usize) {
        self.sessions.share_among(clients);
    }

    fn open_sessions(&self) -> usize {
        self.sessions.open_count()
    }
}

impl<E: DigestEngine> Server for DigestPd<E> {
    fn open_session(
        &mut self,
        caller: Caller,
        algorithm: Algorithm,
        path: HashPath,
    ) -> Result<u32, DigestError> {
        if !self.serves(caller) {
            return Err(DigestError::BadRequest);
        }
        if !self.ensure_power() {
            return Err(DigestError::NoPower);
        }
        let Service {
            engine, sessions, ..
        } = &mut self.service;
        let result = Calls { engine, sessions }.open_session(caller, algorithm, path);
        if result.is_ok() {
            self.session_opened(caller);
        }
        self.follow_power();
        result
    }

    fn close_session(&mut self, caller: Caller, session: u32) -> Result<(), DigestError> {
        let result = self.service.sessions.close(caller, session);
        if result.is_ok() {
            self.session_closed(caller);
        }
        self.follow_power();
        result
    }
}

impl<E: DigestEngine> Handler for DigestPd<E> {
    fn protected(&mut self, channel: Channel, msg: MessageInfo) -> MessageInfo {
        self.on_call(channel.index());
        ipc::serve(channel, msg, |caller, m| {
            // The request is copied out of the message words by now: what this may
            // call (the power manager) cannot overwrite it.
            self.check_client(caller);
            digest::dispatch(self, caller, m)
        })
    }

    fn notified(&mut self, channels: ChannelSet) {
        self.on_notified(channels);
    }
}
