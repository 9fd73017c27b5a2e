//! The generated type's I/O: raw byte views and copies, typed accessors.

use super::{Io, Region};
use crate::Analysis;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// The byte views and copies generic code uses (`input_bytes_mut`,
/// `write_input`, `output_bytes`).
pub(super) fn raw_io(a: &Analysis<'_>, inputs: &[Io], outputs: &[Io], regions: &[Region]) -> TokenStream {
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
pub(super) fn accessors(a: &Analysis<'_>, inputs: &[Io], outputs: &[Io], regions: &[Region]) -> Vec<TokenStream> {
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
