#![cfg_attr(target_os = "none", no_std, no_main)]
//! The stm32mp1 power manager (see the `power-manager-pd` crate docs).
use pd_idl::power::Engine;
use power_manager_pd::{BoardPower, PowerPd, engine, start};
use soc_access::{ClockController, clock_controller};

static BOARD: BoardPower = BoardPower {
    engines: &[engine(Engine::Stm32Cryp, board::stm32mp1::CRYP1)],
    always_on: &[board::stm32mp1::DMA.gate.expect("a gated DMA controller")],
};

fn init() -> PowerPd<ClockController> {
    start(&BOARD, clock_controller)
}

pd_runtime::protection_domain!(init);
