//! A PIO/DMA driver in its PD (feature `pd`): what its init does under
//! `driver_pd::DriverPd::start`, the self-test on every route and the crossover
//! calibration, reported to the log and the trace.

use pd_idl::cipher::Mode;
use pd_runtime::{debug_println, pd_name};
use pd_trace::{Kind, Trace};

use crate::{Driver, Meter, PioDmaEngine};

/// The driver's init: self-test and calibration (a failure leaves the driver refusing
/// every open with `EngineFault`); the crossover of AES-128-CBC goes in the trace, for
/// whoever checks the calibration against the published figures from outside.
pub fn init<E: PioDmaEngine, M: Meter>(driver: &mut Driver<'_, E, M>, trace: &Trace<'_>) {
    match driver.init() {
        Ok(cal) => {
            debug_println!("{}: self-test passed on every path", pd_name());
            for e in cal.entries() {
                debug_println!("{}: {e}", pd_name());
            }
            trace.record(Kind::Calibrated, cal.get(Mode::Cbc, 16).dma_from_bytes);
        }
        Err(e) => debug_println!("{}: SELF-TEST FAILED: {e:?}; not serving", pd_name()),
    }
}
