//! RELU, RELU6 and RELU_N1_TO_1 as standalone ops: int8 (RELU rescales to
//! the output's quantization like TFLM's `ReluQuantized`; RELU6 and
//! RELU_N1_TO_1 clamp in the input's quantization), int16 (RELU and RELU6,
//! as TFLM) and float32.

use crate::diag::Error;
use crate::fixedpoint::multiply_by_quantized_multiplier;
use crate::lowering::context::OpCx;
use crate::lowering::operator::Operator;
use crate::lowering::requant::qrange;
use crate::lowering::unary::{Compute, Elem, elem, io, map16, table, unary};
use crate::quant::quantize_multiplier;
use quote::quote;

/// TFLM `FloatToQuantizedType`: round, add the zero point, clamp to the
/// type's range.
fn to_q(x: f32, scale: f32, zero_point: i32, (qmin, qmax): (i32, i32)) -> i32 {
    ((x / scale).round() as i32 + zero_point).clamp(qmin, qmax)
}

/// Requires zero points 0 for int16, as TFLM does.
fn symmetric16(cx: &OpCx<'_, '_>, kind: Elem, zi: i32, zo: i32) -> Result<(), Error> {
    if kind == Elem::Int16 && (zi != 0 || zo != 0) {
        return Err(cx.err("int16 activations must be symmetric (zero point 0), as TFLite requires"));
    }
    Ok(())
}

pub fn lower_relu(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let (input, output) = io(cx)?;
    let kind = elem(cx, input, output, true)?;
    if kind == Elem::Float {
        return Ok(unary(input, output, Compute::F32(quote!(::tinyaot::__private::kernels::elementwise::relu_f32))));
    }
    let (si, zi) = cx.per_tensor(input)?;
    let (so, zo) = cx.per_tensor(output)?;
    symmetric16(cx, kind, zi, zo)?;
    // In double precision, as the TFLM interpreter's `CalculateReluOpData`
    // gives it (its source divides in float; the two differ on rounding
    // ties: found by the differential suite on int16 RELU).
    let (m, s) = quantize_multiplier(f64::from(si) / f64::from(so));
    if !(-31..=30).contains(&s) {
        return Err(cx.err("the input/output scale ratio is out of the range TFLite can requantize"));
    }
    let (qmin, qmax) = qrange(output.dtype);
    let lo = zo.saturating_add((0.0f32 / so).round() as i32).max(qmin);
    let compute = if kind == Elem::Int8 {
        rescaled_clamp(cx, 0.0, f32::INFINITY)?
    } else {
        map16(move |_| {
            quote!(|x: i16| {
                let v = ::tinyaot::__private::fixedpoint::multiply_by_quantized_multiplier(x as i32, #m, #s);
                v.clamp(#lo, #qmax) as i16
            })
        })
    };
    Ok(unary(input, output, compute))
}

pub fn lower_relu6(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    clamp_op(cx, 0.0, 6.0, true, quote!(::tinyaot::__private::kernels::elementwise::relu6_f32))
}

pub fn lower_relu_n1_to_1(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    clamp_op(cx, -1.0, 1.0, false, quote!(::tinyaot::__private::kernels::elementwise::relu_n1_to_1_f32))
}

fn clamp_op(
    cx: &OpCx<'_, '_>,
    lo: f32,
    hi: f32,
    int16: bool,
    f: proc_macro2::TokenStream,
) -> Result<Box<dyn Operator>, Error> {
    let (input, output) = io(cx)?;
    let kind = elem(cx, input, output, int16)?;
    if kind == Elem::Float {
        return Ok(unary(input, output, Compute::F32(f)));
    }
    // LiteRT's uint8 RELU6 and RELU_N1_TO_1 rescale, as its RELU does.
    if kind == Elem::Int8 && cx.node.from_uint8 {
        return Ok(unary(input, output, rescaled_clamp(cx, lo, hi)?));
    }
    let (si, zi) = cx.per_tensor(input)?;
    let (_, zo) = cx.per_tensor(output)?;
    symmetric16(cx, kind, zi, zo)?;
    let range = qrange(input.dtype);
    let (lo, hi) = (if lo == 0.0 { zi } else { to_q(lo, si, zi, range) }, to_q(hi, si, zi, range));
    let compute = if kind == Elem::Int8 {
        // TFLM's order of tests (it differs from a clamp when lo > hi).
        table(|x| {
            if x > hi {
                hi
            } else if x < lo {
                lo
            } else {
                x
            }
        })
    } else {
        map16(
            move |_| quote!(|x: i16| if x > #hi as i16 { #hi as i16 } else if x < #lo as i16 { #lo as i16 } else { x }),
        )
    };
    Ok(unary(input, output, compute))
}

/// The int8 clamp to `[lo, hi]` (real values) that also rescales to the
/// output's quantization (TFLite's `QuantizedReluX`: TFLM's int8 RELU,
/// LiteRT's uint8 RELU, RELU6 and RELU_N1_TO_1): a table.
fn rescaled_clamp(cx: &OpCx<'_, '_>, lo: f32, hi: f32) -> Result<Compute, Error> {
    let (input, output) = io(cx)?;
    let (si, zi) = cx.per_tensor(input)?;
    let (so, zo) = cx.per_tensor(output)?;
    // In double precision, as the TFLM interpreter's `CalculateReluOpData`
    // gives it (its source divides in float; the two differ on rounding
    // ties: found by the differential suite on int16 RELU).
    let (m, s) = quantize_multiplier(f64::from(si) / f64::from(so));
    if !(-31..=30).contains(&s) {
        return Err(cx.err("the input/output scale ratio is out of the range TFLite can requantize"));
    }
    let (qmin, qmax) = qrange(output.dtype);
    let lo = zo.saturating_add((lo / so).round() as i32).max(qmin);
    let hi = if hi.is_infinite() { qmax } else { zo.saturating_add((hi / so).round() as i32).min(qmax) };
    Ok(table(|x| multiply_by_quantized_multiplier(x - zi, m, s).wrapping_add(zo).max(lo).min(hi)))
}
