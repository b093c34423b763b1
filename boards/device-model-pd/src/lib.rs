//! Device PDs: where there is no silicon (the OMAP AES, STM32 CRYP and talitos SEC1
//! engines under QEMU), a PD of its own runs the board's model (`engine-models`: the
//! engine, its DMA controller and the clock controller) and stands in for the hardware.
//!
//! * Registers: the driver and the power manager reach the model's register windows by
//!   calls (pd-idl `RegBus`) on their device channel ([`pd_runtime::device_channel`]):
//!   the engine and DMA windows for the driver, the clock window for the power manager,
//!   each refused to anyone else (`NotYours`). The driver binary holds no model code: the
//!   same driver over volatile MMIO runs on the silicon.
//! * Interrupts: after every access the device PD looks at the board's lines, and
//!   notifies the driver if one is asserted and no notification is outstanding; the
//!   driver's acknowledgement (its `irq_ack`, a notification back) ends the outstanding
//!   one, and a line still asserted then is notified again: level-triggered delivery, as
//!   a GIC gives it.
//! * DMA: the model reaches memory by physical address only through this PD's own
//!   mappings of the DMA-reachable regions (`dma0`..`dma7`, each with its physical
//!   address: a `region_paddr` setvar on seL4, `phys_addr` on the host); any other
//!   address is the DMA controller's bus error, as the models report it.
//! * The cost ledger (`ledger`) is counted here, where the hardware work happens, and
//!   read by whoever maps it.
//!
//! Assumes one driver and at most one power manager per device PD, a higher priority
//! than both (Microkit calls only go up), and that it lives as long as the system (its
//! model state is in statics). `no_std`, no heap.
#![no_std]

use engine_models::phys::PhysMap;
use engine_models::power::{ClockController, GateBlock};
use engine_models::soc::{Machine, Soc};
use mmio::{BusFault, RegisterBus};
use pd_idl::regbus::{self, BusError};
use pd_idl::wire::Caller;
use pd_runtime::{Channel, ChannelSet, Handler, MessageInfo, debug_println, ipc, pd_name};
use soc_access::device::window;
use static_cell::StaticCell;

pub use cost_ledger::Ledger;

/// The model's memory: one window per DMA-reachable region mapped into this PD.
pub fn phys_map() -> &'static PhysMap<'static> {
    static MAP: StaticCell<PhysMap<'static>> = StaticCell::new();
    let map: &'static PhysMap<'static> = MAP.init(PhysMap::new());
    let regions = [
        pd_runtime::maybe_memory_region!(dma0),
        pd_runtime::maybe_memory_region!(dma1),
        pd_runtime::maybe_memory_region!(dma2),
        pd_runtime::maybe_memory_region!(dma3),
        pd_runtime::maybe_memory_region!(dma4),
        pd_runtime::maybe_memory_region!(dma5),
        pd_runtime::maybe_memory_region!(dma6),
        pd_runtime::maybe_memory_region!(dma7),
    ];
    for r in regions.into_iter().flatten() {
        assert!(
            r.paddr != 0 && r.writable,
            "{}: a DMA region needs its physical address and rw",
            pd_name()
        );
        // SAFETY: mapped read-write for the life of the PD; the model copies bytes in
        // and out through raw pointers and holds no references (PhysMap's contract),
        // as a DMA master does.
        unsafe { map.add_raw(r.paddr, r.vaddr, r.size) };
    }
    map
}

/// The board's clock gates: the clock controller sets them, the engine models check
/// them, all in this PD.
pub fn gates() -> &'static GateBlock {
    static GATES: GateBlock = GateBlock::new();
    &GATES
}

/// The system's cost ledger.
pub fn ledger() -> &'static Ledger {
    soc_access::shared::ledger()
}

/// Puts `soc` where it lives for the rest of the PD (the model is the silicon).
pub fn keep<M: Machine + 'static>(
    cell: &'static StaticCell<Soc<'static, M>>,
    soc: Soc<'static, M>,
) -> &'static Soc<'static, M> {
    cell.init(soc)
}

/// A device PD: the model, who may touch which window, and the interrupt outstanding.
pub struct DevicePd<M: Machine + 'static> {
    soc: &'static Soc<'static, M>,
    /// The machine's device index behind the engine and DMA windows.
    devices: [Option<usize>; 2],
    clocks: ClockController<'static>,
    driver: Channel,
    power: Option<Channel>,
    /// A notification is with the driver and not yet acknowledged.
    outstanding: bool,
}

impl<M: Machine + 'static> DevicePd<M> {
    /// Serves `soc` (its `engine` device and, if any, its `dma` device) to the driver
    /// on the channel with `setvar_id="driver"`, and its clock controller to the power
    /// manager on `setvar_id="power"`.
    pub fn new(soc: &'static Soc<'static, M>, engine: usize, dma: Option<usize>) -> Self {
        let channel = |v: u64| Channel::new(u8::try_from(v).expect("a channel id"));
        let pd = DevicePd {
            soc,
            devices: [Some(engine), dma],
            clocks: ClockController::new(gates(), ledger()),
            driver: channel(pd_runtime::var!(driver)),
            power: pd_runtime::maybe_var!(power).map(channel),
            outstanding: false,
        };
        debug_println!(
            "{}: standing in for the silicon: driver on channel {}, power manager on {:?}",
            pd_name(),
            pd.driver.index(),
            pd.power.map(Channel::index)
        );
        pd
    }

    fn asserted(&self) -> bool {
        let irqs = self.soc.with(|m| m.irqs());
        irqs.iter().any(|&irq| self.soc.irq_asserted(irq))
    }

    /// Notifies the driver if a line is asserted and none is outstanding.
    fn deliver(&mut self) {
        if !self.outstanding && self.asserted() {
            self.outstanding = true;
            self.driver.notify();
        }
    }

    fn bus(&mut self, caller: Caller, w: u8) -> Result<Window<'_, M>, BusError> {
        let from = |ch: Option<Channel>| ch.is_some_and(|c| u32::from(c.index()) == caller.0);
        match w {
            window::ENGINE | window::DMA => {
                if !from(Some(self.driver)) {
                    return Err(BusError::NotYours);
                }
                let dev = self.devices[usize::from(w)].ok_or(BusError::NoSuchWindow)?;
                Ok(Window::Port(self.soc.port(dev)))
            }
            window::CLOCKS => {
                if !from(self.power) {
                    return Err(BusError::NotYours);
                }
                Ok(Window::Clocks(&mut self.clocks))
            }
            _ => Err(BusError::NoSuchWindow),
        }
    }
}

/// The register bus behind one window.
enum Window<'a, M: Machine + 'static> {
    Port(engine_models::soc::Port<'static, M>),
    Clocks(&'a mut ClockController<'static>),
}

impl<M: Machine> Window<'_, M> {
    fn bus(&mut self) -> &mut dyn RegisterBus {
        match self {
            Window::Port(p) => p,
            Window::Clocks(c) => *c,
        }
    }
}

fn error(f: BusFault) -> BusError {
    match f {
        BusFault::Gated => BusError::Gated,
        BusFault::OutOfWindow { .. } => BusError::OutOfWindow,
        BusFault::Misaligned { .. } => BusError::Misaligned,
        BusFault::NoDevice => BusError::NoSuchWindow,
    }
}

impl<M: Machine + 'static> regbus::Server for DevicePd<M> {
    fn read32(&mut self, caller: Caller, w: u8, offset: u32) -> Result<u32, BusError> {
        let mut win = self.bus(caller, w)?;
        win.bus().read32(offset as usize).map_err(error)
    }

    fn write32(&mut self, caller: Caller, w: u8, offset: u32, value: u32) -> Result<(), BusError> {
        let mut win = self.bus(caller, w)?;
        win.bus().write32(offset as usize, value).map_err(error)
    }
}

impl<M: Machine + 'static> Handler for DevicePd<M> {
    fn protected(&mut self, channel: Channel, msg: MessageInfo) -> MessageInfo {
        let reply = ipc::serve(channel, msg, |caller, m| regbus::dispatch(self, caller, m));
        // The access may have raised a line (a PIO block taken, a DMA transfer ended).
        self.deliver();
        reply
    }

    fn notified(&mut self, channels: ChannelSet) {
        if channels.contains(self.driver) {
            // The driver acknowledged its interrupt: a line still asserted comes again.
            self.outstanding = false;
        }
        self.deliver();
    }
}
