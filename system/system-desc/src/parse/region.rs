//! `<memory_region>`, after `SysMemoryRegion::from_xml` in `tool/microkit/src/sdf.rs`.

use roxmltree::Node;

use crate::ctx::Ctx;
use crate::error::ErrorKind;
use crate::model::MemoryRegion;

pub(super) fn read_region(ctx: &mut Ctx, node: Node) -> MemoryRegion {
    // prefill_path fills a region from a file at build time (a PD's configuration);
    // prefill_bootinfo (x86 boot information) is not modelled.
    let unsupported = ["prefill_bootinfo"];
    ctx.allow_attrs(
        node,
        &["name", "size", "page_size", "phys_addr", "prefill_path"],
        &unsupported,
    );

    let name = ctx.req_str(node, "name");
    let smallest = ctx.arch.smallest_page_size();
    let page_size_explicit = node.has_attribute("page_size");
    let mut page_size = ctx.num_or(node, "page_size", smallest);
    let page_valid = ctx.arch.page_sizes().contains(&page_size);
    if !page_valid {
        let sizes: Vec<String> = ctx
            .arch
            .page_sizes()
            .iter()
            .map(|s| format!("{s:#x}"))
            .collect();
        let message = format!(
            "page_size {page_size:#x} is not one of {} on {:?}",
            sizes.join(", "),
            ctx.arch
        );
        ctx.attr_error(ErrorKind::UnsupportedPageSize, node, "page_size", message);
        page_size = smallest;
    }
    // Size may only be left out when a prefill decides it (`determine_size`). This
    // checker reads no files, so a prefilled region must give its size (the runner
    // refuses a file longer than it); prefill_bootinfo is already reported as
    // unsupported, so do not also report the size as missing.
    let prefilled = unsupported.iter().any(|a| node.has_attribute(*a));
    let size = if prefilled {
        ctx.num_or(node, "size", smallest)
    } else {
        ctx.req_num(node, "size")
    };
    // A size that did not parse is reported already (and read as 0).
    let written_zero = node.attribute("size").and_then(crate::parse_number) == Some(0);
    if written_zero {
        let message = "size 0: a memory region holds at least one page".to_string();
        ctx.attr_error(ErrorKind::ZeroSizedRegion, node, "size", message);
    } else if page_valid && size % page_size != 0 {
        let message = format!("size {size:#x} is not a multiple of the page size {page_size:#x}");
        ctx.attr_error(ErrorKind::SizeNotPageMultiple, node, "size", message);
    }
    let phys_addr = node
        .has_attribute("phys_addr")
        .then(|| ctx.req_num(node, "phys_addr"));
    if let Some(paddr) = phys_addr {
        if page_valid && paddr % page_size != 0 {
            let message =
                format!("phys_addr {paddr:#x} is not aligned to the page size {page_size:#x}");
            ctx.attr_error(ErrorKind::PhysAddrUnaligned, node, "phys_addr", message);
        }
    }
    MemoryRegion {
        name,
        size,
        page_size,
        page_size_explicit,
        phys_addr,
        prefill: node.attribute("prefill_path").map(str::to_string),
        loc: ctx.loc(node),
    }
}
