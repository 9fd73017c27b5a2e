//! GATHER_ND: index tuples (the indices' last dimension, at most 5 long as
//! in TFLM) pick slices of params; int32 or int64 indices, constant or
//! computed; any element dtype. As TFLM, only the slice's flat position
//! is checked, so a tuple may run past one dimension into the next; a
//! slice outside params gives zeros (TFLM fails the invoke).

use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::movement::{same_dtype, strides};
use crate::lowering::operator::Operator;
use proc_macro2::TokenStream;
use quote::quote;

/// TFLM's `MAX_INDICES_ND`.
const MAX_INDEX_LEN: usize = 5;

#[derive(Debug)]
struct GatherNd {
    params: usize,
    indices: usize,
    output: usize,
    /// Elements per step of each indexed dimension.
    counts: Vec<usize>,
    slice: usize,
    slices: usize,
    params_len: usize,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(2, 2, 1)?;
    let (params, indices, output) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    same_dtype(cx, &[params], output)?;
    if !matches!(indices.dtype, DType::I32 | DType::I64) {
        return Err(cx.unsupported(&format!("{} indices", indices.dtype.name()), "int32 or int64 indices"));
    }
    let (Some(&len), false) = (indices.shape.last(), params.shape.is_empty()) else {
        return Err(cx.err("params and indices must have rank 1 or more"));
    };
    if len > params.shape.len() || len > MAX_INDEX_LEN {
        return Err(cx.err(format!(
            "index tuples of {len} do not fit params {:?} (at most its rank, and {MAX_INDEX_LEN}, as TFLM)",
            params.shape
        )));
    }
    let mut expected = indices.shape[..indices.shape.len() - 1].to_vec();
    expected.extend(&params.shape[len..]);
    cx.check_shape(output, &expected)?;
    let counts = strides(&params.shape)[..len].to_vec();
    let slice: usize = params.shape[len..].iter().product();
    Ok(Box::new(GatherNd {
        params: params.index,
        indices: indices.index,
        output: output.index,
        counts,
        slice,
        slices: indices.elements / len.max(1),
        params_len: params.elements,
    }))
}

impl Operator for GatherNd {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let (slice, slices, params_len) = (self.slice, self.slices, self.params_len);
        let nd = self.counts.len();
        let counts = &self.counts;
        let params = cx.read(self.params)?;
        let indices = cx.read(self.indices)?;
        let output = cx.write(self.output)?;
        Ok(quote!(::tinyaot::__private::kernels::movement::gather_nd::<_, _, #nd, #slice, #slices, #params_len>(
            #params, #indices, #output, &[#(#counts),*]);))
    }
}
