//! IF and WHILE, and the copies around their inlined subgraphs (`graph`
//! adds them: `codes::SUBGRAPH_INPUTS`, `SUBGRAPH_OUTPUTS`, `LOOP_TEST`).
//! `codegen::ops` builds the `if`/`else` and the `loop` from the parts;
//! here each op emits its own piece, as TFLM's kernels do it:
//! - IF: the condition (a one-element bool), the branch's inputs copied in,
//!   its outputs copied out to IF's (TFLM: `CopyOpInputsToSubgraphInputs`,
//!   `CopySubgraphOutputsToOpOutputs`, byte copies of equal sizes);
//! - WHILE: its inputs copied to its outputs, then the loop: the outputs
//!   copied to the condition subgraph's inputs, the condition run, the loop
//!   left when its first output's first byte is 0, else the outputs copied
//!   to the body's inputs, the body run, its outputs copied to WHILE's.

use crate::diag::Error;
use crate::graph::{DType, codes};
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::operator::Operator;
use proc_macro2::TokenStream;
use quote::quote;

/// Byte copies `pairs[i].0` -> `pairs[i].1`, after LOOP_TEST's `test`.
#[derive(Debug)]
struct Copies {
    pairs: Vec<(usize, usize)>,
    test: Option<usize>,
}

impl Operator for Copies {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let mut out = TokenStream::new();
        if let Some(test) = self.test {
            let test = cx.read_bytes(test)?;
            out.extend(quote!(if #test[0] == 0 { break; }));
        }
        for &(from, to) in &self.pairs {
            let (from, to) = (cx.read_bytes(from)?, cx.write_bytes(to)?);
            out.extend(quote!(#to.copy_from_slice(#from);));
        }
        Ok(out)
    }
}

/// IF's condition, for the `if` `codegen::ops` builds.
#[derive(Debug)]
struct If {
    condition: usize,
}

impl Operator for If {
    /// An expression: whether the condition's one element is true.
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let condition = cx.read_bytes(self.condition)?;
        Ok(quote!((#condition[0] != 0)))
    }
}

/// Pairs input `i + skip` with output `i`, each of the same byte size.
fn pairs(cx: &OpCx<'_, '_>, skip: usize) -> Result<Vec<(usize, usize)>, Error> {
    let node = cx.node;
    if node.inputs.len() != node.outputs.len() + skip {
        return Err(cx.err(format!(
            "copies {} tensors into {}",
            node.inputs.len().saturating_sub(skip),
            node.outputs.len()
        )));
    }
    let mut pairs = Vec::new();
    for i in 0..node.outputs.len() {
        let (from, to) = (cx.input(i + skip)?, cx.output(i)?);
        if from.bytes != to.bytes || from.dtype.size().is_none() {
            return Err(cx.err(format!(
                "cannot copy '{}' ({}) into '{}' ({}): TFLM copies tensors of equal byte sizes only",
                from.name,
                from.describe(),
                to.name,
                to.describe()
            )));
        }
        if from.index != to.index {
            pairs.push((from.index, to.index));
        }
    }
    Ok(pairs)
}

pub fn lower_if(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let condition = cx.input(0)?;
    if condition.dtype != DType::Bool || condition.elements != 1 {
        return Err(cx.err(format!("the condition must be one bool, it is {}", condition.describe())));
    }
    Ok(Box::new(If { condition: condition.index }))
}

pub fn lower_while(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    Ok(Box::new(Copies { pairs: pairs(cx, 0)?, test: None }))
}

/// The copies the graph reader adds around an inlined subgraph.
pub fn lower_copies(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    if cx.node.code == codes::LOOP_TEST {
        let test = cx.input(0)?;
        if test.bytes == 0 {
            return Err(cx.err(format!("the loop condition '{}' has no storage", test.name)));
        }
        return Ok(Box::new(Copies { pairs: pairs(cx, 1)?, test: Some(test.index) }));
    }
    Ok(Box::new(Copies { pairs: pairs(cx, 0)?, test: None }))
}
