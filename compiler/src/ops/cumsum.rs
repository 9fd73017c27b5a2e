//! CUMSUM: running sums along one axis (a constant int32 scalar, negative
//! counts from the end), exclusive and/or reverse. float32 adds in order;
//! int8 is TFLite's: values rescaled as ADD does (a 20-bit headroom
//! shift), each running sum rescaled to the output, and, as TFLite's
//! reference code does, the sum started from a rescaled zero input.

use crate::codegen::Emit;
use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::movement::{axis, const_ints};
use crate::lowering::operator::{InPlace, Operator};
use crate::quant::quantize_multiplier_smaller_than_one;
use crate::tflite::fields::cumsum as field;
use proc_macro2::TokenStream;
use quote::quote;

/// TFLM's `kCumSumIntegerShift`.
const LEFT_SHIFT: i32 = 20;

#[derive(Debug)]
struct CumSum {
    input: usize,
    output: usize,
    /// Elements before, along and after the axis.
    extents: [usize; 3],
    exclusive: bool,
    reverse: bool,
    /// int8: input offset, output offset, output multiplier and shift.
    int8: Option<[i32; 4]>,
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
        DType::I8 => {
            let (scale, zero_point) = cx.per_tensor(input)?;
            let (out_scale, out_zero_point) = cx.per_tensor(output)?;
            let twice = 2.0 * scale as f64;
            let (m, s) = quantize_multiplier_smaller_than_one(twice / ((1i64 << LEFT_SHIFT) as f64 * out_scale as f64))
                .ok_or_else(|| {
                    cx.err("the input/output scales need an output multiplier of one or more, which TFLM rejects")
                })?;
            Some([-zero_point, out_zero_point, m, s])
        }
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
            Some([input_offset, output_offset, m, s]) => {
                let q = quote!(#binary::AddQuant {
                    input1_offset: #input_offset, input2_offset: 0, output_offset: #output_offset,
                    left_shift: #LEFT_SHIFT, input1_multiplier: 1 << 30, input1_shift: 0,
                    input2_multiplier: 0, input2_shift: 0, output_multiplier: #m, output_shift: #s,
                    act_min: -128, act_max: 127,
                });
                let body = call(
                    quote!(i8),
                    quote!(i32),
                    quote!(Q.rescaled1(0i8)),
                    quote!(|a: i32, x| a.wrapping_add(Q.rescaled1(x))),
                    quote!(|a| Q.add_rescaled(a, 0)),
                );
                quote!({
                    // The input multiplier is 1/2 exactly (its own scale).
                    const Q: #binary::AddQuant = #q;
                    #body
                })
            }
        })
    }
}
