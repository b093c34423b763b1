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
/// (the location leads the line), a truncated file located at its end, where the
/// closing tag is missing, not at 1:1 where roxmltree puts it, and an element left
/// open located at its open tag, not at the mismatched close tag roxmltree stopped at.
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
    if let roxmltree::Error::UnexpectedCloseTag(expected, actual, _) = e
        && let Some(at) = unclosed_open(xml, offset_of(xml, pos), expected)
    {
        loc = loc_at(xml, at);
        message = format!(
            "<{expected}> opened here is not closed (found </{actual}> at {}:{})",
            pos.row, pos.col
        );
    }
    Error {
        kind: ErrorKind::Xml,
        file: file.to_path_buf(),
        loc,
        element: String::new(),
        message,
    }
}

/// A tag of the text, as [`scan_tags`] reads it.
enum Tag<'a> {
    Open(&'a str),
    Close,
    /// Self-closed (`<x/>`): opens and closes nothing.
    Empty,
}

/// Calls `f` with the byte offset and kind of each tag of `xml`, in order, until it
/// returns false: tags read as XML's are (comments, CDATA, processing instructions and
/// declarations skipped; a quoted attribute value may hold `>`), without building a
/// tree. Malformed text is left to the parser: this only finds tags.
fn scan_tags<'a>(xml: &'a str, mut f: impl FnMut(usize, Tag<'a>) -> bool) {
    let b = xml.as_bytes();
    let find = |from: usize, end: &[u8]| {
        b[from..]
            .windows(end.len())
            .position(|w| w == end)
            .map_or(b.len(), |k| from + k + end.len())
    };
    // The name after `<` at `from`: up to a space, `/` or `>`.
    let name = |from: usize| {
        let len = b[from..]
            .iter()
            .position(|&c| c.is_ascii_whitespace() || c == b'/' || c == b'>')
            .unwrap_or(b.len() - from);
        // `from` and `from + len` sit next to ASCII bytes (or the ends): char boundaries.
        &xml[from..from + len]
    };
    let mut i = 0;
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
            if !f(at, Tag::Close) {
                return;
            }
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
            let tag = if b.get(j.wrapping_sub(1)) == Some(&b'/') {
                Tag::Empty
            } else {
                Tag::Open(name(at + 1))
            };
            if !f(at, tag) {
                return;
            }
            j + 1
        };
        if i >= b.len() {
            break;
        }
    }
}

/// The editor's line and column (in characters) of byte `at` of `xml`.
fn loc_at(xml: &str, at: usize) -> Loc {
    let before = &xml[..at];
    let line_start = before.rfind('\n').map_or(0, |k| k + 1);
    Loc {
        line: before.matches('\n').count() as u32 + 1,
        col: before[line_start..].chars().count() as u32 + 1,
    }
}

/// The byte offset of roxmltree's `pos` (1-based line, and column in characters).
fn offset_of(xml: &str, pos: roxmltree::TextPos) -> usize {
    let line_start = xml
        .split_inclusive('\n')
        .take(pos.row.saturating_sub(1) as usize)
        .map(str::len)
        .sum::<usize>();
    let line = &xml[line_start..];
    line_start
        + line
            .char_indices()
            .nth(pos.col.saturating_sub(1) as usize)
            .map_or(line.len(), |(k, _)| k)
}

/// Where the element still open at byte `close` of `xml` opened, if it is `expected`:
/// roxmltree reports a missing close tag where a later one fails to match it, often
/// the end of the file, far from the tag the user forgot to close.
fn unclosed_open(xml: &str, close: usize, expected: &str) -> Option<usize> {
    let mut open: Vec<(usize, &str)> = Vec::new();
    scan_tags(xml, |at, tag| {
        if at >= close {
            return false;
        }
        match tag {
            Tag::Open(name) => open.push((at, name)),
            Tag::Close => {
                open.pop();
            }
            Tag::Empty => {}
        }
        true
    });
    open.pop()
        .and_then(|(at, name)| (name == expected).then_some(at))
}

/// The line where `xml`'s element nesting first passes `limit` (see [`scan_tags`]).
fn too_deep(xml: &str, limit: usize) -> Option<u32> {
    let (mut depth, mut found) = (0usize, None);
    scan_tags(xml, |at, tag| {
        match tag {
            Tag::Open(_) => depth += 1,
            Tag::Close => depth = depth.saturating_sub(1),
            Tag::Empty => {}
        }
        if depth > limit {
            found = Some(loc_at(xml, at).line);
        }
        found.is_none()
    });
    found
}
