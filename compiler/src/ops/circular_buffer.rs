//! TFLM's CIRCULAR_BUFFER (`CUSTOM:CIRCULAR_BUFFER`), the custom op of its
//! strided streaming models: each invoke the output's `num_slots` rows of
//! `depth` int8 values move one row towards the start and the input becomes
//! the last row; then the op counts invokes and lets the rest of the graph
//! run only every `cycles_max`-th one (TFLM's `kTfLiteAbort` on the
//! others: the generated `invoke()` returns `tinyaot::Invoked::Stopped`).
//!
//! The output is state (`graph` marks it a variable: TFLM's kernel reads
//! the previous invoke's rows from it). The invoke count is the op's state,
//! kept as "invokes since the last run" so that zero is the start, as
//! after TFLM's `Reset()`. A `cycles_max` of 0 or less (or no options)
//! takes TFLM's Prepare fallback: 1 for 5, 13 or 25 slots, or for the fifth
//! such op of the model with a 2x96 row; 2 otherwise (TFLM counts those
//! ops in a process-wide static; here per model, as in a fresh process).
//! Shapes as TFLM checks them: 4-D, input `[n, 1, h, w]`, output
//! `[n, num_slots, h, w]`; only the first batch row moves, as there.

use crate::diag::Error;
use crate::graph::{DType, Graph};
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::operator::Operator;
use crate::tflite::flexbuffer::FlexMap;
use proc_macro2::TokenStream;
use quote::quote;

/// The operator's name in the graph (custom ops are `CUSTOM:` and their code).
pub const NAME: &str = "CUSTOM:CIRCULAR_BUFFER";

/// Position of `cycles_max` in the options (keys in alphabetical order).
const CYCLES_MAX: usize = 0;

#[derive(Debug)]
struct CircularBuffer {
    input: usize,
    output: usize,
    slots: usize,
    depth: usize,
    cycles: i32,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(1, 1, 1)?;
    if !cx.node.scopes.is_empty() {
        return Err(
            cx.err("a CIRCULAR_BUFFER inside a called subgraph is not supported (its stop would end the caller's op)")
        );
    }
    let (input, output) = (cx.input(0)?, cx.output(0)?);
    if input.dtype != DType::I8 || output.dtype != DType::I8 {
        return Err(cx.unsupported(
            &format!("input {} and output {}", input.describe(), output.describe()),
            "int8 -> int8 (as TFLM)",
        ));
    }
    let (i, o) = (&input.shape, &output.shape);
    if i.len() != 4 || o.len() != 4 || i[0] != o[0] || i[1] != 1 || i[2] != o[2] || i[3] != o[3] || o[1] == 0 {
        return Err(cx.err(format!(
            "input {i:?} and output {o:?}: TFLM needs [n, 1, h, w] -> [n, slots, h, w] (4-D, at least one slot)"
        )));
    }
    let cycles = match cx.node.custom_options.filter(|b| !b.is_empty()) {
        Some(bytes) => {
            let map = FlexMap::root(bytes).map_err(|e| cx.err(e.message))?;
            map.int(CYCLES_MAX).map_err(|e| cx.err(e.message))?
        }
        None => 0,
    };
    let (slots, depth) = (o[1], o[2] * o[3]);
    let cycles = if cycles > 0 {
        i32::try_from(cycles).map_err(|_| cx.err(format!("cycles_max {cycles} does not fit in 32 bits")))?
    } else if slots == 5 || slots == 13 || slots == 25 || (fallback_rank(cx) == 5 && o[2] == 2 && o[3] == 96) {
        1
    } else {
        2
    };
    Ok(Box::new(CircularBuffer { input: input.index, output: output.index, slots, depth, cycles }))
}

/// TFLM's Prepare-time count of CIRCULAR_BUFFER ops without a positive
/// `cycles_max` up to and including this one (1-based), restarting after
/// each op that matched one of its two cases.
fn fallback_rank(cx: &OpCx<'_, '_>) -> usize {
    let mut count = 0;
    for n in cx.graph.nodes.iter().filter(|n| n.scopes.is_empty() && n.name == NAME) {
        let shape = n.outputs.first().map(|&t| cx.graph.tensors[t].shape.as_slice()).unwrap_or(&[]);
        let positive = n
            .custom_options
            .filter(|b| !b.is_empty())
            .and_then(|b| FlexMap::root(b).ok().and_then(|m| m.int(CYCLES_MAX).ok()))
            .is_some_and(|c| c > 0);
        if positive || shape.len() != 4 {
            continue;
        }
        count += 1;
        if std::ptr::eq(n, cx.node) {
            return count;
        }
        if [5, 13, 25].contains(&shape[1]) || (count == 5 && shape[2] == 2 && shape[3] == 96) {
            count = 0;
        }
    }
    count
}

impl Operator for CircularBuffer {
    fn state_bytes(&self) -> usize {
        4
    }

    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let (slots, depth, cycles) = (self.slots, self.depth, self.cycles);
        let input = cx.read(self.input)?;
        let output = cx.write(self.output)?;
        let count = cx.op_state::<i32>()?;
        // `return`: out of the generated `run`, which says the invoke stopped.
        Ok(quote! {
            if !::tinyaot::__private::kernels::movement::circular_buffer::<#slots, #depth, #cycles>(#input, #output, #count) {
                return false;
            }
        })
    }
}

/// Graph pass: a CIRCULAR_BUFFER's output holds its rows from one invoke
/// to the next (the op shifts them): a variable, in the state memory. The
/// op may stop the invoke, so the ops after it keep their place.
pub fn keep_state(graph: &mut Graph<'_>) -> Result<(), Error> {
    for node in graph.nodes.iter_mut().filter(|n| n.name == NAME) {
        node.fixed_order = true;
        if let Some(&o) = node.outputs.first() {
            graph.tensors[o].is_variable = true;
            graph.tensors[o].data = None;
        }
    }
    Ok(())
}
