//! The STM32 CRYP driver PD (stm32mp1 CRYP1 with MDMA): upstream's DMA eligibility rule,
//! CPU mode for short or misaligned requests, crossover calibrated at init. On the host
//! the stm32mp1 model lives in this process behind the register buses.
use boards::stm32mp1;
use crypto_pds::board::parts;
use driver_pd::cipher::CipherPd;
use engine_models::soc::Port;
use engine_models::stm32mp1::Stm32mp1Machine;
use pd_idl::power::Engine;
use stm32_cryp_driver::{Config, LedgerMeter, Stm32CrypDriver};

type Bus = Port<'static, Stm32mp1Machine<'static>>;
type Driver = Stm32CrypDriver<'static, Bus, Bus, LedgerMeter<'static>>;

fn init() -> CipherPd<Driver> {
    let parts = parts();
    let soc = parts.stm32mp1();
    let meter = LedgerMeter {
        ledger: parts.ledger,
        costs: &stm32mp1::COSTS,
    };
    let driver = stm32_cryp_driver::new(
        Config::STM32MP1,
        soc.cryp(),
        soc.dma(),
        meter,
        parts.scratch(),
    );
    crypto_pds::pio_dma::start(driver, Engine::Stm32Cryp, |d| d.init().copied())
}

pd_runtime::protection_domain!(init);
