//! The generated model type: arena, take-once guard, typed I/O accessors,
//! constants, the plan table, and `invoke()` with one call per op.

use crate::Analysis;
use crate::diag::Error;
use crate::graph::{DType, Tensor};
use crate::lowering::emit::Copied;
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

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

/// The model's own module: the sizes, the take-once flag, the static arena,
/// the constants in flash, and `run`, every op's call in order.
#[allow(clippy::too_many_arguments)]
fn helper_module(
    name: &Ident,
    module: &Ident,
    a: &Analysis<'_>,
    track_path: Option<&str>,
    statics: &[TokenStream],
    ops: &[TokenStream],
    borrowed: &Borrowed,
    regions: &[Region],
    copies: &Option<(usize, Vec<Copied>)>,
) -> TokenStream {
    let arena_size: usize = regions.iter().map(|r| r.bytes).sum();
    let state_size = a.state_size;
    // `copy_weights`: `copy_weights` fills the region from flash when the
    // model is made; `run` reads each copy through a local named for it.
    let (copy_fn, ram_locals) = match copies {
        Some((region, copies)) if !copies.is_empty() => {
            let base = &regions[*region].base;
            let fills = copies.iter().map(|c| {
                let (flash, offset, len) = (&c.flash, c.offset, c.len);
                quote!(::core::ptr::copy_nonoverlapping(#flash.0.as_ptr(), #base.add(#offset), #len);)
            });
            let locals = copies.iter().map(|c| {
                let (ram, offset, len) = (&c.ram, c.offset, c.len);
                quote!(let #ram = unsafe { ::tinyaot::__private::InRam::at(#base, #offset, #len) };)
            });
            (
                quote! {
                    /// Copies the constants `copy_weights` put in RAM from flash.
                    ///
                    /// # Safety
                    /// The pointer is to a live, exclusively borrowed region of
                    /// its `SIZE_k` bytes.
                    pub unsafe fn copy_weights(#base: *mut u8) {
                        unsafe { #(#fills)* }
                    }
                },
                quote!(#(#locals)*),
            )
        }
        _ => (TokenStream::new(), TokenStream::new()),
    };
    // One static per region, in the user's link section: `unsafe(..)`, the
    // form every edition since 2021 accepts (2024 requires it).
    let storages = regions.iter().map(|r| {
        let (size, storage, bytes) = (&r.size, &r.storage, r.bytes);
        let section = r.section.as_ref().map(|s| quote!(#[unsafe(link_section = #s)]));
        quote! {
            pub const #size: usize = #bytes;
            #section
            pub static mut #storage: ::tinyaot::Arena<#size> = ::tinyaot::Arena::new();
        }
    });
    let bases: Vec<&Ident> = regions.iter().map(|r| &r.base).collect();
    let module_doc = format!("Generated by `tinyaot::include_model!` for `{name}`.");
    let track = track_path.map(|p| {
        let lit = Literal::string(p);
        quote!(
            const _MODEL_FILE: &[u8] = ::core::include_bytes!(#lit);
        )
    });
    let (input_ptrs, input_ptr_names) = (&borrowed.ptrs, &borrowed.ptr_names);
    let sites = op_sites(a);
    let (op_count, step_count) = (sites.len(), ops.len());
    let steps = ops.iter().enumerate().map(|(k, call)| quote!(if __from <= #k && #k < __to { #call }));
    quote! {
    #[doc = #module_doc]
    #[doc(hidden)]
    #[allow(
        dead_code,
        non_snake_case,
        non_upper_case_globals,
        unsafe_code,
        unused_unsafe,
        unused_comparisons,
        unused_variables,
        unreachable_pub,
        missing_docs,
        clippy::all,
        clippy::pedantic,
        clippy::nursery
    )]
    mod #module {
        pub const ARENA_SIZE: usize = #arena_size;
        pub const STATE_SIZE: usize = #state_size;
        pub static TAKEN: ::tinyaot::__private::TakeOnce = ::tinyaot::__private::TakeOnce::new();
        #(#storages)*
        #track
        #(#statics)*

        pub const OPS: usize = #op_count;
        pub const STEPS: usize = #step_count;
        #copy_fn
        pub const OP_SITES: &[::tinyaot::OpSite] = &[#(#sites),*];

        /// Runs the parts `__from..__to` of the invoke (all `STEPS` of them
        /// for `invoke()`) on the arena at `base` (and the other regions at
        /// `base_1`..) and the state memory at `state`, calling `__hook`
        /// around every op; `false` when an op stopped the invoke
        /// (CIRCULAR_BUFFER between its runs).
        ///
        /// # Safety
        /// `base` (`base_k`) points to a live, exclusively borrowed,
        /// 16-aligned arena of `SIZE_0` (`SIZE_k`) bytes, `state` to one of
        /// `STATE_SIZE` bytes.
        #[inline(never)]
        pub unsafe fn run<H: ::tinyaot::Hook>(
            #(#bases: *mut u8,)* state: *mut u8 #(, #input_ptrs)*, __from: usize, __to: usize, __hook: &mut H,
        ) -> bool {
            let _ = (#(#bases,)* state #(, #input_ptr_names)*);
            // SAFETY (of each view): the copies lie past every activation of
            // their region, which no op writes.
            #ram_locals
            #(#steps)*
            true
        }
    }
    }
}

/// Every op's `OpSite`, in execution order (`PLAN.ops`, the hooks' sites).
fn op_sites(a: &Analysis<'_>) -> Vec<TokenStream> {
    a.order
        .iter()
        .zip(a.op_cycles())
        .enumerate()
        .map(|(position, (&n, cycles))| {
            let node = &a.graph.nodes[n];
            let (subgraph, index, name) = (node.subgraph, node.index, node.name.as_str());
            quote!(::tinyaot::OpSite {
                position: #position, subgraph: #subgraph, index: #index, name: #name, cycles_m4: #cycles,
            })
        })
        .collect()
}

/// The plan's figures and the I/O tables as associated constants.
fn plan_consts(
    a: &Analysis<'_>,
    module: &Ident,
    weight_bytes: usize,
    inputs: &[Io],
    outputs: &[Io],
    regions: &[Region],
    copies: &Option<(usize, Vec<Copied>)>,
) -> TokenStream {
    let arena_size: usize = regions.iter().map(|r| r.bytes).sum();
    let (macs, tflm, lower_bound) = (a.macs(), a.tflm_greedy.arena_size, a.lower_bound);
    let cycles = a.cycles();
    let usize_ty = quote!(::core::primitive::usize);
    let input_infos: Vec<&TokenStream> = inputs.iter().map(|io| &io.info).collect();
    let output_infos: Vec<&TokenStream> = outputs.iter().map(|io| &io.info).collect();
    let (n_in, n_out) = (inputs.len(), outputs.len());
    let placements: Vec<TokenStream> = a
        .placements()
        .iter()
        .map(|p| {
            let (n, r, o, s, f, l) = (&p.name, p.region, p.offset, p.size, p.first_op, p.last_op);
            quote!(::tinyaot::Placement { name: #n, region: #r, offset: #o, size: #s, first_op: #f, last_op: #l })
        })
        .chain(copies.iter().flat_map(|(region, copies)| {
            let last = a.order.len().saturating_sub(1);
            copies.iter().map(move |c| {
                let name = format!("weights of op {} (copied from flash)", c.op);
                let (o, s) = (c.offset, c.len);
                quote!(::tinyaot::Placement { name: #name, region: #region, offset: #o, size: #s, first_op: 0, last_op: #last })
            })
        }))
        .collect();
    let option = quote!(::core::option::Option);
    let region_rows = regions.iter().map(|r| {
        let (name, size, budget) = (&r.name, r.bytes, r.budget);
        let section = match &r.section {
            Some(s) => quote!(#option::Some(#s)),
            None => quote!(#option::None),
        };
        quote!(::tinyaot::MemoryRegion { name: #name, section: #section, size: #size, budget: #budget })
    });
    let region_consts = regions.iter().filter_map(|r| {
        let (public, size) = (r.public_size.as_ref()?, &r.size);
        let doc = format!(
            "Bytes of the `{}` region's arena{} (the buffers placed there; its budget is {}).",
            r.name,
            r.section.as_ref().map(|s| format!(", link section `{s}`")).unwrap_or_default(),
            r.budget
        );
        Some(quote! {
            #[doc = #doc]
            pub const #public: #usize_ty = #module::#size;
        })
    });
    let tiled = match (&a.tiling, a.tiling.as_ref().and_then(|t| t.positions(&a.order))) {
        (Some(t), Some(at)) => {
            let (first, last, bands, rows, macs) = (at.start, at.end - 1, t.bands.len(), t.band_rows, t.extra_macs);
            let untiled = a.untiled_arena.unwrap_or(0);
            quote!(#option::Some(::tinyaot::TiledStage {
                first_op: #first, last_op: #last, bands: #bands, band_rows: #rows, recomputed_macs: #macs, untiled_arena: #untiled,
            }))
        }
        _ => quote!(#option::None),
    };
    quote! {
    /// Bytes of activation memory the plan needs (over all its memory
    /// regions, if it has several).
    pub const ARENA_SIZE: #usize_ty = #module::ARENA_SIZE;
    #(#region_consts)*
    /// Bytes of state (variable tensors: what stateful ops such as
    /// SVDF keep between invocations), held inside this value, apart
    /// from the arena. 0 for a stateless model.
    pub const STATE_SIZE: #usize_ty = #module::STATE_SIZE;
    /// Every planned buffer, with the plan's figures.
    pub const PLAN: ::tinyaot::MemoryPlan = ::tinyaot::MemoryPlan {
        arena_size: #arena_size,
        lower_bound: #lower_bound,
        tflm_greedy: #tflm,
        buffers: &[#(#placements),*],
        ops: #module::OP_SITES,
        tiled: #tiled,
        regions: &[#(#region_rows),*],
    };
    /// Bytes of constant data (weights, biases, requantization tables) in flash.
    pub const WEIGHT_BYTES: #usize_ty = #weight_bytes;
    /// Multiply-accumulates per `invoke()`.
    pub const MACS: ::core::primitive::u64 = #macs;
    /// The compiler's estimate of the Cortex-M4 cycles of one `invoke()`
    /// (zero wait states; each op's share in `PLAN.ops[i].cycles_m4`). The
    /// cost model behind `cycle_limit`, within a few percent of the cycle
    /// estimator on the MLPerf Tiny models (docs/speed.md).
    pub const CYCLES_M4: ::core::primitive::u64 = #cycles;
    /// Ops in execution order (`PLAN.ops.len()`): the rows of a
    /// `tinyaot::Profile` of this model.
    pub const OPS: #usize_ty = #module::OPS;
    /// Parts `invoke_step()` runs one at a time (an op, a band of a tiled
    /// stage, a whole IF or WHILE).
    pub const STEPS: #usize_ty = #module::STEPS;
    /// The graph inputs, in order.
    pub const INPUTS: [::tinyaot::TensorInfo; #n_in] = [#(#input_infos),*];
    /// The graph outputs, in order.
    pub const OUTPUTS: [::tinyaot::TensorInfo; #n_out] = [#(#output_infos),*];
    }
}

/// `reset()`'s fills: TFLM's reset value of each state tensor (the zero
/// point for int8, zero for everything else; a resource variable's own
/// default, `graph::Resource::fill`) and zeros for the ops' own state.
fn reset_fills(a: &Analysis<'_>) -> Vec<TokenStream> {
    a.state_offsets
        .iter()
        .enumerate()
        .filter_map(|(t, o)| o.map(|o| (&a.graph.tensors[t], o)))
        .map(|(t, o)| {
            let end = o + t.bytes;
            let fill = match (a.graph.resources.iter().find(|r| r.tensor == t.index), t.dtype, &t.quant) {
                (Some(r), _, _) => r.fill,
                (None, DType::I8, Some(q)) => q.zero_point() as i8 as u8,
                _ => 0u8,
            };
            quote!(self.state.0[#o..#end].fill(#fill);)
        })
        .chain(a.op_states.iter().zip(&a.ops).filter(|(_, op)| !op.state_kept_on_reset()).filter_map(|(s, _)| {
            let &(o, bytes) = s.as_ref()?;
            let end = o + bytes;
            Some(quote!(self.state.0[#o..#end].fill(0);))
        }))
        .collect()
}

/// The doc comments of `new` and `new_in`, for one region or several.
fn constructor_docs(regions: &[Region]) -> (String, String) {
    if regions.len() == 1 {
        (
            "The model on an arena you provide (placed in a chosen RAM section, or on the stack).".to_string(),
            "The model on the first `ARENA_SIZE` bytes of a larger arena, so several models can take turns on \
             one buffer (a compile error if the arena is smaller than `ARENA_SIZE`)."
                .to_string(),
        )
    } else {
        let list: Vec<String> = regions
            .iter()
            .map(|r| {
                format!("`{}` (`{}` bytes)", r.name, r.public_size.as_ref().map(Ident::to_string).unwrap_or_default())
            })
            .collect();
        (
            format!("The model on arenas you provide, one per memory region, fastest first: {}.", list.join(", ")),
            "The model on the first bytes of larger arenas, one per region, so several models can take turns on \
             them (a compile error if one is smaller than its region's size)."
                .to_string(),
        )
    }
}

/// `take`, `new`, `new_in` (and the `with_arena` they share), and `reset`.
fn constructors(
    a: &Analysis<'_>,
    name: &Ident,
    module: &Ident,
    inputs: &[Io],
    outputs: &[Io],
    regions: &[Region],
    copies: &Option<(usize, Vec<Copied>)>,
) -> TokenStream {
    let usize_ty = quote!(::core::primitive::usize);
    let option = quote!(::core::option::Option);
    // `copy_weights`: the region's copies are filled whenever the model is
    // made on it (another model may have used the arena in between).
    let copy = copies.as_ref().filter(|(_, c)| !c.is_empty()).map(|(region, _)| {
        let field = &regions[*region].field;
        quote! {
            // SAFETY: the field is an exclusive borrow of the region's
            // `SIZE_k` bytes, which the copies lie within.
            unsafe { #module::copy_weights(model.#field.as_mut_ptr()) };
        }
    });
    let resets = reset_fills(a);
    let arena_inputs: &[Io] = if a.borrowed_inputs { &[] } else { inputs };
    // Bool inputs and outputs start as `false` whatever the arena held
    // (another model's bytes, with `new_in`); kernels write only 0 or 1.
    let bool_clears: Vec<TokenStream> = arena_inputs
        .iter()
        .chain(outputs)
        .filter(|io| io.ty == "bool")
        .map(|io| {
            let (o, b, field) = (io.offset, io.offset + io.bytes, &regions[io.region].field);
            quote!(model.#field.0[#o..#b].fill(0);)
        })
        .collect();
    let (fields, params): (Vec<&Ident>, Vec<&Ident>) = regions.iter().map(|r| (&r.field, &r.param)).unzip();
    let typed_params: Vec<TokenStream> = regions
        .iter()
        .map(|r| {
            let (param, size) = (&r.param, &r.size);
            quote!(#param: &'a mut ::tinyaot::Arena<{ #module::#size }>)
        })
        .collect();
    let storages: Vec<TokenStream> = regions
        .iter()
        .map(|r| {
            let storage = &r.storage;
            quote!(unsafe { &mut *(&raw mut #module::#storage) })
        })
        .collect();
    let generics: Vec<Ident> = (0..regions.len())
        .map(|k| if k == 0 { format_ident!("__TINYAOT_BYTES") } else { format_ident!("__TINYAOT_BYTES_{}", k) })
        .collect();
    let (mut larger_params, mut fits, mut casts) = (Vec::new(), Vec::new(), Vec::new());
    for (r, bytes) in regions.iter().zip(&generics) {
        let (param, size) = (&r.param, &r.size);
        let message = match &r.public_size {
            Some(public) if regions.len() > 1 => format!("the `{}` arena is smaller than {public}", r.name),
            _ => "the arena is smaller than ARENA_SIZE".to_string(),
        };
        larger_params.push(quote!(#param: &'a mut ::tinyaot::Arena<#bytes>));
        fits.push(quote!(::core::assert!(#bytes >= #module::#size, #message);));
        casts.push(quote!(unsafe { &mut *(#param as *mut ::tinyaot::Arena<#bytes>).cast() }));
    }
    let (new_doc, new_in_doc) = constructor_docs(regions);
    quote! {
    /// The model on its static arena (one per memory region, each in its
    /// link section). Returns `Some` once, `None` on every later call, so
    /// the arena is never aliased.
    pub fn take() -> #option<#name<'static>> {
        if #module::TAKEN.take() {
            // SAFETY: `TAKEN` lets exactly one caller get here, so these
            // are the only references ever made to the `ARENA_k` statics;
            // `&raw mut` creates them without an intermediate shared
            // reference.
            #option::Some(#name::with_arena(#(#storages),*))
        } else {
            #option::None
        }
    }

    #[doc = #new_doc]
    pub fn new(#(#typed_params),*) -> Self {
        #name::with_arena(#(#params),*)
    }

    fn with_arena(#(#typed_params),*) -> Self {
        let mut model = #name { #(#fields: #params,)* state: ::tinyaot::Arena::new(), next_step: 0 };
        #copy
        #(#bool_clears)*
        model.reset();
        model
    }

    /// Restores the state as TFLM's `Reset()` does: variable tensors
    /// to zero (the zero point for int8), resource variables to their
    /// default value; a CALL_ONCE init subgraph that has run does not
    /// run again (TFLM's does not either). Nothing to do for a
    /// stateless model.
    pub fn reset(&mut self) {
        #(#resets)*
    }

    #[doc = #new_in_doc]
    pub fn new_in<#(const #generics: #usize_ty),*>(#(#larger_params),*) -> Self {
        const {
            #(#fits)*
        };
        // SAFETY: `Arena<N>` is `repr(C, align(16))` over `[u8; N]`, so
        // the first `SIZE_k <= N` bytes of an `Arena<N>` are a valid
        // `Arena<SIZE_k>`; each exclusive borrow is moved into `Self`.
        #name::with_arena(#(#casts),*)
    }
    }
}

/// `invoke`, `invoke_with` (a hook around every op), `invoke_step` (one
/// part at a time) and, for a model whose inputs are in its arena,
/// `invoke_async` and the `Stepwise` impl; all run the one `run`.
fn invoke(
    a: &Analysis<'_>,
    name: &Ident,
    module: &Ident,
    borrowed: &Borrowed,
    regions: &[Region],
) -> (TokenStream, TokenStream) {
    let (input_params, input_args) = (&borrowed.params, &borrowed.args);
    let fields: Vec<&Ident> = regions.iter().map(|r| &r.field).collect();
    let run = |from: TokenStream, to: TokenStream, hook: TokenStream| {
        quote! {
            // SAFETY: each region's field and `self.state` are exclusive
            // borrows of `SIZE_k` and `STATE_SIZE` bytes, 16-aligned by their
            // type; a borrowed input is a shared borrow of its whole array,
            // which the ops only read.
            unsafe { #module::run(#(self.#fields.as_mut_ptr(),)* self.state.as_mut_ptr() #(, #input_args)*, #from, #to, #hook) }
        }
    };
    let whole = run(quote!(0), quote!(#module::STEPS), quote!(&mut ::tinyaot::NoHook));
    let hooked = run(quote!(0), quote!(#module::STEPS), quote!(hook));
    let one = run(quote!(step), quote!(step + 1), quote!(&mut ::tinyaot::NoHook));
    let invoked = quote!(::tinyaot::Invoked);
    // A model with CIRCULAR_BUFFER ops says whether each invoke went through.
    let streaming = a.graph.nodes.iter().any(|n| n.name == crate::ops::circular_buffer::NAME);
    let (ret, done, doc) = if streaming {
        (
            quote!(-> #invoked),
            quote!(if ran { #invoked::Completed } else { #invoked::Stopped }),
            "Runs the model: reads the inputs and, when the invoke goes through, writes the outputs. \
             A streaming model: its CIRCULAR_BUFFER ops let the graph run past them only every few \
             invokes (TFLM's `kTfLiteAbort` otherwise); on `Invoked::Stopped` the outputs are not \
             this invoke's.",
        )
    } else {
        (TokenStream::new(), quote!(let _ = ran;), "Runs the model: reads the inputs, writes the outputs.")
    };
    let step_args = if a.borrowed_inputs {
        " The borrowed inputs are passed to every step: pass the same ones until it finishes."
    } else {
        ""
    };
    let step_doc = format!(
        "Runs the next part of the invoke (an op, a band of a tiled stage, a whole IF or WHILE; \
         `STEPS` in all) and says whether it finished, so a cooperative scheduler can run other \
         work between ops. The outputs once it finishes are `invoke()`'s.{step_args} `invoke()` \
         and `invoke_with` start over from the first part."
    );
    let methods = quote! {
        #[doc = #doc]
        #[inline]
        pub fn invoke(&mut self #(, #input_params)*) #ret {
            self.next_step = 0;
            let ran = #whole;
            #done
        }

        /// `invoke()` with `hook.before`/`hook.after` called around every
        /// op (`tinyaot::Hook`; `tinyaot::Profile` times each op).
        #[inline]
        pub fn invoke_with(&mut self #(, #input_params)*, hook: &mut impl ::tinyaot::Hook) #ret {
            self.next_step = 0;
            let ran = #hooked;
            #done
        }

        #[doc = #step_doc]
        pub fn invoke_step(&mut self #(, #input_params)*) -> ::tinyaot::Step {
            let step = self.next_step;
            if step >= #module::STEPS {
                self.next_step = 0;
                return ::tinyaot::Step::Finished(#invoked::Completed);
            }
            let ran = #one;
            if !ran {
                self.next_step = 0;
                ::tinyaot::Step::Finished(#invoked::Stopped)
            } else if step + 1 == #module::STEPS {
                self.next_step = 0;
                ::tinyaot::Step::Finished(#invoked::Completed)
            } else {
                self.next_step = step + 1;
                ::tinyaot::Step::Ran
            }
        }
    };
    if a.borrowed_inputs {
        return (methods, TokenStream::new());
    }
    let methods = quote! {
        #methods

        /// The invoke as a future that yields to the executor after every
        /// part (`invoke_step`), so other tasks run between ops
        /// (`tinyaot::invoke_stepwise`).
        pub fn invoke_async(&mut self) -> ::tinyaot::InvokeStepwise<'_, Self> {
            ::tinyaot::invoke_stepwise(self)
        }
    };
    let stepwise = quote! {
        #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
        impl ::tinyaot::Stepwise for #name<'_> {
            fn invoke_step(&mut self) -> ::tinyaot::Step {
                #name::invoke_step(self)
            }
        }
    };
    (methods, stepwise)
}

/// The byte views and copies generic code uses (`input_bytes_mut`,
/// `write_input`, `output_bytes`).
fn raw_io(a: &Analysis<'_>, inputs: &[Io], outputs: &[Io], regions: &[Region]) -> TokenStream {
    let usize_ty = quote!(::core::primitive::usize);
    let option = quote!(::core::option::Option);
    let u8_ty = quote!(::core::primitive::u8);
    // A bool input's bytes are handed out only as `bool`s (a raw byte
    // could be written as 2); `write_input` stores any byte as 0 or 1.
    let arena_inputs: &[Io] = if a.borrowed_inputs { &[] } else { inputs };
    let in_ranges: Vec<TokenStream> = arena_inputs
        .iter()
        .enumerate()
        .filter(|(_, io)| io.ty != "bool")
        .map(|(i, io)| {
            let (o, b, field) = (io.offset, io.offset + io.bytes, &regions[io.region].field);
            quote!(#i => ::core::option::Option::Some(&mut self.#field.0[#o..#b]),)
        })
        .collect();
    let in_writes: Vec<TokenStream> = arena_inputs
        .iter()
        .enumerate()
        .map(|(i, io)| {
            let (o, b, field) = (io.offset, io.offset + io.bytes, &regions[io.region].field);
            let store = if io.ty == "bool" {
                quote!(for (d, &s) in dst.iter_mut().zip(bytes) {
                    *d = ::core::primitive::u8::from(s != 0);
                })
            } else {
                quote!(dst.copy_from_slice(bytes);)
            };
            quote!(#i => {
                let dst = &mut self.#field.0[#o..#b];
                if dst.len() != bytes.len() {
                    return false;
                }
                #store
            })
        })
        .collect();
    let out_ranges: Vec<TokenStream> = outputs
        .iter()
        .enumerate()
        .map(|(i, io)| {
            let (o, b, field) = (io.offset, io.offset + io.bytes, &regions[io.region].field);
            quote!(#i => ::core::option::Option::Some(&self.#field.0[#o..#b]),)
        })
        .collect();
    // Borrowed inputs are passed to `invoke`: nothing to write.
    let write_input_body = if in_writes.is_empty() {
        quote! {
            let _ = (i, bytes);
            false
        }
    } else {
        quote! {
            match i {
                #(#in_writes)*
                _ => return false,
            }
            true
        }
    };
    quote! {
    /// Bytes of graph input `i`, for generic code (`None` if out of
    /// range, or a bool input: use `write_input` or its typed
    /// accessor). Reused during `invoke()` unless the model is compiled
    /// with `keep_inputs = true`: write it before every `invoke()`.
    pub fn input_bytes_mut(&mut self, i: #usize_ty) -> #option<&mut [#u8_ty]> {
        match i {
            #(#in_ranges)*
            _ => #option::None,
        }
    }

    /// Copies `bytes` (little-endian elements) into graph input `i`,
    /// any nonzero byte of a bool input as `true`. `false` if `i` is
    /// out of range or `bytes` is not the input's size.
    pub fn write_input(&mut self, i: #usize_ty, bytes: &[#u8_ty]) -> ::core::primitive::bool {
        #write_input_body
    }

    /// Bytes of graph output `i` (`None` if out of range).
    pub fn output_bytes(&self, i: #usize_ty) -> #option<&[#u8_ty]> {
        match i {
            #(#out_ranges)*
            _ => #option::None,
        }
    }
    }
}

/// Each input's and output's typed accessors and its shape and
/// quantization constants.
fn accessors(a: &Analysis<'_>, inputs: &[Io], outputs: &[Io], regions: &[Region]) -> Vec<TokenStream> {
    let mut accessors = Vec::new();
    for (role, list) in [("input", inputs), ("output", outputs)] {
        for (i, io) in list.iter().enumerate() {
            let suffix = if i == 0 { String::new() } else { i.to_string() };
            let upper = format!("{}{}", role.to_uppercase(), suffix);
            let shape_c = format_ident!("{}_SHAPE", upper);
            let quant_c = format_ident!("{}_QUANT", upper);
            let get = format_ident!("{}{}", role, suffix);
            let get_mut = format_ident!("{}{}_mut", role, suffix);
            let (off, n, shape, quant) = (io.offset, io.elements, &io.shape, &io.quant);
            let field = &regions[io.region].field;
            let rank = shape.len();
            let doc = format!("Graph {role} {i} `{}`: `{}{:?}` (shape {:?}).", io.name, io.ty, [n], shape);
            let ty = format_ident!("{}", io.ty);
            let ty = quote!(::core::primitive::#ty);
            let reuse = if role == "input" {
                " After `invoke()` the input may read back changed: its bytes are reused once its last \
                 reader has run (as in TFLM), so write it again before the next `invoke()`, or compile \
                 with `keep_inputs = true`."
            } else {
                ""
            };
            let doc = format!("{doc}{reuse}");
            let consts = quote! {
                #[doc = #doc]
                pub const #shape_c: [::core::primitive::usize; #rank] = [#(#shape),*];
                #[doc = "Quantization of this tensor (`None` for float or unquantized tensors)."]
                pub const #quant_c: ::core::option::Option<::tinyaot::Quant> = #quant;
            };
            // A borrowed input is passed to `invoke`: no view of the arena.
            if role == "input" && a.borrowed_inputs {
                accessors.push(consts);
                continue;
            }
            accessors.push(quote! {
                #consts
                #[doc = #doc]
                #[inline]
                pub fn #get(&self) -> &[#ty; #n] {
                    // SAFETY: the tensor occupies `off..off + n * size_of::<T>()`
                    // of this model's arena (checked plan); the arena is 16-aligned
                    // and `off` is a multiple of 16; `&self` keeps it borrowed.
                    unsafe { &*(self.#field.0.as_ptr().add(#off).cast::<[#ty; #n]>()) }
                }
                #[doc = #doc]
                #[inline]
                pub fn #get_mut(&mut self) -> &mut [#ty; #n] {
                    // SAFETY: as above, with the exclusive borrow of `self`.
                    unsafe { &mut *(self.#field.0.as_mut_ptr().add(#off).cast::<[#ty; #n]>()) }
                }
            });
        }
    }
    accessors
}
