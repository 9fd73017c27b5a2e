//! ELU: float32 (`expm1` below zero) and int8 (TFLM's table from the float
//! function: `exp(x) - 1` in single precision, rounded to the output).

use crate::diag::Error;
use crate::lowering::context::OpCx;
use crate::lowering::operator::Operator;
use crate::lowering::unary::{Compute, Elem, elem, io, table, unary};
use quote::quote;

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let (input, output) = io(cx)?;
    if elem(cx, input, output, false)? == Elem::Float {
        return Ok(unary(input, output, Compute::F32(quote!(::tinyaot::__private::kernels::elementwise::elu_f32))));
    }
    let (si, zi) = cx.per_tensor(input)?;
    let (so, zo) = cx.per_tensor(output)?;
    let inverse = 1.0f32 / so;
    Ok(unary(
        input,
        output,
        table(|x| {
            let v = si * (x - zi) as f32;
            let t = if v < 0.0 { v.exp() - 1.0 } else { v };
            ((t * inverse).round() + zo as f32) as i32
        }),
    ))
}
