//! RESHAPE: a view of its input with another shape. No code, no copy: the
//! planner gives input and output one buffer.

use crate::diag::Error;
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::operator::Operator;
use proc_macro2::TokenStream;

#[derive(Debug)]
struct Reshape {
    input: usize,
    output: usize,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    // The optional second input (the new shape) is already folded into the
    // output tensor's stored shape.
    cx.arity(1, 2, 1)?;
    let input = cx.input(0)?;
    let output = cx.output(0)?;
    if input.dtype != output.dtype {
        return Err(cx.err(format!("input is {} but output is {}", input.dtype.name(), output.dtype.name())));
    }
    if input.elements != output.elements {
        return Err(cx.err(format!(
            "cannot reshape {} ({} elements) to {} ({} elements)",
            input.describe(),
            input.elements,
            output.describe(),
            output.elements
        )));
    }
    // Differing quantization is allowed: TFLM copies the bytes unchanged,
    // which is exactly what a view gives.
    Ok(Box::new(Reshape { input: input.index, output: output.index }))
}

impl Operator for Reshape {
    fn emit(&self, _cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        Ok(TokenStream::new())
    }

    fn alias(&self) -> Option<(usize, usize)> {
        Some((self.input, self.output))
    }
}
