//! DYNAMIC_UPDATE_SLICE: the operand with a box replaced by `update`, the
//! box's start read at run time (int32 or int64, one per dimension) and
//! clamped into the operand as TFLM does; any element dtype. The operand
//! is copied to the output (nothing to copy when the plan puts them in one
//! place), then the update written over it.

use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::broadcast::six;
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::movement::{same_dtype, strides};
use crate::lowering::operator::{InPlace, Operator};
use proc_macro2::TokenStream;
use quote::quote;

#[derive(Debug)]
struct DynamicUpdateSlice {
    operand: usize,
    update: usize,
    starts: usize,
    output: usize,
    len: usize,
    /// Per dimension: the largest start (operand - update extent) and the
    /// output stride.
    limits: Vec<(usize, usize)>,
    /// The update's dims, right-aligned to 6, with the output's strides
    /// (`a`) and the update's own (`b`).
    walk: ([usize; 6], [usize; 6], [usize; 6]),
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(3, 3, 1)?;
    let (operand, update, starts, output) = (cx.input(0)?, cx.input(1)?, cx.input(2)?, cx.output(0)?);
    same_dtype(cx, &[operand, update], output)?;
    let rank = operand.shape.len();
    if !matches!(starts.dtype, DType::I32 | DType::I64) || starts.shape != [rank] {
        return Err(cx.err(format!(
            "the start indices must be int32 or int64 of shape [{rank}], they are {}",
            starts.describe()
        )));
    }
    if update.shape.len() != rank || update.shape.iter().zip(&operand.shape).any(|(u, o)| u > o) || rank > 6 {
        return Err(cx.err(format!("the update {:?} does not fit in the operand {:?}", update.shape, operand.shape)));
    }
    cx.check_shape(output, &operand.shape)?;
    let out_strides = strides(&operand.shape);
    let limits = operand.shape.iter().zip(&update.shape).zip(&out_strides).map(|((o, u), &s)| (o - u, s)).collect();
    let pairs: Vec<(usize, usize)> = update.shape.iter().copied().zip(out_strides).collect();
    let (dims, a) = six(&pairs);
    let (_, b) = six(&update.shape.iter().copied().zip(strides(&update.shape)).collect::<Vec<_>>());
    Ok(Box::new(DynamicUpdateSlice {
        operand: operand.index,
        update: update.index,
        starts: starts.index,
        output: output.index,
        len: output.elements,
        limits,
        walk: (dims, a, b),
    }))
}

impl Operator for DynamicUpdateSlice {
    /// Element i of the operand goes to element i of the output.
    fn in_place(&self) -> Option<InPlace> {
        Some(InPlace { input: self.operand, output: self.output, slack: 0 })
    }

    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let (len, rank) = (self.len, self.limits.len());
        let io = cx.io(self.operand, self.output)?;
        let update = cx.read(self.update)?;
        let starts = cx.read(self.starts)?;
        let (largest, steps): (Vec<usize>, Vec<usize>) = self.limits.iter().copied().unzip();
        let (d, a, b) = self.walk;
        Ok(quote!(::tinyaot::__private::kernels::movement::dynamic_update_slice::<_, _, _, #rank, #len>(
            #io, #update, #starts, &[#(#largest),*], &[#(#steps),*],
            &::tinyaot::__private::kernels::Strided6 { dims: [#(#d),*], a: [#(#a),*], b: [#(#b),*] },
        );))
    }
}
