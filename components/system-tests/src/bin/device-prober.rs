//! Knocks on a device PD's windows from both sides (`system/device-prober.system`): on
//! the channel where it stands as the driver it may read the engine window but not the
//! clock window, on the one where it stands as the power manager the reverse (a gated
//! engine answers `Gated`), and a window the board does not have, an offset outside a
//! window or one not word-aligned is refused with its own error. Exits 0 only if each
//! answer is the one the device PD owes.
use pd_idl::regbus::{BusError, Client};
use pd_idl::wire::CallError;
use pd_runtime::ipc::PpcTransport;
use pd_runtime::{Channel, Handler, debug_println, exit, pd_name};
use soc_access::device::window;

struct Done;
impl Handler for Done {}

fn init() -> Done {
    let as_driver = pd_runtime::device_channel().expect("a device channel");
    let as_power = Channel::new(pd_runtime::var!(as_power) as u8);
    let mut driver = Client::new(PpcTransport(as_driver));
    let mut power = Client::new(PpcTransport(as_power));
    fn refused<T>(e: BusError) -> Result<T, CallError<BusError>> {
        Err(CallError::Server(e))
    }
    let mut bad = 0;
    let mut check = |what: &str, ok: bool| {
        debug_println!(
            "{}: {what}: {}",
            pd_name(),
            if ok { "as owed" } else { "WRONG" }
        );
        bad += u32::from(!ok);
    };
    // The engine is gated until the power manager's side ungates it: the device
    // answers (Gated), it does not refuse the driver.
    check(
        "driver reads the gated engine window",
        driver.read32(window::ENGINE, 0) == refused(BusError::Gated),
    );
    check(
        "driver reads the clock window",
        driver.read32(window::CLOCKS, 0) == refused(BusError::NotYours),
    );
    check(
        "driver ungates a clock",
        driver.write32(window::CLOCKS, 0, 2) == refused(BusError::NotYours),
    );
    check(
        "power manager writes the engine window",
        power.write32(window::ENGINE, 0, 1) == refused(BusError::NotYours),
    );
    check(
        "power manager ungates the engine's clock",
        power.write32(window::CLOCKS, 0, 2).is_ok(),
    );
    check(
        "driver reads the engine window once clocked",
        driver.read32(window::ENGINE, 0).is_ok(),
    );
    check(
        "a window the board does not have",
        driver.read32(9, 0) == refused(BusError::NoSuchWindow),
    );
    check(
        "an offset outside the engine window",
        driver.read32(window::ENGINE, 0x10_0000) == refused(BusError::OutOfWindow),
    );
    check(
        "a register offset not word-aligned",
        driver.read32(window::ENGINE, 2) == refused(BusError::Misaligned)
            && driver.write32(window::ENGINE, 6, 1) == refused(BusError::Misaligned),
    );
    // What a register access costs through the device PD on this machine (one call
    // each way): the price of the register-bus design, for the record, not a check.
    const READS: u32 = 20_000;
    let start = std::time::Instant::now();
    for _ in 0..READS {
        let _ = driver.read32(window::ENGINE, 0);
    }
    let ns = start.elapsed().as_nanos() / u128::from(READS);
    debug_println!("{}: {READS} engine register reads: {ns} ns each", pd_name());
    exit(if bad == 0 { 0 } else { 1 })
}

pd_runtime::protection_domain!(init);
