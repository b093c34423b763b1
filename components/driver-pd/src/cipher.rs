//! A Cipher driver PD's handler over any [`CipherEngine`].

use cipher_service::{CipherEngine, ClientData, Session, Sessions};
use pd_idl::cipher::{
    self, CipherError, Mode, Path, REQUEST_QUEUE_CAPACITY, Request, Response, Server,
};
use pd_idl::wire::Caller;
use pd_runtime::ipc;
use pd_runtime::{Channel, ChannelSet, Handler, MessageInfo, debug_println, pd_name};

use crate::clients::SessionCounts;
use crate::{Clients, PowerHold};

/// The PD: engine, sessions, clients, and the power grant (`None` for an engine that
/// has no clock gate, such as the CPU).
pub struct CipherPd<E> {
    pub engine: E,
    sessions: Sessions,
    clients: Clients<Request, Response>,
    power: Option<PowerHold>,
    counts: SessionCounts,
}

impl<E: CipherEngine> CipherPd<E> {
    /// Takes over the clients the `.system` file gives this PD. Call after the engine's
    /// self-test passed: from here on the PD serves.
    pub fn new(engine: E, power: Option<PowerHold>) -> Self {
        let clients = Clients::from_system(REQUEST_QUEUE_CAPACITY, true);
        debug_println!("{}: serving {} client(s)", pd_name(), clients.count());
        let mut pd = CipherPd {
            engine,
            sessions: Sessions::for_incarnation(clients.incarnation()),
            clients,
            power,
            counts: SessionCounts::default(),
        };
        let pending = pd.clients.pending();
        if pending.0 != 0 {
            pd.notified(pending);
        }
        pd
    }

    /// Gives the grant back if no session is open (after an init that needed it).
    pub fn release_idle_power(&mut self) {
        self.follow_power();
    }

    fn follow_power(&mut self) {
        if let Some(p) = &mut self.power {
            p.follow(self.sessions.open_count());
        }
    }
}

impl<E: CipherEngine> Server for CipherPd<E> {
    fn open_session(
        &mut self,
        caller: Caller,
        mode: Mode,
        path: Path,
        key_len: u8,
        key: [u8; 32],
        iv: [u8; 16],
    ) -> Result<u32, CipherError> {
        if self.clients.get(caller).is_none() {
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
        self.engine.supports(&session)?;
        if let Some(p) = &mut self.power {
            p.ensure().map_err(|_| CipherError::NoPower)?;
        }
        let engine = &self.engine;
        let result = self.sessions.open(session, |s| engine.supports(s));
        if result.is_ok() {
            self.counts.opened(caller);
        }
        self.follow_power();
        result
    }

    fn close_session(&mut self, caller: Caller, session: u32) -> Result<(), CipherError> {
        let result = self.sessions.close(caller, session);
        if result.is_ok() {
            self.counts.closed(caller, 1);
        }
        self.follow_power();
        result
    }
}

impl<E: CipherEngine> Handler for CipherPd<E> {
    fn protected(&mut self, channel: Channel, msg: MessageInfo) -> MessageInfo {
        ipc::serve(channel, msg, |caller, m| cipher::dispatch(self, caller, m))
    }

    fn notified(&mut self, channels: ChannelSet) {
        let (engine, sessions) = (&mut self.engine, &mut self.sessions);
        let cut = self.clients.serve(channels, &mut |caller, rx, tx, region| {
            // SAFETY: the runtime mapped the region read-write (checked when the client
            // was taken on) for the life of the PD. The client may write it while the
            // engine works: it then gets garbage for its own request, as with real DMA;
            // nobody else maps it.
            let bytes = unsafe { core::slice::from_raw_parts_mut(region.vaddr, region.size) };
            let mut data = ClientData {
                bytes,
                phys: Some(region.paddr),
            };
            cipher_service::serve(engine, sessions, caller, rx, tx, &mut data)
        });
        for caller in cut.into_iter().flatten() {
            let closed = self.sessions.close_all(caller);
            self.counts.closed(caller, closed);
            debug_println!(
                "{}: closed {closed} session(s) of cut-off client {}",
                pd_name(),
                caller.0
            );
        }
        self.follow_power();
    }
}
