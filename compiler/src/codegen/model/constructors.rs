//! The generated type's constructors (`take`, `new`, `new_in`) and
//! `reset()` with its fills of the state.

use super::{Io, Region};
use crate::Analysis;
use crate::graph::DType;
use crate::lowering::emit::Copied;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

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
pub(super) fn constructors(
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
