//! A PIO/DMA driver in its PD (feature `pd`): the PD's start from its engine and what its
//! board gives it ([`start`]), and what its init does under `driver_pd::DriverPd::start`,
//! the self-test on every route and the crossover calibration, reported to the log and
//! the trace.

use cipher_service::{Cipher, ClientData};
use cost_ledger::CostTable;
use driver_pd::DriverPd;
use pd_idl::cipher::Mode;
use pd_idl::power;
use pd_runtime::{debug_println, pd_name};
use pd_trace::{Kind, Trace};
use soc_access::Common;

use crate::{Driver, LedgerMeter, Meter, PioDmaEngine};

/// A PIO/DMA driver over engine `E` on its board: metered on the board's ledger.
pub type BoardDriver<E> = Driver<'static, E, LedgerMeter<'static>>;

/// A PIO/DMA driver PD over engine `E`, metered on its board's ledger.
pub type PioDmaPd<E> = DriverPd<Cipher<BoardDriver<E>>>;

/// The driver over `engine` as its PD runs it: metered on the board's ledger at the
/// board's `costs`, its self-test and calibration to run in the PD's scratch (the
/// isolation bench builds the same in its own PD).
pub fn on_board<E: PioDmaEngine>(
    engine: E,
    board: Common,
    costs: &'static CostTable,
) -> BoardDriver<E> {
    let meter = LedgerMeter {
        ledger: board.ledger,
        costs,
    };
    let scratch = ClientData {
        region: board.scratch.region,
        phys: Some(board.scratch.phys),
    };
    Driver::new(engine, meter, scratch)
}

/// Starts the driver PD over `engine` ([`on_board`]), self-testing and calibrating
/// ([`init`]), and asking the power manager for `power` while sessions are open.
pub fn start<E: PioDmaEngine>(
    engine: E,
    board: Common,
    costs: &'static CostTable,
    power: power::Engine,
) -> PioDmaPd<E> {
    DriverPd::start(on_board(engine, board, costs), Some(power), init)
}

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
