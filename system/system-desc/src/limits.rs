//! Microkit's limits and defaults, each with the place it comes from.
//!
//! Sources are paths in seL4/microkit at tag 2.3.0 (the newest 2.x release); the values
//! are the same in 2.0.1 unless a comment says otherwise.

/// Most protection domains in one system, children included.
/// `tool/microkit/src/lib.rs` `MAX_PDS`; manual, "Protection Domains".
pub const MAX_PDS: usize = 63;

/// Largest channel end or irq id. Notifications arrive as one badge bit per id and
/// bits 63 (PPC) and 62 (fault) are taken, leaving 0..=61.
/// `tool/microkit/src/sdf.rs` `PD_MAX_ID` (the manual's "less than 63" is off by one).
pub const MAX_CHANNEL_ID: u64 = 61;

/// Largest child PD id. Microkit does not range-check child ids in `sdf.rs`; it puts the
/// child's TCB cap at `PD_BASE_PD_TCB_CAP + id` in a 64-slot block
/// (`tool/microkit/src/capdl/builder.rs`), so an id past 63 lands in the next block.
/// We reject it here rather than build a broken CSpace.
pub const MAX_CHILD_ID: u64 = 63;

/// Highest PD priority; 255 is the monitor's. `sdf.rs` `PD_MAX_PRIORITY`, `MONITOR_PRIORITY`.
pub const MAX_PRIORITY: u64 = 254;
/// `sdf.rs`: "Default to minimum priority".
pub const DEFAULT_PRIORITY: u8 = 0;

/// Budget in microseconds when none is given; the period then defaults to the budget.
/// `sdf.rs` `BUDGET_DEFAULT`; manual, `protection_domain`.
pub const DEFAULT_BUDGET_US: u64 = 1000;

/// `sdf.rs` `PD_DEFAULT_STACK_SIZE`, `PD_MIN_STACK_SIZE`, `PD_MAX_STACK_SIZE`; the stack
/// must also be a multiple of the smallest page size.
pub const DEFAULT_STACK_SIZE: u64 = 0x2000;
pub const MIN_STACK_SIZE: u64 = 0x1000;
pub const MAX_STACK_SIZE: u64 = 16 * 1024 * 1024;

/// Reserved for the Microkit monitor. `sdf.rs` `MONITOR_PD_NAME`.
pub const MONITOR_PD_NAME: &str = "monitor";

/// Target architecture; it decides the page sizes and what a PD may ask for.
///
/// x86_64 is not offered: its interrupts (`pin`/`pcidev`) and I/O ports are outside what
/// this loader models.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Arch {
    #[default]
    Aarch64,
    Riscv64,
}

impl Arch {
    /// Supported page sizes, smallest first. `tool/microkit/src/sel4.rs`
    /// `Config::page_sizes`; manual, "Page sizes by architecture".
    pub fn page_sizes(self) -> &'static [u64] {
        match self {
            Arch::Aarch64 | Arch::Riscv64 => &[0x1000, 0x20_0000],
        }
    }

    /// The page size Microkit checks a region against when `page_size` is absent
    /// (`sdf.rs`: `config.page_sizes()[0]`). It may later pick a larger one for the
    /// image; that choice does not change what is valid.
    pub fn smallest_page_size(self) -> u64 {
        self.page_sizes()[0]
    }

    /// The first address above a PD's address space: `tool/microkit/src/sel4.rs`
    /// `Config::user_top`. On aarch64 it is 0x8000_0000_0000 without the hypervisor
    /// and lower with it (1 << 40 or 1 << 44, by the physical address size); the kernel
    /// config is not visible here, so the larger bound is checked.
    pub fn user_top(self) -> u64 {
        match self {
            Arch::Aarch64 => 0x8000_0000_0000,
            Arch::Riscv64 => 0x0000_003f_ffff_f000,
        }
    }

    /// `smc="true"` needs ARM SMC forwarding: `sdf.rs` errors when `config.arm_smc` is
    /// `None`, which it is off aarch64. On aarch64 the kernel config decides, and we
    /// cannot see it, so we allow it there.
    pub fn smc_possible(self) -> bool {
        matches!(self, Arch::Aarch64)
    }
}
