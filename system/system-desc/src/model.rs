//! The parsed system: plain data, every value resolved to its Microkit default, every
//! element with the place it came from.

use std::fmt;
use std::path::PathBuf;

use crate::error::Loc;
use crate::limits::Arch;

/// A whole `.system` file that passed every check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemDescription {
    pub file: PathBuf,
    pub arch: Arch,
    /// Top-level PDs in file order; each holds its children.
    pub protection_domains: Vec<ProtectionDomain>,
    pub memory_regions: Vec<MemoryRegion>,
    pub channels: Vec<Channel>,
}

/// `<protection_domain>`. Times are microseconds, sizes bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtectionDomain {
    pub name: String,
    /// The id its parent uses for it (`microkit_child`); `Some` exactly for children.
    pub id: Option<u8>,
    pub priority: u8,
    pub budget: u64,
    pub period: u64,
    /// Runs on its callers' scheduling contexts after init.
    pub passive: bool,
    pub stack_size: u64,
    pub cpu: u8,
    pub fpu: bool,
    pub smc: bool,
    pub program_image: ProgramImage,
    pub maps: Vec<Map>,
    pub irqs: Vec<Irq>,
    /// `<setvar>` elements. Symbols set by other attributes (`setvar_vaddr`,
    /// `setvar_id`, ...) stay on their elements; [`SystemDescription::symbols`] lists all.
    pub setvars: Vec<SetVar>,
    /// For a child: the symbol in the *parent's* image that receives this child's id.
    pub setvar_id: Option<String>,
    pub children: Vec<ProtectionDomain>,
    pub loc: Loc,
}

/// `<program_image>`: paths as written; Microkit resolves them against its search paths.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgramImage {
    pub path: PathBuf,
    pub path_for_symbols: Option<PathBuf>,
    pub loc: Loc,
}

/// `<map>` of a memory region into one PD's address space.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Map {
    pub mr: String,
    pub vaddr: u64,
    pub perms: Perms,
    pub cached: bool,
    pub setvar_vaddr: Option<String>,
    pub setvar_size: Option<String>,
    pub loc: Loc,
}

/// Map permissions; Microkit's default is read-write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Perms {
    pub read: bool,
    pub write: bool,
    pub execute: bool,
}

impl Perms {
    pub const RW: Perms = Perms {
        read: true,
        write: true,
        execute: false,
    };
}

impl fmt::Display for Perms {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (on, c) in [(self.read, 'r'), (self.write, 'w'), (self.execute, 'x')] {
            if on {
                write!(f, "{c}")?;
            }
        }
        Ok(())
    }
}

/// `<irq>`: a hardware interrupt delivered on channel `id`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Irq {
    pub irq: u64,
    pub id: u8,
    pub trigger: Trigger,
    pub setvar_id: Option<String>,
    pub loc: Loc,
}

/// Interrupt trigger; Microkit defaults to level.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Trigger {
    #[default]
    Level,
    Edge,
}

/// `<setvar symbol=".." region_paddr="..">`: the symbol gets the region's physical address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetVar {
    pub symbol: String,
    pub region_paddr: String,
    pub loc: Loc,
}

/// `<memory_region>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryRegion {
    pub name: String,
    pub size: u64,
    /// The page size the checks used: the one given, else the arch's smallest.
    pub page_size: u64,
    /// Whether `page_size` was written in the file. When it was not, Microkit's image
    /// builder may use larger pages where sizes and addresses allow.
    pub page_size_explicit: bool,
    pub phys_addr: Option<u64>,
    /// `prefill_path`: the file whose bytes the region starts with (the rest zero), as
    /// written (Microkit finds it on its search path; host-runner beside the `.system`
    /// file).
    pub prefill: Option<String>,
    pub loc: Loc,
}

impl MemoryRegion {
    pub fn page_count(&self) -> u64 {
        self.size / self.page_size
    }
}

/// `<channel>`: exactly two ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Channel {
    pub ends: [ChannelEnd; 2],
    pub loc: Loc,
}

/// `<end>`: one PD's side of a channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelEnd {
    pub pd: String,
    /// The id this PD uses for the channel.
    pub id: u8,
    /// This PD may make protected procedure calls to the other end (default false).
    pub pp: bool,
    /// This PD may notify the other end (default true).
    pub notify: bool,
    pub setvar_id: Option<String>,
    pub loc: Loc,
}

/// A symbol in a PD's program image that Microkit rewrites, with where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    pub value: SymbolValue,
    /// The element that asks for it: `map`, `irq`, `end`, `protection_domain`, `setvar`.
    pub element: &'static str,
    pub loc: Loc,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SymbolValue {
    /// `map setvar_vaddr`: where the region is mapped.
    Vaddr(u64),
    /// `map setvar_size`: the region's size.
    Size(u64),
    /// `setvar region_paddr`: the named region's physical address, which Microkit
    /// allocates at build time when the region has no `phys_addr`.
    RegionPaddr(String),
    /// `setvar_id` on an irq, a channel end or a child PD.
    Id(u8),
}
