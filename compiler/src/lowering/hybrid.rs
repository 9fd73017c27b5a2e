//! What the hybrid (dynamic-range) operators share: float32 activations
//! with constant int8 weights (FULLY_CONNECTED, CONV_2D, DEPTHWISE_CONV_2D,
//! BATCH_MATMUL, SVDF, as LiteRT runs them; `kernels::hybrid` in the runtime), and the error
//! for the hybrid layers tinyaot does not run.

use crate::codegen::f32_lit;
use crate::diag::Error;
use crate::graph::{DType, Tensor};
use crate::lowering::context::OpCx;
use proc_macro2::TokenStream;
use quote::quote;

/// Checks a hybrid layer's weights (constant, with scales) and float32
/// bias of `channels`; returns the weights' scales.
pub fn weight_scales(
    cx: &OpCx<'_, '_>,
    weights: &Tensor<'_>,
    bias: Option<&Tensor<'_>>,
    channels: usize,
) -> Result<Vec<f32>, Error> {
    crate::lowering::requant::check_bias(cx, bias, DType::F32, channels)?;
    if weights.data.is_none() {
        return Err(cx.err("hybrid weights must be constant (the model's own int8 data)"));
    }
    match weights.quant.as_ref().map(|q| q.scales.clone()) {
        Some(s) if !s.is_empty() => Ok(s),
        _ => Err(cx.err("hybrid int8 weights need a scale")),
    }
}

/// The sum of each `depth`-long row of int8 `weights` (the model's
/// bytes): what an asymmetric input quantization's zero point multiplies.
pub fn row_sums(weights: &[u8], depth: usize) -> Vec<i32> {
    weights.chunks_exact(depth.max(1)).map(|row| row.iter().map(|&w| w as i8 as i32).sum()).collect()
}

/// An activation range `(lo, hi)` as a tuple expression.
pub fn emit_range((lo, hi): (f32, f32)) -> TokenStream {
    let (lo, hi) = (f32_lit(lo), f32_lit(hi));
    quote!((#lo, #hi))
}

/// The error for a hybrid layer tinyaot does not run: float32 activations
/// with integer weights, which TFLM refuses too.
pub fn unsupported(cx: &OpCx<'_, '_>) -> Error {
    cx.err(
        "float32 activations with integer weights: a hybrid (dynamic-range) model, which TFLM does not run \
         either (\"Hybrid models are not supported on TFLite Micro\"); tinyaot runs hybrid \
         FULLY_CONNECTED, CONV_2D, DEPTHWISE_CONV_2D, BATCH_MATMUL, SVDF and UNIDIRECTIONAL_SEQUENCE_LSTM with int8 \
         weights (uint8 too in \
         FULLY_CONNECTED and CONV_2D, as LiteRT), not this layer: convert \
         with full-integer quantization (a representative dataset and int8 inputs/outputs) or keep the \
         weights float32",
    )
}
