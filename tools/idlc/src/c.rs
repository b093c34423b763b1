//! C headers for a checked interface: the same types, constants and call encoding as the
//! Rust module, for C protection domains (libmicrokit's world).
//!
//! Each header is freestanding C11 (`<stddef.h>`, `<stdint.h>` only): structs with the
//! Rust side's layout, enum values as `enum` constants with a `_valid` check (a peer may
//! write any value), queue capacities and sizes, op labels, and per op a descriptor
//! (where each integer of its arguments and `ok` value lies in memory, in hubpack's
//! order) and a typed stub that hands it to the C client library's one encoder,
//! `crypto_pd_invoke`: the encoding is written once, in C, not once an op. Every size,
//! alignment, field offset and encoded length is stated twice: as the number idlc
//! computed, in a `_Static_assert` (or an enum constant) the C compiler checks, and as a
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

/// The bytes of Microkit's 64 message words (pd_idl::wire::MSG_BYTES).
const MSG_BYTES: u64 = 512;

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
    "idl_args",
    "idl_ok",
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
            writeln!(
                o,
                "typedef {} {t}; _Static_assert(sizeof({t}) == {}, \"{name} is a {}\");",
                prim(e.repr),
                e.repr.size(),
                e.repr.name()
            )
            .unwrap();
            let b = upper(&base);
            let mut consts: Vec<(String, u64)> = e
                .variants
                .iter()
                .map(|(v, val)| (format!("{b}_{}", upper(&snake(v))), *val))
                .collect();
            if e.is_error {
                consts.push((format!("{b}_OK"), 0));
            }
            constants(&mut o, &consts);
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
            // One line of asserts a type: each still fails on its own, by its column.
            let asserts: Vec<String> = [format!("sizeof({t})"), format!("_Alignof({t})")]
                .into_iter()
                .chain(
                    s.fields
                        .iter()
                        .map(|f| format!("offsetof({t}, {})", f.name)),
                )
                .map(|key| {
                    format!(
                        "_Static_assert({key} == {}, \"{rust}'s layout\");",
                        value(&key)
                    )
                })
                .collect();
            writeln!(o, "{}\n", asserts.join(" ")).unwrap();
        }
    }
    let s = upper(stem);
    for ((name, op), def) in iface.ops.iter().zip(&model.ops) {
        let o_up = upper(name);
        let fname = format!("{stem}_{name}");
        let pre = format!("{s}_{o_up}");
        let err_base = type_base(stem, &def.err, model);
        let retry = if op.idempotent {
            "Idempotent."
        } else {
            "Not idempotent."
        };
        comment(
            &mut o,
            "",
            &format!(
                "Op {}: `{name}`. {}",
                def.number,
                [op.doc.trim(), retry].join(" ")
            )
            .replace(".  ", ". "),
        );
        let (label, args_bytes, ok_bytes) = (
            format!("{s}_LABEL_{o_up}"),
            format!("{pre}_ARGS_BYTES"),
            format!("{pre}_OK_BYTES"),
        );
        let numbers: Vec<(String, u64)> = [&label, &args_bytes, &ok_bytes]
            .into_iter()
            .map(|k| (k.clone(), value(k)))
            .collect();
        if let Some((k, n)) = numbers[1..].iter().find(|(_, n)| *n > MSG_BYTES) {
            return Err(err(
                format!("op `{name}`"),
                format!("`{k}` is {n}: more than the {MSG_BYTES} bytes of the message words"),
            ));
        }
        constants(&mut o, &numbers);
        // The arguments as C parameters: scalars by value, arrays as arrays, structs by
        // pointer; each reached through `idl_args` by its address.
        let mut params = Vec::new();
        let mut addrs = Vec::new();
        let mut arg_runs = Vec::new();
        for (i, (arg, ty)) in def.args.iter().enumerate() {
            check_c_name(arg, &format!("op `{name}`, argument `{arg}`"))?;
            let (cty, dims) = c_decl(ty, stem, model);
            let (param, addr) = match ty {
                Ty::Array(..) => (
                    format!("const {cty} {arg}{}", dims_text(&dims)),
                    arg.clone(),
                ),
                Ty::Struct(_) => (format!("const {cty} *{arg}"), arg.clone()),
                _ => (format!("{cty} {arg}"), format!("&{arg}")),
            };
            params.push(param);
            addrs.push(addr);
            runs(ty, i, 0, model, &mut arg_runs);
        }
        let mut ok_runs = Vec::new();
        runs(&def.ok, 0, 0, model, &mut ok_runs);
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
        // A top-level enum is checked on arrival, as serde checks it in Rust; enums
        // inside structs are raw values, as in Rust, for the reader to check.
        let ok_valid = match &def.ok {
            Ty::Enum(e) => format!("{}_valid", type_base(stem, e, model)),
            _ => "0".to_string(),
        };
        writeln!(
            o,
            "static const crypto_pd_op_t {pre}_OP = {{{label}, {args_bytes}, {}, {}, {ok_bytes}, {}, {}, {}, {}_SERVER_RESTARTED, {err_base}_valid, {ok_valid}}};",
            run_table(&arg_runs),
            arg_runs.len(),
            run_table(&ok_runs),
            ok_runs.len(),
            u8::from(op.idempotent),
            upper(&err_base)
        )
        .unwrap();
        let stub_params: Vec<String> =
            std::iter::once("const crypto_pd_transport_t *idl_t".to_string())
                .chain(params)
                .chain(ok_param.clone())
                .collect();
        let (args_decl, args) = if addrs.is_empty() {
            (String::new(), "0")
        } else {
            (
                format!("const void *idl_args[] = {{{}}}; ", addrs.join(", ")),
                "idl_args",
            )
        };
        let ok = if ok_param.is_some() { "idl_ok" } else { "0" };
        writeln!(
            o,
            "static inline uint32_t {fname}({}) {{ {args_decl}return crypto_pd_invoke(idl_t, &{pre}_OP, {args}, {ok}); }}\n",
            stub_params.join(", ")
        )
        .unwrap();
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
        let numbers: Vec<(String, u64)> = ["CAPACITY", "SLOT_BYTES", "BYTES"]
            .into_iter()
            .map(|what| {
                let key = format!("{base}_{what}");
                let v = value(&key);
                (key, v)
            })
            .collect();
        constants(&mut o, &numbers);
        writeln!(
            o,
            "CRYPTO_PD_QUEUE_LAYOUT({item_t}, {base}_CAPACITY, {base}_SLOT_BYTES, {base}_BYTES);\n"
        )
        .unwrap();
    }
    writeln!(o, "#endif /* {guard} */").unwrap();
    Ok(o)
}

/// Named numbers as one C enum line (`int` constants, usable wherever the `#define`s of
/// a hand-written header would be, but in `#if`).
fn constants(o: &mut String, consts: &[(String, u64)]) {
    let items: Vec<String> = consts.iter().map(|(k, v)| format!("{k} = {v}")).collect();
    writeln!(o, "enum {{ {} }};", items.join(", ")).unwrap();
}

/// One run of a value's wire form: `count` integers of `width` bytes, contiguous in
/// memory from `offset` bytes into the value at index `value`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Run {
    value: usize,
    offset: usize,
    width: usize,
    count: usize,
}

/// The runs hubpack encodes `ty` (at `offset` in value `value`) as: its integers in
/// field and element order, merged where they lie next to each other in memory.
fn runs(ty: &Ty, value: usize, offset: usize, model: &Model, out: &mut Vec<Run>) {
    let mut push = |width: usize| match out.last_mut() {
        Some(r) if r.value == value && r.width == width && r.offset + r.count * width == offset => {
            r.count += 1
        }
        _ => out.push(Run {
            value,
            offset,
            width,
            count: 1,
        }),
    };
    match ty {
        Ty::Unit => {}
        Ty::Prim(p) => push(p.size()),
        Ty::Enum(e) => push(model.enums[e].repr.size()),
        Ty::Array(elem, n) => {
            let size = model.layout(elem).size;
            for i in 0..*n {
                runs(elem, value, offset + i * size, model, out);
            }
        }
        Ty::Struct(s) => {
            for f in &model.structs[s].fields {
                runs(&f.ty, value, offset + f.offset, model, out);
            }
        }
    }
}

/// `runs` as a C compound literal of `crypto_pd_run_t` (static storage at file scope),
/// or a null pointer for none.
fn run_table(runs: &[Run]) -> String {
    if runs.is_empty() {
        return "0".to_string();
    }
    let items: Vec<String> = runs
        .iter()
        .map(|r| format!("{{{}, {}, {}, {}}}", r.value, r.width, r.count, r.offset))
        .collect();
    format!("(const crypto_pd_run_t[]){{{}}}", items.join(", "))
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
