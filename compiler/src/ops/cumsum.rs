//! CUMSUM: running sums along one axis (a constant int32 scalar, negative
//! counts from the end), exclusive and/or reverse. float32 adds in order;
//! int8 is TFLite's: values rescaled as ADD does (a 20-bit headroom
//! shift), each running sum rescaled to the output, and, as TFLite's
//! reference code does, the sum started from a rescaled zero input.

use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::emit::Emit;
use crate::lowering::movement::{axis, const_ints};
use crate::lowering::operator::{InPlace, Operator};
use crate::lowering::requant::SumRescale;
use crate::tflite::fields::cumsum as field;
use proc_macro2::TokenStream;
use quote::quote;

#[derive(Debug)]
struct CumSum {
    input: usize,
    output: usize,
    /// Elements before, along and after the axis.
    extents: [usize; 3],
    exclusive: bool,
    reverse: bool,
    /// int8: the running sum's rescaling.
    int8: Option<SumRescale>,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(2, 2, 1)?;
    let o = cx.options(field::TAG, "CumsumOptions")?;
    let exclusive = o.map(|o| o.scalar::<bool>(field::EXCLUSIVE, false)).transpose()?.unwrap_or(false);
    let reverse = o.map(|o| o.scalar::<bool>(field::REVERSE, false)).transpose()?.unwrap_or(false);
    let (input, axis_t, output) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    if axis_t.dtype != DType::I32 || axis_t.elements != 1 {
        return Err(cx.err(format!("the axis must be one int32 value (as TFLM), it is {}", axis_t.describe())));
    }
    let rank = input.shape.len();
    let a = axis(cx, const_ints(cx, axis_t, "axis")?[0], rank)?;
    if output.dtype != input.dtype || output.shape != input.shape {
        return Err(cx.err(format!("the output {} differs from the input {}", output.describe(), input.describe())));
    }
    let int8 = match input.dtype {
        DType::F32 => None,
        DType::I8 => Some(SumRescale::new(cx, input, output)?),
        d => return Err(cx.unsupported(&format!("dtype {}", d.name()), "float32, int8 (as TFLM)")),
    };
    let extents = [input.shape[..a].iter().product(), input.shape[a], input.shape[a + 1..].iter().product()];
    Ok(Box::new(CumSum { input: input.index, output: output.index, extents, exclusive, reverse, int8 }))
}

impl Operator for CumSum {
    /// Along the last axis and forward, the kernel visits elements in
    /// order, reading each before writing its output: an output at or
    /// before the input only overwrites what was read. Other orders would
    /// overwrite elements still to be read.
    fn in_place(&self) -> Option<InPlace> {
        (self.extents[2] == 1 && !self.reverse).then_some(InPlace { input: self.input, output: self.output, slack: 0 })
    }

    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let [before, along, after] = self.extents;
        let (exclusive, reverse) = (self.exclusive, self.reverse);
        let io = cx.io(self.input, self.output)?;
        let binary = quote!(::tinyaot::__private::kernels::binary);
        let call = |ty: TokenStream, acc: TokenStream, init: TokenStream, step: TokenStream, finish: TokenStream| quote!(#binary::cumsum::<#ty, #acc, _, #before, #along, #after>(#io, #exclusive, #reverse, #init, #step, #finish););
        Ok(match self.int8 {
            None => call(quote!(f32), quote!(f32), quote!(0.0), quote!(|a, x| a + x), quote!(|a| a)),
            Some(q) => q.emit_with(call(
                quote!(i8),
                quote!(i32),
                quote!(Q.rescaled1(0i8)),
                quote!(|a: i32, x| a.wrapping_add(Q.rescaled1(x))),
                quote!(|a| Q.add_rescaled(a, 0)),
            )),
        })
    }
}
