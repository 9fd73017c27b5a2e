//! The plan's figures and the I/O tables as the generated type's
//! associated constants.

use super::{Io, Region};
use crate::Analysis;
use crate::lowering::emit::Copied;
use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// The plan's figures and the I/O tables as associated constants.
pub(super) fn plan_consts(
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
    let tiled = a.tiled_stages().into_iter().map(|(t, at)| {
        let (first, last, bands, rows, macs) = (at.start, at.end - 1, t.bands.len(), t.band_rows, t.extra_macs);
        let (untiled, keep_halo, moved, streamed) =
            (a.untiled_arena.unwrap_or(0), t.keep_halo, t.moved_bytes, t.streamed);
        quote!(::tinyaot::TiledStage {
            first_op: #first, last_op: #last, bands: #bands, band_rows: #rows, streamed: #streamed,
            recomputed_macs: #macs, keep_halo: #keep_halo, moved_bytes: #moved, untiled_arena: #untiled,
        })
    });
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
        tiled: &[#(#tiled),*],
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
