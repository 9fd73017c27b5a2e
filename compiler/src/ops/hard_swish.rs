//! HARD_SWISH: int8 (TFLM's 16-bit fixed-point evaluation, tabulated at
//! compile time) and float32.

use crate::diag::Error;
use crate::fixedpoint::rounding_divide_by_pot;
use crate::lowering::context::OpCx;
use crate::lowering::operator::Operator;
use crate::lowering::unary::{Compute, int8_or_float, io, table, unary};
use crate::quant::quantize_multiplier;
use quote::quote;

/// TFLite `DownScaleInt32ToInt16Multiplier`.
fn down_scale(m: i32) -> i16 {
    if m >= i32::MAX - (1 << 15) { i16::MAX } else { ((m + (1 << 15)) >> 16) as i16 }
}

/// gemmlowp `SaturatingRoundingDoublingHighMul` for int16.
fn srdhm16(a: i16, b: i16) -> i16 {
    if a == i16::MIN && b == i16::MIN {
        return i16::MAX;
    }
    let ab = a as i32 * b as i32;
    let nudge = if ab >= 0 { 1 << 14 } else { 1 - (1 << 14) };
    ((ab + nudge) / (1 << 15)) as i16
}

/// TFLite `SaturatingDoublingHighMul` (truncating) for int16.
fn sdhm16(a: i16, b: i16) -> i16 {
    if a == i16::MIN && b == i16::MIN {
        return i16::MAX;
    }
    ((a as i32 * b as i32) / (1 << 15)) as i16
}

/// TFLite `SaturatingLeftShift` for int16.
fn sat_shl16(v: i16, amount: i32) -> i16 {
    (v as i64 * (1i64 << amount)).clamp(i16::MIN as i64, i16::MAX as i64) as i16
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let (input, output) = io(cx)?;
    let compute = if int8_or_float(cx, input, output)? {
        let (si, zi) = cx.per_tensor(input)?;
        let (so, zo) = cx.per_tensor(output)?;
        // Scales in single precision, as TFLM's Prepare computes them.
        let hires = (1.0f32 / 128.0) * si;
        let reluish_scale = 3.0f32 / 32768.0;
        let (om, oe) = quantize_multiplier((hires / so) as f64);
        let (rm, re) = quantize_multiplier((hires / reluish_scale) as f64);
        if oe > 0 || !(-15..=15).contains(&re) || om < 0 || rm < 0 {
            return Err(cx.err("the input/output scales are out of the range TFLite's int8 HARD_SWISH handles"));
        }
        let (om, rm) = (down_scale(om), down_scale(rm));
        table(|x| {
            let v = (x - zi) as i16;
            let hires_v = v.wrapping_mul(1 << 7);
            let preshift_out = srdhm16(hires_v, om);
            let mut reluish = hires_v;
            if re > 0 {
                reluish = sat_shl16(reluish, re - 1);
            }
            reluish = srdhm16(reluish, rm);
            if re > 0 {
                reluish = sat_shl16(reluish, 1);
            }
            if re < 0 {
                reluish = rounding_divide_by_pot(reluish as i32, -re) as i16;
            }
            let reluish = ((reluish as i32 + (1 << 15)) >> 1) as i16;
            let pre = sdhm16(reluish, preshift_out);
            let out = (rounding_divide_by_pot(pre as i32, -oe) as i16).wrapping_add(zo as i16);
            out.clamp(-128, 127) as i32
        })
    } else {
        Compute::F32(quote!(::tinyaot::__private::kernels::elementwise::hard_swish_f32))
    };
    Ok(unary(input, output, compute))
}
