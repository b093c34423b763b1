//! The mpc885 power manager: the SEC1 (1000 ms autosuspend; it has its own DMA).
use boards::mpc885::SEC;
use crypto_pds::power::{BoardPower, PowerPd, init};
use pd_idl::power::Engine;

static BOARD: BoardPower = BoardPower {
    engines: &[(Engine::Sec1, SEC)],
    always_on: &[],
};

fn start() -> PowerPd {
    init(&BOARD)
}

pd_runtime::protection_domain!(start);
