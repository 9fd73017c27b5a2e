//! ARG_MAX and ARG_MIN over one constant axis: int8, uint8, int16, int32
//! and float32 inputs, int32 or int64 indices; ties keep the first index.

use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::movement::{axis, const_ints};
use crate::lowering::operator::Operator;
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

#[derive(Debug)]
struct ArgReduce {
    input: usize,
    output: usize,
    outer: usize,
    axis: usize,
    inner: usize,
    is_max: bool,
    index_type: &'static str,
}

pub fn lower_max(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower(cx, true)
}
pub fn lower_min(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower(cx, false)
}

fn lower(cx: &OpCx<'_, '_>, is_max: bool) -> Result<Box<dyn Operator>, Error> {
    cx.arity(2, 2, 1)?;
    let input = cx.input(0)?;
    let a = const_ints(cx, cx.input(1)?, "axis")?;
    let output = cx.output(0)?;
    cx.activation_tensor(input, "input")?;
    if !matches!(input.dtype, DType::I8 | DType::U8 | DType::I16 | DType::I32 | DType::F32) {
        return Err(cx.unsupported(&format!("input {}", input.dtype.name()), "int8, uint8, int16, int32, float32"));
    }
    let index_type = match output.dtype {
        DType::I32 => "i32",
        DType::I64 => "i64",
        d => return Err(cx.unsupported(&format!("{} indices", d.name()), "int32 or int64 indices")),
    };
    let rank = input.shape.len();
    let ax = axis(cx, *a.first().ok_or_else(|| cx.err("the axis is empty"))?, rank)?;
    let mut expected = input.shape.clone();
    expected.remove(ax);
    if output.elements != expected.iter().product::<usize>() {
        cx.check_shape(output, &expected)?;
    }
    let outer = input.shape[..ax].iter().product();
    let inner = input.shape[ax + 1..].iter().product();
    Ok(Box::new(ArgReduce {
        input: input.index,
        output: output.index,
        outer,
        axis: input.shape[ax],
        inner,
        is_max,
        index_type,
    }))
}

impl Operator for ArgReduce {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let (outer, axis, inner, is_max) = (self.outer, self.axis, self.inner, self.is_max);
        let ty = Ident::new(self.index_type, Span::call_site());
        let input = cx.read(self.input)?;
        let output = cx.write(self.output)?;
        Ok(quote!(::tinyaot::__private::kernels::reduce::arg_reduce::<_, #ty, #outer, #axis, #inner>(
            #input, #output, #is_max, |k: usize| k as #ty);))
    }
}
