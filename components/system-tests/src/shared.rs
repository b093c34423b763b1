//! The cost ledger of a board by name (host-only: the demo's speed client maps the
//! ledgers of several boards, each under its own symbol).

use cost_ledger::Ledger;

/// A cost ledger mapped with `setvar_vaddr=symbol`.
pub fn ledger_at(symbol: &str) -> Option<&'static Ledger> {
    pd_runtime::memory_region(symbol).map(|r| soc_access::shared::typed(r, symbol))
}
