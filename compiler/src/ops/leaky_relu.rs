//! LEAKY_RELU: int8 (two requantizations, identity and alpha, as TFLM's
//! `QuantizeLeakyRelu`, tabulated), int16 (the same per element) and
//! float32; any alpha, negative too.

use crate::diag::Error;
use crate::fixedpoint::multiply_by_quantized_multiplier;
use crate::lowering::context::OpCx;
use crate::lowering::emit::f32_lit;
use crate::lowering::operator::Operator;
use crate::lowering::unary::{Compute, Elem, elem, io, map16, table, unary};
use crate::quant::quantize_multiplier;
use quote::quote;

use crate::tflite::fields::leaky_relu as field;

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let (input, output) = io(cx)?;
    let alpha = match cx.options(field::TAG, "LeakyReluOptions")? {
        Some(o) => o.scalar::<f32>(field::ALPHA, 0.0)?,
        None => 0.0,
    };
    let kind = elem(cx, input, output, true)?;
    let compute = if kind != Elem::Float {
        let (si, zi) = cx.per_tensor(input)?;
        let (so, zo) = cx.per_tensor(output)?;
        // In double precision: TFLM's source once computed these in float
        // and its interpreter (the oracle) gives the double-precision
        // results; they differ where an output lands on a rounding tie
        // (found on int16 layers of TFLM's seanet integration models).
        // LiteRT (the oracle for a uint8 model's set) forms both
        // multipliers in single precision, then widens them.
        let (alpha_multiplier, identity_multiplier) = if cx.node.from_uint8 {
            (f64::from(si * alpha / so), f64::from(si / so))
        } else {
            (f64::from(si) * f64::from(alpha) / f64::from(so), f64::from(si) / f64::from(so))
        };
        let (ma, sa) = quantize_multiplier(alpha_multiplier);
        let (mi, shi) = quantize_multiplier(identity_multiplier);
        if !(-31..=30).contains(&sa) || !(-31..=30).contains(&shi) {
            return Err(cx.err("the scales are out of the range TFLite can requantize"));
        }
        let negative = ma < 0;
        let ma = ma.wrapping_abs();
        if kind == Elem::Int8 {
            table(|x| {
                let v = x - zi;
                let out = if v >= 0 {
                    multiply_by_quantized_multiplier(v, mi, shi)
                } else {
                    let a = multiply_by_quantized_multiplier(v, ma, sa);
                    if negative { -a } else { a }
                };
                (zo + out).clamp(-128, 127)
            })
        } else {
            let sign = if negative { -1i32 } else { 1 };
            map16(move |_| {
                quote!(|x: i16| {
                    use ::tinyaot::__private::fixedpoint::multiply_by_quantized_multiplier as mbqm;
                    let v = x as i32 - #zi;
                    let out = if v >= 0 { mbqm(v, #mi, #shi) } else { #sign.wrapping_mul(mbqm(v, #ma, #sa)) };
                    (#zo + out).clamp(-32768, 32767) as i16
                })
            })
        }
    } else {
        let a = f32_lit(alpha);
        Compute::F32(quote!(|x: f32| ::tinyaot::__private::kernels::elementwise::leaky_relu_f32(x, #a)))
    };
    Ok(unary(input, output, compute))
}
