//! The interface file format, as read from RON.

use std::fmt;
use std::marker::PhantomData;

use indexmap::IndexMap;
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};

/// A map that refuses a key given twice (for `deserialize_with`): RON and indexmap keep
/// the last, so a struct with a field written twice was laid out as neither reading of
/// the file, and an enum value or an op given twice was dropped.
fn unique<'de, D: Deserializer<'de>, V: Deserialize<'de>>(
    d: D,
) -> Result<IndexMap<String, V>, D::Error> {
    struct Once<V>(PhantomData<V>);
    impl<'de, V: Deserialize<'de>> Visitor<'de> for Once<V> {
        type Value = IndexMap<String, V>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a map with each key once")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
            let mut out = IndexMap::new();
            while let Some((k, v)) = m.next_entry::<String, V>()? {
                if out.contains_key(&k) {
                    return Err(de::Error::custom(format!("`{k}` is given twice")));
                }
                out.insert(k, v);
            }
            Ok(out)
        }
    }
    d.deserialize_map(Once(PhantomData))
}

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
    #[serde(default, deserialize_with = "unique")]
    pub types: IndexMap<String, TypeDef>,
    #[serde(default, deserialize_with = "unique")]
    pub ops: IndexMap<String, Op>,
    #[serde(default, deserialize_with = "unique")]
    pub queues: IndexMap<String, Queue>,
}

#[derive(Debug, Deserialize)]
pub enum TypeDef {
    /// A C-like enum; `repr` is `u8`, `u16` or `u32`.
    Enum {
        repr: String,
        #[serde(deserialize_with = "unique")]
        variants: IndexMap<String, u64>,
        #[serde(default)]
        doc: String,
    },
    /// A `#[repr(C)]` struct with no implicit padding.
    Struct {
        #[serde(deserialize_with = "unique")]
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
    #[serde(default, deserialize_with = "unique")]
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
