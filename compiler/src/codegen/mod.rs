//! The emit stage: every op's call in execution order, nested in the
//! control flow it runs under and in a tiled stage's band loops ([`ops`],
//! each op emitting through `lowering::emit::Emit`); [`model`] assembles
//! the generated type around them.

pub mod model;

use crate::diag::Error;
use crate::graph::{Node, codes};
use crate::lowering::emit::Emit;
use proc_macro2::TokenStream;
pub use proc_macro2::{Ident, Span};
use quote::quote;
use std::collections::HashMap;

/// Every op's call, in execution order, with the constants they put in
/// flash.
pub struct Ops {
    /// The top level's blocks, one per op (a band of a tiled stage, a
    /// control-flow construct with every op it runs): the parts
    /// `invoke_step` runs one at a time.
    pub calls: Vec<TokenStream>,
    /// The `static` weight and table items.
    pub statics: Vec<TokenStream>,
    /// Bytes of those constants.
    pub weight_bytes: usize,
    /// With `copy_weights`: the region and the constants copied into it.
    pub copies: Option<(usize, Vec<crate::lowering::emit::Copied>)>,
}

/// Emits every op of a planned model with the kernel and scratch the plan
/// gave it.
pub fn ops(a: &crate::Analysis<'_>) -> Result<Ops, Error> {
    let offsets = (0..a.graph.tensors.len()).map(|t| a.tensor_place(t)).collect();
    let mut emit = Emit::new(&a.graph, offsets, a.state_offsets.clone(), a.schedule.borrowed.clone());
    if let Some(plan) = &a.weight_copy {
        emit.copy_weights(plan.clone());
    }
    for &n in &a.order {
        if let Some(k) = a.ops[n].pair_kernel(a.choice[n].kernel) {
            emit.note_pair_kernel(k);
        }
    }
    // Control flow: the operators of a called subgraph carry the chain of
    // (control-flow op, part) they run under (`Node::scopes`); each part is
    // gathered in a frame and, once the op's last part closes, the op's
    // construct (`if`, `if`/`else`, `loop`) goes into the enclosing frame.
    let mut flow = Flow::default();
    let stages = a.tiled_stages();
    let scratch_of = |pos: usize| {
        a.schedule.buffers.iter().position(|b| b.scratch == Some(pos)).map(|b| {
            let (region, offset) = a.buffer_place(b);
            (region, offset, a.schedule.buffers[b].size)
        })
    };
    for (pos, &n) in a.order.iter().enumerate() {
        let node = &a.graph.nodes[n];
        flow.enter(node, &a.graph.nodes);
        if let Some((tiling, at)) = stages.iter().find(|(_, at)| at.contains(&pos)) {
            if pos == at.start {
                for band_op in tiled_stage(a, &mut emit, tiling, at.start, &scratch_of)? {
                    flow.push(band_op);
                }
            }
            continue;
        }
        emit.set_op(pos, a.choice[n].kernel, scratch_of(pos), a.op_states[n]);
        let call = a.ops[n].emit(&mut emit)?;
        match node.code {
            // The control-flow op's own pair comes before the construct it
            // heads (which `Flow` closes after the ops it runs).
            codes::CALL_ONCE | codes::IF => {
                flow.push(hooked(pos, None, TokenStream::new()));
                flow.headers.insert(n, call);
            }
            _ => flow.push(hooked(pos, None, call)),
        }
    }
    let calls = flow.finish(&a.graph.nodes);
    let weight_bytes = emit.flash_bytes;
    let copies = emit.copies().map(|(region, copies)| (region, copies.to_vec()));
    Ok(Ops { calls, statics: emit.into_statics(), weight_bytes, copies })
}

/// The calls of a tiled stage: for each band, each op of the stage over
/// its rows (`crate::tiling`): the stage's inputs and output as the band's
/// rows of the whole maps, the maps inside as their band buffers.
fn tiled_stage(
    a: &crate::Analysis<'_>,
    emit: &mut Emit<'_>,
    tiling: &crate::tiling::Tiling,
    first: usize,
    scratch_of: &dyn Fn(usize) -> Option<(usize, usize, usize)>,
) -> Result<Vec<TokenStream>, Error> {
    use crate::tiling::{Rows, row_bytes};
    let mut calls = Vec::new();
    for (b, band) in tiling.bands.iter().enumerate() {
        // Rows kept from the previous band go to the front of their band
        // buffers, where this band's ops read them.
        for (j, from, bytes) in tiling.moves(b, |t| row_bytes(&a.graph, t)) {
            calls.push(emit.move_to_front(tiling.stage.inside[j], tiling.band_bytes(&a.graph, j), from, bytes)?);
        }
        for (i, (w, op)) in tiling.stage.windows.iter().zip(&band.ops).enumerate() {
            // Every row it would write is kept: nothing to run, but the
            // hook still sees each op once per band.
            if op.output_rows.is_empty() {
                calls.push(hooked(first + i, Some(b), TokenStream::new()));
                continue;
            }
            let maps = w.inputs.iter().map(|&t| (t, &op.input_rows)).chain([(w.output, &op.output_rows)]);
            for (t, rows) in maps {
                let first_row = match tiling.rows_of(b, t) {
                    Rows::Whole => 0,
                    Rows::Band { first } => first,
                };
                let row = row_bytes(&a.graph, t);
                let elem = a.graph.tensors[t].dtype.size().unwrap_or(1);
                emit.band_view(t, (rows.start - first_row) * row, rows.len() * row / elem);
            }
            let n = tiling.stage.nodes[i];
            emit.set_band_rows(op.output_rows.clone());
            emit.set_op(first + i, a.choice[n].kernel, scratch_of(first + i), a.op_states[n]);
            let call = a.ops[n].emit_window(emit, &op.geo)?;
            calls.push(hooked(first + i, Some(b), call));
            emit.end_band();
        }
    }
    Ok(calls)
}

/// One op's call (one band of it in a tiled stage) between the calls of
/// `run`'s hook, with its `OP_SITES` entry: what `invoke_with` shows the
/// user's hook, and what `invoke()`'s `NoHook` compiles away.
fn hooked(position: usize, band: Option<usize>, call: TokenStream) -> TokenStream {
    let band = match band {
        Some(b) => quote!(::core::option::Option::Some(#b)),
        None => quote!(::core::option::Option::None),
    };
    quote! {{
        __hook.before(&OP_SITES[#position], #band);
        { #call }
        __hook.after(&OP_SITES[#position], #band);
    }}
}

/// The nesting of control-flow constructs while the calls are emitted.
#[derive(Default)]
struct Flow {
    /// The top level's calls.
    top: Vec<TokenStream>,
    /// Open parts, outermost first: (control-flow op, part, calls).
    open: Vec<(usize, usize, Vec<TokenStream>)>,
    /// Closed parts of ops whose last part is still to come.
    done: HashMap<usize, Vec<Vec<TokenStream>>>,
    /// What CALL_ONCE (its flag) and IF (its condition) emitted.
    headers: HashMap<usize, TokenStream>,
}

impl Flow {
    /// Closes the parts `node` is not in and opens those it is in.
    fn enter(&mut self, node: &Node<'_>, nodes: &[Node<'_>]) {
        while let Some(&(op, part, _)) = self.open.last() {
            if node.scopes.get(self.open.len() - 1) == Some(&(op, part)) {
                break;
            }
            self.close(nodes);
        }
        while self.open.len() < node.scopes.len() {
            let (op, part) = node.scopes[self.open.len()];
            self.open.push((op, part, Vec::new()));
        }
    }

    fn push(&mut self, call: TokenStream) {
        self.open.last_mut().map_or(&mut self.top, |(_, _, calls)| calls).push(call);
    }

    /// Closes the innermost part; after an op's last part, emits the op.
    fn close(&mut self, nodes: &[Node<'_>]) {
        let Some((op, part, calls)) = self.open.pop() else { return };
        let mut parts = self.done.remove(&op).unwrap_or_default();
        parts.resize_with(part, Vec::new);
        parts.push(calls);
        let last = match nodes[op].code {
            codes::IF | codes::WHILE => 1,
            _ => 0,
        };
        if part < last {
            self.done.insert(op, parts);
            return;
        }
        let header = self.headers.remove(&op).unwrap_or_default();
        let first = &parts[0];
        let construct = match nodes[op].code {
            codes::IF => {
                let second = &parts[1];
                quote! { if #header { #(#first)* } else { #(#second)* } }
            }
            codes::WHILE => {
                let second = &parts[1];
                quote! { loop { #(#first)* #(#second)* } }
            }
            _ => quote! {
                if {
                    let once = #header;
                    let first = once[0] == 0;
                    once[0] = 1;
                    first
                } {
                    #(#first)*
                }
            },
        };
        self.push(construct);
    }

    /// Closes every open part; the top level's calls.
    fn finish(mut self, nodes: &[Node<'_>]) -> Vec<TokenStream> {
        while !self.open.is_empty() {
            self.close(nodes);
        }
        self.top
    }
}
