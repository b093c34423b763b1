#![cfg_attr(target_os = "none", no_std, no_main)]
//! The am335x power manager (see the `power-manager-pd` crate docs).
use pd_idl::power::Engine;
use power_manager_pd::{BoardPower, PowerPd, engine, start};
use soc_access::{ClockController, clock_controller};

static BOARD: BoardPower = BoardPower {
    engines: &[engine(Engine::OmapAes, board::am335x::AES0)],
    always_on: &[board::am335x::EDMA.gate.expect("a gated DMA controller")],
};

fn init() -> PowerPd<ClockController> {
    start(&BOARD, clock_controller)
}

pd_runtime::protection_domain!(init);
