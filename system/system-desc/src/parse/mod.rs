//! From XML text to a [`SystemDescription`]: one pass over the tree that reads every
//! element (checks local to an element happen here), then the cross-element checks.

mod channel;
mod pd;
mod region;

use std::path::Path;

use roxmltree::{Document, Node};

use crate::check;
use crate::ctx::Ctx;
use crate::error::{Error, ErrorKind, Loc};
use crate::limits::Arch;
use crate::model::SystemDescription;

/// Deepest element nesting read: a valid system nests a few levels (at most 63 PDs,
/// each a level, and their elements), and roxmltree's parser recurses per level, so a
/// file nested a few thousand deep overflowed the stack before any check ran.
const MAX_DEPTH: usize = 256;

pub(crate) fn parse(xml: &str, file: &Path, arch: Arch) -> Result<SystemDescription, Vec<Error>> {
    if let Some(line) = too_deep(xml, MAX_DEPTH) {
        return Err(vec![Error {
            kind: ErrorKind::Xml,
            file: file.to_path_buf(),
            loc: Loc { line, col: 1 },
            element: String::new(),
            message: format!("elements nested deeper than {MAX_DEPTH}"),
        }]);
    }
    let doc = match Document::parse(xml) {
        Ok(doc) => doc,
        Err(e) => return Err(vec![xml_error(xml, file, &e)]),
    };
    let mut ctx = Ctx::new(file, &doc, arch);
    let root = doc.root_element();
    let mut sys = SystemDescription {
        file: file.to_path_buf(),
        arch,
        protection_domains: Vec::new(),
        memory_regions: Vec::new(),
        channels: Vec::new(),
    };
    if root.tag_name().name() != "system" {
        let message = "the root element must be <system>".to_string();
        ctx.error(ErrorKind::NotASystem, root, message);
    } else {
        read_system(&mut ctx, root, &mut sys);
        check::check(&mut ctx, &sys, root);
    }
    if ctx.errors.is_empty() {
        Ok(sys)
    } else {
        let mut errors = ctx.errors;
        // File order reads best; the sort is stable, so one place keeps its order.
        errors.sort_by_key(|e| e.loc);
        Err(errors)
    }
}

fn read_system(ctx: &mut Ctx, root: Node, sys: &mut SystemDescription) {
    // Microkit looks at no attributes on <system>; an attribute there can only be a
    // mistake, so we say so.
    ctx.allow_attrs(root, &[], &[]);
    reject_text(ctx, root);
    for child in root.children().filter(Node::is_element) {
        match child.tag_name().name() {
            "protection_domain" => {
                let pd = pd::read_pd(ctx, child, false);
                sys.protection_domains.push(pd);
            }
            "memory_region" => sys.memory_regions.push(region::read_region(ctx, child)),
            "channel" => {
                if let Some(channel) = channel::read_channel(ctx, child) {
                    sys.channels.push(channel);
                }
            }
            // Known to Microkit 2.x (manual, "System Description File"), not modelled here.
            "domains" | "io_address_space" | "virtual_machine" => unsupported(ctx, child),
            _ => unknown_element(ctx, child, "system"),
        }
    }
}

/// Microkit allows only whitespace and comments between elements (`sdf.rs`
/// `check_no_text`); text is usually a stray edit, so it is an error.
fn reject_text(ctx: &mut Ctx, root: Node) {
    for node in root.descendants().filter(Node::is_text) {
        // The source text, not the decoded one, so the offset below is right.
        let range = node.range();
        let text = &ctx.doc.input_text()[range.clone()];
        if !text.trim().is_empty() {
            let parent = node.parent().map_or("", |p| p.tag_name().name());
            // Point at the text itself, not at the whitespace before it.
            let start = range.start + (text.len() - text.trim_start().len());
            let loc = ctx.loc_at(start);
            let message = format!("unexpected text '{}'", text.trim());
            ctx.error_at(ErrorKind::UnexpectedText, loc, parent, message);
        }
    }
}

pub(super) fn unsupported(ctx: &mut Ctx, node: Node) {
    let name = node.tag_name().name();
    let message = format!("<{name}> is valid Microkit but not supported by this loader");
    ctx.error(ErrorKind::Unsupported, node, message);
}

pub(super) fn unknown_element(ctx: &mut Ctx, node: Node, parent: &str) {
    let name = node.tag_name().name();
    let message = format!("<{name}> is not a Microkit element inside <{parent}>");
    ctx.error(ErrorKind::UnknownElement, node, message);
}

/// roxmltree's verdict, located once: its message without the " at L:C" it embeds
/// (the location leads the line), and a truncated file located at its end, where the
/// closing tag is missing, not at 1:1 where roxmltree puts it.
fn xml_error(xml: &str, file: &Path, e: &roxmltree::Error) -> Error {
    let pos = e.pos();
    let mut loc = Loc {
        line: pos.row,
        col: pos.col,
    };
    let mut message = e
        .to_string()
        .replace(&format!(" at {}:{}", pos.row, pos.col), "");
    if matches!(e, roxmltree::Error::UnclosedRootNode) {
        let lines = xml.lines().count().max(1);
        let last = xml.lines().last().map_or(0, |l| l.chars().count());
        loc = Loc {
            line: lines as u32,
            col: last as u32 + 1,
        };
        message = "the file ends before the root element is closed (truncated?)".to_string();
    }
    Error {
        kind: ErrorKind::Xml,
        file: file.to_path_buf(),
        loc,
        element: String::new(),
        message,
    }
}

/// The line where `xml`'s element nesting first passes `limit`, read as XML's tags are
/// (comments, CDATA, processing instructions and declarations skipped; a quoted
/// attribute value may hold `>`), without building a tree. Malformed text is left to
/// the parser: this only counts.
fn too_deep(xml: &str, limit: usize) -> Option<u32> {
    let b = xml.as_bytes();
    let find = |from: usize, end: &[u8]| {
        b[from..]
            .windows(end.len())
            .position(|w| w == end)
            .map_or(b.len(), |k| from + k + end.len())
    };
    let (mut i, mut depth) = (0, 0usize);
    while let Some(off) = b[i..].iter().position(|&c| c == b'<') {
        let at = i + off;
        let rest = &b[at..];
        i = if rest.starts_with(b"<!--") {
            find(at, b"-->")
        } else if rest.starts_with(b"<![CDATA[") {
            find(at, b"]]>")
        } else if rest.starts_with(b"<?") {
            find(at, b"?>")
        } else if rest.starts_with(b"<!") {
            find(at, b">")
        } else if rest.starts_with(b"</") {
            depth = depth.saturating_sub(1);
            find(at, b">")
        } else {
            let mut quote = None;
            let mut j = at + 1;
            while j < b.len() {
                match (quote, b[j]) {
                    (None, q @ (b'"' | b'\'')) => quote = Some(q),
                    (Some(q), c) if c == q => quote = None,
                    (None, b'>') => break,
                    _ => {}
                }
                j += 1;
            }
            if b.get(j.wrapping_sub(1)) != Some(&b'/') {
                depth += 1;
                if depth > limit {
                    return Some(xml[..at].lines().count().max(1) as u32);
                }
            }
            j + 1
        };
        if i >= b.len() {
            break;
        }
    }
    None
}
