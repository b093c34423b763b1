//! Each board's engine model, built inside the driver PD on the host, behind the same
//! register buses the drivers would use for memory-mapped I/O on seL4.
//!
//! DMA reaches memory through a `PhysMap` with one window per region the `.system`
//! file maps into the driver with a physical address: its scratch (`setvar_vaddr=
//! "scratch"`) and each client's data region (`"data0"`..`"data3"`). A region the
//! driver does not map is not in the map, so no DMA programming reaches it.
//! Interrupts: the models finish work synchronously on the access that starts it and
//! raise the engine's line; the SoC hands every rising line to the runtime's
//! `raise_irq`, so it reaches the driver as the notification of its `<irq>` channel,
//! exactly as on seL4. A driver whose `.system` entry lacks the `irq` elements never
//! hears its engine: [`Parts::irq_sink`] refuses to start it.

use cipher_service::ClientData;
use cost_ledger::Ledger;
use engine_models::am335x::Am335x;
use engine_models::mpc885::Mpc885;
use engine_models::phys::PhysMap;
use engine_models::power::GateBlock;
use engine_models::stm32mp1::Stm32mp1;
use pd_runtime::MemoryRegion;
use shm_queue::SharedRegion;

const DATA: [&str; driver_pd::MAX_CLIENTS] = ["data0", "data1", "data2", "data3"];

/// What every board model is built from.
pub struct Parts {
    pub ledger: &'static Ledger,
    pub gates: &'static GateBlock,
    pub mem: &'static PhysMap<'static>,
    pub scratch: MemoryRegion,
}

/// The shared ledger and gates, and a physical map over the driver's scratch and its
/// clients' data regions.
pub fn parts() -> Parts {
    let ledger = crate::shared::ledger().expect("a driver maps the ledger region");
    let gates = crate::shared::gates().expect("a driver maps the gates region");
    let scratch = pd_runtime::memory_region("scratch").expect("a driver maps its scratch");
    let mem: &'static PhysMap<'static> = Box::leak(Box::new(PhysMap::new()));
    let regions =
        core::iter::once(scratch).chain(DATA.iter().filter_map(|s| pd_runtime::memory_region(s)));
    for r in regions {
        // SAFETY: the runtime maps the region for the life of the PD; the model copies
        // bytes in and out through raw pointers and never holds references into it
        // (PhysMap's contract), as a DMA master would.
        unsafe { mem.add_raw(r.paddr, r.vaddr, r.size) };
    }
    Parts {
        ledger,
        gates,
        mem,
        scratch,
    }
}

impl Parts {
    /// The scratch region as the driver's own DMA buffer.
    pub fn scratch(&self) -> ClientData<'static> {
        assert!(self.scratch.writable, "scratch must be mapped rw");
        // SAFETY: mapped read-write for the life of the PD and mapped by no other PD;
        // reached only by volatile copies and DMA.
        let region = unsafe { SharedRegion::from_raw(self.scratch.vaddr, self.scratch.size) };
        ClientData {
            region,
            phys: Some(self.scratch.paddr),
        }
    }

    /// Where a SoC model's rising interrupt lines go: the runtime's IRQ notification.
    /// Panics (a fault the parent sees, at boot) if this PD has no `<irq>` channels.
    pub fn irq_sink(&self) -> fn(u32) {
        assert!(
            !pd_runtime::irq_channels().is_empty(),
            "{}: the .system file gives this driver no <irq> elements: it would never hear its engine",
            pd_runtime::pd_name()
        );
        |irq| {
            if !pd_runtime::host::raise_irq(irq.into()) {
                pd_runtime::debug_println!(
                    "{}: the model raised irq {irq}, which this PD's .system entry does not name",
                    pd_runtime::pd_name()
                );
            }
        }
    }

    pub fn am335x(&self) -> &'static Am335x<'static> {
        let soc: &'static _ = Box::leak(Box::new(engine_models::am335x::am335x(
            self.mem,
            self.gates,
            self.ledger,
        )));
        soc.set_irq_sink(self.irq_sink());
        set_irq_level(move |irq| soc.irq_asserted(irq));
        soc
    }

    pub fn stm32mp1(&self) -> &'static Stm32mp1<'static> {
        let soc: &'static _ = Box::leak(Box::new(engine_models::stm32mp1::stm32mp1(
            self.mem,
            self.gates,
            self.ledger,
        )));
        soc.set_irq_sink(self.irq_sink());
        set_irq_level(move |irq| soc.irq_asserted(irq));
        soc
    }

    pub fn mpc885(&self) -> &'static Mpc885<'static> {
        let soc: &'static _ = Box::leak(Box::new(engine_models::mpc885::mpc885(
            self.mem,
            self.gates,
            self.ledger,
        )));
        soc.set_irq_sink(self.irq_sink());
        set_irq_level(move |irq| soc.irq_asserted(irq));
        soc
    }
}

std::thread_local! {
    /// The driver's SoC model, as the runtime asks for a line's level: the PD's handler
    /// thread (the only one that acknowledges interrupts) owns the model.
    static LEVEL: core::cell::Cell<Option<&'static dyn Fn(u32) -> bool>> =
        const { core::cell::Cell::new(None) };
}

/// Gives the runtime the model's line levels (see `pd_runtime::host::set_irq_level`).
fn set_irq_level(level: impl Fn(u32) -> bool + 'static) {
    let level: &'static dyn Fn(u32) -> bool = Box::leak(Box::new(level));
    LEVEL.with(|l| l.set(Some(level)));
    pd_runtime::host::set_irq_level(|irq| {
        let irq = u32::try_from(irq).unwrap_or(u32::MAX);
        LEVEL.with(|l| l.get().is_some_and(|asserted| asserted(irq)))
    });
}

/// SEC1's CPU view of DMA memory: the physical map.
pub struct Sec1Mem(pub &'static PhysMap<'static>);

impl sec1_hash_driver::hw::DmaMemory for Sec1Mem {
    fn read(&self, phys: u32, buf: &mut [u8]) -> Result<(), sec1_hash_driver::hw::DmaFault> {
        self.0
            .read(phys.into(), buf)
            .map_err(|_| sec1_hash_driver::hw::DmaFault)
    }
    fn write(&self, phys: u32, data: &[u8]) -> Result<(), sec1_hash_driver::hw::DmaFault> {
        self.0
            .write(phys.into(), data)
            .map_err(|_| sec1_hash_driver::hw::DmaFault)
    }
}
