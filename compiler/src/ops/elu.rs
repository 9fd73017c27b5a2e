//! ELU, float32 (`expm1` below zero). The converter keeps ELU in float
//! even in int8 models (DEQUANTIZE, ELU, QUANTIZE); an int8 ELU is an
//! error until a model to check it against exists.

use super::unary::{Compute, io, unary};
use super::{OpCx, Operator};
use crate::diag::Error;
use crate::graph::DType;
use quote::quote;

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let (input, output) = io(cx)?;
    if input.dtype != DType::F32 || output.dtype != DType::F32 {
        return Err(cx.unsupported(&format!("input {}, output {}", input.dtype.name(), output.dtype.name()), "float32"));
    }
    Ok(unary(input, output, Compute::F32(quote!(::tinyaot::kernels::elementwise::elu_f32))))
}
