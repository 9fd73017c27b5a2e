//! TANH: int8 (TFLM's fixed-point tanh on a Q4.27 input, output scale
//! 1/128 and zero point 0, tabulated at compile time) and float32.

use super::logistic::input_rescale;
use super::unary::{Compute, int8_or_float, io, table, unary};
use super::{OpCx, Operator};
use crate::diag::Error;
use crate::fixedpoint::{multiply_by_quantized_multiplier, rounding_divide_by_pot, tanh};
use quote::quote;

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let (input, output) = io(cx)?;
    let compute = if int8_or_float(cx, input, output)? {
        let (si, zi) = cx.per_tensor(input)?;
        let (m, s, radius) = input_rescale(si);
        if !(-31..=30).contains(&s) {
            return Err(cx.err("the input scale is out of the range TFLite's int8 TANH handles"));
        }
        table(|x| {
            let v = x - zi;
            if v <= -radius {
                -128
            } else if v >= radius {
                127
            } else {
                let q4 = multiply_by_quantized_multiplier(v, m, s);
                rounding_divide_by_pot(tanh(q4, 4), 31 - 7).clamp(-128, 127)
            }
        })
    } else {
        Compute::F32(quote!(::tinyaot::kernels::elementwise::tanh_f32))
    };
    Ok(unary(input, output, compute))
}
