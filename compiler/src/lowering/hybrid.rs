//! What the hybrid (dynamic-range) operators share: float32 activations
//! with constant int8 weights (FULLY_CONNECTED, CONV_2D, DEPTHWISE_CONV_2D,
//! BATCH_MATMUL, SVDF, as LiteRT runs them; `kernels::hybrid` in the runtime). The error for
//! the hybrid layers tinyaot does not run is `requant::hybrid_unsupported`, beside the dtype
//! checks that give it.

use crate::diag::Error;
use crate::graph::{DType, Tensor};
use crate::lowering::context::OpCx;
use crate::lowering::emit::f32_lit;
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
