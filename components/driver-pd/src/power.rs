//! The driver's one power grant, held while any session is open.

use pd_idl::power::{Client, Engine, Grant, PowerError};
use pd_idl::wire::CallError;
use pd_runtime::ipc::PpcTransport;
use pd_runtime::{debug_println, pd_name};

/// Acquires tried at start-up while the engine's module is still waking.
pub const WAKE_TRIES: u32 = 1000;

/// A driver's hold on its engine's power.
pub struct PowerHold {
    power: Client<PpcTransport>,
    engine: Engine,
    grant: Option<Grant>,
}

impl PowerHold {
    pub fn new(engine: Engine) -> Self {
        PowerHold {
            power: Client::new(PpcTransport(crate::POWER)),
            engine,
            grant: None,
        }
    }

    pub fn held(&self) -> bool {
        self.grant.is_some()
    }

    /// Acquires the engine unless already held (one call per session burst).
    pub fn ensure(&mut self) -> Result<(), CallError<PowerError>> {
        if self.grant.is_none() {
            let grant = self.power.acquire(self.engine)?;
            debug_println!(
                "{}: power: {:?} acquired (generation {})",
                pd_name(),
                self.engine,
                grant.generation
            );
            self.grant = Some(grant);
        }
        Ok(())
    }

    /// The power manager restarted (it says so on our channel): the grant we hold means
    /// nothing to it any more, so take it again, and it holds the engine for us again.
    /// Nothing to do if we hold none. Whether we hold one afterwards.
    pub fn reacquire(&mut self) -> bool {
        if self.grant.is_none() {
            return false;
        }
        self.grant = None;
        match self.ensure() {
            Ok(()) => true,
            Err(e) => {
                debug_println!(
                    "{}: power: {:?} not re-acquired after the manager restarted: {e:?}",
                    pd_name(),
                    self.engine
                );
                false
            }
        }
    }

    /// [`ensure`](Self::ensure) at start-up, while the engine's module may still be
    /// waking: the manager answers `Waking` until it is, looking once per acquire, so
    /// this asks again, at most [`WAKE_TRIES`] times (a driver's self-test, or the
    /// isolation bench's own engine, needs the engine functional before it serves).
    pub fn ensure_awake(&mut self) -> Result<(), CallError<PowerError>> {
        let mut tries = 0;
        // BOUNDED POLL (init only, as the docs say).
        loop {
            match self.ensure() {
                Err(CallError::Server(PowerError::Waking)) if tries < WAKE_TRIES => tries += 1,
                r => return r,
            }
        }
    }

    /// Releases the grant if held (the last session closed).
    pub fn release(&mut self) {
        if let Some(grant) = self.grant.take() {
            let result = self.power.release(grant);
            debug_println!(
                "{}: power: {:?} released ({result:?})",
                pd_name(),
                self.engine
            );
        }
    }

    /// Keeps the grant exactly while `open_sessions > 0`.
    pub fn follow(&mut self, open_sessions: usize) {
        if open_sessions == 0 {
            self.release();
        }
    }
}
