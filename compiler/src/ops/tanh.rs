//! TANH: int8 (TFLM's fixed-point tanh on a Q4.27 input, output scale
//! 1/128 and zero point 0, tabulated at compile time) and float32.

use super::logistic::saturating_table;
use super::unary::{Compute, int8_or_float, io, unary};
use super::{OpCx, Operator};
use crate::diag::Error;
use crate::fixedpoint::{rounding_divide_by_pot, tanh};
use quote::quote;

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let (input, output) = io(cx)?;
    let compute = if int8_or_float(cx, input, output)? {
        let (si, zi) = cx.per_tensor(input)?;
        saturating_table(cx, si, zi, |q4| rounding_divide_by_pot(tanh(q4, 4), 31 - 7).clamp(-128, 127))?
    } else {
        Compute::F32(quote!(::tinyaot::kernels::elementwise::tanh_f32))
    };
    Ok(unary(input, output, compute))
}
