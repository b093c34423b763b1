//! The interface file format, as read from RON.

use indexmap::IndexMap;
use serde::Deserialize;

/// One interface file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Interface {
    pub name: String,
    #[serde(default)]
    pub doc: String,
    /// Other interface files (by name, beside this one) whose types this one uses: types
    /// declared once for several interfaces (in shared memory only, not in calls).
    #[serde(default)]
    pub import: Vec<String>,
    #[serde(default)]
    pub types: IndexMap<String, TypeDef>,
    #[serde(default)]
    pub ops: IndexMap<String, Op>,
    #[serde(default)]
    pub queues: IndexMap<String, Queue>,
}

#[derive(Debug, Deserialize)]
pub enum TypeDef {
    /// A C-like enum; `repr` is `u8`, `u16` or `u32`.
    Enum {
        repr: String,
        variants: IndexMap<String, u64>,
        #[serde(default)]
        doc: String,
    },
    /// A `#[repr(C)]` struct with no implicit padding.
    Struct {
        fields: IndexMap<String, String>,
        #[serde(default)]
        doc: String,
        /// Alignment beyond the fields' own (a power of two, at most a cache line): a
        /// queue item aligned to 16 is copied to and from its slot in whole vector
        /// moves. The size must be a multiple of it (explicit reserved bytes, never
        /// implicit padding).
        #[serde(default = "natural")]
        align: usize,
    },
}

/// A struct's default `align`: what its fields need, nothing more.
fn natural() -> usize {
    1
}

/// A synchronous call.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Op {
    #[serde(default)]
    pub doc: String,
    #[serde(default)]
    pub args: IndexMap<String, String>,
    pub reply: Reply,
    #[serde(default)]
    pub idempotent: bool,
}

#[derive(Debug, Deserialize)]
pub enum Reply {
    Result { ok: String, err: ErrorSpec },
}

#[derive(Debug, Deserialize)]
pub enum ErrorSpec {
    /// A C-like enum declared in `types`.
    CLike(String),
}

/// A shared-memory queue of descriptors.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Queue {
    pub item: String,
    pub capacity: u32,
    #[serde(default)]
    pub doc: String,
}
