#![cfg_attr(target_os = "none", no_std, no_main)]
//! The power manager of QEMU's `virt` machine, which has no power or clock controller
//! (hw/arm/virt.c models none; its virtio devices are always clocked): grants are kept
//! as on every board, nothing is gated (see the `power-manager-pd` crate docs).
use pd_idl::power::Engine;
use power_manager::EngineConfig;
use power_manager_pd::{AlwaysOn, BoardPower, PowerPd, start};

static BOARD: BoardPower = BoardPower {
    engines: &[EngineConfig {
        engine: Engine::VirtioCrypto,
        gate: 0,
        autosuspend_ms: 0,
    }],
    always_on: &[],
};

fn init() -> PowerPd<AlwaysOn> {
    start(&BOARD, || AlwaysOn)
}

pd_runtime::protection_domain!(init);
