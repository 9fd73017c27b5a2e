//! CAST between int8, uint8, int16, int32, int64 and float32, and from
//! bool to any of them (C++ `static_cast` semantics: float to integer
//! truncates toward zero; a bool's byte is 0 or 1).

use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::operator::Operator;
use crate::lowering::unary::io;
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

#[derive(Debug)]
struct Cast {
    input: usize,
    output: usize,
    len: usize,
    from: &'static str,
    to: &'static str,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    let (input, output) = io(cx)?;
    let supported = "int8, uint8, int16, int32, int64, float32, bool to any of them but bool";
    if output.dtype == DType::Bool {
        // TFLM has no cast to bool (nonzero -> true); neither has tinyaot.
        return Err(cx.unsupported("casting to bool", supported));
    }
    let from =
        input.dtype.rust().ok_or_else(|| cx.unsupported(&format!("casting from {}", input.dtype.name()), supported))?;
    let to =
        output.dtype.rust().ok_or_else(|| cx.unsupported(&format!("casting to {}", output.dtype.name()), supported))?;
    Ok(Box::new(Cast { input: input.index, output: output.index, len: output.elements, from, to }))
}

impl Operator for Cast {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let len = self.len;
        let (from, to) = (Ident::new(self.from, Span::call_site()), Ident::new(self.to, Span::call_site()));
        let input = cx.read(self.input)?;
        let output = cx.write(self.output)?;
        Ok(
            quote!(::tinyaot::__private::kernels::elementwise::cast::<#from, #to, #len>(#input, #output, |x: #from| x as #to);),
        )
    }
}
