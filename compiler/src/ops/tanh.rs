//! TANH: int8 (TFLM's fixed-point tanh on a Q4.27 input, output scale
//! 1/128 and zero point 0, tabulated at compile time), uint8 (LiteRT's
//! float table), int16 (through TFLM's sigmoid table, output scale 2^-15)
//! and float32.

use super::logistic::{int16_rescale, saturating_table};
use crate::diag::Error;
use crate::fixedpoint::{rounding_divide_by_pot, tanh};
use crate::lowering::context::OpCx;
use crate::lowering::operator::Operator;
use crate::lowering::unary::{Compute, Elem, elem, io, litert_uint8_table, map16, unary};
use crate::quant::sigmoid_q16;
use quote::quote;

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let (input, output) = io(cx)?;
    let kind = elem(cx, input, output, true)?;
    let compute = if kind == Elem::Int16 {
        let (m, s) = int16_rescale(cx, input, output, &[0, 1])?;
        map16(move |cx| {
            let t = cx.u16s(&sigmoid_q16());
            quote!(|x: i16| ::tinyaot::__private::kernels::elementwise::tanh_s16(x, #m, #s, #t))
        })
    } else if kind == Elem::Int8 && cx.node.from_uint8 {
        litert_uint8_table(cx, input, output, f32::tanh)?
    } else if kind == Elem::Int8 {
        let (si, zi) = cx.per_tensor(input)?;
        saturating_table(cx, si, zi, |q4| rounding_divide_by_pot(tanh(q4, 4), 31 - 7).clamp(-128, 127))?
    } else {
        Compute::F32(quote!(::tinyaot::__private::kernels::elementwise::tanh_f32))
    };
    Ok(unary(input, output, compute))
}
