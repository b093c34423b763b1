#![cfg_attr(target_os = "none", no_std, no_main)]
//! The power manager of `qemu_virt_aarch64.system`: a passive PD serving `pd-idl` Power
//! by PPC to the driver PDs.
//!
//! QEMU's `virt` machine has no power or clock controller (hw/arm/virt.c models none;
//! its virtio devices are always clocked), so this manager maps no device and gates
//! nothing: it keeps the grant bookkeeping the interface promises (holders per engine,
//! acquire idempotent, release only by a holder of a current grant) and grants at once.
//! `components/power-manager`'s `PowerManager` drives a clock controller's registers and
//! has nothing to drive here, so it is not used; a board with a controller would use it.
//!
//! Callers are the channel ids of this end; the board's only gateable engine is
//! `VirtioCrypto` (the CPU engine has no gate and does not call). Grants carry a
//! generation that counts grants handed out, so a grant kept across a release and
//! re-acquire is stale.
use pd_idl::power::{self, Engine, Grant, PowerError};
use pd_idl::wire::Caller;
use pd_runtime::{Channel, Handler, MessageInfo, debug_println, ipc};

/// The engines this board has (all always on).
const ENGINES: [Engine; 1] = [Engine::VirtioCrypto];

struct PowerPd {
    /// Per entry of [`ENGINES`]: bit per caller channel holding it.
    holders: [u64; ENGINES.len()],
    /// Per entry of [`ENGINES`]: the generation of the current grants (0: none yet).
    generation: [u32; ENGINES.len()],
}

impl PowerPd {
    fn slot(engine: Engine) -> Result<usize, PowerError> {
        ENGINES
            .iter()
            .position(|e| *e == engine)
            .ok_or(PowerError::UnknownEngine)
    }
}

fn bit(caller: Caller) -> Result<u64, PowerError> {
    // Callers are channel ids (0..=61); anything else cannot hold an engine.
    1u64.checked_shl(caller.0).ok_or(PowerError::NotHeld)
}

impl power::Server for PowerPd {
    fn acquire(&mut self, caller: Caller, engine: Engine) -> Result<Grant, PowerError> {
        let i = Self::slot(engine)?;
        let bit = bit(caller)?;
        if self.holders[i] == 0 {
            // First holder: on a board with a controller the engine would be ungated here.
            self.generation[i] = self.generation[i].wrapping_add(1).max(1);
            debug_println!(
                "power_manager: {engine:?} granted to channel {} (always on: QEMU virt has no clock controller)",
                caller.0
            );
        }
        self.holders[i] |= bit;
        Ok(Grant {
            engine: engine.into(),
            reserved: [0; 3],
            generation: self.generation[i],
        })
    }

    fn release(&mut self, caller: Caller, grant: Grant) -> Result<(), PowerError> {
        let engine = grant.engine.get().map_err(|_| PowerError::UnknownEngine)?;
        let i = Self::slot(engine)?;
        let bit = bit(caller)?;
        if self.holders[i] & bit == 0 {
            return Err(PowerError::NotHeld);
        }
        if grant.generation != self.generation[i] {
            return Err(PowerError::StaleGrant);
        }
        self.holders[i] &= !bit;
        if self.holders[i] == 0 {
            debug_println!("power_manager: {engine:?} released by its last holder (stays on)");
        }
        Ok(())
    }
}

impl Handler for PowerPd {
    fn protected(&mut self, channel: Channel, msg: MessageInfo) -> MessageInfo {
        ipc::serve(channel, msg, |caller, m| power::dispatch(self, caller, m))
    }
}

fn init() -> PowerPd {
    debug_println!("power_manager: up (passive), engines {ENGINES:?}, no gating on this board");
    PowerPd {
        holders: [0; ENGINES.len()],
        generation: [0; ENGINES.len()],
    }
}

pd_runtime::protection_domain!(init);
