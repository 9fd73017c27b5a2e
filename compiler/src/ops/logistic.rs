//! LOGISTIC: int8 (TFLM's fixed-point sigmoid on a Q4.27 input, output
//! scale 1/256 and zero point -128, tabulated at compile time), int16
//! (TFLM's interpolated sigmoid table, output scale 2^-15) and float32.

use crate::diag::Error;
use crate::fixedpoint::{logistic, multiply_by_quantized_multiplier, rounding_divide_by_pot};
use crate::graph::Tensor;
use crate::lowering::context::OpCx;
use crate::lowering::operator::Operator;
use crate::lowering::unary::{Compute, Elem, elem, io, map16, table, unary};
use crate::quant::{checked_log2, frexp, sigmoid_q16};
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
    // A large input scale (shift past 30) leaves a radius of 0: every
    // input saturates and TFLM never rescales, so any such scale is fine
    // (differential suite: a TANH after a wide-range conv).
    if s < -31 || (s > 30 && radius > 0) {
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

/// The input rescaling of TFLM's int16 LOGISTIC and TANH (`input * m >>
/// s` to the table's 1/(3 * 4096) scale; a power-of-two input scale with a
/// shift in `pot_shifts` keeps TFLM's exact shortcut), after checking the
/// symmetric quantization and the 2^-15 output scale they require.
pub fn int16_rescale(
    cx: &OpCx<'_, '_>,
    input: &Tensor<'_>,
    output: &Tensor<'_>,
    pot_shifts: &[i32],
) -> Result<(i32, i32), Error> {
    let (si, zi) = cx.per_tensor(input)?;
    let (so, zo) = cx.per_tensor(output)?;
    if zi != 0 || zo != 0 {
        return Err(cx.err("int16 activations must be symmetric (zero point 0), as TFLite requires"));
    }
    if checked_log2(so) != (-15, true) {
        return Err(cx.err(format!("an int16 output needs scale 2^-15 (it has {so})")));
    }
    let (log2, pot) = checked_log2(si);
    let shift = 12 + log2;
    if pot && pot_shifts.contains(&shift) {
        // TFLM: multiplier 3 << shift, no shift.
        return Ok((3 << shift, 0));
    }
    let mut multiplier = si as f64 * 4096.0 * 3.0;
    let mut shift = 0;
    while multiplier <= 32767.0 / 2.0 && shift <= 30 {
        shift += 1;
        multiplier *= 2.0;
    }
    if multiplier > 32767.0 {
        return Err(cx.err(format!("the input scale {si} is too large for TFLite's int16 LOGISTIC/TANH")));
    }
    Ok((multiplier as i32, shift))
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let (input, output) = io(cx)?;
    let kind = elem(cx, input, output, true)?;
    let compute = if kind == Elem::Int16 {
        let (m, s) = int16_rescale(cx, input, output, &[0])?;
        map16(move |cx| {
            let t = cx.u16s(&sigmoid_q16());
            quote!(|x: i16| ::tinyaot::__private::kernels::elementwise::logistic_s16(x, #m, #s, #t))
        })
    } else if kind == Elem::Int8 && cx.node.from_uint8 {
        // LiteRT's uint8 LOGISTIC: its float table.
        crate::lowering::unary::litert_uint8_table(cx, input, output, |x| 1.0 / (1.0 + (-x).exp()))?
    } else if kind == Elem::Int8 {
        let (si, zi) = cx.per_tensor(input)?;
        let (_, zo) = cx.per_tensor(output)?;
        if zo != -128 {
            return Err(cx.err(format!("an int8 LOGISTIC needs output zero point -128 (it has {zo})")));
        }
        saturating_table(cx, si, zi, |q4| {
            (rounding_divide_by_pot(logistic(q4, INPUT_INTEGER_BITS), 31 - 8) - 128).clamp(-128, 127)
        })?
    } else {
        Compute::F32(quote!(::tinyaot::__private::kernels::elementwise::logistic_f32))
    };
    Ok(unary(input, output, compute))
}
