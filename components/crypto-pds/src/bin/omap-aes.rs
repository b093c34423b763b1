//! The OMAP AES driver PD (am335x AES0 with EDMA): PIO or DMA per request with the
//! crossover calibrated at init, DMA straight from the client's segments. On the host
//! the am335x model lives in this process behind the register buses.
use boards::am335x;
use crypto_pds::board::parts;
use driver_pd::cipher::CipherPd;
use engine_models::am335x::Am335xMachine;
use engine_models::soc::Port;
use omap_aes_driver::{Config, LedgerMeter, OmapAesDriver};
use pd_idl::power::Engine;

type Bus = Port<'static, Am335xMachine<'static>>;
type Driver = OmapAesDriver<'static, Bus, Bus, LedgerMeter<'static>>;

fn init() -> CipherPd<Driver> {
    let parts = parts();
    let soc = parts.am335x();
    let meter = LedgerMeter {
        ledger: parts.ledger,
        costs: &am335x::COSTS,
    };
    let driver = omap_aes_driver::new(
        Config::AM335X,
        soc.aes(),
        soc.edma(),
        meter,
        parts.scratch(),
    );
    crypto_pds::pio_dma::start(driver, Engine::OmapAes, |d| d.init().copied())
}

pd_runtime::protection_domain!(init);
