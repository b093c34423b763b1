//! Bringing up a PIO/DMA Cipher driver (OMAP AES, STM32 CRYP) in its PD: take the power
//! grant, run the self-test and calibration (which need the engine clocked), report
//! them, and serve; the grant is given back until the first session opens.

use cipher_service::CipherEngine;
use driver_pd::PowerHold;
use driver_pd::cipher::CipherPd;
use pd_idl::power::Engine;
use pd_runtime::{debug_println, pd_name};
use pio_dma_driver::calibrate::{KEY_LENS, MODES};
use pio_dma_driver::{Calibration, InitError};

/// `init` is the driver's own (`Driver::init`), run with the engine powered.
pub fn start<D: CipherEngine + 'static, E: core::fmt::Debug>(
    mut driver: D,
    engine: Engine,
    init: impl FnOnce(&mut D) -> Result<Calibration, InitError<E>>,
) -> CipherPd<D> {
    let mut power = PowerHold::new(engine);
    if let Err(e) = power.ensure() {
        debug_println!("{}: no power for the self-test: {e:?}", pd_name());
    }
    match init(&mut driver) {
        Ok(cal) => {
            debug_println!("{}: self-test passed on every path", pd_name());
            for (m, mode) in MODES.iter().enumerate() {
                for (k, key_len) in KEY_LENS.iter().enumerate() {
                    let c = cal.table[m][k];
                    debug_println!(
                        "{}: crossover {mode:?}/{}: {} B (pio {} ps, dma {} ps)",
                        pd_name(),
                        u32::from(*key_len) * 8,
                        c.dma_from_bytes,
                        c.pio_ps,
                        c.dma_ps
                    );
                }
            }
        }
        // Reported and not served: the driver answers every open with EngineFault.
        Err(e) => debug_println!("{}: SELF-TEST FAILED: {e:?}; not serving", pd_name()),
    }
    let mut pd = driver_pd::cipher::pd(driver, Some(power));
    pd.release_idle_power();
    pd
}
