//! Rust code for a checked interface.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::ast::{Interface, TypeDef};
use crate::c::Fact;
use crate::types::{EnumDef, Model, OpDef, Prim, StructDef, Ty};

pub fn interface(iface: &Interface, model: &Model, stem: &str) -> TokenStream {
    let name = &iface.name;
    let iface_doc = doc(&iface.doc);
    let types = iface.types.iter().map(|(name, def)| {
        let d = match def {
            TypeDef::Enum { doc, .. } | TypeDef::Struct { doc, .. } => doc,
        };
        match model.enums.get(name) {
            Some(e) => enum_type(name, e, d, model),
            None => struct_type(name, &model.structs[name], d, model),
        }
    });
    let imports = iface.import.iter().map(|name| {
        let module = format_ident!("{name}");
        let mut names: Vec<&String> = model
            .imported
            .iter()
            .filter(|(_, m)| *m == name)
            .map(|(n, _)| n)
            .collect();
        names.sort();
        let items = names.iter().flat_map(|n| {
            let id = format_ident!("{n}");
            let raw = model
                .enums
                .contains_key(*n)
                .then(|| format_ident!("{n}Raw"));
            core::iter::once(id).chain(raw)
        });
        quote! { pub use super::#module::{#(#items),*}; }
    });
    let ops = ops(iface, model);
    let queues = iface.queues.iter().map(|(qname, q)| {
        let upper = qname.to_uppercase();
        let cap_name = format_ident!("{upper}_QUEUE_CAPACITY");
        let bytes_name = format_ident!("{upper}_QUEUE_BYTES");
        let item_name = format_ident!("{}QueueItem", camel(qname));
        let item = format_ident!("{}", q.item);
        let cap = Literal::u32_unsuffixed(q.capacity);
        let d = doc(&q.doc);
        quote! {
            #d
            pub type #item_name = #item;
            pub const #cap_name: u32 = #cap;
            /// Bytes of shared region the queue occupies (header and slots).
            pub const #bytes_name: usize = shm_queue::region_size::<#item>(#cap_name);
            static_assertions::const_assert!(#cap_name.is_power_of_two());
        }
    });
    let c_facts = c_facts(iface, model, stem);
    quote! {
        #[allow(unused_imports)]
        use crate::wire;

        #iface_doc
        pub const INTERFACE: &str = #name;

        #(#imports)*
        #(#types)*
        #ops
        #(#queues)*
        #c_facts
    }
}

/// `C_FACTS`: each number the C header states, as rustc computes it here.
fn c_facts(iface: &Interface, model: &Model, stem: &str) -> TokenStream {
    let rows = crate::c::facts(iface, model, stem)
        .into_iter()
        .map(|(key, _, fact)| {
            let value = match fact {
                Fact::SizeOf(t) => {
                    let t = format_ident!("{t}");
                    quote! { core::mem::size_of::<#t>() }
                }
                Fact::AlignOf(t) => {
                    let t = format_ident!("{t}");
                    quote! { core::mem::align_of::<#t>() }
                }
                Fact::OffsetOf(t, f) => {
                    let (t, f) = (format_ident!("{t}"), format_ident!("{f}"));
                    quote! { core::mem::offset_of!(#t, #f) }
                }
                Fact::EnumSize(e) => {
                    let raw = format_ident!("{e}Raw");
                    quote! { core::mem::size_of::<#raw>() }
                }
                Fact::EnumValue(e, v) => {
                    let (e, v) = (format_ident!("{e}"), format_ident!("{v}"));
                    quote! { #e::#v }
                }
                Fact::OpLabel(op) => {
                    // Already a u64: the table's cast would be clippy's unnecessary one.
                    let k = format_ident!("OP_{}", op.to_uppercase());
                    return quote! { (#key, #k) };
                }
                Fact::ArgsBytes(op) => {
                    let a = format_ident!("{}Args", camel(&op));
                    quote! { <#a as hubpack::SerializedSize>::MAX_SIZE }
                }
                Fact::OkBytes(op) => {
                    let i = iface.ops.get_index_of(&op).expect("a listed op");
                    let ok = rust_type(&model.ops[i].ok, false);
                    quote! { <#ok as hubpack::SerializedSize>::MAX_SIZE }
                }
                Fact::QueueCapacity(q) => {
                    let k = format_ident!("{}_QUEUE_CAPACITY", q.to_uppercase());
                    quote! { #k }
                }
                Fact::SlotBytes(q) => {
                    let item = format_ident!("{}QueueItem", camel(&q));
                    quote! { shm_queue::slot_size::<#item>() }
                }
                Fact::QueueBytes(q) => {
                    let k = format_ident!("{}_QUEUE_BYTES", q.to_uppercase());
                    quote! { #k }
                }
            };
            quote! { (#key, #value as u64) }
        });
    quote! {
        /// Each number `idlc`'s C header for this interface states (a `_Static_assert`'s
        /// left side or a `#define`'s name), as rustc lays out and computes it here: the
        /// header's numbers are idlc's, so a test comparing the two (pd-idl's
        /// `c_headers`) fails if either side changes alone.
        #[doc(hidden)]
        pub const C_FACTS: &[(&str, u64)] = &[#(#rows),*];
    }
}

fn doc(text: &str) -> TokenStream {
    let lines = text.lines().map(|l| format!(" {}", l.trim()));
    quote! { #(#[doc = #lines])* }
}

fn prim(p: Prim) -> TokenStream {
    let id = format_ident!("{}", p.name());
    quote! { #id }
}

/// The serde attribute of a field of type `ty` in a type that crosses a call: an array
/// of primitives goes through `wire::array` (a loop, not serde's unrolled impl).
fn serde_with(ty: &Ty) -> TokenStream {
    match ty {
        Ty::Array(elem, _) if matches!(**elem, Ty::Prim(_)) => {
            quote! { #[serde(with = "wire::array")] }
        }
        _ => quote! {},
    }
}

/// The Rust type for `ty`: in structs (shared memory) enums are raw integers; in calls they
/// are the enum itself, checked by the decoder.
fn rust_type(ty: &Ty, in_struct: bool) -> TokenStream {
    match ty {
        Ty::Unit => quote! { () },
        Ty::Prim(p) => prim(*p),
        Ty::Array(elem, n) => {
            let elem = rust_type(elem, in_struct);
            let n = Literal::usize_unsuffixed(*n);
            quote! { [#elem; #n] }
        }
        Ty::Enum(name) if in_struct => {
            let raw = format_ident!("{name}Raw");
            quote! { #raw }
        }
        Ty::Enum(name) | Ty::Struct(name) => {
            let id = format_ident!("{name}");
            quote! { #id }
        }
    }
}

fn serde_derives(name: &str, model: &Model) -> TokenStream {
    if model.in_calls.contains(name) {
        quote! { serde::Serialize, serde::Deserialize, hubpack::SerializedSize, }
    } else {
        quote! {}
    }
}

const ZC: &str =
    "zerocopy::FromBytes, zerocopy::IntoBytes, zerocopy::KnownLayout, zerocopy::Immutable";

fn zerocopy_derives() -> TokenStream {
    ZC.parse().expect("derive list parses")
}

fn enum_type(name: &str, e: &EnumDef, d: &str, model: &Model) -> TokenStream {
    let id = format_ident!("{name}");
    let raw = format_ident!("{name}Raw");
    let repr = prim(e.repr);
    let doc = doc(d);
    let serde = serde_derives(name, model);
    let zc = zerocopy_derives();
    let size = Literal::usize_unsuffixed(e.repr.size());
    let count = Literal::usize_unsuffixed(e.variants.len());
    let vnames: Vec<_> = e
        .variants
        .iter()
        .map(|(v, _)| format_ident!("{v}"))
        .collect();
    let values: Vec<_> = e
        .variants
        .iter()
        .map(|(_, value)| value_literal(*value, e.repr))
        .collect();
    let raw_doc = format!(
        " `{name}` as stored in shared memory: the raw `{}`, checked when read.",
        e.repr.name()
    );
    let from_code = if e.repr == Prim::U16 {
        quote! { Self::from_value(code) }
    } else {
        quote! { #repr::try_from(code).ok().and_then(Self::from_value) }
    };
    let error_impls = if e.is_error {
        quote! {
            impl wire::ErrorCode for #id {
                const SERVER_RESTARTED: Self = #id::ServerRestarted;
                fn code(self) -> u16 {
                    self as u16
                }
                fn from_code(code: u16) -> Option<Self> {
                    #from_code
                }
            }
            impl #raw {
                /// The value meaning "no error".
                pub const OK: Self = #raw(0);
                /// `Ok(Ok(()))` for OK, `Ok(Err(e))` for a known error, `Err` for a value
                /// the peer should not have written.
                pub fn check(self) -> Result<Result<(), #id>, wire::UnknownValue> {
                    if self.0 == 0 { Ok(Ok(())) } else { self.get().map(Err) }
                }
            }
            impl From<Result<(), #id>> for #raw {
                fn from(r: Result<(), #id>) -> Self {
                    match r {
                        Ok(()) => #raw::OK,
                        Err(e) => e.into(),
                    }
                }
            }
        }
    } else {
        quote! {}
    };
    // In calls an enum travels as its declared value, not serde's variant index, so the
    // bytes in a message mean the same as in shared memory; unknown values are refused.
    let serde_impls = if model.in_calls.contains(name) {
        quote! {
            impl serde::Serialize for #id {
                fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                    serde::Serialize::serialize(&(*self as #repr), s)
                }
            }
            impl<'de> serde::Deserialize<'de> for #id {
                fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                    let value = <#repr as serde::Deserialize>::deserialize(d)?;
                    Self::from_value(value)
                        .ok_or_else(|| <D::Error as serde::de::Error>::custom("unknown enum value"))
                }
            }
            impl hubpack::SerializedSize for #id {
                const MAX_SIZE: usize = <#repr as hubpack::SerializedSize>::MAX_SIZE;
            }
        }
    } else {
        quote! {}
    };
    quote! {
        #doc
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(#repr)]
        pub enum #id {
            #(#vnames = #values,)*
        }

        impl #id {
            /// Every variant, in declaration order.
            pub const ALL: [#id; #count] = [#(#id::#vnames),*];

            /// The variant with this value, if any.
            pub const fn from_value(value: #repr) -> Option<Self> {
                match value {
                    #(#values => Some(#id::#vnames),)*
                    _ => None,
                }
            }
        }

        impl TryFrom<#repr> for #id {
            type Error = wire::UnknownValue;
            fn try_from(value: #repr) -> Result<Self, Self::Error> {
                Self::from_value(value).ok_or(wire::UnknownValue(value as u64))
            }
        }

        #[doc = #raw_doc]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, #serde #zc)]
        #[repr(transparent)]
        pub struct #raw(pub #repr);

        impl #raw {
            pub fn get(self) -> Result<#id, wire::UnknownValue> {
                #id::try_from(self.0)
            }
        }

        impl From<#id> for #raw {
            fn from(v: #id) -> Self {
                #raw(v as #repr)
            }
        }

        #serde_impls
        #error_impls

        static_assertions::const_assert_eq!(core::mem::size_of::<#id>(), #size);
        static_assertions::const_assert_eq!(core::mem::size_of::<#raw>(), #size);
        static_assertions::const_assert_eq!(core::mem::align_of::<#raw>(), #size);
    }
}

fn value_literal(value: u64, repr: Prim) -> Literal {
    match repr {
        Prim::U8 => Literal::u8_unsuffixed(value as u8),
        Prim::U16 => Literal::u16_unsuffixed(value as u16),
        Prim::U32 => Literal::u32_unsuffixed(value as u32),
        Prim::U64 => Literal::u64_unsuffixed(value),
    }
}

fn struct_type(name: &str, s: &StructDef, d: &str, model: &Model) -> TokenStream {
    let id = format_ident!("{name}");
    let doc = doc(d);
    let serde = serde_derives(name, model);
    let zc = zerocopy_derives();
    let in_calls = model.in_calls.contains(name);
    let fields = s.fields.iter().map(|f| {
        let fname = format_ident!("{}", f.name);
        let ty = rust_type(&f.ty, true);
        let with = if in_calls {
            serde_with(&f.ty)
        } else {
            quote! {}
        };
        quote! { #with pub #fname: #ty }
    });
    let offsets = s.fields.iter().map(|f| {
        let fname = format_ident!("{}", f.name);
        let off = Literal::usize_unsuffixed(f.offset);
        quote! { static_assertions::const_assert_eq!(core::mem::offset_of!(#id, #fname), #off); }
    });
    let size = Literal::usize_unsuffixed(s.layout.size);
    let align = Literal::usize_unsuffixed(s.layout.align);
    // Only a struct declared with more alignment than its fields' says so: the golden
    // files of every other struct stay as they were.
    let natural = s.fields.iter().map(|f| model.layout(&f.ty).align).max();
    let repr = if Some(s.layout.align) == natural {
        quote! { #[repr(C)] }
    } else {
        quote! { #[repr(C, align(#align))] }
    };
    quote! {
        #doc
        #[derive(Clone, Copy, Debug, PartialEq, Eq, #serde #zc)]
        #repr
        pub struct #id {
            #(#fields,)*
        }
        static_assertions::const_assert_eq!(core::mem::size_of::<#id>(), #size);
        static_assertions::const_assert_eq!(core::mem::align_of::<#id>(), #align);
        #(#offsets)*
    }
}

fn ops(iface: &Interface, model: &Model) -> TokenStream {
    if model.ops.is_empty() {
        return quote! {};
    }
    let mut consts = Vec::new();
    let mut arg_structs = Vec::new();
    let mut trait_fns = Vec::new();
    let mut arms = Vec::new();
    let mut client_fns = Vec::new();
    for ((name, op), def) in iface.ops.iter().zip(&model.ops) {
        let OpDef {
            number,
            args,
            ok,
            err,
        } = def;
        let konst = format_ident!("OP_{}", name.to_uppercase());
        let num = Literal::u64_unsuffixed(u64::from(*number));
        let op_doc = format!(" Op {number}: `{name}`.");
        consts.push(quote! { #[doc = #op_doc] pub const #konst: u64 = #num; });

        let args_ty = format_ident!("{}Args", camel(name));
        let arg_names: Vec<_> = args.iter().map(|(a, _)| format_ident!("{a}")).collect();
        let arg_types: Vec<_> = args.iter().map(|(_, t)| rust_type(t, false)).collect();
        let arg_withs: Vec<_> = args.iter().map(|(_, t)| serde_with(t)).collect();
        let args_doc = format!(" The arguments of `{name}`, as they travel.");
        arg_structs.push(quote! {
            #[doc = #args_doc]
            #[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, hubpack::SerializedSize)]
            pub struct #args_ty { #(#arg_withs pub #arg_names: #arg_types,)* }
        });
        // An op with no arguments fits whatever the limit (and the check would be a
        // comparison with 0 that clippy refuses).
        if !args.is_empty() {
            arg_structs.push(quote! {
                static_assertions::const_assert!(
                    <#args_ty as hubpack::SerializedSize>::MAX_SIZE <= wire::MSG_BYTES
                );
            });
        }
        let ok_ty = rust_type(ok, false);
        let err_ty = format_ident!("{err}");
        if *ok != Ty::Unit {
            arg_structs.push(quote! {
                static_assertions::const_assert!(
                    <#ok_ty as hubpack::SerializedSize>::MAX_SIZE <= wire::MSG_BYTES
                );
            });
        }
        let fname = format_ident!("{name}");
        let d = doc(&op.doc);
        trait_fns.push(quote! {
            #d
            fn #fname(&mut self, caller: wire::Caller, #(#arg_names: #arg_types),*) -> Result<#ok_ty, #err_ty>;
        });
        let decoded = if args.is_empty() {
            quote! { _ }
        } else {
            quote! { a }
        };
        arms.push(quote! {
            #konst => match wire::decode_args::<#args_ty>(msg) {
                Ok(#decoded) => wire::reply(server.#fname(caller, #(a.#arg_names),*)),
                Err(e) => wire::Message::protocol_error(e),
            },
        });
        let idempotent = op.idempotent;
        let retry_doc = if idempotent {
            " Idempotent: retried once if the server restarted during the call."
        } else {
            " Not idempotent: a restart during the call is reported as `ServerRestarted`."
        };
        client_fns.push(quote! {
            #d
            #[doc = ""]
            #[doc = #retry_doc]
            pub fn #fname(&mut self, #(#arg_names: #arg_types),*) -> Result<#ok_ty, wire::CallError<#err_ty>> {
                let args = #args_ty { #(#arg_names),* };
                wire::call(&mut self.transport, #konst, &args, #idempotent)
            }
        });
    }
    quote! {
        #(#consts)*
        #(#arg_structs)*

        /// What a server of this interface implements; [`dispatch`] calls it.
        pub trait Server {
            #(#trait_fns)*
        }

        /// Decodes one call, runs it on `server` and returns the reply. A malformed call
        /// (unknown op, too few or too many words, a value no type allows) is answered with
        /// a protocol error and never reaches `server`.
        pub fn dispatch<S: Server>(server: &mut S, caller: wire::Caller, msg: &wire::Message) -> wire::Message {
            match msg.label {
                #(#arms)*
                _ => wire::Message::protocol_error(wire::ProtocolError::UnknownOp),
            }
        }

        /// The client stub: one method per op, over any transport.
        pub struct Client<T> {
            transport: T,
        }

        impl<T: wire::Transport> Client<T> {
            pub fn new(transport: T) -> Self {
                Client { transport }
            }

            pub fn transport(&mut self) -> &mut T {
                &mut self.transport
            }

            #(#client_fns)*
        }
    }
}

/// `open_session` -> `OpenSession`.
fn camel(snake: &str) -> String {
    snake
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}
