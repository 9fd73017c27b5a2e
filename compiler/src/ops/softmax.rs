//! SOFTMAX over the last dimension: int8 -> int8 (TFLite's output scale
//! 1/256, zero point -128), int8 -> int16, int16 -> int16 (TFLM's
//! interpolated exp and reciprocal tables, computed here) and float32,
//! with beta.

use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::emit::{Emit, f32_lit};
use crate::lowering::operator::{InPlace, Operator};
use crate::quant::{lut_populate_i16, quantize_multiplier};
use proc_macro2::TokenStream;
use quote::quote;

use crate::tflite::fields::softmax as field;
/// Integer bits of the scaled difference (Q5.26), as TFLite.
pub(crate) const SCALED_DIFF_INTEGER_BITS: i32 = 5;

#[derive(Debug)]
enum Arith {
    Int8 { multiplier: i32, left_shift: i32, diff_min: i32, out16: bool },
    Int16 { multiplier: i32, shift: i32 },
    Float { beta: f32 },
}

#[derive(Debug)]
struct Softmax {
    input: usize,
    output: usize,
    rows: usize,
    depth: usize,
    arith: Arith,
}

/// TFLite `PreprocessSoftmaxScaling`: beta * scale as a Q(31-5) multiplier
/// greater than one, capped below 2^31.
pub(crate) fn preprocess_softmax_scaling(beta: f64, input_scale: f64) -> (i32, i32) {
    let max_real_multiplier = ((1u64 << 31) - 1) as f64;
    let real = (beta * input_scale * (1u64 << (31 - SCALED_DIFF_INTEGER_BITS)) as f64).min(max_real_multiplier);
    quantize_multiplier(real)
}

/// TFLite `CalculateInputRadius` for 32-bit values.
pub(crate) fn input_radius(integer_bits: i32, left_shift: i32) -> i32 {
    let max = ((1i64 << integer_bits) - 1) as f64 * (1i64 << (31 - integer_bits)) as f64 / (1i64 << left_shift) as f64;
    max.floor() as i32
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(1, 1, 1)?;
    let beta = match cx.options(field::TAG, "SoftmaxOptions")? {
        Some(o) => o.scalar::<f32>(field::BETA, 0.0)?,
        None => 0.0,
    };
    let input = cx.input(0)?;
    let output = cx.output(0)?;
    cx.activation_tensor(input, "input")?;
    if input.shape != output.shape {
        return Err(cx.err(format!("output shape {:?} differs from input shape {:?}", output.shape, input.shape)));
    }
    let depth = input.shape.last().copied().unwrap_or(1);
    if depth == 0 {
        return Err(cx.err("the last dimension is empty"));
    }
    let rows = input.elements / depth;
    let arith = match (input.dtype, output.dtype) {
        (DType::I8, DType::I8 | DType::I16) => {
            let out16 = output.dtype == DType::I16;
            let (in_scale, _) = cx.per_tensor(input)?;
            let (out_scale, out_zp) = cx.per_tensor(output)?;
            let (want_zp, want_scale) = if out16 { (-32768, 1.0 / 65536.0) } else { (-128, 1.0 / 256.0) };
            if out_zp != want_zp || (out_scale - want_scale).abs() > 0.001 * want_scale {
                return Err(cx.err(format!(
                    "the output must have zero point {want_zp} and scale {want_scale} (it has {out_zp} and {out_scale})"
                )));
            }
            let (multiplier, left_shift) = preprocess_softmax_scaling(beta as f64, in_scale as f64);
            if left_shift < 0 || beta <= 0.0 || !beta.is_finite() {
                return Err(cx.err(format!(
                    "beta {beta} times the input scale {in_scale} is too small for TFLite's int8 softmax"
                )));
            }
            let diff_min = -input_radius(SCALED_DIFF_INTEGER_BITS, left_shift);
            Arith::Int8 { multiplier, left_shift, diff_min, out16 }
        }
        (DType::I16, DType::I16) => {
            let (si, zi) = cx.per_tensor(input)?;
            let (so, zo) = cx.per_tensor(output)?;
            if zi != 0 || zo != 0 || (so - 1.0 / 32768.0).abs() > 0.001 / 32768.0 {
                return Err(cx.err(format!(
                    "an int16 softmax needs zero points 0 and output scale 1/32768 (it has {zi}, {zo} and {so})"
                )));
            }
            // The difference to the row maximum, scaled so that -65535 is -10.0.
            let (multiplier, shift) = quantize_multiplier(si as f64 * beta as f64 / (10.0 / 65535.0));
            if !(-31..=30).contains(&shift) {
                return Err(cx.err("beta times the input scale is out of the range TFLite's int16 softmax handles"));
            }
            Arith::Int16 { multiplier, shift }
        }
        (DType::F32, DType::F32) => Arith::Float { beta },
        (i, o) => {
            return Err(cx.unsupported(
                &format!("input {}, output {}", i.name(), o.name()),
                "int8 -> int8, int8 -> int16, int16 -> int16, float32 -> float32",
            ));
        }
    };
    Ok(Box::new(Softmax { input: input.index, output: output.index, rows, depth, arith }))
}

impl Operator for Softmax {
    /// Element `c` of a row is read for the last time just before output
    /// element `c` is written: in place at the same offset is safe when
    /// both have the same element type.
    fn in_place(&self) -> Option<InPlace> {
        match self.arith {
            Arith::Int8 { out16: true, .. } => None,
            _ => Some(InPlace { input: self.input, output: self.output, slack: 0 }),
        }
    }

    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let (rows, depth) = (self.rows, self.depth);
        let io = cx.io(self.input, self.output)?;
        Ok(match self.arith {
            Arith::Int8 { multiplier, left_shift, diff_min, out16 } => {
                let out_ty = if out16 { quote!(i16) } else { quote!(i8) };
                quote!(::tinyaot::__private::kernels::softmax::softmax_s8::<#out_ty, #rows, #depth, _>(
                    #io,
                    &::tinyaot::__private::kernels::softmax::SoftmaxQuant {
                        input_multiplier: #multiplier, input_left_shift: #left_shift, diff_min: #diff_min,
                    });)
            }
            Arith::Int16 { multiplier, shift } => {
                // TFLM's `LUTPopulate` tables: exp on [-10, 0] and 1 / (1 + x) on [0, 1].
                let range = (i16::MAX as i32 - i16::MIN as i32) as f32;
                let exp = lut_populate_i16(10.0 / range, i16::MAX as i32, 2.0 / range, 0, f32::exp);
                let recip = lut_populate_i16(1.0 / range, i16::MIN as i32, 2.0 / range, 0, |x| 1.0 / (1.0 + x));
                let (exp, recip) = (cx.i16s(&exp), cx.i16s(&recip));
                quote!(::tinyaot::__private::kernels::softmax::softmax_s16::<#rows, #depth, _>(#io, #multiplier, #shift, #exp, #recip);)
            }
            Arith::Float { beta } => {
                let beta = f32_lit(beta);
                quote!(::tinyaot::__private::kernels::softmax::softmax_f32::<#rows, #depth, _>(#io, #beta);)
            }
        })
    }
}
