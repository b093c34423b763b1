//! From a checked [`SystemDescription`] to what the runner starts: one entry per PD
//! with its binary, maps, channels, irqs, children and setvar values resolved.

use std::path::{Path, PathBuf};

use pd_runtime::host::boot::{PERM_R, PERM_W, PERM_X};
use system_desc::{SymbolValue, SystemDescription, Trigger};

use crate::error::BootError;

/// Where the runner invents physical addresses for regions that give none, as
/// Microkit's tool allocates them at build time. Above 4 GiB so they never look like
/// the small vaddrs of a `.system` file.
const FAKE_PADDR_BASE: u64 = 0x1_0000_0000;

#[derive(Debug, Clone)]
pub struct RegionPlan {
    pub name: String,
    pub size: u64,
    pub paddr: u64,
    /// The file the region starts with (`prefill_path`, beside the `.system` file).
    pub prefill: Option<PathBuf>,
}

#[derive(Debug, Clone)]
pub struct MapPlan {
    pub region: usize,
    pub vaddr: u64,
    pub perms: u8,
    pub cached: bool,
    pub symbol: String,
}

#[derive(Debug, Clone)]
pub struct ChannelPlan {
    pub id: u8,
    pub remote_id: u8,
    pub remote: usize,
    pub pp: bool,
    pub notify: bool,
    /// The other end's `pp` and `notify`.
    pub remote_pp: bool,
    pub remote_notify: bool,
}

#[derive(Debug, Clone)]
pub struct PdPlan {
    pub name: String,
    pub binary: PathBuf,
    pub priority: u8,
    pub passive: bool,
    /// The `cpu` attribute: honoured only with `Options::pin_cpus`.
    pub cpu: u8,
    /// (parent's position, the id it knows this child by).
    pub parent: Option<(usize, u8)>,
    pub maps: Vec<MapPlan>,
    pub channels: Vec<ChannelPlan>,
    pub irqs: Vec<(u64, u8, bool)>,
    /// (child id, child's position).
    pub children: Vec<(u8, usize)>,
    pub vars: Vec<(String, u64)>,
}

#[derive(Debug, Clone)]
pub struct Plan {
    pub file: PathBuf,
    pub regions: Vec<RegionPlan>,
    /// Parents before children (Microkit's order); a PD's index is its position + 1.
    pub pds: Vec<PdPlan>,
}

impl Plan {
    /// The highest priority of the system's PDs (what [`nice_of`](crate::spawn::nice_of)
    /// counts down from).
    pub fn top_priority(&self) -> u8 {
        self.pds.iter().map(|p| p.priority).max().unwrap_or(0)
    }
}

/// The host binary for a program image: its file stem, next to the runner.
/// `client.elf` -> `<bin_dir>/client`.
pub fn binary_for(image: &Path, bin_dir: &Path) -> PathBuf {
    let stem = image.file_stem().unwrap_or(image.as_os_str());
    bin_dir.join(stem)
}

pub fn plan(sys: &SystemDescription, bin_dir: &Path) -> Result<Plan, BootError> {
    let mut next_paddr = FAKE_PADDR_BASE;
    let regions: Vec<RegionPlan> = sys
        .memory_regions
        .iter()
        .map(|mr| {
            let paddr = mr.phys_addr.unwrap_or_else(|| {
                let p = next_paddr;
                next_paddr += mr.size.next_multiple_of(mr.page_size);
                p
            });
            RegionPlan {
                name: mr.name.clone(),
                size: mr.size,
                paddr,
                // Beside the `.system` file: the host has no image search path (Microkit
                // looks where the program images are).
                prefill: mr
                    .prefill
                    .as_ref()
                    .map(|f| sys.file.parent().unwrap_or(Path::new(".")).join(f)),
            }
        })
        .collect();
    let region_at = |name: &str| regions.iter().position(|r| r.name == name);
    let entries = sys.all_pds();
    let position = |name: &str| entries.iter().position(|e| e.pd.name == name);

    let missing: Vec<_> = entries
        .iter()
        .map(|e| (e.pd, binary_for(&e.pd.program_image.path, bin_dir)))
        .filter(|(_, binary)| !binary.is_file())
        .map(|(pd, binary)| (pd.name.clone(), pd.program_image.path.clone(), binary))
        .collect();
    if !missing.is_empty() {
        return Err(BootError::MissingBinaries(missing));
    }
    let mut pds = Vec::new();
    for entry in &entries {
        let pd = entry.pd;
        let binary = binary_for(&pd.program_image.path, bin_dir);
        let maps = pd
            .maps
            .iter()
            .map(|m| MapPlan {
                region: region_at(&m.mr).expect("checked: every mr exists"),
                vaddr: m.vaddr,
                perms: [
                    (m.perms.read, PERM_R),
                    (m.perms.write, PERM_W),
                    (m.perms.execute, PERM_X),
                ]
                .iter()
                .filter(|(on, _)| *on)
                .fold(0, |acc, (_, bit)| acc | bit),
                cached: m.cached,
                symbol: m.setvar_vaddr.clone().unwrap_or_default(),
            })
            .collect();
        let channels = sys
            .channels_of(&pd.name)
            .map(|c| ChannelPlan {
                id: c.local.id,
                remote_id: c.remote.id,
                remote: position(&c.remote.pd).expect("checked: every pd exists"),
                pp: c.local.pp,
                notify: c.local.notify,
                remote_pp: c.remote.pp,
                remote_notify: c.remote.notify,
            })
            .collect();
        let irqs = pd
            .irqs
            .iter()
            .map(|i| (i.irq, i.id, i.trigger == Trigger::Edge))
            .collect();
        let children = pd
            .children
            .iter()
            .map(|c| (c.id.expect("children have ids"), position(&c.name).unwrap()))
            .collect();
        let vars = sys
            .symbols(pd)
            .into_iter()
            .filter_map(|s| {
                let value = match s.value {
                    SymbolValue::Vaddr(v) | SymbolValue::Size(v) => v,
                    SymbolValue::Id(id) => u64::from(id),
                    SymbolValue::RegionPaddr(mr) => regions[region_at(&mr)?].paddr,
                };
                Some((s.name, value))
            })
            .collect();
        let parent = entry.parent.map(|p| {
            let id = pd.id.expect("children have ids");
            (position(&p.name).unwrap(), id)
        });
        pds.push(PdPlan {
            name: pd.name.clone(),
            binary,
            priority: pd.priority,
            passive: pd.passive,
            cpu: pd.cpu,
            parent,
            maps,
            channels,
            irqs,
            children,
            vars,
        });
    }
    Ok(Plan {
        file: sys.file.clone(),
        regions,
        pds,
    })
}
