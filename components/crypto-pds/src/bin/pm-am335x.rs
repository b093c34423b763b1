//! The am335x power manager: OMAP AES0 (1000 ms autosuspend); EDMA always on.
use boards::am335x::{AES0, EDMA};
use crypto_pds::power::{BoardPower, PowerPd, init};
use pd_idl::power::Engine;

static BOARD: BoardPower = BoardPower {
    engines: &[(Engine::OmapAes, AES0)],
    always_on: &[EDMA],
};

fn start() -> PowerPd {
    init(&BOARD)
}

pd_runtime::protection_domain!(start);
