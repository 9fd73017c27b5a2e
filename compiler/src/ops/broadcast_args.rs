//! BROADCAST_ARGS: the broadcast shape of two shape vectors (int32 or
//! int64, constant or computed), right-aligned, as many values as the
//! output holds. As TFLM, values pass through C `int` and two sizes that
//! do not broadcast give the first (TFLM aborts).

use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::operator::Operator;
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

#[derive(Debug)]
struct BroadcastArgs {
    shapes: [usize; 2],
    output: usize,
    len: usize,
    ty: &'static str,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(2, 2, 1)?;
    let (a, b, output) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    let ty = match output.dtype {
        DType::I32 => "i32",
        DType::I64 => "i64",
        d => return Err(cx.unsupported(&format!("dtype {}", d.name()), "int32, int64")),
    };
    for t in [a, b] {
        if t.dtype != output.dtype || t.shape.len() != 1 {
            return Err(cx.err(format!(
                "'{}' must be a 1-D {} tensor, it is {}",
                t.name,
                output.dtype.name(),
                t.describe()
            )));
        }
    }
    if output.shape.len() != 1 {
        return Err(cx.err(format!("the output must be 1-D, it is {:?}", output.shape)));
    }
    Ok(Box::new(BroadcastArgs { shapes: [a.index, b.index], output: output.index, len: output.elements, ty }))
}

impl Operator for BroadcastArgs {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let (len, ty) = (self.len, Ident::new(self.ty, Span::call_site()));
        let a = cx.read(self.shapes[0])?;
        let b = cx.read(self.shapes[1])?;
        let output = cx.write(self.output)?;
        Ok(quote!(::tinyaot::__private::kernels::movement::broadcast_args::<#ty, #len>(
            #a, #b, #output, |x: #ty| x as i32, |v: i32| v as #ty);))
    }
}
