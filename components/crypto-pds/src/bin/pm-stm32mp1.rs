//! The stm32mp1 power manager: CRYP1 (50 ms autosuspend); MDMA always on.
use boards::stm32mp1::{CRYP1, DMA};
use crypto_pds::power::{BoardPower, PowerPd, init};
use pd_idl::power::Engine;

static BOARD: BoardPower = BoardPower {
    engines: &[(Engine::Stm32Cryp, CRYP1)],
    always_on: &[DMA],
};

fn start() -> PowerPd {
    init(&BOARD)
}

pd_runtime::protection_domain!(start);
