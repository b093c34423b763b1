//! Regions several PDs of a system share as typed blocks of atomics: the cost ledger
//! (`setvar_vaddr="ledger"`), and on the host the clock gates the power manager sets and
//! the engine models check (`"gates"`).

use cost_ledger::{Counts, Ledger};
use pd_runtime::MemoryRegion;

/// The region as a `T` for the life of the PD.
///
/// `T` must be a `#[repr(C)]` block of atomics whose all-zero pattern is valid (a fresh
/// region is zeroed), accessed only through its atomics.
pub fn typed<T>(r: MemoryRegion, what: &str) -> &'static T {
    assert!(r.size >= size_of::<T>(), "region {what} too small");
    assert!(
        (r.vaddr as usize).is_multiple_of(align_of::<T>()),
        "region {what} misaligned"
    );
    // SAFETY: mapped for the life of the PD, large and aligned enough (checked); `T` is
    // a block of atomics valid when zeroed (the contract above), so other PDs writing it
    // concurrently is its design.
    unsafe { &*r.vaddr.cast::<T>() }
}

/// The system's cost ledger.
pub fn ledger() -> &'static Ledger {
    typed(pd_runtime::memory_region!(ledger), "ledger")
}

/// The cost ledger, if the system maps one into this PD.
pub fn maybe_ledger() -> Option<&'static Ledger> {
    pd_runtime::maybe_memory_region!(ledger).map(|r| typed(r, "ledger"))
}

/// The host's clock gates (the power manager writes them, the models read them).
#[cfg(not(target_os = "none"))]
pub fn gates() -> &'static engine_models::power::GateBlock {
    typed(pd_runtime::memory_region!(gates), "gates")
}

/// What a client reads of the ledger, if the system maps one into it: snapshots to
/// difference around its requests.
pub struct Meter(pub Option<&'static Ledger>);

impl Meter {
    pub fn map() -> Self {
        Meter(maybe_ledger())
    }

    pub fn now(&self) -> Counts {
        self.0.map(|l| l.snapshot()).unwrap_or_default()
    }
}
