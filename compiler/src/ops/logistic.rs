//! LOGISTIC: int8 (TFLM's fixed-point sigmoid on a Q4.27 input, output
//! scale 1/256 and zero point -128, tabulated at compile time) and float32.

use super::unary::{Compute, int8_or_float, io, table, unary};
use super::{OpCx, Operator};
use crate::diag::Error;
use crate::fixedpoint::{logistic, multiply_by_quantized_multiplier, rounding_divide_by_pot};
use crate::quant::frexp;
use quote::quote;

/// Integer bits of the rescaled input (TFLite's Q4.27).
const INPUT_INTEGER_BITS: i32 = 4;

/// TFLM's logistic/tanh input rescaling: `frexp` of `scale * 2^27`
/// rounded to a Q0.31 significand (no renormalization, as TFLM), and the
/// input radius beyond which the output saturates.
pub fn input_rescale(scale: f32) -> (i32, i32, i32) {
    let real = scale as f64 * (1u64 << (31 - INPUT_INTEGER_BITS)) as f64;
    let (q, shift) = frexp(real);
    let multiplier = (q * (1u64 << 31) as f64).round() as i64 as i32;
    let radius = {
        let max =
            ((1i64 << INPUT_INTEGER_BITS) - 1) as f64 * (1i64 << (31 - INPUT_INTEGER_BITS)) as f64 / 2f64.powi(shift);
        max.floor() as i32
    };
    (multiplier, shift, radius)
}

/// The int8 table of LOGISTIC or TANH: saturate beyond the input radius,
/// else rescale to Q4.27 and apply `f` (which returns the int8 value).
pub fn saturating_table(
    cx: &OpCx<'_, '_>,
    scale: f32,
    zero_point: i32,
    f: impl Fn(i32) -> i32,
) -> Result<Compute, Error> {
    let (m, s, radius) = input_rescale(scale);
    if !(-31..=30).contains(&s) {
        return Err(cx.err("the input scale is out of the range TFLite's int8 LOGISTIC/TANH handle"));
    }
    Ok(table(|x| {
        let v = x - zero_point;
        if v <= -radius {
            -128
        } else if v >= radius {
            127
        } else {
            f(multiply_by_quantized_multiplier(v, m, s))
        }
    }))
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let (input, output) = io(cx)?;
    let compute = if int8_or_float(cx, input, output)? {
        let (si, zi) = cx.per_tensor(input)?;
        let (_, zo) = cx.per_tensor(output)?;
        if zo != -128 {
            return Err(cx.err(format!("an int8 LOGISTIC needs output zero point -128 (it has {zo})")));
        }
        saturating_table(cx, si, zi, |q4| {
            (rounding_divide_by_pot(logistic(q4, INPUT_INTEGER_BITS), 31 - 8) - 128).clamp(-128, 127)
        })?
    } else {
        Compute::F32(quote!(::tinyaot::kernels::elementwise::logistic_f32))
    };
    Ok(unary(input, output, compute))
}
