//! The generated model type: arena, take-once guard, typed I/O accessors,
//! constants, the plan table, and `invoke()` with one call per op.

use crate::Analysis;
use crate::diag::Error;
use crate::graph::{DType, Tensor};
use crate::lowering::emit::Copied;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

mod accessors;
mod constructors;
mod helpers;
mod invoke;
mod plan;

use accessors::{accessors, raw_io};
use constructors::constructors;
use helpers::helper_module;
use invoke::invoke;
use plan::plan_consts;

/// What the macro tells the compiler about the invocation.
pub struct Target {
    /// Visibility of the generated type (`pub`, `pub(crate)`, nothing).
    pub vis: TokenStream,
    /// Name of the generated type.
    pub name: Ident,
    /// Absolute path of the model file, tracked with `include_bytes!` so an
    /// edited model rebuilds the crate.
    pub track_path: Option<String>,
}

fn dtype_tokens(d: DType) -> TokenStream {
    match d {
        DType::F32 => quote!(::tinyaot::DType::F32),
        DType::I8 => quote!(::tinyaot::DType::I8),
        DType::U8 => quote!(::tinyaot::DType::U8),
        DType::I16 => quote!(::tinyaot::DType::I16),
        DType::I64 => quote!(::tinyaot::DType::I64),
        DType::Bool => quote!(::tinyaot::DType::Bool),
        DType::U32 => quote!(::tinyaot::DType::U32),
        DType::U64 => quote!(::tinyaot::DType::U64),
        _ => quote!(::tinyaot::DType::I32),
    }
}

fn quant_tokens(t: &Tensor<'_>) -> TokenStream {
    match &t.quant {
        Some(q) if q.scales.len() == 1 => {
            let scale = crate::lowering::emit::f32_lit(q.scale());
            let zp = q.zero_point();
            quote!(::core::option::Option::Some(::tinyaot::Quant { scale: #scale, zero_point: #zp }))
        }
        _ => quote!(::core::option::Option::None),
    }
}

/// One memory region of the generated type: the one arena, or each of
/// the user's `regions`, fastest first.
struct Region {
    /// The struct field that borrows it (`arena`, `arena_1`, ..).
    field: Ident,
    /// `new`'s parameter for it (`arena`, or the region's own name).
    param: Ident,
    /// The helper module's size const (`SIZE_0`, ..) and static (`ARENA_0`, ..).
    size: Ident,
    storage: Ident,
    /// `run`'s pointer to it (`base`, `base_1`, ..).
    base: Ident,
    /// Bytes.
    bytes: usize,
    /// Its link section, if the user gave one.
    section: Option<String>,
    /// The user's name for it (`arena` without regions).
    name: String,
    /// The user's budget (its size without regions).
    budget: usize,
    /// With regions, the public size const (`DTCM_SIZE`).
    public_size: Option<Ident>,
}

/// Bytes of each region: its activations' plan, and in the region
/// `copy_weights` names, the copied constants after them.
pub fn region_bytes(a: &Analysis<'_>, copies: Option<&(usize, Vec<Copied>)>) -> Vec<usize> {
    let mut sizes = a.region_sizes();
    if let Some((region, copies)) = copies
        && let Some(end) = copies.iter().map(|c| c.offset + crate::plan::align(c.len)).max()
    {
        sizes[*region] = sizes[*region].max(end);
    }
    sizes
}

fn regions(a: &Analysis<'_>, copies: Option<&(usize, Vec<Copied>)>) -> Vec<Region> {
    let sizes = region_bytes(a, copies);
    let given = a.regions.as_ref().map(|r| &r.regions[..]).unwrap_or(&[]);
    sizes
        .iter()
        .enumerate()
        .map(|(k, &bytes)| {
            let user = given.get(k);
            let name = user.map_or_else(|| "arena".to_string(), |r| r.name.clone());
            Region {
                field: if k == 0 { format_ident!("arena") } else { format_ident!("arena_{}", k) },
                param: format_ident!("{}", name),
                size: format_ident!("SIZE_{}", k),
                storage: format_ident!("ARENA_{}", k),
                base: crate::lowering::emit::region_base(k),
                bytes,
                section: user.and_then(|r| r.section.clone()),
                budget: user.map_or(bytes, |r| r.budget),
                public_size: user.map(|r| format_ident!("{}_SIZE", r.name.to_uppercase())),
                name,
            }
        })
        .collect()
}

/// One graph input or output as the generated type exposes it.
struct Io {
    /// Its memory region (0 for a borrowed input, which has none).
    region: usize,
    offset: usize,
    bytes: usize,
    elements: usize,
    /// The element type's name (`i8`), for docs and the primitive path.
    ty: &'static str,
    info: TokenStream,
    shape: Vec<usize>,
    quant: TokenStream,
    name: String,
}

fn io(a: &Analysis<'_>, t: usize, role: &str) -> Result<Io, Error> {
    let tensor = &a.graph.tensors[t];
    let ty = if tensor.dtype == DType::Bool { Some("bool") } else { tensor.dtype.rust() };
    let ty = ty.ok_or_else(|| {
        Error::model(format!(
            "graph {role} '{}' has dtype {}; supported input/output dtypes: int8, uint8, int16, int32, int64, uint32, uint64, float32, bool",
            tensor.name,
            tensor.dtype.name()
        ))
    })?;
    // A borrowed input is in the caller's memory: no arena offset.
    let borrowed = role == "input" && a.borrowed_inputs;
    let (region, offset) = match a.tensor_place(t) {
        _ if borrowed => (0, usize::MAX),
        Some(place) => place,
        None => {
            return Err(Error::model(format!(
                "graph {role} '{}' is a constant or unused; it has no place in the arena",
                tensor.name
            )));
        }
    };
    let name = &tensor.name;
    let dtype = dtype_tokens(tensor.dtype);
    let shape = &tensor.shape;
    let quant = quant_tokens(tensor);
    let bytes = tensor.bytes;
    Ok(Io {
        region,
        offset,
        bytes,
        elements: tensor.elements,
        ty,
        info: quote!(::tinyaot::TensorInfo {
            name: #name, dtype: #dtype, shape: &[#(#shape),*], quant: #quant, region: #region, offset: #offset, bytes: #bytes,
        }),
        shape: shape.clone(),
        quant,
        name: name.clone(),
    })
}

/// Emits the whole model: the type, its helper module (the ops' code and
/// constants), and its items by artifact (plan constants, constructors,
/// `invoke`, raw I/O, typed accessors).
pub fn emit(a: &Analysis<'_>, target: &Target, ops: crate::codegen::Ops) -> Result<TokenStream, Error> {
    let crate::codegen::Ops { calls: ops, statics, weight_bytes, copies } = ops;
    let Target { vis, name, track_path, .. } = target;
    let module = format_ident!("__tinyaot_{}", name);
    let inputs: Vec<Io> = a.graph.inputs.iter().map(|&t| io(a, t, "input")).collect::<Result<_, _>>()?;
    let outputs: Vec<Io> = a.graph.outputs.iter().map(|&t| io(a, t, "output")).collect::<Result<_, _>>()?;
    let borrowed = Borrowed::of(a, &inputs);
    let regions = regions(a, copies.as_ref());
    let helpers = helper_module(name, &module, a, track_path.as_deref(), &statics, &ops, &borrowed, &regions, &copies);
    let consts = plan_consts(a, &module, weight_bytes, &inputs, &outputs, &regions, &copies);
    let constructors = constructors(a, name, &module, &inputs, &outputs, &regions, &copies);
    let (invoke, stepwise) = invoke(a, name, &module, &borrowed, &regions);
    let raw_io = raw_io(a, &inputs, &outputs, &regions);
    let accessors = accessors(a, &inputs, &outputs, &regions);
    let fields = regions.iter().map(|r| {
        let (field, size) = (&r.field, &r.size);
        quote!(#field: &'a mut ::tinyaot::Arena<{ #module::#size }>,)
    });
    let doc = a.rustdoc();
    let debug_name = name.to_string();
    // Hygiene: this code lands in the user's module, beside their names.
    // The model's helpers live in their own module (which sees none of the
    // user's items); what must sit in the user's scope names everything by
    // absolute path (`::core::...`, `::tinyaot::...`, primitives included)
    // and its one generic parameter cannot be picked by accident. Lints the
    // user may deny are allowed on generated items only.
    Ok(quote! {
        #[doc = #doc]
        #[allow(dead_code)]
        #vis struct #name<'a> {
            #(#fields)*
            state: ::tinyaot::Arena<{ #module::STATE_SIZE }>,
            next_step: ::core::primitive::usize,
        }

        #helpers

        #[allow(dead_code, unsafe_code, non_snake_case, clippy::all, clippy::pedantic, clippy::nursery)]
        impl<'a> #name<'a> {
            #consts
            #constructors
            #invoke
            #raw_io
            #(#accessors)*
        }

        #stepwise

        #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
        impl ::core::fmt::Debug for #name<'_> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.debug_struct(#debug_name)
                    .field("arena_size", &#module::ARENA_SIZE)
                    .field("state_size", &#module::STATE_SIZE)
                    .finish_non_exhaustive()
            }
        }
    })
}

/// How the graph inputs reach the generated `run`: with borrowed inputs,
/// `invoke` takes each by reference (`input`, `input1`, ...) and `run`
/// reads it through a pointer; otherwise all empty.
struct Borrowed {
    /// `invoke`'s parameters.
    params: Vec<TokenStream>,
    /// What `invoke` passes to `run`.
    args: Vec<TokenStream>,
    /// `run`'s pointer parameters.
    ptrs: Vec<TokenStream>,
    /// Their names.
    ptr_names: Vec<Ident>,
}

impl Borrowed {
    fn of(a: &Analysis<'_>, inputs: &[Io]) -> Borrowed {
        let (params, args, ptrs) = if a.borrowed_inputs {
            let names: Vec<Ident> = (0..inputs.len())
                .map(|i| if i == 0 { format_ident!("input") } else { format_ident!("input{}", i) })
                .collect();
            let params: Vec<TokenStream> = names
                .iter()
                .zip(inputs)
                .map(|(name, io)| {
                    let ty = format_ident!("{}", io.ty);
                    let n = io.elements;
                    quote!(#name: &[::core::primitive::#ty; #n])
                })
                .collect();
            let args: Vec<TokenStream> =
                names.iter().map(|name| quote!(#name.as_ptr().cast::<::core::primitive::u8>().cast_mut())).collect();
            let ptrs: Vec<TokenStream> = (0..inputs.len())
                .map(|k| {
                    let p = format_ident!("input{}", k);
                    quote!(#p: *mut u8)
                })
                .collect();
            (params, args, ptrs)
        } else {
            (Vec::new(), Vec::new(), Vec::new())
        };
        let ptr_names: Vec<Ident> = (0..ptrs.len()).map(|k| format_ident!("input{}", k)).collect();
        Borrowed { params, args, ptrs, ptr_names }
    }
}
