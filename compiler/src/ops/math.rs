//! Elementwise math: ABS (int8, int16 with TFLM's rescaling, float32),
//! RSQRT (int8 via TFLM's fixed-point inverse square root, tabulated;
//! int16 the same per element; float32), NEG, SQRT, EXP, LOG, SIN, COS,
//! SQUARE, FLOOR, CEIL, ROUND (float32: TFLite's reference functions; exp
//! and log in double, rounded once; ROUND ties to even), SIGN (float32 and
//! int32, LiteRT only: `(x > 0) - (x < 0)`, so NaN and -0 give 0).

use crate::diag::Error;
use crate::fixedpoint::{inv_sqrt_multiplier_exp, multiply_by_quantized_multiplier};
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::operator::Operator;
use crate::lowering::requant::qrange;
use crate::lowering::unary::{Compute, Elem, elem, io, map16, table, unary};
use crate::quant::quantize_multiplier;
use proc_macro2::TokenStream;
use quote::quote;

fn float_only(cx: &OpCx<'_, '_>, f: TokenStream) -> Result<Box<dyn Operator>, Error> {
    let (input, output) = io(cx)?;
    if input.dtype != DType::F32 || output.dtype != DType::F32 {
        return Err(cx.unsupported(
            &format!("input {}, output {}", input.dtype.name(), output.dtype.name()),
            "float32 -> float32",
        ));
    }
    Ok(unary(input, output, Compute::F32(f)))
}

/// A quantized multiplier that must be in TFLite's range.
fn multiplier(cx: &OpCx<'_, '_>, real: f64) -> Result<(i32, i32), Error> {
    let (m, s) = quantize_multiplier(real);
    if !(-31..=30).contains(&s) {
        return Err(cx.err("the input/output scales are out of the range TFLite can requantize"));
    }
    Ok((m, s))
}

pub fn lower_abs(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let (input, output) = io(cx)?;
    let kind = elem(cx, input, output, true)?;
    if kind == Elem::Float {
        return Ok(unary(input, output, Compute::F32(quote!(::tinyaot::__private::kernels::elementwise::abs_f32))));
    }
    let (si, zi) = cx.per_tensor(input)?;
    let (so, zo) = cx.per_tensor(output)?;
    if kind == Elem::Int16 && (zi != 0 || zo != 0) {
        return Err(cx.err("int16 activations must be symmetric (zero point 0), as TFLite requires"));
    }
    let (qmin, qmax) = qrange(output.dtype);
    // TFLM rescales only when the scales differ; the ratio in double
    // precision, as TFLM's interpreter gives it (its source divides in
    // float; differential suite, int16 ABS).
    let rescale = if si != so { Some(multiplier(cx, f64::from(si) / f64::from(so))?) } else { None };
    let compute = match (kind, rescale) {
        (Elem::Int8, None) => table(|x| (x - zi).abs() + zo),
        (Elem::Int8, Some((m, s))) => table(|x| multiply_by_quantized_multiplier((x - zi).abs(), m, s) + zo),
        (_, None) => map16(|_| quote!(|x: i16| (x as i32).abs().min(32767) as i16)),
        (_, Some((m, s))) => map16(move |_| {
            quote!(|x: i16| {
                ::tinyaot::__private::fixedpoint::multiply_by_quantized_multiplier((x as i32).abs(), #m, #s).clamp(#qmin, #qmax) as i16
            })
        }),
    };
    Ok(unary(input, output, compute))
}

pub fn lower_rsqrt(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let (input, output) = io(cx)?;
    let kind = elem(cx, input, output, true)?;
    if kind == Elem::Float {
        return Ok(unary(input, output, Compute::F32(quote!(::tinyaot::__private::kernels::elementwise::rsqrt_f32))));
    }
    let (si, zi) = cx.per_tensor(input)?;
    let (so, zo) = cx.per_tensor(output)?;
    if kind == Elem::Int16 && (zi != 0 || zo != 0) {
        return Err(cx.err("int16 activations must be symmetric (zero point 0), as TFLite requires"));
    }
    // In double precision: TFLM's interpreter (the oracle) gives the
    // double-precision multiplier; its source writes the square root and
    // product in float (differential suite, int16 RSQRT).
    let (m, s) = multiplier(cx, 1.0 / (f64::from(si).sqrt() * f64::from(so)))?;
    Ok(unary(
        input,
        output,
        if kind == Elem::Int8 {
            // At the zero point TFLM returns the type's maximum as it is,
            // without the output zero point (differential suite).
            table(|x| if x == zi { 127 } else { rsqrt_q(x - zi, m, s, 127) + zo })
        } else {
            map16(move |_| quote!(|x: i16| ::tinyaot::__private::kernels::elementwise::rsqrt_s16(x, #m, #s)))
        },
    ))
}

/// TFLM's quantized RSQRT of `v` (the input minus its zero point): 20
/// extra bits kept through the two multiplications; zero gives `max`.
fn rsqrt_q(v: i32, m: i32, s: i32, max: i32) -> i32 {
    const SHIFT: i32 = 20;
    if v == 0 {
        return max;
    }
    let (im, is) = inv_sqrt_multiplier_exp(v);
    let data = multiply_by_quantized_multiplier(1, im, is + SHIFT);
    multiply_by_quantized_multiplier(data, m, s - SHIFT)
}

pub fn lower_neg(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    float_only(cx, quote!(::tinyaot::__private::kernels::elementwise::neg_f32))
}
pub fn lower_floor(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    float_only(cx, quote!(::tinyaot::__private::kernels::elementwise::floor_f32))
}
pub fn lower_ceil(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    float_only(cx, quote!(::tinyaot::__private::kernels::elementwise::ceil_f32))
}
pub fn lower_round(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    float_only(cx, quote!(::tinyaot::__private::kernels::elementwise::round_f32))
}
pub fn lower_sqrt(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    float_only(cx, quote!(::tinyaot::__private::kernels::elementwise::sqrt_f32))
}
pub fn lower_exp(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    float_only(cx, quote!(::tinyaot::__private::kernels::elementwise::exp_f32))
}
pub fn lower_log(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    float_only(cx, quote!(::tinyaot::__private::kernels::elementwise::log_f32))
}
pub fn lower_sin(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    float_only(cx, quote!(::tinyaot::__private::kernels::elementwise::sin_f32))
}
pub fn lower_cos(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    float_only(cx, quote!(::tinyaot::__private::kernels::elementwise::cos_f32))
}
pub fn lower_square(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    float_only(cx, quote!(|x: f32| x * x))
}

pub fn lower_sign(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let (input, output) = io(cx)?;
    let f = match (input.dtype, output.dtype) {
        (DType::F32, DType::F32) => {
            return Ok(unary(
                input,
                output,
                Compute::F32(quote!(::tinyaot::__private::kernels::elementwise::sign_f32)),
            ));
        }
        (DType::I32, DType::I32) => quote!(|x: i32| x.signum()),
        (i, o) => {
            return Err(cx.unsupported(
                &format!("input {}, output {}", i.name(), o.name()),
                "float32 -> float32, int32 -> int32 (as LiteRT)",
            ));
        }
    };
    Ok(unary(input, output, Compute::Map { from: DType::I32, to: DType::I32, f: Box::new(move |_| f.clone()) }))
}
