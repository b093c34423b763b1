//! A Digest driver PD's handler over any [`DigestEngine`].

use digest_service::{Calls, ClientData, DigestEngine, Sessions};
use pd_idl::digest::{
    self, Algorithm, DigestError, HashPath, REQUEST_QUEUE_CAPACITY, Request, Response, Server,
};
use pd_idl::wire::Caller;
use pd_runtime::ipc;
use pd_runtime::{Channel, ChannelSet, Handler, MessageInfo, debug_println, pd_name};

use crate::clients::SessionCounts;
use crate::{Clients, PowerHold};

/// The PD: engine, sessions, clients, and the power grant (`None` for an engine that
/// has no clock gate, such as the CPU).
pub struct DigestPd<E: DigestEngine> {
    pub engine: E,
    sessions: Sessions<E::Context>,
    clients: Clients<Request, Response>,
    power: Option<PowerHold>,
    counts: SessionCounts,
}

impl<E: DigestEngine> DigestPd<E> {
    /// Takes over the clients the `.system` file gives this PD. Call after the engine's
    /// self-test passed: from here on the PD serves.
    pub fn new(engine: E, power: Option<PowerHold>) -> Self {
        let clients = Clients::from_system(REQUEST_QUEUE_CAPACITY, false);
        debug_println!("{}: serving {} client(s)", pd_name(), clients.count());
        let mut pd = DigestPd {
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

impl<E: DigestEngine> Server for DigestPd<E> {
    fn open_session(
        &mut self,
        caller: Caller,
        algorithm: Algorithm,
        path: HashPath,
    ) -> Result<u32, DigestError> {
        if self.clients.get(caller).is_none() {
            return Err(DigestError::BadRequest);
        }
        if let Some(p) = &mut self.power {
            p.ensure().map_err(|_| DigestError::NoPower)?;
        }
        let result = Calls {
            engine: &mut self.engine,
            sessions: &mut self.sessions,
        }
        .open_session(caller, algorithm, path);
        if result.is_ok() {
            self.counts.opened(caller);
        }
        self.follow_power();
        result
    }

    fn close_session(&mut self, caller: Caller, session: u32) -> Result<(), DigestError> {
        let result = self.sessions.close(caller, session);
        if result.is_ok() {
            self.counts.closed(caller, 1);
        }
        self.follow_power();
        result
    }
}

impl<E: DigestEngine> Handler for DigestPd<E> {
    fn protected(&mut self, channel: Channel, msg: MessageInfo) -> MessageInfo {
        ipc::serve(channel, msg, |caller, m| digest::dispatch(self, caller, m))
    }

    fn notified(&mut self, channels: ChannelSet) {
        let (engine, sessions) = (&mut self.engine, &mut self.sessions);
        let cut = self.clients.serve(channels, &mut |caller, rx, tx, region| {
            // SAFETY: the runtime mapped the region (readable) for the life of the PD.
            // The client may write it while the engine reads: it then gets the digest
            // of torn data for its own request; nobody else maps it.
            let bytes = unsafe { core::slice::from_raw_parts(region.vaddr, region.size) };
            let data = ClientData {
                bytes,
                phys: Some(region.paddr),
            };
            digest_service::serve(engine, sessions, caller, rx, tx, &data)
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
