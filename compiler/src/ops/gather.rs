//! GATHER along any axis (batch_dims 0) with int32 or int64 indices,
//! constant or computed; any element dtype.

use super::movement::{axis, same_dtype};
use super::{OpCx, Operator};
use crate::codegen::Emit;
use crate::diag::Error;
use crate::graph::DType;
use proc_macro2::TokenStream;
use quote::quote;

/// Union tag of `GatherOptions`.
const OPTIONS: u8 = 23;

struct Gather {
    params: usize,
    indices: usize,
    output: usize,
    outer: usize,
    axis: usize,
    inner: usize,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(2, 2, 1)?;
    let o = cx.options(OPTIONS, "GatherOptions")?;
    let raw_axis = o.map(|o| o.scalar::<i32>(0, 0)).transpose()?.unwrap_or(0);
    if o.map(|o| o.scalar::<i32>(1, 0)).transpose()?.unwrap_or(0) != 0 {
        return Err(cx.err("GATHER with batch_dims is not supported"));
    }
    let params = cx.input(0)?;
    let indices = cx.input(1)?;
    let output = cx.output(0)?;
    same_dtype(cx, &[params], output)?;
    if !matches!(indices.dtype, DType::I32 | DType::I64) {
        return Err(cx.unsupported(&format!("{} indices", indices.dtype.name()), "int32 or int64 indices"));
    }
    let ax = axis(cx, raw_axis as i64, params.shape.len())?;
    let mut expected = params.shape[..ax].to_vec();
    expected.extend(&indices.shape);
    expected.extend(&params.shape[ax + 1..]);
    cx.check_shape(output, &expected)?;
    Ok(Box::new(Gather {
        params: params.index,
        indices: indices.index,
        output: output.index,
        outer: params.shape[..ax].iter().product(),
        axis: params.shape[ax],
        inner: params.shape[ax + 1..].iter().product(),
    }))
}

impl Operator for Gather {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let (outer, axis, inner) = (self.outer, self.axis, self.inner);
        let params = cx.read(self.params)?;
        let indices = cx.read(self.indices)?;
        let output = cx.write(self.output)?;
        Ok(quote!(::tinyaot::kernels::movement::gather::<_, _, #outer, #axis, #inner>(#params, #indices, #output);))
    }
}
