//! float32 elementwise math: ABS, NEG, SQRT, RSQRT, EXP, LOG (TFLite's
//! reference functions; exp and log in double, rounded once).

use super::unary::{Compute, io, unary};
use super::{OpCx, Operator};
use crate::diag::Error;
use crate::graph::DType;
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

pub fn lower_abs(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    float_only(cx, quote!(::tinyaot::kernels::elementwise::abs_f32))
}
pub fn lower_neg(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    float_only(cx, quote!(::tinyaot::kernels::elementwise::neg_f32))
}
pub fn lower_sqrt(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    float_only(cx, quote!(::tinyaot::kernels::elementwise::sqrt_f32))
}
pub fn lower_rsqrt(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    float_only(cx, quote!(::tinyaot::kernels::elementwise::rsqrt_f32))
}
pub fn lower_exp(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    float_only(cx, quote!(::tinyaot::kernels::elementwise::exp_f32))
}
pub fn lower_log(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    float_only(cx, quote!(::tinyaot::kernels::elementwise::log_f32))
}
