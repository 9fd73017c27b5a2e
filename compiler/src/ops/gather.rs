//! GATHER along any axis, with batch_dims (negative counts from the
//! indices' rank), int32 or int64 indices, constant or computed; any
//! element dtype. An index out of range gives zeros (TFLM fails the
//! invoke).

use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::movement::{axis, same_dtype};
use crate::lowering::operator::Operator;
use proc_macro2::TokenStream;
use quote::quote;

use crate::tflite::fields::gather as field;

#[derive(Debug)]
struct Gather {
    params: usize,
    indices: usize,
    output: usize,
    batch: usize,
    outer: usize,
    axis: usize,
    inner: usize,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(2, 2, 1)?;
    let o = cx.options(field::TAG, "GatherOptions")?;
    let raw_axis = o.map(|o| o.scalar::<i32>(field::AXIS, 0)).transpose()?.unwrap_or(0);
    let raw_batch_dims = o.map(|o| o.scalar::<i32>(field::BATCH_DIMS, 0)).transpose()?.unwrap_or(0) as i64;
    let params = cx.input(0)?;
    let indices = cx.input(1)?;
    let output = cx.output(0)?;
    same_dtype(cx, &[params], output)?;
    if !matches!(indices.dtype, DType::I32 | DType::I64) {
        return Err(cx.unsupported(&format!("{} indices", indices.dtype.name()), "int32 or int64 indices"));
    }
    let ax = axis(cx, raw_axis as i64, params.shape.len())?;
    let rank = indices.shape.len() as i64;
    let bd = if raw_batch_dims < 0 { raw_batch_dims + rank } else { raw_batch_dims };
    if bd < 0 || bd > rank || bd as usize > ax || params.shape[..bd as usize] != indices.shape[..bd as usize] {
        return Err(cx.err(format!(
            "batch_dims {raw_batch_dims} does not fit params {:?}, indices {:?} and axis {ax}",
            params.shape, indices.shape
        )));
    }
    let bd = bd as usize;
    let mut expected = params.shape[..ax].to_vec();
    expected.extend(&indices.shape[bd..]);
    expected.extend(&params.shape[ax + 1..]);
    cx.check_shape(output, &expected)?;
    Ok(Box::new(Gather {
        params: params.index,
        indices: indices.index,
        output: output.index,
        batch: params.shape[..bd].iter().product(),
        outer: params.shape[bd..ax].iter().product(),
        axis: params.shape[ax],
        inner: params.shape[ax + 1..].iter().product(),
    }))
}

impl Operator for Gather {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let (batch, outer, axis, inner) = (self.batch, self.outer, self.axis, self.inner);
        let params = cx.read(self.params)?;
        let indices = cx.read(self.indices)?;
        let output = cx.write(self.output)?;
        Ok(
            quote!(::tinyaot::__private::kernels::movement::gather::<_, _, #batch, #outer, #axis, #inner>(#params, #indices, #output);),
        )
    }
}
