//! Look-ups over a [`SystemDescription`] for its consumers (the host runner, tools).

use crate::model::{
    Channel, ChannelEnd, MemoryRegion, ProtectionDomain, Symbol, SymbolValue, SystemDescription,
};

/// One PD of the flattened tree, with its parent.
#[derive(Debug, Clone, Copy)]
pub struct PdEntry<'a> {
    pub pd: &'a ProtectionDomain,
    pub parent: Option<&'a ProtectionDomain>,
}

/// A channel as one PD sees it.
#[derive(Debug, Clone, Copy)]
pub struct Connection<'a> {
    pub channel: &'a Channel,
    pub local: &'a ChannelEnd,
    pub remote: &'a ChannelEnd,
}

impl SystemDescription {
    /// Every PD, each parent before its children, depth first: the order Microkit
    /// flattens the tree in (`sdf.rs` `pd_tree_to_list`).
    pub fn all_pds(&self) -> Vec<PdEntry<'_>> {
        fn walk<'a>(
            pd: &'a ProtectionDomain,
            parent: Option<&'a ProtectionDomain>,
            out: &mut Vec<PdEntry<'a>>,
        ) {
            out.push(PdEntry { pd, parent });
            for child in &pd.children {
                walk(child, Some(pd), out);
            }
        }
        let mut out = Vec::new();
        for pd in &self.protection_domains {
            walk(pd, None, &mut out);
        }
        out
    }

    pub fn pd(&self, name: &str) -> Option<&ProtectionDomain> {
        self.all_pds()
            .into_iter()
            .map(|e| e.pd)
            .find(|pd| pd.name == name)
    }

    pub fn parent_of(&self, name: &str) -> Option<&ProtectionDomain> {
        self.all_pds()
            .into_iter()
            .find(|e| e.pd.name == name)
            .and_then(|e| e.parent)
    }

    pub fn memory_region(&self, name: &str) -> Option<&MemoryRegion> {
        self.memory_regions.iter().find(|mr| mr.name == name)
    }

    /// The channels `pd` takes part in, from its side. A channel with both ends on the
    /// same PD appears twice, once per end.
    pub fn channels_of<'a>(&'a self, pd: &'a str) -> impl Iterator<Item = Connection<'a>> + 'a {
        self.channels.iter().flat_map(move |channel| {
            let [a, b] = &channel.ends;
            [(a, b), (b, a)]
                .into_iter()
                .filter(move |(local, _)| local.pd == pd)
                .map(move |(local, remote)| Connection {
                    channel,
                    local,
                    remote,
                })
        })
    }

    /// Memory regions no PD maps. Microkit accepts these with a warning.
    pub fn unused_memory_regions(&self) -> impl Iterator<Item = &MemoryRegion> {
        let pds = self.all_pds();
        self.memory_regions.iter().filter(move |mr| {
            !pds.iter()
                .any(|e| e.pd.maps.iter().any(|map| map.mr == mr.name))
        })
    }

    /// Every symbol Microkit would write into `pd`'s program image, in file order of the
    /// elements that ask for it. Region sizes are resolved; a missing region (impossible
    /// after the checks) is skipped.
    pub fn symbols(&self, pd: &ProtectionDomain) -> Vec<Symbol> {
        let mut out = Vec::new();
        let mut push = |name: &Option<String>, value, element, loc| {
            if let Some(name) = name {
                let name = name.clone();
                out.push(Symbol {
                    name,
                    value,
                    element,
                    loc,
                });
            }
        };
        for map in &pd.maps {
            push(
                &map.setvar_vaddr,
                SymbolValue::Vaddr(map.vaddr),
                "map",
                map.loc,
            );
            if let Some(mr) = self.memory_region(&map.mr) {
                push(&map.setvar_size, SymbolValue::Size(mr.size), "map", map.loc);
            }
        }
        for irq in &pd.irqs {
            push(&irq.setvar_id, SymbolValue::Id(irq.id), "irq", irq.loc);
        }
        for child in &pd.children {
            if let Some(id) = child.id {
                let value = SymbolValue::Id(id);
                push(&child.setvar_id, value, "protection_domain", child.loc);
            }
        }
        for conn in self.channels_of(&pd.name) {
            let end = conn.local;
            push(&end.setvar_id, SymbolValue::Id(end.id), "end", end.loc);
        }
        for setvar in &pd.setvars {
            let value = SymbolValue::RegionPaddr(setvar.region_paddr.clone());
            push(&Some(setvar.symbol.clone()), value, "setvar", setvar.loc);
        }
        out.sort_by_key(|s| s.loc);
        out
    }
}

impl SystemDescription {
    /// The system's clients: PDs that call others (a `pp` end) and that nobody calls.
    /// A system whose clients finish is done when all of them have (servers, power
    /// managers and timers run for ever). In file order.
    pub fn clients(&self) -> Vec<String> {
        let calls = |pd: &str| {
            self.channels
                .iter()
                .any(|c| c.ends.iter().any(|e| e.pd == pd && e.pp))
        };
        let called = |pd: &str| {
            self.channels.iter().any(|c| {
                let [a, b] = &c.ends;
                (a.pd == pd && b.pp) || (b.pd == pd && a.pp)
            })
        };
        self.all_pds()
            .into_iter()
            .map(|e| e.pd.name.clone())
            .filter(|name| calls(name) && !called(name))
            .collect()
    }
}
