//! The regions every PD of a system may share: the cost ledger and the clock gates.

use cost_ledger::Ledger;
use engine_models::power::GateBlock;
use pd_runtime::MemoryRegion;

fn typed<T>(symbol: &str) -> Option<&'static T> {
    let r: MemoryRegion = pd_runtime::memory_region(symbol)?;
    assert!(r.size >= size_of::<T>(), "region {symbol} too small");
    assert!(
        (r.vaddr as usize).is_multiple_of(align_of::<T>()),
        "region {symbol} misaligned"
    );
    // SAFETY: the region is mapped for the life of the PD, large and aligned enough
    // (checked). `T` is a `#[repr(C)]` block of atomics (Ledger, GateBlock) whose
    // all-zero pattern is valid (a fresh memfd is zeroed), and all access goes through
    // the atomics, so other processes writing it concurrently is their design.
    Some(unsafe { &*r.vaddr.cast::<T>() })
}

/// The system's cost ledger (`setvar_vaddr="ledger"`).
pub fn ledger() -> Option<&'static Ledger> {
    ledger_at("ledger")
}

/// A cost ledger mapped with `setvar_vaddr=symbol` (a client of several boards).
pub fn ledger_at(symbol: &str) -> Option<&'static Ledger> {
    typed(symbol)
}

/// The clock gates the power manager sets and the engine models check
/// (`setvar_vaddr="gates"`).
pub fn gates() -> Option<&'static GateBlock> {
    typed("gates")
}
