//! LOG_SOFTMAX over the last dimension: float32, and int8 as TFLite's
//! fixed-point reference (input scale as a Q5.26 multiplier, exp and log
//! in fixed point; the output scale 16/256 and zero point 127 TFLM
//! requires).

use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::operator::{InPlace, Operator};
use crate::lowering::unary::io;
use crate::ops::softmax::{SCALED_DIFF_INTEGER_BITS, input_radius, preprocess_softmax_scaling};
use crate::quant::quantize_multiplier_smaller_than_one;
use proc_macro2::TokenStream;
use quote::quote;

#[derive(Debug)]
struct LogSoftmax {
    input: usize,
    output: usize,
    rows: usize,
    depth: usize,
    /// int8: input multiplier and shift, reverse multiplier and shift, diff_min.
    int8: Option<[i32; 5]>,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let (input, output) = io(cx)?;
    if input.shape != output.shape {
        return Err(cx.err(format!("output shape {:?} differs from input shape {:?}", output.shape, input.shape)));
    }
    let depth = input.shape.last().copied().unwrap_or(1).max(1);
    let int8 = match (input.dtype, output.dtype) {
        (DType::F32, DType::F32) => None,
        (DType::I8, DType::I8) => {
            let (in_scale, _) = cx.per_tensor(input)?;
            let (out_scale, out_zp) = cx.per_tensor(output)?;
            if out_scale != 16.0 / 256.0 || out_zp != 127 {
                return Err(cx.err(format!(
                    "the output must have scale 16/256 and zero point 127 (as TFLM), it has {out_scale} and {out_zp}"
                )));
            }
            let (multiplier, left_shift) = preprocess_softmax_scaling(1.0, in_scale as f64);
            // A large scale caps the multiplier with shift 31 (only a row's
            // maximum then counts, as in TFLM); a tiny one would shift past 31.
            if !(0..=31).contains(&left_shift) || multiplier <= 0 {
                return Err(
                    cx.err(format!("the input scale {in_scale} is out of the range TFLite's int8 LOG_SOFTMAX handles"))
                );
            }
            let reverse = (1i64 << (31 - left_shift)) as f64 / multiplier as f64;
            let (reverse_multiplier, reverse_shift) =
                quantize_multiplier_smaller_than_one(reverse).ok_or_else(|| {
                    cx.err(format!("the input scale {in_scale} is too small for TFLite's int8 LOG_SOFTMAX"))
                })?;
            let diff_min = -input_radius(SCALED_DIFF_INTEGER_BITS, left_shift);
            Some([multiplier, left_shift, reverse_multiplier, reverse_shift, diff_min])
        }
        (i, o) => {
            return Err(cx.unsupported(
                &format!("input {}, output {}", i.name(), o.name()),
                "float32 -> float32, int8 -> int8 (as TFLM)",
            ));
        }
    };
    Ok(Box::new(LogSoftmax { input: input.index, output: output.index, rows: input.elements / depth, depth, int8 }))
}

impl Operator for LogSoftmax {
    /// Each row is read whole, then written in order while read again: an
    /// output at or before the input overwrites only what is no longer read.
    fn in_place(&self) -> Option<InPlace> {
        Some(InPlace { input: self.input, output: self.output, slack: 0 })
    }

    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let (rows, depth) = (self.rows, self.depth);
        let io = cx.io(self.input, self.output)?;
        let softmax = quote!(::tinyaot::__private::kernels::softmax);
        Ok(match self.int8 {
            None => quote!(#softmax::log_softmax_f32::<#rows, #depth, _>(#io);),
            Some([m, s, rm, rs, diff_min]) => quote!(#softmax::log_softmax_s8::<#rows, #depth, _>(#io,
                &#softmax::LogSoftmaxQuant {
                    input_multiplier: #m, input_left_shift: #s, reverse_multiplier: #rm, reverse_shift: #rs,
                    diff_min: #diff_min,
                });),
        })
    }
}
