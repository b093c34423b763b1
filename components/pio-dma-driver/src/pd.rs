//! A PIO/DMA driver in its PD (feature `pd`): the engine under the shared self-test,
//! calibration and routing, brought up with its power grant held for init, the
//! calibration reported, then served by `driver-pd`'s Cipher PD.

use cipher_service::ClientData;
use driver_pd::cipher::CipherPd;
use pd_idl::cipher::Mode;
use pd_idl::power::Engine;
use pd_runtime::{debug_println, pd_name};
use pd_trace::Kind;
use shm_queue::SharedRegion;

use crate::{Driver, Meter, PioDmaEngine};

/// The PD over `engine`, its `meter` and its DMA scratch (`scratch` at physical
/// `scratch_phys`); `power` names the engine to the power manager.
pub fn bring_up<E: PioDmaEngine + 'static, M: Meter + 'static>(
    engine: E,
    meter: M,
    scratch: SharedRegion<'static>,
    scratch_phys: u64,
    power: Engine,
) -> CipherPd<Driver<'static, E, M>> {
    let scratch = ClientData {
        region: scratch,
        phys: Some(scratch_phys),
    };
    let pd = driver_pd::cipher::bring_up(
        Driver::new(engine, meter, scratch),
        power,
        |d| d.init().copied(),
        |cal| {
            debug_println!("{}: self-test passed on every path", pd_name());
            for e in cal.entries() {
                debug_println!("{}: {e}", pd_name());
            }
        },
    );
    // For whoever checks the calibration against the published figures from outside.
    let cbc128 = pd.service.engine.calibration().get(Mode::Cbc, 16);
    pd.record(Kind::Calibrated, cbc128.dma_from_bytes);
    pd
}
