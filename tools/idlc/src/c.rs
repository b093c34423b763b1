//! C headers for a checked interface: the same types, constants and call encoding as the
//! Rust module, for C protection domains (libmicrokit's world).
//!
//! Each header is freestanding C11 (`<stddef.h>`, `<stdint.h>` only): structs with the
//! Rust side's layout, enum values as `#define`s with a `_valid` check (a peer may write
//! any value), queue capacities and sizes, op labels, and per op an encoder of its
//! arguments into the message words, a decoder of its `ok` value and a call stub. Every
//! size, alignment, field offset and encoded length is stated twice: as the number idlc
//! computed, in a `_Static_assert` (or `#define`) the C compiler checks, and as a
//! [`Fact`] the Rust module turns into a `C_FACTS` table of what rustc laid out, which
//! pd-idl's tests compare with the header. So C and Rust cannot disagree silently,
//! whichever side changes.
//!
//! Names: a header is its file's stem (`cipher.h`), and every name in it starts with the
//! stem (`cipher_request_t`, `CIPHER_MODE_CBC`, `CIPHER_LABEL_OPEN_SESSION`); a type whose
//! name already starts with it is not prefixed twice (`CipherError` is `cipher_error_t`).

use std::fmt::Write;

use crate::ast::{Interface, TypeDef};
use crate::types::{Model, Prim, Ty};
use crate::{Error, err};

/// One number both renderings state: the header with idlc's value, the Rust module with
/// rustc's.
pub enum Fact {
    SizeOf(String),
    AlignOf(String),
    OffsetOf(String, String),
    EnumSize(String),
    EnumValue(String, String),
    OpLabel(String),
    ArgsBytes(String),
    OkBytes(String),
    QueueCapacity(String),
    SlotBytes(String),
    QueueBytes(String),
}

/// `CipherError` -> `cipher_error`, `Stm32Cryp` -> `stm32_cryp`, `Sha256` -> `sha256`.
pub fn snake(name: &str) -> String {
    let mut out = String::new();
    let mut prev: Option<char> = None;
    for c in name.chars() {
        if c.is_ascii_uppercase()
            && prev.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit())
        {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
        prev = Some(c);
    }
    out
}

/// The C base name of a declared type: `cipher_request` (no `_t`).
pub fn type_base(stem: &str, name: &str, model: &Model) -> String {
    let stem = model.imported.get(name).map_or(stem, String::as_str);
    let s = snake(name);
    if s == stem || s.starts_with(&format!("{stem}_")) {
        s
    } else {
        format!("{stem}_{s}")
    }
}

fn upper(s: &str) -> String {
    s.to_ascii_uppercase()
}

/// Every fact of `iface`, with the header's spelling of it and idlc's value.
pub fn facts(iface: &Interface, model: &Model, stem: &str) -> Vec<(String, u64, Fact)> {
    let mut out = Vec::new();
    for name in iface.types.keys() {
        let t = format!("{}_t", type_base(stem, name, model));
        if let Some(e) = model.enums.get(name) {
            out.push((
                format!("sizeof({t})"),
                e.repr.size() as u64,
                Fact::EnumSize(name.clone()),
            ));
            let base = upper(&type_base(stem, name, model));
            for (v, value) in &e.variants {
                out.push((
                    format!("{base}_{}", upper(&snake(v))),
                    *value,
                    Fact::EnumValue(name.clone(), v.clone()),
                ));
            }
        } else {
            let s = &model.structs[name];
            out.push((
                format!("sizeof({t})"),
                s.layout.size as u64,
                Fact::SizeOf(name.clone()),
            ));
            out.push((
                format!("_Alignof({t})"),
                s.layout.align as u64,
                Fact::AlignOf(name.clone()),
            ));
            for f in &s.fields {
                out.push((
                    format!("offsetof({t}, {})", f.name),
                    f.offset as u64,
                    Fact::OffsetOf(name.clone(), f.name.clone()),
                ));
            }
        }
    }
    for (name, op) in iface.ops.keys().zip(&model.ops) {
        let s = upper(stem);
        let o = upper(name);
        out.push((
            format!("{s}_LABEL_{o}"),
            u64::from(op.number),
            Fact::OpLabel(name.clone()),
        ));
        let args: usize = op.args.iter().map(|(_, t)| wire_size(t, model)).sum();
        out.push((
            format!("{s}_{o}_ARGS_BYTES"),
            args as u64,
            Fact::ArgsBytes(name.clone()),
        ));
        out.push((
            format!("{s}_{o}_OK_BYTES"),
            wire_size(&op.ok, model) as u64,
            Fact::OkBytes(name.clone()),
        ));
    }
    for (qname, q) in &iface.queues {
        let base = format!("{}_{}_QUEUE", upper(stem), upper(qname));
        let slot = slot_bytes(model.structs[&q.item].layout.size);
        out.push((
            format!("{base}_CAPACITY"),
            u64::from(q.capacity),
            Fact::QueueCapacity(qname.clone()),
        ));
        out.push((
            format!("{base}_SLOT_BYTES"),
            slot as u64,
            Fact::SlotBytes(qname.clone()),
        ));
        out.push((
            format!("{base}_BYTES"),
            (QUEUE_HEADER_BYTES + q.capacity as usize * slot) as u64,
            Fact::QueueBytes(qname.clone()),
        ));
    }
    out
}

/// shm-queue's header: tail, head and consumer_signalled, a cache line each.
const QUEUE_HEADER_BYTES: usize = 3 * CACHE_LINE;
const CACHE_LINE: usize = 64;

/// shm-queue's `slot_size`, computed here for the header's numbers (the `C_FACTS`
/// table holds shm-queue's own, so a change there alone fails pd-idl's tests).
fn slot_bytes(size: usize) -> usize {
    if size >= CACHE_LINE {
        size.next_multiple_of(2 * CACHE_LINE)
    } else {
        size.next_power_of_two()
    }
}

/// Bytes hubpack gives a value of `ty`: fixed-width little-endian integers, fields in
/// order, no padding, nothing for `()`.
fn wire_size(ty: &Ty, model: &Model) -> usize {
    match ty {
        Ty::Unit => 0,
        Ty::Prim(p) => p.size(),
        Ty::Enum(e) => model.enums[e].repr.size(),
        Ty::Array(elem, n) => n * wire_size(elem, model),
        Ty::Struct(s) => model.structs[s]
            .fields
            .iter()
            .map(|f| wire_size(&f.ty, model))
            .sum(),
    }
}

/// C11's keywords and the names the generated functions use for themselves: an argument
/// or field of one of these names would not compile or would shadow them.
const RESERVED: &[&str] = &[
    "auto",
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "_Alignas",
    "_Alignof",
    "_Atomic",
    "_Bool",
    "_Complex",
    "_Generic",
    "_Imaginary",
    "_Noreturn",
    "_Static_assert",
    "_Thread_local",
    "idl_t",
    "idl_mrs",
    "idl_p",
    "idl_ok",
    "idl_status",
    "idl_words",
    "idl_v",
];

fn check_c_name(name: &str, ctx: &str) -> Result<(), Error> {
    if RESERVED.contains(&name) || name.starts_with("idl_") {
        return Err(err(
            ctx,
            format!("`{name}` is reserved in C or in the generated header"),
        ));
    }
    Ok(())
}

fn prim(p: Prim) -> &'static str {
    match p {
        Prim::U8 => "uint8_t",
        Prim::U16 => "uint16_t",
        Prim::U32 => "uint32_t",
        Prim::U64 => "uint64_t",
    }
}

/// The element type and the dimensions (outermost first) of `ty`.
fn c_decl(ty: &Ty, stem: &str, model: &Model) -> (String, Vec<usize>) {
    match ty {
        Ty::Array(elem, n) => {
            let (base, mut dims) = c_decl(elem, stem, model);
            dims.insert(0, *n);
            (base, dims)
        }
        Ty::Prim(p) => (prim(*p).to_string(), vec![]),
        Ty::Enum(e) | Ty::Struct(e) => (format!("{}_t", type_base(stem, e, model)), vec![]),
        Ty::Unit => ("void".to_string(), vec![]),
    }
}

fn dims_text(dims: &[usize]) -> String {
    dims.iter().map(|d| format!("[{d}]")).collect()
}

fn comment(out: &mut String, indent: &str, text: &str) {
    // A doc's `*/` would end the comment early.
    let text = text.replace("*/", "* /");
    let lines: Vec<&str> = text.trim().lines().map(str::trim).collect();
    match lines.as_slice() {
        [] => {}
        [one] => writeln!(out, "{indent}/* {one} */").unwrap(),
        _ => writeln!(
            out,
            "{indent}/* {} */",
            lines.join(&format!("\n{indent} * "))
        )
        .unwrap(),
    }
}

/// The header for `iface`, from the file `stem.idl`.
pub fn header(iface: &Interface, model: &Model, stem: &str, origin: &str) -> Result<String, Error> {
    let mut o = String::new();
    let guard = format!("CRYPTO_PD_{}_H", upper(stem));
    writeln!(o, "/* Generated by idlc from {origin}. Do not edit. */").unwrap();
    comment(&mut o, "", &iface.doc);
    writeln!(o, "#ifndef {guard}\n#define {guard}\n").unwrap();
    writeln!(o, "#include <stddef.h>\n#include <stdint.h>\n").unwrap();
    writeln!(o, "#include \"wire.h\"").unwrap();
    for import in &iface.import {
        writeln!(o, "#include \"{import}.h\"").unwrap();
    }
    writeln!(o).unwrap();
    let facts = facts(iface, model, stem);
    let value = |key: &str| {
        facts
            .iter()
            .find(|(k, _, _)| k == key)
            .map(|(_, v, _)| *v)
            .expect("every stated fact is listed")
    };
    for (name, def) in &iface.types {
        let base = type_base(stem, name, model);
        let t = format!("{base}_t");
        let d = match def {
            TypeDef::Enum { doc, .. } | TypeDef::Struct { doc, .. } => doc,
        };
        comment(&mut o, "", &format!("`{name}`. {d}"));
        if let Some(e) = model.enums.get(name) {
            writeln!(o, "typedef {} {t};", prim(e.repr)).unwrap();
            let b = upper(&base);
            for (v, val) in &e.variants {
                writeln!(o, "#define {b}_{} {val}u", upper(&snake(v))).unwrap();
            }
            if e.is_error {
                writeln!(o, "#define {b}_OK 0u").unwrap();
            }
            writeln!(
                o,
                "_Static_assert(sizeof({t}) == {}, \"{name} is a {}\");",
                e.repr.size(),
                e.repr.name()
            )
            .unwrap();
            writeln!(
                o,
                "/* Whether `v` is a declared `{name}` (a peer may write any value). */"
            )
            .unwrap();
            let values: Vec<u64> = e.variants.iter().map(|(_, v)| *v).collect();
            writeln!(
                o,
                "static inline int {base}_valid(uint32_t v) {{ return {}; }}\n",
                membership(&values)
            )
            .unwrap();
        } else {
            let s = &model.structs[name];
            let natural = s.fields.iter().map(|f| model.layout(&f.ty).align).max();
            writeln!(o, "typedef struct {base} {{").unwrap();
            for (i, f) in s.fields.iter().enumerate() {
                check_c_name(&f.name, &format!("type `{name}`, field `{}`", f.name))?;
                let (ty, dims) = c_decl(&f.ty, stem, model);
                let align = if i == 0 && Some(s.layout.align) != natural {
                    format!("_Alignas({}) ", s.layout.align)
                } else {
                    String::new()
                };
                let note = match &f.ty {
                    Ty::Enum(e) => {
                        format!(" /* {e}: check with {}_valid */", type_base(stem, e, model))
                    }
                    _ => String::new(),
                };
                writeln!(o, "    {align}{ty} {}{};{note}", f.name, dims_text(&dims)).unwrap();
            }
            writeln!(o, "}} {t};").unwrap();
            let rust = format!(
                "pd_idl::{}::{name}",
                model.imported.get(name).map_or(stem, String::as_str)
            );
            for key in [format!("sizeof({t})"), format!("_Alignof({t})")]
                .into_iter()
                .chain(
                    s.fields
                        .iter()
                        .map(|f| format!("offsetof({t}, {})", f.name)),
                )
            {
                writeln!(
                    o,
                    "_Static_assert({key} == {}, \"{rust}'s layout\");",
                    value(&key)
                )
                .unwrap();
            }
            writeln!(o).unwrap();
        }
    }
    let s = upper(stem);
    for ((name, op), def) in iface.ops.iter().zip(&model.ops) {
        let o_up = upper(name);
        let fname = format!("{stem}_{name}");
        let pre = format!("{s}_{o_up}");
        let err_base = type_base(stem, &def.err, model);
        comment(
            &mut o,
            "",
            &format!("Op {}: `{name}`. {}", def.number, op.doc),
        );
        writeln!(o, "#define {s}_LABEL_{o_up} {}u", def.number).unwrap();
        for key in [format!("{pre}_ARGS_BYTES"), format!("{pre}_OK_BYTES")] {
            writeln!(o, "#define {key} {}u", value(&key)).unwrap();
        }
        writeln!(
            o,
            "_Static_assert({pre}_ARGS_BYTES <= CRYPTO_PD_MSG_BYTES && {pre}_OK_BYTES <= CRYPTO_PD_MSG_BYTES, \"{name} fits in the message words\");"
        )
        .unwrap();
        writeln!(
            o,
            "static const crypto_pd_op_t {pre}_OP = {{{s}_LABEL_{o_up}, CRYPTO_PD_WORDS({pre}_OK_BYTES), {}, {}_SERVER_RESTARTED, {err_base}_valid}};",
            u8::from(op.idempotent),
            upper(&err_base)
        )
        .unwrap();
        // The arguments as C parameters: scalars by value, arrays as arrays, structs by
        // pointer.
        let mut params = Vec::new();
        let mut names = Vec::new();
        for (arg, ty) in &def.args {
            check_c_name(arg, &format!("op `{name}`, argument `{arg}`"))?;
            let (cty, dims) = c_decl(ty, stem, model);
            params.push(match ty {
                Ty::Array(..) => format!("const {cty} {arg}{}", dims_text(&dims)),
                Ty::Struct(_) => format!("const {cty} *{arg}"),
                _ => format!("{cty} {arg}"),
            });
            names.push(arg.clone());
        }
        let mrs = "uint64_t idl_mrs[CRYPTO_PD_MSG_WORDS]";
        writeln!(
            o,
            "/* `{name}`'s arguments, hubpack-encoded into the message words; returns the\n * words used. */"
        )
        .unwrap();
        let all_params: Vec<String> = std::iter::once(mrs.to_string())
            .chain(params.iter().cloned())
            .collect();
        writeln!(
            o,
            "static inline uint32_t {fname}_encode({}) {{",
            all_params.join(", ")
        )
        .unwrap();
        writeln!(o, "    uint8_t *idl_p = (uint8_t *)idl_mrs;").unwrap();
        for (arg, ty) in &def.args {
            let access = match ty {
                Ty::Struct(_) => format!("{arg}->"),
                _ => arg.clone(),
            };
            encode(&mut o, ty, &access, model, 1, 0);
        }
        writeln!(
            o,
            "    return crypto_pd_end(idl_mrs, idl_p, CRYPTO_PD_WORDS({pre}_ARGS_BYTES));\n}}"
        )
        .unwrap();
        // The ok value's decoder and the stub.
        let ok_param = match &def.ok {
            Ty::Unit => None,
            ty => {
                let (cty, dims) = c_decl(ty, stem, model);
                Some(match ty {
                    Ty::Array(..) => format!("{cty} idl_ok{}", dims_text(&dims)),
                    _ => format!("{cty} *idl_ok"),
                })
            }
        };
        if let Some(p) = &ok_param {
            writeln!(
                o,
                "/* `{name}`'s `ok` value from the reply's words: 1, or 0 for a value its type\n * does not allow. */"
            )
            .unwrap();
            writeln!(
                o,
                "static inline int {fname}_decode_ok(const uint64_t idl_mrs[CRYPTO_PD_MSG_WORDS], {p}) {{"
            )
            .unwrap();
            writeln!(o, "    const uint8_t *idl_p = (const uint8_t *)idl_mrs;").unwrap();
            let access = match &def.ok {
                Ty::Array(..) => "idl_ok".to_string(),
                Ty::Struct(_) => "idl_ok->".to_string(),
                _ => "(*idl_ok)".to_string(),
            };
            writeln!(o, "    int idl_v = 1;").unwrap();
            decode(&mut o, &def.ok, &access, model, stem, 1, 0, true);
            writeln!(o, "    return idl_v;\n}}").unwrap();
        }
        let retry = if op.idempotent {
            "Idempotent: sent once more if the server died during the first attempt."
        } else {
            "Not idempotent: a server that died during the call is reported as ServerRestarted."
        };
        writeln!(
            o,
            "/* Calls `{name}` through `idl_t`: CRYPTO_PD_OK (and the `ok` value), a\n * `{}` code, a CRYPTO_PD_PROTOCOL_BASE + n protocol error or\n * CRYPTO_PD_BAD_REPLY. {retry} */",
            def.err
        )
        .unwrap();
        let stub_params: Vec<String> =
            std::iter::once("const crypto_pd_transport_t *idl_t".to_string())
                .chain(params.iter().cloned())
                .chain(ok_param.clone())
                .collect();
        writeln!(
            o,
            "static inline uint32_t {fname}({}) {{",
            stub_params.join(", ")
        )
        .unwrap();
        writeln!(o, "    uint64_t idl_mrs[CRYPTO_PD_MSG_WORDS];").unwrap();
        let enc_args: Vec<String> = std::iter::once("idl_mrs".to_string())
            .chain(names)
            .collect();
        let call = format!(
            "crypto_pd_call(idl_t, &{pre}_OP, {fname}_encode({}), idl_mrs)",
            enc_args.join(", ")
        );
        if ok_param.is_some() {
            writeln!(
                o,
                "    uint32_t idl_status = {call};\n    return idl_status == CRYPTO_PD_OK && !{fname}_decode_ok(idl_mrs, idl_ok) ? CRYPTO_PD_BAD_REPLY : idl_status;\n}}\n"
            )
            .unwrap();
        } else {
            writeln!(o, "    return {call};\n}}\n").unwrap();
        }
    }
    for (qname, q) in &iface.queues {
        let base = format!("{s}_{}_QUEUE", upper(qname));
        comment(
            &mut o,
            "",
            &format!("Queue `{qname}` of `{}`. {}", q.item, q.doc),
        );
        let item_t = format!("{}_t", type_base(stem, &q.item, model));
        writeln!(o, "typedef {item_t} {stem}_{qname}_queue_item_t;").unwrap();
        for what in ["CAPACITY", "SLOT_BYTES", "BYTES"] {
            let key = format!("{base}_{what}");
            writeln!(o, "#define {key} {}u", value(&key)).unwrap();
        }
        writeln!(
            o,
            "CRYPTO_PD_QUEUE_LAYOUT({item_t}, {base}_CAPACITY, {base}_SLOT_BYTES, {base}_BYTES);\n"
        )
        .unwrap();
    }
    writeln!(o, "#endif /* {guard} */").unwrap();
    Ok(o)
}

/// Statements writing `ty` at `idl_p`, little-endian, advancing it.
fn encode(o: &mut String, ty: &Ty, access: &str, model: &Model, depth: usize, loop_no: usize) {
    let ind = "    ".repeat(depth);
    match ty {
        Ty::Unit => {}
        Ty::Prim(p) => writeln!(
            o,
            "{ind}idl_p = crypto_pd_put_{}(idl_p, {access});",
            p.name()
        )
        .unwrap(),
        Ty::Enum(e) => writeln!(
            o,
            "{ind}idl_p = crypto_pd_put_{}(idl_p, {access});",
            model.enums[e].repr.name()
        )
        .unwrap(),
        Ty::Array(elem, n) => {
            let i = format!("idl_i{loop_no}");
            writeln!(o, "{ind}for (uint32_t {i} = 0; {i} < {n}u; {i}++) {{").unwrap();
            encode(
                o,
                elem,
                &format!("{}[{i}]", access.trim_end_matches("->")),
                model,
                depth + 1,
                loop_no + 1,
            );
            writeln!(o, "{ind}}}").unwrap();
        }
        Ty::Struct(s) => {
            for f in &model.structs[s].fields {
                let a = if access.ends_with("->") {
                    format!("{access}{}", f.name)
                } else {
                    format!("{access}.{}", f.name)
                };
                encode(o, &f.ty, &a, model, depth, loop_no);
            }
        }
    }
}

/// Statements reading `ty` from `idl_p` into `access`, advancing it; a top-level enum
/// (a Rust enum in the call, checked by serde) clears `idl_v` if undeclared. Enums inside
/// structs are raw values, as in Rust, for the reader to check.
#[allow(clippy::too_many_arguments)]
fn decode(
    o: &mut String,
    ty: &Ty,
    access: &str,
    model: &Model,
    stem: &str,
    depth: usize,
    loop_no: usize,
    checked: bool,
) {
    let ind = "    ".repeat(depth);
    match ty {
        Ty::Unit => {}
        Ty::Prim(p) => writeln!(
            o,
            "{ind}idl_p = crypto_pd_get_{}(idl_p, &{access});",
            p.name()
        )
        .unwrap(),
        Ty::Enum(e) => {
            writeln!(
                o,
                "{ind}idl_p = crypto_pd_get_{}(idl_p, &{access});",
                model.enums[e].repr.name()
            )
            .unwrap();
            if checked {
                writeln!(
                    o,
                    "{ind}idl_v &= {}_valid({access});",
                    type_base(stem, e, model)
                )
                .unwrap();
            }
        }
        Ty::Array(elem, n) => {
            let i = format!("idl_i{loop_no}");
            writeln!(o, "{ind}for (uint32_t {i} = 0; {i} < {n}u; {i}++) {{").unwrap();
            decode(
                o,
                elem,
                &format!("{access}[{i}]"),
                model,
                stem,
                depth + 1,
                loop_no + 1,
                checked,
            );
            writeln!(o, "{ind}}}").unwrap();
        }
        Ty::Struct(s) => {
            for f in &model.structs[s].fields {
                let a = if access.ends_with("->") {
                    format!("{access}{}", f.name)
                } else {
                    format!("{access}.{}", f.name)
                };
                decode(o, &f.ty, &a, model, stem, depth, loop_no, false);
            }
        }
    }
}

/// `wire.h`: the message layer every header uses, written by hand as its Rust twin
/// `pd_idl::wire` is (pd-idl's tests compare its numbers with that module's), and handed
/// out by `idlc --c` beside the generated headers. `crypto_pd_call` is the C client
/// library's (components/crypto-client-c).
pub fn wire_header() -> String {
    include_str!("../../../idl/include/crypto_pd/wire.h").to_string()
}

/// A C expression true when `v` is one of `values`: contiguous runs as ranges.
fn membership(values: &[u64]) -> String {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    let mut runs: Vec<(u64, u64)> = Vec::new();
    for v in sorted {
        match runs.last_mut() {
            Some((_, hi)) if *hi + 1 == v => *hi = v,
            _ => runs.push((v, v)),
        }
    }
    let terms: Vec<String> = runs
        .iter()
        .map(|&(lo, hi)| match hi - lo {
            0 => format!("v == {lo}u"),
            _ if lo == 0 => format!("v <= {hi}u"),
            1 => format!("v == {lo}u || v == {hi}u"),
            _ => format!("(v >= {lo}u && v <= {hi}u)"),
        })
        .collect();
    if terms.is_empty() {
        "0".to_string()
    } else {
        terms.join(" || ")
    }
}
