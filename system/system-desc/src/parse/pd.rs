//! `<protection_domain>` and what it contains: `program_image`, `map`, `irq`, `setvar`,
//! child PDs. Attribute sets and defaults follow `ProtectionDomain::from_xml` and
//! `SysMap::from_xml` in `tool/microkit/src/sdf.rs` (2.3.0) and the manual.

use std::path::PathBuf;

use roxmltree::Node;

use super::{unknown_element, unsupported};
use crate::ctx::Ctx;
use crate::error::ErrorKind;
use crate::limits::{
    DEFAULT_BUDGET_US, DEFAULT_PRIORITY, DEFAULT_STACK_SIZE, MAX_CHANNEL_ID, MAX_CHILD_ID, MAX_PDS,
    MAX_PRIORITY, MAX_STACK_SIZE, MIN_STACK_SIZE,
};
use crate::model::{Irq, Map, Perms, ProgramImage, ProtectionDomain, SetVar, Trigger};

const PD_ATTRS: &[&str] = &[
    "name",
    "priority",
    "budget",
    "period",
    "passive",
    "stack_size",
    "cpu",
    "fpu",
    "smc",
];
/// Only children have an id (Microkit rejects `id` on a top-level PD as unknown).
const CHILD_ATTRS: &[&str] = &["id", "setvar_id"];
/// `domain` needs a `<domains>` schedule, which we do not model.
const PD_UNSUPPORTED: &[&str] = &["domain"];

pub(super) fn read_pd(ctx: &mut Ctx, node: Node, is_child: bool) -> ProtectionDomain {
    let mut allowed = PD_ATTRS.to_vec();
    if is_child {
        allowed.extend_from_slice(CHILD_ATTRS);
    }
    ctx.allow_attrs(node, &allowed, PD_UNSUPPORTED);

    let name = ctx.req_str(node, "name");
    let id = is_child.then(|| child_id(ctx, node));
    let priority = ctx.num_or(node, "priority", DEFAULT_PRIORITY.into());
    if priority > MAX_PRIORITY {
        let message = format!("priority {priority} is outside 0..={MAX_PRIORITY}");
        ctx.attr_error(ErrorKind::PriorityOutOfRange, node, "priority", message);
    }
    // Period defaults to the budget, not to the default budget (`sdf.rs`).
    let budget = ctx.num_or(node, "budget", DEFAULT_BUDGET_US);
    let period = ctx.num_or(node, "period", budget);
    if budget > period {
        let message = format!("budget ({budget}) must not exceed period ({period})");
        ctx.error(ErrorKind::BudgetExceedsPeriod, node, message);
    }
    let stack_size = ctx.num_or(node, "stack_size", DEFAULT_STACK_SIZE);
    check_stack(ctx, node, stack_size);
    let cpu = ctx.num_or(node, "cpu", 0);
    if cpu > u64::from(u8::MAX) {
        // Microkit panics here; it also wants cpu < the kernel's core count, which
        // lives in the kernel config we do not see.
        let message = format!("cpu {cpu} is not a core number (0..=255)");
        ctx.attr_error(ErrorKind::CpuOutOfRange, node, "cpu", message);
    }
    let smc = ctx.bool_or(node, "smc", false);
    if smc && !ctx.arch.smc_possible() {
        let message = "smc needs ARM SMC forwarding, which only aarch64 has".to_string();
        ctx.attr_error(ErrorKind::Unsupported, node, "smc", message);
    }

    let mut pd = ProtectionDomain {
        name,
        id,
        priority: priority.min(MAX_PRIORITY) as u8,
        budget,
        period,
        passive: ctx.bool_or(node, "passive", false),
        stack_size,
        cpu: cpu.min(u8::MAX.into()) as u8,
        fpu: ctx.bool_or(node, "fpu", true),
        smc,
        program_image: ProgramImage {
            path: PathBuf::new(),
            path_for_symbols: None,
            loc: ctx.loc(node),
        },
        maps: Vec::new(),
        irqs: Vec::new(),
        setvars: Vec::new(),
        setvar_id: ctx.opt_str(node, "setvar_id"),
        children: Vec::new(),
        loc: ctx.loc(node),
    };
    read_contents(ctx, node, &mut pd);
    pd
}

fn child_id(ctx: &mut Ctx, node: Node) -> u8 {
    let id = ctx.req_num(node, "id");
    if id > MAX_CHILD_ID {
        let message = format!("child id {id} is outside 0..={MAX_CHILD_ID}");
        ctx.attr_error(ErrorKind::ChildIdOutOfRange, node, "id", message);
    }
    id.min(MAX_CHILD_ID) as u8
}

fn check_stack(ctx: &mut Ctx, node: Node, stack_size: u64) {
    if !(MIN_STACK_SIZE..=MAX_STACK_SIZE).contains(&stack_size) {
        let message = format!(
            "stack_size {stack_size:#x} is outside {MIN_STACK_SIZE:#x}..={MAX_STACK_SIZE:#x}"
        );
        ctx.attr_error(ErrorKind::StackSizeOutOfRange, node, "stack_size", message);
        return;
    }
    // One error per attribute: alignment is only worth saying for a size in range.
    let page = ctx.arch.smallest_page_size();
    if !stack_size.is_multiple_of(page) {
        let message = format!("stack_size {stack_size:#x} is not a multiple of {page:#x}");
        ctx.attr_error(ErrorKind::StackSizeUnaligned, node, "stack_size", message);
    }
}

fn read_contents(ctx: &mut Ctx, node: Node, pd: &mut ProtectionDomain) {
    let mut have_image = false;
    for child in node.children().filter(Node::is_element) {
        match child.tag_name().name() {
            "program_image" => {
                if have_image {
                    let message = "a protection domain has exactly one program_image".into();
                    ctx.error(ErrorKind::DuplicateProgramImage, child, message);
                }
                have_image = true;
                pd.program_image = read_program_image(ctx, child);
            }
            "map" => pd.maps.push(read_map(ctx, child)),
            "irq" => {
                if let Some(irq) = read_irq(ctx, child) {
                    pd.irqs.push(irq);
                }
            }
            "setvar" => {
                ctx.allow_attrs(child, &["symbol", "region_paddr"], &[]);
                pd.setvars.push(SetVar {
                    symbol: ctx.req_str(child, "symbol"),
                    region_paddr: ctx.req_str(child, "region_paddr"),
                    loc: ctx.loc(child),
                });
            }
            // Nesting deeper than a system may have PDs is refused here, without
            // reading further: each level is a frame of this recursion, and an input
            // nested 100,000 deep overflowed the stack.
            "protection_domain" if child.ancestors().count() > MAX_PDS + 2 => {
                let message = format!("protection domains nested deeper than {MAX_PDS}");
                ctx.error(ErrorKind::TooManyPds, child, message);
            }
            "protection_domain" => pd.children.push(read_pd(ctx, child, true)),
            // Valid in Microkit 2.x (manual, `protection_domain`), not modelled here.
            "virtual_machine" | "cspace" | "ioport" => unsupported(ctx, child),
            _ => unknown_element(ctx, child, "protection_domain"),
        }
    }
    if !have_image {
        let message = format!("protection domain '{}' has no program_image", pd.name);
        ctx.error(ErrorKind::MissingProgramImage, node, message);
    }
}

fn read_program_image(ctx: &mut Ctx, node: Node) -> ProgramImage {
    ctx.allow_attrs(node, &["path", "path_for_symbols"], &[]);
    ProgramImage {
        path: ctx.req_str(node, "path").into(),
        path_for_symbols: ctx.opt_str(node, "path_for_symbols").map(PathBuf::from),
        loc: ctx.loc(node),
    }
}

fn read_map(ctx: &mut Ctx, node: Node) -> Map {
    let allowed = [
        "mr",
        "vaddr",
        "perms",
        "cached",
        "setvar_vaddr",
        "setvar_size",
    ];
    // setvar_prefill_size only makes sense with prefill_path, which we do not model.
    ctx.allow_attrs(node, &allowed, &["setvar_prefill_size"]);
    let perms = match node.attribute("perms") {
        None => Perms::RW,
        Some(text) => read_perms(ctx, node, text),
    };
    Map {
        mr: ctx.req_str(node, "mr"),
        vaddr: ctx.req_num(node, "vaddr"),
        perms,
        cached: ctx.bool_or(node, "cached", true),
        setvar_vaddr: ctx.opt_str(node, "setvar_vaddr"),
        setvar_size: ctx.opt_str(node, "setvar_size"),
        loc: ctx.loc(node),
    }
}

/// A combination of `r`, `w`, `x`, but not `w` alone: no architecture's kernel has
/// write-only mappings (`sdf.rs` `SysMapPerms::from_str` and the check after it).
/// Stricter than Microkit, which takes them: a map without `r` (`""`, `"x"`) is
/// refused, since nothing here can use it and it is most likely a typo, and so is a
/// writable and executable one (W^X: the host runner would otherwise make a
/// writable, executable shared map before its sandbox is up).
fn read_perms(ctx: &mut Ctx, node: Node, text: &str) -> Perms {
    let mut perms = Perms {
        read: false,
        write: false,
        execute: false,
    };
    for c in text.chars() {
        match c {
            'r' => perms.read = true,
            'w' => perms.write = true,
            'x' => perms.execute = true,
            _ => {
                let message = format!("perms '{text}' may only combine 'r', 'w' and 'x'");
                ctx.attr_error(ErrorKind::BadPerms, node, "perms", message);
                return Perms::RW;
            }
        }
    }
    if perms.write && !perms.read && !perms.execute {
        let message = "write-only mappings are not possible".to_string();
        ctx.attr_error(ErrorKind::WriteOnlyMap, node, "perms", message);
    } else if perms.write && perms.execute {
        let message = format!(
            "perms '{text}' is writable and executable: code could be rewritten through it (give rx for code, rw for data)"
        );
        ctx.attr_error(ErrorKind::WritableExecutableMap, node, "perms", message);
    } else if !perms.read {
        let message = format!("perms '{text}' has no 'r': a map nothing can read is no use here");
        ctx.attr_error(ErrorKind::NoReadMap, node, "perms", message);
    }
    perms
}

/// The ARM/RISC-V form of `<irq>`. The x86 forms (`pin`, `pcidev`) are not modelled.
fn read_irq(ctx: &mut Ctx, node: Node) -> Option<Irq> {
    if node.has_attribute("pin") || node.has_attribute("pcidev") {
        let message = "x86 IOAPIC/MSI interrupts are not supported by this loader".into();
        ctx.error(ErrorKind::Unsupported, node, message);
        return None;
    }
    ctx.allow_attrs(node, &["irq", "id", "setvar_id", "trigger"], &[]);
    let id = channel_id(ctx, node);
    // Microkit reads the irq number with `parse::<u64>()`: decimal, not negative.
    let irq = ctx.req_decimal(node, "irq").and_then(|n| {
        let irq = u64::try_from(n).ok();
        if irq.is_none() {
            let message = format!("irq {n} is not an interrupt number");
            ctx.attr_error(ErrorKind::BadNumber, node, "irq", message);
        }
        irq
    });
    let trigger = match node.attribute("trigger") {
        None | Some("level") => Trigger::Level,
        Some("edge") => Trigger::Edge,
        Some(other) => {
            let message = format!("trigger must be 'level' or 'edge', not '{other}'");
            ctx.attr_error(ErrorKind::BadTrigger, node, "trigger", message);
            Trigger::Level
        }
    };
    Some(Irq {
        irq: irq.unwrap_or(0),
        id: id.unwrap_or(0),
        trigger,
        setvar_id: ctx.opt_str(node, "setvar_id"),
        loc: ctx.loc(node),
    })
}

/// A channel id (irq or channel end): decimal, 0..=61 (`sdf.rs` `PD_MAX_ID`).
pub(super) fn channel_id(ctx: &mut Ctx, node: Node) -> Option<u8> {
    let id = ctx.req_decimal(node, "id")?;
    if !(0..=i128::from(MAX_CHANNEL_ID)).contains(&id) {
        let message = format!("channel id {id} is outside 0..={MAX_CHANNEL_ID}");
        ctx.attr_error(ErrorKind::ChannelIdOutOfRange, node, "id", message);
        return None;
    }
    Some(id as u8)
}
