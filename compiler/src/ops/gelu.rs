//! GELU (LiteRT's builtin; TFLM has none): float32 per element
//! (`elementwise::gelu_f32`, or `gelu_tanh_f32` with `approximate`), int8
//! through LiteRT's table (`LUTPopulate`: each input value dequantized,
//! transformed in single precision, rounded to the output).

use crate::diag::Error;
use crate::lowering::context::OpCx;
use crate::lowering::operator::Operator;
use crate::lowering::unary::{Compute, Elem, elem, io, table, unary};
use quote::quote;

use crate::tflite::fields::gelu as field;

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let (input, output) = io(cx)?;
    let opts = cx.options(field::TAG, "GeluOptions")?;
    let approximate = opts.as_ref().map(|o| o.scalar::<bool>(field::APPROXIMATE, false)).transpose()?.unwrap_or(false);
    let (f, name) = if approximate {
        (tinyaot_common::gelu::tanh_approximation as fn(f32) -> f32, quote!(gelu_tanh_f32))
    } else {
        (tinyaot_common::gelu::exact as fn(f32) -> f32, quote!(gelu_f32))
    };
    if elem(cx, input, output, false)? == Elem::Float {
        return Ok(unary(input, output, Compute::F32(quote!(::tinyaot::__private::kernels::elementwise::#name))));
    }
    let (si, zi) = cx.per_tensor(input)?;
    let (so, zo) = cx.per_tensor(output)?;
    let inverse = 1.0f32 / so;
    Ok(unary(
        input,
        output,
        table(|x| {
            let v = si * (x - zi) as f32;
            ((f(v) * inverse).round() + zo as f32) as i32
        }),
    ))
}
