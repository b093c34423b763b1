//! A Cipher driver PD over any [`CipherEngine`]: [`CipherPd`] is the generic
//! [`DriverPd`] over `cipher-service`, plus the interface's calls.

use cipher_service::{CipherEngine, ClientData, Service, Session, Sessions, Stopped};
use pd_idl::cipher::{self, CipherError, Mode, Path, REQUEST_QUEUE_CAPACITY, Request, Response};
use pd_idl::wire::Caller;
use pd_runtime::{Channel, ChannelSet, Handler, MemoryRegion, MessageInfo, ipc};
use shm_queue::{Consumer, Producer, QueueError, SharedRegion};

use crate::PowerHold;
use crate::clients::Served;
use crate::pd::{DriverPd, Serving};
use pd_trace::Kind;

/// A Cipher driver PD.
pub type CipherPd<E> = DriverPd<Service<'static, E>>;

/// Builds the PD over `engine` (see [`DriverPd::new`]).
pub fn pd<E: CipherEngine + 'static>(engine: E, power: Option<PowerHold>) -> CipherPd<E> {
    DriverPd::new(
        |incarnation| Service::new(engine, Sessions::for_incarnation(incarnation)),
        power,
    )
}

/// Brings up a driver whose engine has a clock gate (see [`DriverPd::bring_up`]).
pub fn bring_up<E: CipherEngine + 'static, T, Err: core::fmt::Debug>(
    engine: E,
    power: pd_idl::power::Engine,
    init: impl FnOnce(&mut E) -> Result<T, Err>,
    report: impl FnOnce(&T),
) -> CipherPd<E> {
    DriverPd::bring_up(engine, power, init, report, |engine, incarnation| {
        Service::new(engine, Sessions::for_incarnation(incarnation))
    })
}

impl<E: CipherEngine> Serving for Service<'static, E> {
    type Request = Request;
    type Response = Response;
    const CAPACITY: u32 = REQUEST_QUEUE_CAPACITY;
    const WRITES_DATA: bool = true;

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
        // SAFETY: the runtime mapped the region read-write (checked when the client was
        // taken on) for the life of the PD; engines reach it only through volatile
        // copies or DMA, never through Rust references.
        let region = unsafe { SharedRegion::from_raw(data.vaddr, data.size) };
        let data = ClientData {
            region,
            phys: crate::clients::dma_address(&data),
        };
        let (answered, stopped) =
            Service::serve_observed(self, caller, rx, tx, data, crate::clients::BATCH, observe)?;
        Ok(Served {
            answered,
            engine_full: stopped == Stopped::EngineFull,
            session_busy: stopped == Stopped::SessionBusy,
            more: stopped == Stopped::Limit,
        })
    }

    fn outcome(r: &Response) -> (Kind, u32) {
        match (r.status.check(), r.path.get()) {
            (Ok(Ok(())), Ok(Path::Pio)) => (Kind::DonePio, 0),
            (Ok(Ok(())), Ok(Path::Dma)) => (Kind::DoneDma, 0),
            (Ok(Ok(())), _) => (Kind::DoneCpu, 0),
            _ => (Kind::Refused, u32::from(r.status.0)),
        }
    }

    fn interrupt(&mut self, answer: &mut dyn FnMut(Caller, Response)) -> usize {
        Service::interrupt(self, answer)
    }

    fn powered_on(&mut self) {
        self.engine.context_lost();
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

impl<E: CipherEngine> cipher::Server for CipherPd<E> {
    fn open_session(
        &mut self,
        caller: Caller,
        mode: Mode,
        path: Path,
        key_len: u8,
        key: [u8; 32],
        iv: [u8; 16],
    ) -> Result<u32, CipherError> {
        if !self.serves(caller) {
            return Err(CipherError::BadRequest);
        }
        let session = Session {
            owner: caller,
            mode,
            path,
            key_len,
            key,
            iv,
        };
        // Refuse what is known to fail before touching power.
        if !matches!(key_len, 16 | 24 | 32) {
            return Err(CipherError::BadKeySize);
        }
        self.service.engine.supports(&session)?;
        if !self.ensure_power() {
            return Err(CipherError::NoPower);
        }
        let Service {
            engine, sessions, ..
        } = &mut self.service;
        let result = sessions.open(session, |s| engine.supports(s));
        if result.is_ok() {
            self.session_opened(caller);
        }
        self.follow_power();
        result
    }

    fn close_session(&mut self, caller: Caller, session: u32) -> Result<(), CipherError> {
        let result = self.service.close(caller, session);
        if result.is_ok() {
            self.session_closed(caller);
        }
        self.follow_power();
        result
    }
}

impl<E: CipherEngine> Handler for CipherPd<E> {
    fn protected(&mut self, channel: Channel, msg: MessageInfo) -> MessageInfo {
        self.on_call(channel.index());
        ipc::serve(channel, msg, |caller, m| {
            // The request is copied out of the message words by now: what this may
            // call (the power manager) cannot overwrite it.
            self.check_client(caller);
            cipher::dispatch(self, caller, m)
        })
    }

    fn notified(&mut self, channels: ChannelSet) {
        self.on_notified(channels);
    }
}
