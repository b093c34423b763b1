//! The state of one parse: where errors go, and typed attribute readers that record an
//! error and hand back a placeholder, so parsing carries on and reports everything.
//!
//! An element with any error is *poisoned* (by its location). Cross-element checks skip
//! poisoned elements: a region whose size did not parse must not also be reported as
//! overlapping something at its placeholder size.

use std::collections::HashSet;
use std::path::Path;

use roxmltree::{Document, Node};

use crate::error::{Error, ErrorKind, Loc};
use crate::limits::Arch;
use crate::number::{parse_decimal, parse_number};

pub(crate) struct Ctx<'a> {
    pub file: &'a Path,
    pub doc: &'a Document<'a>,
    pub arch: Arch,
    pub errors: Vec<Error>,
    pub poisoned: HashSet<Loc>,
}

impl<'a> Ctx<'a> {
    pub fn new(file: &'a Path, doc: &'a Document<'a>, arch: Arch) -> Self {
        Ctx {
            file,
            doc,
            arch,
            errors: Vec::new(),
            poisoned: HashSet::new(),
        }
    }

    pub fn loc(&self, node: Node) -> Loc {
        self.loc_at(node.range().start)
    }

    pub fn loc_at(&self, pos: usize) -> Loc {
        let p = self.doc.text_pos_at(pos);
        Loc {
            line: p.row,
            col: p.col,
        }
    }

    /// An error at `loc` on an element called `element`; poisons that element.
    pub fn error_at(&mut self, kind: ErrorKind, loc: Loc, element: &str, message: String) {
        self.poisoned.insert(loc);
        self.errors.push(Error {
            kind,
            file: self.file.to_path_buf(),
            loc,
            element: element.to_string(),
            message,
        });
    }

    pub fn error(&mut self, kind: ErrorKind, node: Node, message: String) {
        let loc = self.loc(node);
        self.error_at(kind, loc, node.tag_name().name(), message);
    }

    /// An error about one attribute: located at the attribute, poisons its element.
    pub fn attr_error(&mut self, kind: ErrorKind, node: Node, attr: &str, message: String) {
        let loc = node
            .attributes()
            .find(|a| a.name() == attr)
            .map_or_else(|| self.loc(node), |a| self.loc_at(a.range().start));
        self.poisoned.insert(self.loc(node));
        self.error_at(kind, loc, node.tag_name().name(), message);
    }

    /// Reject attributes outside `allowed`. Those in `unsupported` are ones Microkit
    /// knows and we do not model, reported as such rather than as unknown.
    pub fn allow_attrs(&mut self, node: Node, allowed: &[&str], unsupported: &[&str]) {
        for attr in node.attributes() {
            let name = attr.name();
            if allowed.contains(&name) {
                continue;
            }
            let (kind, why) = if unsupported.contains(&name) {
                (ErrorKind::Unsupported, "is not supported by this loader")
            } else {
                (
                    ErrorKind::UnknownAttribute,
                    "is not a Microkit attribute here",
                )
            };
            self.attr_error(kind, node, name, format!("attribute '{name}' {why}"));
        }
    }

    pub fn required<'n>(&mut self, node: Node<'n, '_>, name: &str) -> Option<&'n str> {
        let value = node.attribute(name);
        if value.is_none() {
            let message = format!("missing required attribute '{name}'");
            self.error(ErrorKind::MissingAttribute, node, message);
        }
        value
    }

    /// A required string attribute; empty if missing or empty (the error is recorded
    /// either way: Microkit has no empty names, and the checks skip an empty one as
    /// already reported, so `pd=""` must not pass as a name).
    pub fn req_str(&mut self, node: Node, name: &str) -> String {
        let value = self.required(node, name).unwrap_or_default();
        if value.is_empty() && node.attribute(name).is_some() {
            let message = format!("attribute '{name}' is empty");
            self.error(ErrorKind::MissingAttribute, node, message);
        }
        value.to_string()
    }

    pub fn opt_str(&self, node: Node, name: &str) -> Option<String> {
        node.attribute(name).map(str::to_string)
    }

    fn number_of(&mut self, node: Node, name: &str, text: &str) -> u64 {
        parse_number(text).unwrap_or_else(|| {
            let message = format!("'{text}' in '{name}' is not a decimal or 0x-hex number");
            self.attr_error(ErrorKind::BadNumber, node, name, message);
            0
        })
    }

    /// A required number (decimal or `0x` hex); 0 if missing or malformed.
    pub fn req_num(&mut self, node: Node, name: &str) -> u64 {
        match self.required(node, name) {
            Some(text) => self.number_of(node, name, text),
            None => 0,
        }
    }

    /// An optional number; `default` when absent or malformed.
    pub fn num_or(&mut self, node: Node, name: &str, default: u64) -> u64 {
        match node.attribute(name) {
            Some(text) => match parse_number(text) {
                Some(v) => v,
                None => {
                    self.number_of(node, name, text);
                    default
                }
            },
            None => default,
        }
    }

    /// A required number that Microkit reads with Rust's `str::parse` (decimal only,
    /// sign allowed): channel and irq ids and irq numbers (`sdf.rs`, `.parse::<i64>()`).
    /// Microkit panics on anything else; we report it.
    pub fn req_decimal(&mut self, node: Node, name: &str) -> Option<i128> {
        let text = self.required(node, name)?;
        let value = parse_decimal(text);
        if value.is_none() {
            let message = format!(
                "'{text}' in '{name}' is not a decimal number (Microkit reads this one as decimal only)"
            );
            self.attr_error(ErrorKind::BadNumber, node, name, message);
        }
        value
    }

    /// `true` or `false` exactly (`util.rs` `str_to_bool`); `default` when absent.
    pub fn bool_or(&mut self, node: Node, name: &str, default: bool) -> bool {
        match node.attribute(name) {
            None => default,
            Some("true") => true,
            Some("false") => false,
            Some(other) => {
                let message = format!("'{name}' must be 'true' or 'false', not '{other}'");
                self.attr_error(ErrorKind::BadBool, node, name, message);
                default
            }
        }
    }
}
