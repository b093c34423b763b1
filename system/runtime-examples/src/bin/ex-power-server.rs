#![cfg_attr(target_os = "none", no_std, no_main)]
//! A toy Power server over PPC, dispatched by pd-idl's generated `power::dispatch`.
//! Grants are per caller and per incarnation (the generation counts acquisitions since
//! this PD started, so a restart is visible). For fault tests it crashes (panics) in the
//! middle of any call that acquires `VirtioCrypto`.
use pd_idl::power::{self, Engine, Grant, PowerError};
use pd_idl::wire::Caller;
use pd_runtime::{Channel, Handler, MessageInfo, debug_println, ipc};

const CLIENT_READY: Channel = Channel::new(1);

struct Power {
    /// Per engine (value - 1): bit per caller channel holding it.
    holders: [u64; 4],
    generation: u32,
}

impl power::Server for Power {
    fn acquire(&mut self, caller: Caller, engine: Engine) -> Result<Grant, PowerError> {
        if engine == Engine::VirtioCrypto {
            panic!("power-server: virtio-crypto model crashed (deliberate, for fault tests)");
        }
        let slot = &mut self.holders[engine as usize - 1];
        if *slot & (1 << caller.0) == 0 {
            *slot |= 1 << caller.0;
            self.generation += 1;
        }
        Ok(Grant {
            engine: engine.into(),
            reserved: [0; 3],
            generation: self.generation,
        })
    }

    fn release(&mut self, caller: Caller, grant: Grant) -> Result<(), PowerError> {
        let engine = grant.engine.get().map_err(|_| PowerError::UnknownEngine)?;
        if grant.generation != self.generation {
            return Err(PowerError::StaleGrant);
        }
        let slot = &mut self.holders[engine as usize - 1];
        if *slot & (1 << caller.0) == 0 {
            return Err(PowerError::NotHeld);
        }
        *slot &= !(1 << caller.0);
        Ok(())
    }
}

impl Handler for Power {
    fn protected(&mut self, channel: Channel, msg: MessageInfo) -> MessageInfo {
        ipc::serve(channel, msg, |caller, m| power::dispatch(self, caller, m))
    }
}

fn init() -> Power {
    debug_println!("power-server: up, serving Power");
    CLIENT_READY.notify();
    Power {
        holders: [0; 4],
        generation: 0,
    }
}

pd_runtime::protection_domain!(init);
