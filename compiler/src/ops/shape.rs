//! SHAPE: the input's dimensions as int32 (as TFLM: no int64 output).
//! Shapes are static here, so the op writes compile-time constants; the
//! input is never read.

use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::operator::Operator;
use proc_macro2::TokenStream;
use quote::quote;

#[derive(Debug)]
struct Shape {
    output: usize,
    dims: Vec<i32>,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(1, 1, 1)?;
    let (input, output) = (cx.input(0)?, cx.output(0)?);
    if output.dtype != DType::I32 {
        return Err(cx.unsupported(&format!("output dtype {}", output.dtype.name()), "int32 (as TFLM)"));
    }
    if output.elements != input.shape.len() {
        return Err(cx.err(format!(
            "the output {} cannot hold the {} dimensions of the input",
            output.describe(),
            input.shape.len()
        )));
    }
    let dims = input.shape.iter().map(|&d| i32::try_from(d).unwrap_or(i32::MAX)).collect();
    Ok(Box::new(Shape { output: output.index, dims }))
}

impl Operator for Shape {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let output = cx.write(self.output)?;
        let dims = &self.dims;
        Ok(quote!(#output.copy_from_slice(&[#(#dims),*]);))
    }
}
