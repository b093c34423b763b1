//! Checks that span elements: counts, names, references, ids, priorities, address
//! ranges. The rules are the global ones at the end of `parse` in
//! `tool/microkit/src/sdf.rs` (2.3.0); Microkit stops at the first, we report each.
//!
//! Elements poisoned by an error of their own are skipped, so one typo yields one error.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

use roxmltree::Node;

use crate::ctx::Ctx;
use crate::error::{ErrorKind, Loc};
use crate::limits::{MAX_PDS, MONITOR_PD_NAME};
use crate::model::{MemoryRegion, ProtectionDomain, SystemDescription};
use crate::query::PdEntry;

pub(crate) fn check(ctx: &mut Ctx, sys: &SystemDescription, system: Node) {
    // A snapshot: the errors found below must not hide one another.
    let bad = ctx.poisoned.clone();
    let pds = sys.all_pds();
    if pds.is_empty() {
        let message = "a system needs at least one protection domain".to_string();
        ctx.error(ErrorKind::NoProtectionDomains, system, message);
    }
    if let Some(extra) = pds.get(MAX_PDS) {
        let message = format!(
            "{} protection domains (children included); Microkit allows at most {MAX_PDS}",
            pds.len()
        );
        ctx.error_at(
            ErrorKind::TooManyPds,
            extra.pd.loc,
            "protection_domain",
            message,
        );
    }
    pd_names(ctx, &pds);
    region_names(ctx, &sys.memory_regions);
    child_ids(ctx, &bad, &pds);
    for entry in &pds {
        maps(ctx, &bad, sys, entry.pd);
        setvars(ctx, &bad, sys, entry.pd);
    }
    channels(ctx, &bad, sys, &pds);
    irq_numbers(ctx, &bad, &pds);
    phys_ranges(ctx, &bad, &sys.memory_regions);
}

/// Names are global: children share the namespace with top-level PDs.
fn pd_names(ctx: &mut Ctx, pds: &[PdEntry]) {
    let mut names = Namespace::new(
        ErrorKind::DuplicatePdName,
        "protection_domain",
        "protection domain",
    );
    for pd in pds.iter().map(|e| e.pd).filter(|pd| !pd.name.is_empty()) {
        if pd.name == MONITOR_PD_NAME {
            let message =
                format!("the name '{MONITOR_PD_NAME}' is reserved for Microkit's monitor");
            ctx.error_at(
                ErrorKind::ReservedPdName,
                pd.loc,
                "protection_domain",
                message,
            );
        }
        names.define(ctx, &pd.name, pd.loc);
    }
}

fn region_names(ctx: &mut Ctx, regions: &[MemoryRegion]) {
    let mut names = Namespace::new(
        ErrorKind::DuplicateMemoryRegionName,
        "memory_region",
        "memory region",
    );
    for mr in regions.iter().filter(|mr| !mr.name.is_empty()) {
        names.define(ctx, &mr.name, mr.loc);
    }
}

/// Names that must be unique: a name's first definition stands, and each later one is
/// an error at its own element naming the line of the first.
struct Namespace<'a> {
    first: HashMap<&'a str, Loc>,
    kind: ErrorKind,
    element: &'static str,
    what: &'static str,
}

impl<'a> Namespace<'a> {
    fn new(kind: ErrorKind, element: &'static str, what: &'static str) -> Self {
        Namespace {
            first: HashMap::new(),
            kind,
            element,
            what,
        }
    }

    fn define(&mut self, ctx: &mut Ctx, name: &'a str, loc: Loc) {
        match self.first.entry(name) {
            Entry::Vacant(v) => {
                v.insert(loc);
            }
            Entry::Occupied(o) => {
                let message = format!(
                    "{} '{name}' is also defined at line {}",
                    self.what,
                    o.get().line
                );
                ctx.error_at(self.kind, loc, self.element, message);
            }
        }
    }
}

/// A parent names its children by id (`sdf.rs` `pd_tree_to_list`).
fn child_ids(ctx: &mut Ctx, bad: &HashSet<Loc>, pds: &[PdEntry]) {
    for parent in pds.iter().map(|e| e.pd) {
        let mut seen: HashMap<u8, &str> = HashMap::new();
        for child in parent.children.iter().filter(|c| !bad.contains(&c.loc)) {
            let Some(id) = child.id else { continue };
            if let Some(first) = seen.insert(id, &child.name) {
                seen.insert(id, first);
                let message = format!(
                    "child id {id} of '{}' is already used by '{first}'",
                    parent.name
                );
                ctx.error_at(
                    ErrorKind::DuplicateChildId,
                    child.loc,
                    "protection_domain",
                    message,
                );
            }
        }
    }
}

/// Each map names a region, sits on a page boundary of that region, and does not overlap
/// another map of the same PD (`sdf.rs` `check_maps`). Children have their own address
/// spaces. The upper bound (below the stack, `Config::pd_map_max_vaddr`) depends on the
/// kernel build and is not checked.
fn maps(ctx: &mut Ctx, bad: &HashSet<Loc>, sys: &SystemDescription, pd: &ProtectionDomain) {
    let mut placed: Vec<(&str, u64, u64, Loc)> = Vec::new();
    for map in pd.maps.iter().filter(|m| !bad.contains(&m.loc)) {
        let Some(mr) = sys.memory_region(&map.mr) else {
            let message = format!("no memory region named '{}'", map.mr);
            ctx.error_at(ErrorKind::UnknownMemoryRegion, map.loc, "map", message);
            continue;
        };
        if bad.contains(&mr.loc) {
            continue;
        }
        if map.vaddr % mr.page_size != 0 {
            let message = format!(
                "vaddr {:#x} is not aligned to '{}''s page size {:#x}",
                map.vaddr, mr.name, mr.page_size
            );
            ctx.error_at(ErrorKind::VaddrUnaligned, map.loc, "map", message);
            continue;
        }
        if map.vaddr == 0 {
            let message = format!(
                "'{}' at vaddr 0: the null page stays unmapped, so that a null pointer faults",
                mr.name
            );
            ctx.error_at(ErrorKind::NullVaddr, map.loc, "map", message);
            continue;
        }
        let Some(end) = map.vaddr.checked_add(mr.size) else {
            let message = format!(
                "'{}' at {:#x} runs past the end of the address space",
                mr.name, map.vaddr
            );
            ctx.error_at(ErrorKind::AddressOverflow, map.loc, "map", message);
            continue;
        };
        // The stack takes the top of the address space (`sdf.rs` `pd_map_max_vaddr`).
        let top = ctx.arch.user_top().saturating_sub(pd.stack_size);
        if end > top {
            let message = format!(
                "'{}' at [{:#x}..{end:#x}) reaches above {top:#x}, the highest a PD maps on {:?} (its user top less its stack); the kernel's half is above",
                mr.name, map.vaddr, ctx.arch
            );
            ctx.error_at(ErrorKind::VaddrAboveUserTop, map.loc, "map", message);
            continue;
        }
        if let Some((other, start, other_end, at)) = placed
            .iter()
            .find(|(_, s, e, _)| map.vaddr < *e && *s < end)
        {
            let message = format!(
                "'{}' at [{:#x}..{end:#x}) overlaps '{other}' at [{start:#x}..{other_end:#x}) (line {}) in '{}'",
                mr.name, map.vaddr, at.line, pd.name
            );
            ctx.error_at(ErrorKind::MapOverlap, map.loc, "map", message);
            continue;
        }
        placed.push((&mr.name, map.vaddr, end, map.loc));
    }
}

/// `setvar region_paddr` must name a region, and no symbol may be written twice
/// (`sdf.rs` `checked_add_setvar`). Microkit 2.3.0 does not check the region name and
/// panics later (`symbols.rs`, `mr_name_to_desc[region]`).
fn setvars(ctx: &mut Ctx, bad: &HashSet<Loc>, sys: &SystemDescription, pd: &ProtectionDomain) {
    for setvar in pd.setvars.iter().filter(|s| !bad.contains(&s.loc)) {
        if sys.memory_region(&setvar.region_paddr).is_none() {
            let message = format!(
                "region_paddr names no memory region '{}'",
                setvar.region_paddr
            );
            ctx.error_at(
                ErrorKind::UnknownMemoryRegion,
                setvar.loc,
                "setvar",
                message,
            );
        }
    }
    let mut seen: HashMap<String, Loc> = HashMap::new();
    for symbol in sys.symbols(pd) {
        if let Some(first) = seen.get(&symbol.name) {
            let message = format!(
                "symbol '{}' of '{}' is already set at line {}",
                symbol.name, pd.name, first.line
            );
            ctx.error_at(
                ErrorKind::DuplicateSymbol,
                symbol.loc,
                symbol.element,
                message,
            );
        } else {
            seen.insert(symbol.name, symbol.loc);
        }
    }
}

/// Channel ends name PDs; irqs and channel ends share a PD's id space; PPCs go to a
/// strictly higher priority (manual, `channel`; `sdf.rs` at "Ensure no duplicate
/// channel identifiers").
fn channels(ctx: &mut Ctx, bad: &HashSet<Loc>, sys: &SystemDescription, pds: &[PdEntry]) {
    let by_name: HashMap<&str, &ProtectionDomain> =
        pds.iter().map(|e| (e.pd.name.as_str(), e.pd)).collect();
    let mut ids: HashMap<(&str, u8), (Loc, &str)> = HashMap::new();
    for pd in pds.iter().map(|e| e.pd) {
        for irq in pd.irqs.iter().filter(|i| !bad.contains(&i.loc)) {
            if let Some((first, what)) = ids.insert((&pd.name, irq.id), (irq.loc, "irq")) {
                ids.insert((&pd.name, irq.id), (first, what));
                duplicate_id(ctx, &pd.name, irq.id, irq.loc, "irq", first, what);
            }
        }
    }
    for channel in sys.channels.iter() {
        for end in channel.ends.iter() {
            if !end.pd.is_empty() && !by_name.contains_key(end.pd.as_str()) {
                let message = format!("no protection domain named '{}'", end.pd);
                ctx.error_at(ErrorKind::UnknownPd, end.loc, "end", message);
                continue;
            }
            if bad.contains(&end.loc) {
                continue;
            }
            if let Some((first, what)) = ids.insert((&end.pd, end.id), (end.loc, "end")) {
                ids.insert((&end.pd, end.id), (first, what));
                duplicate_id(ctx, &end.pd, end.id, end.loc, "end", first, what);
            }
        }
        let [a, b] = &channel.ends;
        for (caller, callee) in [(a, b), (b, a)].into_iter().filter(|(c, _)| c.pp) {
            let (Some(from), Some(to)) = (
                by_name.get(caller.pd.as_str()),
                by_name.get(callee.pd.as_str()),
            ) else {
                continue;
            };
            if bad.contains(&from.loc) || bad.contains(&to.loc) {
                continue;
            }
            if from.priority >= to.priority {
                let message = format!(
                    "pp from '{}' (priority {}) to '{}' (priority {}): protected calls must go to a strictly higher priority",
                    from.name, from.priority, to.name, to.priority
                );
                ctx.error_at(ErrorKind::PpPriority, caller.loc, "end", message);
            }
        }
    }
}

fn duplicate_id(ctx: &mut Ctx, pd: &str, id: u8, loc: Loc, element: &str, first: Loc, what: &str) {
    let message = format!(
        "channel id {id} of '{pd}' is already used by the <{what}> at line {}",
        first.line
    );
    ctx.error_at(ErrorKind::DuplicateChannelId, loc, element, message);
}

/// One hardware interrupt, one owner (`sdf.rs` "Ensure no duplicate IRQs").
fn irq_numbers(ctx: &mut Ctx, bad: &HashSet<Loc>, pds: &[PdEntry]) {
    let mut seen: HashMap<u64, &str> = HashMap::new();
    for pd in pds.iter().map(|e| e.pd) {
        for irq in pd.irqs.iter().filter(|i| !bad.contains(&i.loc)) {
            if let Some(first) = seen.insert(irq.irq, &pd.name) {
                seen.insert(irq.irq, first);
                let message = format!("irq {} is already claimed by '{first}'", irq.irq);
                ctx.error_at(ErrorKind::DuplicateIrq, irq.loc, "irq", message);
            }
        }
    }
}

/// Regions placed at fixed physical addresses must not overlap (`sdf.rs` "Ensure MRs
/// with physical addresses do not overlap").
fn phys_ranges(ctx: &mut Ctx, bad: &HashSet<Loc>, regions: &[MemoryRegion]) {
    let mut placed: Vec<(&str, u64, u64)> = Vec::new();
    for mr in regions.iter().filter(|mr| !bad.contains(&mr.loc)) {
        let Some(start) = mr.phys_addr else { continue };
        let Some(end) = start.checked_add(mr.size) else {
            let message = format!(
                "'{}' at {start:#x} runs past the end of physical memory",
                mr.name
            );
            ctx.error_at(ErrorKind::AddressOverflow, mr.loc, "memory_region", message);
            continue;
        };
        if let Some((other, s, e)) = placed.iter().find(|(_, s, e)| start < *e && *s < end) {
            let message = format!(
                "'{}' at [{start:#x}..{end:#x}) overlaps '{other}' at [{s:#x}..{e:#x})",
                mr.name
            );
            ctx.error_at(ErrorKind::PhysAddrOverlap, mr.loc, "memory_region", message);
            continue;
        }
        placed.push((&mr.name, start, end));
    }
}
