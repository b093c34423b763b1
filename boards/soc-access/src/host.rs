//! The host: the board's engine model inside the driver's process, behind the same
//! register buses the driver uses for MMIO on seL4; or, if the PD has a device channel,
//! a device PD's windows, as under QEMU.
//!
//! DMA reaches memory through a `PhysMap` with one window per region the `.system`
//! file maps into the driver with a physical address: its scratch and each client's
//! data region (`data0`..`data3`). A region the driver does not map is not in the map,
//! so no DMA programming reaches it.

use core::cell::Cell;
use std::boxed::Box;

use cost_ledger::Ledger;
use engine_models::dma_port::{self, DmaPort, PortMachine};
use engine_models::phys::PhysMap;
use engine_models::power::GateBlock;
use engine_models::soc::{Machine, Port, Soc};
use pd_runtime::maybe_memory_region as region;

use crate::device::{Bus, DeviceBus, window as w};
use crate::{Am335x, Common, Mpc885, ScratchView, Stm32mp1, common, device_windows};

/// Each board's register windows: ports of its model (or a device PD's windows).
pub type Am335xBus = Bus<Port<'static, engine_models::am335x::Am335xMachine<'static>>>;
pub type Stm32mp1Bus = Bus<Port<'static, engine_models::stm32mp1::Stm32mp1Machine<'static>>>;
pub type Mpc885Bus = Bus<Port<'static, engine_models::mpc885::Mpc885Machine<'static>>>;

/// The CPU's view of DMA memory by physical address: the in-PD model's physical map, or
/// the scratch where a device PD does the DMA.
#[derive(Clone, Copy)]
pub enum DmaView {
    Model(&'static PhysMap<'static>),
    Scratch(ScratchView),
}

impl DmaView {
    pub fn read(&self, phys: u64, buf: &mut [u8]) -> bool {
        match self {
            DmaView::Model(m) => m.read(phys, buf).is_ok(),
            DmaView::Scratch(s) => s.read(phys, buf),
        }
    }

    pub fn write(&self, phys: u64, data: &[u8]) -> bool {
        match self {
            DmaView::Model(m) => m.write(phys, data).is_ok(),
            DmaView::Scratch(s) => s.write(phys, data),
        }
    }
}

/// The physical map over the scratch and every client data region of this PD.
fn phys_map(common: &Common) -> &'static PhysMap<'static> {
    let mem: &'static PhysMap<'static> = Box::leak(Box::new(PhysMap::new()));
    let s = common.scratch;
    let clients = [
        region!(data0),
        region!(data1),
        region!(data2),
        region!(data3),
    ];
    // SAFETY (of each add_raw): the runtime maps the region for the life of the PD; the
    // model copies bytes in and out through raw pointers and never holds references
    // into it (PhysMap's contract), as a DMA master would.
    unsafe { mem.add_raw(s.phys, s.region.as_ptr(), s.region.len()) };
    for r in clients.into_iter().flatten() {
        unsafe { mem.add_raw(r.paddr, r.vaddr, r.size) };
    }
    mem
}

std::thread_local! {
    /// The driver's SoC model, as the runtime asks for a line's level: the PD's handler
    /// thread (the only one that acknowledges interrupts) owns the model.
    static LEVEL: Cell<Option<&'static dyn Fn(u32) -> bool>> = const { Cell::new(None) };
}

/// Wires a model's interrupts to the runtime: rising lines raise the PD's IRQ channels,
/// and a line still asserted at `irq_ack` is delivered again. Panics (a fault the
/// parent sees, at boot) if this PD has no `<irq>` channels: it would never hear its
/// engine.
fn wire_irqs<M: Machine + 'static>(soc: &'static Soc<'static, M>) {
    assert!(
        !pd_runtime::irq_channels().is_empty(),
        "{}: the .system file gives this driver no <irq> elements",
        pd_runtime::pd_name()
    );
    soc.set_irq_sink(|irq| {
        if !pd_runtime::host::raise_irq(irq.into()) {
            pd_runtime::debug_println!(
                "{}: the model raised irq {irq}, which this PD's .system entry does not name",
                pd_runtime::pd_name()
            );
        }
    });
    let level: &'static dyn Fn(u32) -> bool = Box::leak(Box::new(|irq| soc.irq_asserted(irq)));
    LEVEL.with(|l| l.set(Some(level)));
    pd_runtime::host::set_irq_level(|irq| {
        let irq = u32::try_from(irq).unwrap_or(u32::MAX);
        LEVEL.with(|l| l.get().is_some_and(|asserted| asserted(irq)))
    });
}

/// The board's clock controller, as the power manager drives it: the model over the
/// gate block the engine models check, or the device PD's clock window.
pub type ClockController = Bus<engine_models::power::ClockController<'static>>;

pub fn clock_controller() -> ClockController {
    match pd_runtime::device_channel() {
        Some(ch) => Bus::Device(DeviceBus::new(ch, w::CLOCKS)),
        None => Bus::Local(engine_models::power::ClockController::new(
            crate::shared::gates(),
            crate::shared::ledger(),
        )),
    }
}

/// How `engine_models` builds a board's model: over the physical map, checking the
/// gates, counting into the ledger.
type Build<M> =
    fn(&'static PhysMap<'static>, &'static GateBlock, &'static Ledger) -> Soc<'static, M>;

/// The bus of one device of a [`PortMachine`] model.
type PortBus<E> = Bus<Port<'static, PortMachine<'static, E>>>;

/// Builds the board's model with `build` over this PD's physical map, leaked (it stands
/// in for silicon that lives as long as the PD), with its interrupts wired to the runtime.
fn local_soc<M: Machine + 'static>(
    common: &Common,
    build: Build<M>,
) -> (&'static Soc<'static, M>, &'static PhysMap<'static>) {
    let mem = phys_map(common);
    let soc: &'static _ = Box::leak(Box::new(build(mem, crate::shared::gates(), common.ledger)));
    wire_irqs(soc);
    (soc, mem)
}

/// An engine whose data port the DMA controller serves (am335x, stm32mp1): its bus and
/// the controller's, `(engine, dma)`, as a device PD's windows or as ports of the model
/// `build` makes.
fn engine_and_dma<E: DmaPort + 'static>(
    build: Build<PortMachine<'static, E>>,
) -> ((PortBus<E>, PortBus<E>), Common) {
    let common = common();
    if let Some((engine, dma)) = device_windows() {
        return ((Bus::Device(engine), Bus::Device(dma)), common);
    }
    let (soc, _) = local_soc(&common, build);
    let buses = (
        Bus::Local(soc.port(dma_port::DEV_ENGINE)),
        Bus::Local(soc.port(dma_port::DEV_DMA)),
    );
    (buses, common)
}

impl Am335x {
    pub fn take() -> Self {
        let ((aes, edma), common) = engine_and_dma(engine_models::am335x::am335x);
        Am335x { aes, edma, common }
    }
}

impl Stm32mp1 {
    pub fn take() -> Self {
        let ((cryp, dma), common) = engine_and_dma(engine_models::stm32mp1::stm32mp1);
        Stm32mp1 { cryp, dma, common }
    }
}

impl Mpc885 {
    pub fn take() -> Self {
        if let Some((sec, _)) = device_windows() {
            let common = common();
            return Mpc885 {
                sec: Bus::Device(sec),
                dma: DmaView::Scratch(ScratchView(common.scratch)),
                common,
            };
        }
        let common = common();
        let (soc, mem) = local_soc(&common, engine_models::mpc885::mpc885);
        Mpc885 {
            sec: Bus::Local(soc.sec()),
            dma: DmaView::Model(mem),
            common,
        }
    }
}
