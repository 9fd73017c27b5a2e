//! RELU, RELU6 and RELU_N1_TO_1 as standalone ops: int8 (RELU rescales to
//! the output's quantization like TFLM's `ReluQuantized`; RELU6 and
//! RELU_N1_TO_1 clamp in the input's quantization) and float32.

use super::unary::{Compute, int8_or_float, io, table, unary};
use super::{OpCx, Operator};
use crate::diag::Error;
use crate::fixedpoint::multiply_by_quantized_multiplier;
use crate::quant::quantize_multiplier;
use quote::quote;

/// TFLM `FloatToQuantizedType<int8_t>`: round, add the zero point, clamp.
fn to_q(x: f32, scale: f32, zero_point: i32) -> i32 {
    ((x / scale).round() as i32 + zero_point).clamp(-128, 127)
}

pub fn lower_relu(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let (input, output) = io(cx)?;
    let compute = if int8_or_float(cx, input, output)? {
        let (si, zi) = cx.per_tensor(input)?;
        let (so, zo) = cx.per_tensor(output)?;
        // TFLM divides in single precision, then widens.
        let (m, s) = quantize_multiplier((si / so) as f64);
        if !(-31..=30).contains(&s) {
            return Err(cx.err("the input/output scale ratio is out of the range TFLite can requantize"));
        }
        let lo = zo.saturating_add((0.0f32 / so).round() as i32).max(-128);
        table(|x| multiply_by_quantized_multiplier(x - zi, m, s).wrapping_add(zo).clamp(lo, 127))
    } else {
        Compute::F32(quote!(::tinyaot::kernels::elementwise::relu_f32))
    };
    Ok(unary(input, output, compute))
}

pub fn lower_relu6(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    clamp_op(cx, 0.0, 6.0, quote!(::tinyaot::kernels::elementwise::relu6_f32))
}

pub fn lower_relu_n1_to_1(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    clamp_op(cx, -1.0, 1.0, quote!(::tinyaot::kernels::elementwise::relu_n1_to_1_f32))
}

fn clamp_op(cx: &OpCx<'_, '_>, lo: f32, hi: f32, f: proc_macro2::TokenStream) -> Result<Box<dyn Operator>, Error> {
    let (input, output) = io(cx)?;
    let compute = if int8_or_float(cx, input, output)? {
        let (si, zi) = cx.per_tensor(input)?;
        let (lo, hi) = (if lo == 0.0 { zi } else { to_q(lo, si, zi) }, to_q(hi, si, zi));
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
        Compute::F32(f)
    };
    Ok(unary(input, output, compute))
}
