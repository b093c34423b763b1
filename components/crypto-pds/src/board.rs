//! Each board's engine model, built inside the driver PD on the host, behind the same
//! register buses the drivers would use for memory-mapped I/O on seL4.
//!
//! DMA reaches memory through a `PhysMap` with one window per region the `.system`
//! file maps into the driver with a physical address: its scratch (`setvar_vaddr=
//! "scratch"`) and each client's data region (`"data0"`..`"data3"`). A region the
//! driver does not map is not in the map, so no DMA programming reaches it.
//! Interrupts: the models finish work synchronously on the access that starts it, so
//! the driver's interrupt source asks the model directly (where seL4 would deliver the
//! IRQ notification); no `irq` element is needed in the `.system` file.

use cipher_service::ClientData;
use cost_ledger::Ledger;
use engine_models::am335x::Am335x;
use engine_models::mpc885::Mpc885;
use engine_models::phys::PhysMap;
use engine_models::power::GateBlock;
use engine_models::stm32mp1::Stm32mp1;
use pd_runtime::MemoryRegion;

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
        // the driver touches it only while its DMA engine is idle.
        let bytes =
            unsafe { core::slice::from_raw_parts_mut(self.scratch.vaddr, self.scratch.size) };
        ClientData {
            bytes,
            phys: Some(self.scratch.paddr),
        }
    }

    pub fn am335x(&self) -> &'static Am335x<'static> {
        Box::leak(Box::new(engine_models::am335x::am335x(
            self.mem,
            self.gates,
            self.ledger,
        )))
    }

    pub fn stm32mp1(&self) -> &'static Stm32mp1<'static> {
        Box::leak(Box::new(engine_models::stm32mp1::stm32mp1(
            self.mem,
            self.gates,
            self.ledger,
        )))
    }

    pub fn mpc885(&self) -> &'static Mpc885<'static> {
        Box::leak(Box::new(engine_models::mpc885::mpc885(
            self.mem,
            self.gates,
            self.ledger,
        )))
    }
}

/// Interrupts of a SoC model, as the pio-dma drivers wait for them.
pub struct SocIrqs<S: 'static>(pub &'static S);

impl pio_dma_driver::IrqSource for SocIrqs<Am335x<'static>> {
    fn wait(&mut self, irq: u32) -> bool {
        self.0.irq_pending(irq)
    }
    fn ack(&mut self, irq: u32) {
        self.0.irq_ack(irq)
    }
}

impl pio_dma_driver::IrqSource for SocIrqs<Stm32mp1<'static>> {
    fn wait(&mut self, irq: u32) -> bool {
        self.0.irq_pending(irq)
    }
    fn ack(&mut self, irq: u32) {
        self.0.irq_ack(irq)
    }
}

/// SEC1's done interrupt.
pub struct Sec1Irq(pub &'static Mpc885<'static>);

impl sec1_hash_driver::hw::Irq for Sec1Irq {
    fn wait(&mut self) -> bool {
        self.0.irq_pending(boards::mpc885::SEC.irqs[0])
    }
    fn ack(&mut self) {
        self.0.irq_ack(boards::mpc885::SEC.irqs[0])
    }
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
