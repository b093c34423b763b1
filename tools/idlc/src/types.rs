//! Name resolution, layout and the checks that make generated code safe to share.

use std::collections::{HashMap, HashSet};

use crate::ast::{ErrorSpec, Interface, Reply, TypeDef};
use crate::{Error, err};

/// The most elements an array may have where serde must handle it (call arguments and
/// replies): serde implements arrays only up to 32.
const SERDE_MAX_ARRAY: usize = 32;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prim {
    U8,
    U16,
    U32,
    U64,
}

impl Prim {
    fn parse(name: &str) -> Option<Prim> {
        Some(match name {
            "u8" => Prim::U8,
            "u16" => Prim::U16,
            "u32" => Prim::U32,
            "u64" => Prim::U64,
            _ => return None,
        })
    }

    pub fn size(self) -> usize {
        match self {
            Prim::U8 => 1,
            Prim::U16 => 2,
            Prim::U32 => 4,
            Prim::U64 => 8,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Prim::U8 => "u8",
            Prim::U16 => "u16",
            Prim::U32 => "u32",
            Prim::U64 => "u64",
        }
    }

    fn max(self) -> u64 {
        match self {
            Prim::U64 => u64::MAX,
            p => (1u64 << (8 * p.size())) - 1,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ty {
    Unit,
    Prim(Prim),
    Array(Box<Ty>, usize),
    Enum(String),
    Struct(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub size: usize,
    pub align: usize,
}

#[derive(Debug, Clone)]
pub struct EnumDef {
    pub repr: Prim,
    pub variants: Vec<(String, u64)>,
    /// Used as a reply's error: values start at 1 and `ServerRestarted` exists.
    pub is_error: bool,
}

#[derive(Debug, Clone)]
pub struct FieldDef {
    pub name: String,
    pub ty: Ty,
    pub offset: usize,
}

#[derive(Debug, Clone)]
pub struct StructDef {
    pub fields: Vec<FieldDef>,
    pub layout: Layout,
}

#[derive(Debug)]
pub struct OpDef {
    pub number: u16,
    pub args: Vec<(String, Ty)>,
    pub ok: Ty,
    pub err: String,
}

/// A checked interface.
#[derive(Debug, Default)]
pub struct Model {
    pub enums: HashMap<String, EnumDef>,
    pub structs: HashMap<String, StructDef>,
    pub ops: Vec<OpDef>,
    /// Types that appear in calls, which therefore also derive serde and hubpack.
    pub in_calls: HashSet<String>,
    /// Types taken from another interface: name -> that interface's module.
    pub imported: HashMap<String, String>,
}

impl Model {
    pub fn check(iface: &Interface) -> Result<Model, Error> {
        Model::check_with(iface, &[])
    }

    /// Checks `iface` with the types of `imports` (module name, its checked model)
    /// in scope, as its `import` list names them.
    pub fn check_with(iface: &Interface, imports: &[(String, Model)]) -> Result<Model, Error> {
        let mut model = Model::default();
        for (module, m) in imports {
            for (name, e) in &m.enums {
                model.enums.insert(name.clone(), e.clone());
                model.imported.insert(name.clone(), module.clone());
            }
            for (name, st) in &m.structs {
                model.structs.insert(name.clone(), st.clone());
                model.imported.insert(name.clone(), module.clone());
            }
        }
        for name in iface.types.keys() {
            if let Some(module) = model.imported.get(name) {
                return Err(err(
                    format!("type `{name}`"),
                    format!("already declared by the imported interface `{module}`"),
                ));
            }
        }
        let errors: HashSet<&str> = iface
            .ops
            .values()
            .map(|op| match &op.reply {
                Reply::Result {
                    err: ErrorSpec::CLike(e),
                    ..
                } => e.as_str(),
            })
            .collect();
        for (name, def) in &iface.types {
            check_ident(name, &format!("type `{name}`"))?;
            if let TypeDef::Enum { repr, variants, .. } = def {
                let e = check_enum(name, repr, variants, errors.contains(name.as_str()))?;
                model.enums.insert(name.clone(), e);
            }
        }
        // Structs in declaration order: a struct may only use types declared before it,
        // which rules out recursion without a separate cycle check.
        for (name, def) in &iface.types {
            if let TypeDef::Struct { fields, align, .. } = def {
                let s = model.check_struct(name, fields, *align)?;
                model.structs.insert(name.clone(), s);
            }
        }
        for (i, (name, op)) in iface.ops.iter().enumerate() {
            let ctx = format!("op `{name}`");
            check_ident(name, &ctx)?;
            let mut args = Vec::new();
            for (arg, ty) in &op.args {
                let actx = format!("{ctx}, argument `{arg}`");
                check_ident(arg, &actx)?;
                let ty = model.resolve(ty, &actx)?;
                model.mark_in_calls(&ty, &actx)?;
                args.push((arg.clone(), ty));
            }
            let Reply::Result {
                ok,
                err: ErrorSpec::CLike(e),
            } = &op.reply;
            let ok = model.resolve_reply(ok, &format!("{ctx}, reply"))?;
            model.mark_in_calls(&ok, &format!("{ctx}, reply"))?;
            if !model.enums.contains_key(e) {
                return Err(err(
                    &ctx,
                    format!("error type `{e}` is not a declared enum"),
                ));
            }
            // An error enum is this interface's own: only here are its rules (values
            // from 1, a `ServerRestarted`) checked and its error code generated.
            if model.imported.contains_key(e) {
                return Err(err(
                    &ctx,
                    format!("error type `{e}` is imported; declare the interface's errors in it"),
                ));
            }
            model.in_calls.insert(e.clone());
            let number = u16::try_from(i + 1).map_err(|_| err(&ctx, "too many ops"))?;
            model.ops.push(OpDef {
                number,
                args,
                ok,
                err: e.clone(),
            });
        }
        for (name, q) in &iface.queues {
            let ctx = format!("queue `{name}`");
            check_ident(name, &ctx)?;
            if !model.structs.contains_key(&q.item) {
                return Err(err(
                    &ctx,
                    format!("item `{}` is not a declared struct", q.item),
                ));
            }
            if q.capacity == 0 || !q.capacity.is_power_of_two() {
                return Err(err(
                    &ctx,
                    format!("capacity {} is not a power of two", q.capacity),
                ));
            }
            if model.structs[&q.item].layout.align > 64 {
                return Err(err(&ctx, "item alignment exceeds a cache line"));
            }
        }
        Ok(model)
    }

    fn check_struct(
        &self,
        name: &str,
        fields: &indexmap::IndexMap<String, String>,
        declared_align: usize,
    ) -> Result<StructDef, Error> {
        let ctx = format!("type `{name}`");
        if fields.is_empty() {
            return Err(err(&ctx, "a struct needs at least one field"));
        }
        if !declared_align.is_power_of_two() || declared_align > 64 {
            return Err(err(
                &ctx,
                format!("align {declared_align} is not a power of two up to 64"),
            ));
        }
        let mut offset = 0;
        let mut align = declared_align;
        let mut out = Vec::new();
        for (field, ty) in fields {
            let fctx = format!("{ctx}, field `{field}`");
            check_ident(field, &fctx)?;
            let ty = self.resolve(ty, &fctx)?;
            let l = self.layout(&ty);
            if offset % l.align != 0 {
                let pad = l.align - offset % l.align;
                return Err(err(
                    &fctx,
                    format!(
                        "{pad} byte(s) of implicit padding before this field (offset {offset}, \
                         alignment {}); add an explicit reserved field",
                        l.align
                    ),
                ));
            }
            out.push(FieldDef {
                name: field.clone(),
                ty,
                offset,
            });
            offset += l.size;
            if offset > MAX_TYPE_BYTES {
                return Err(err(
                    &fctx,
                    format!("the struct passes {MAX_TYPE_BYTES} bytes"),
                ));
            }
            align = align.max(l.align);
        }
        if offset % align != 0 {
            return Err(err(
                &ctx,
                format!(
                    "{} byte(s) of implicit tail padding (size {offset}, alignment {align}); \
                     add an explicit reserved field",
                    align - offset % align
                ),
            ));
        }
        Ok(StructDef {
            fields: out,
            layout: Layout {
                size: offset,
                align,
            },
        })
    }

    fn resolve_reply(&self, text: &str, ctx: &str) -> Result<Ty, Error> {
        if text.trim() == "()" {
            Ok(Ty::Unit)
        } else {
            self.resolve(text, ctx)
        }
    }

    /// Parses a type as written in the file.
    pub fn resolve(&self, text: &str, ctx: &str) -> Result<Ty, Error> {
        let parsed: syn::Type =
            syn::parse_str(text).map_err(|e| err(ctx, format!("bad type `{text}`: {e}")))?;
        self.resolve_syn(&parsed, text, ctx)
    }

    fn resolve_syn(&self, ty: &syn::Type, text: &str, ctx: &str) -> Result<Ty, Error> {
        match ty {
            syn::Type::Path(p) if p.qself.is_none() => {
                let Some(ident) = p.path.get_ident() else {
                    return Err(err(ctx, format!("bad type `{text}`")));
                };
                let name = ident.to_string();
                if let Some(prim) = Prim::parse(&name) {
                    Ok(Ty::Prim(prim))
                } else if self.enums.contains_key(&name) {
                    Ok(Ty::Enum(name))
                } else if self.structs.contains_key(&name) {
                    Ok(Ty::Struct(name))
                } else {
                    Err(err(
                        ctx,
                        format!("unknown type `{name}` (declare it before use)"),
                    ))
                }
            }
            syn::Type::Array(a) => {
                let elem = self.resolve_syn(&a.elem, text, ctx)?;
                let len = match &a.len {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Int(n),
                        ..
                    }) => n
                        .base10_parse::<usize>()
                        .map_err(|e| err(ctx, e.to_string()))?,
                    _ => {
                        return Err(err(
                            ctx,
                            format!("array length in `{text}` must be a number"),
                        ));
                    }
                };
                if len == 0 {
                    return Err(err(ctx, "zero-length array"));
                }
                // Bounded so that no layout sum can overflow: a type is shared memory or
                // message words, never near this big.
                let bytes = self.layout(&elem).size.checked_mul(len);
                if bytes.is_none_or(|b| b > MAX_TYPE_BYTES) {
                    return Err(err(
                        ctx,
                        format!("`{text}` is larger than {MAX_TYPE_BYTES} bytes"),
                    ));
                }
                Ok(Ty::Array(Box::new(elem), len))
            }
            _ => Err(err(
                ctx,
                format!(
                    "unsupported type `{text}` (use u8/u16/u32/u64, [T; N], or a declared type)"
                ),
            )),
        }
    }

    pub fn layout(&self, ty: &Ty) -> Layout {
        match ty {
            Ty::Unit => Layout { size: 0, align: 1 },
            Ty::Prim(p) => Layout {
                size: p.size(),
                align: p.size(),
            },
            Ty::Array(elem, n) => {
                let l = self.layout(elem);
                Layout {
                    size: l.size * n,
                    align: l.align,
                }
            }
            Ty::Enum(name) => {
                let size = self.enums[name].repr.size();
                Layout { size, align: size }
            }
            Ty::Struct(name) => self.structs[name].layout,
        }
    }

    /// Records that `ty` crosses a call, and checks serde can carry it.
    fn mark_in_calls(&mut self, ty: &Ty, ctx: &str) -> Result<(), Error> {
        if let Ty::Enum(name) | Ty::Struct(name) = ty
            && let Some(module) = self.imported.get(name)
        {
            return Err(err(
                ctx,
                format!(
                    "`{name}` is imported from `{module}`: imported types may be used in shared memory only, not in calls"
                ),
            ));
        }
        match ty {
            Ty::Unit | Ty::Prim(_) => Ok(()),
            Ty::Array(elem, n) => {
                if *n > SERDE_MAX_ARRAY {
                    return Err(err(
                        ctx,
                        format!("arrays in calls are limited to {SERDE_MAX_ARRAY} elements"),
                    ));
                }
                self.mark_in_calls(elem, ctx)
            }
            Ty::Enum(name) => {
                self.in_calls.insert(name.clone());
                Ok(())
            }
            Ty::Struct(name) => {
                self.in_calls.insert(name.clone());
                let fields: Vec<Ty> = self.structs[name]
                    .fields
                    .iter()
                    .map(|f| f.ty.clone())
                    .collect();
                for f in &fields {
                    self.mark_in_calls(f, &format!("{ctx} (in `{name}`)"))?;
                }
                Ok(())
            }
        }
    }
}

fn check_enum(
    name: &str,
    repr: &str,
    variants: &indexmap::IndexMap<String, u64>,
    is_error: bool,
) -> Result<EnumDef, Error> {
    let ctx = format!("type `{name}`");
    let repr = match Prim::parse(repr) {
        Some(p @ (Prim::U8 | Prim::U16 | Prim::U32)) => p,
        _ => {
            return Err(err(
                &ctx,
                format!("enum repr must be u8, u16 or u32, not `{repr}`"),
            ));
        }
    };
    if variants.is_empty() {
        return Err(err(&ctx, "an enum needs at least one variant"));
    }
    let mut seen = HashMap::new();
    for (v, &value) in variants {
        check_ident(v, &format!("{ctx}, variant `{v}`"))?;
        if value > repr.max() {
            return Err(err(
                &ctx,
                format!("variant `{v}` = {value} does not fit in {}", repr.name()),
            ));
        }
        if let Some(other) = seen.insert(value, v) {
            return Err(err(
                &ctx,
                format!("variants `{other}` and `{v}` share the value {value}"),
            ));
        }
    }
    if is_error {
        if repr.size() > 2 {
            return Err(err(&ctx, "error enums travel as u16 codes: use u8 or u16"));
        }
        if let Some((v, _)) = variants.iter().find(|&(_, &value)| value == 0) {
            return Err(err(
                &ctx,
                format!("error variant `{v}` is 0, which means OK on the wire"),
            ));
        }
        if !variants.contains_key("ServerRestarted") {
            return Err(err(&ctx, "error enums need a `ServerRestarted` variant"));
        }
    }
    Ok(EnumDef {
        repr,
        variants: variants.iter().map(|(k, &v)| (k.clone(), v)).collect(),
        is_error,
    })
}

/// Largest type (array or struct) an interface may declare: 1 MiB, past any queue
/// region or message.
const MAX_TYPE_BYTES: usize = 1 << 20;

/// A plain Rust identifier: not a keyword and not raw (`r#type` parses as an `Ident`,
/// and then broke the names the generator derives from it, such as `OP_R#TYPE`).
pub(crate) fn check_ident(name: &str, ctx: &str) -> Result<(), Error> {
    match syn::parse_str::<syn::Ident>(name) {
        Ok(_) if !name.starts_with("r#") => Ok(()),
        _ => Err(err(ctx, format!("`{name}` is not a valid identifier"))),
    }
}
