//! The driver's one power grant, held while any session is open.

use pd_idl::power::{Client, Engine, Grant, PowerError};
use pd_idl::wire::CallError;
use pd_runtime::ipc::PpcTransport;
use pd_runtime::{debug_println, pd_name};

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
