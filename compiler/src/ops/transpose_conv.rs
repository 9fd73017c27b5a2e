//! TRANSPOSE_CONV: int8 (per-channel filter, int32 bias), 16x8 (int64
//! bias, 64-bit accumulation as TFLM) and float32; strides, SAME/VALID,
//! fused activation. The output shape input is ignored, as TFLM ignores
//! it: the output tensor's own shape decides (converters feed it from a
//! graph input or a computed tensor in streaming models).
//!
//! TFLM scatters every input pixel into an output-sized accumulator
//! (a scratch of 4 or 8 bytes per output element). We gather instead:
//! each output element sums the input pixels that reach it, in the same
//! order the scatter adds them (input row, column, channel), so integer
//! results are identical, float ones too, and no scratch is needed.

use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::emit::{Emit, f32_lit};
use crate::lowering::operator::Operator;
use crate::lowering::options::{Activation, Padding, positive};
use crate::lowering::requant::{Arith, conv_arith};
use proc_macro2::TokenStream;
use quote::quote;

use crate::tflite::fields::transpose_conv as field;

#[derive(Debug)]
struct TransposeConv {
    input: usize,
    filter: usize,
    bias: Option<usize>,
    output: usize,
    /// Input N, H, W, C.
    in_shape: [usize; 4],
    /// Output N, H, W, C.
    out_shape: [usize; 4],
    kernel: [usize; 2],
    stride: [usize; 2],
    pad: [usize; 2],
    arith: Arith<crate::lowering::requant::Requant>,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(3, 4, 1)?;
    let opts = cx.options(field::TAG, "TransposeConvOptions")?;
    let o = opts.as_ref();
    let padding = Padding::parse(cx, o.map(|o| o.scalar::<i8>(field::PADDING, 0)).transpose()?.unwrap_or(0))?;
    let stride = [positive(cx, o, field::STRIDE_H, 0, "stride_h")?, positive(cx, o, field::STRIDE_W, 0, "stride_w")?];
    let activation =
        Activation::parse(cx, o.map(|o| o.scalar::<i8>(field::FUSED_ACTIVATION, 0)).transpose()?.unwrap_or(0))?;
    cx.input(0)?;
    let filter = cx.input(1)?;
    let input = cx.input(2)?;
    let bias = cx.opt_input(3);
    let output = cx.output(0)?;
    cx.activation_tensor(input, "input")?;
    let in_shape = cx.nhwc(input, "input")?;
    let [oc, kh, kw, kc] = cx.nhwc(filter, "filter")?;
    let out_shape = cx.nhwc(output, "output")?;
    if kc != in_shape[3] || oc != out_shape[3] || in_shape[0] != out_shape[0] {
        return Err(
            cx.err(format!("filter {:?} does not map input {in_shape:?} to output {out_shape:?}", [oc, kh, kw, kc]))
        );
    }
    // TFLM derives the padding from the output size, as for a convolution
    // from the output back to the input.
    let pad = [0, 1].map(|d| {
        let (size, k, s) = (out_shape[1 + d], [kh, kw][d], stride[d]);
        let back = padding.out_size(size, k, s, 1).unwrap_or(0);
        Padding::leading(size, k, s, 1, back)
    });
    let arith = conv_arith(cx, input, filter, bias, output, oc, activation)?;
    if let (Arith::Int16(w), Some(b)) = (&arith, bias)
        && !w.acc64
    {
        return Err(cx.unsupported(&format!("a {} bias with int16 activations", b.dtype.name()), "int64 bias"));
    }
    if filter.dtype == DType::I8 && filter.data.is_none() {
        return Err(cx.err("the filter must be a constant"));
    }
    Ok(Box::new(TransposeConv {
        input: input.index,
        filter: filter.index,
        bias: bias.map(|b| b.index),
        output: output.index,
        in_shape,
        out_shape,
        kernel: [kh, kw],
        stride,
        pad,
        arith,
    }))
}

impl Operator for TransposeConv {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let [n, ih, iw, ic] = self.in_shape;
        let [_, oh, ow, oc] = self.out_shape;
        let [kh, kw] = self.kernel;
        let [sh, sw] = self.stride;
        let [ph, pw] = self.pad;
        let io = cx.io(self.input, self.output)?;
        let filter = cx.read(self.filter)?;
        let bias = cx.read_opt(self.bias)?;
        let arith = match &self.arith {
            Arith::Int8(q) => {
                let q = q.emit(cx);
                quote!(::tinyaot::__private::kernels::transpose_conv::Int8 { q: #q, bias: #bias })
            }
            Arith::Int16(w) => {
                let (_, q) = w.emit(cx);
                quote!(::tinyaot::__private::kernels::transpose_conv::Int16 { q: #q, bias: #bias })
            }
            Arith::Float(lo, hi) => {
                let (lo, hi) = (f32_lit(*lo), f32_lit(*hi));
                quote!(::tinyaot::__private::kernels::transpose_conv::Float { bias: #bias, act_min: #lo, act_max: #hi })
            }
        };
        let geo = quote!(&::tinyaot::__private::kernels::transpose_conv::Geometry {
            stride_h: #sh, stride_w: #sw, pad_top: #ph, pad_left: #pw,
        });
        Ok(
            quote!(::tinyaot::__private::kernels::transpose_conv::transpose_conv::<#n, #ih, #iw, #ic, #oh, #ow, #oc, #kh, #kw, _, _>(
            #io, #filter, #geo, &#arith);),
        )
    }

    fn macs(&self) -> u64 {
        let [n, ih, iw, ic] = self.in_shape;
        let [kh, kw] = self.kernel;
        [n, ih, iw, ic, kh, kw, self.out_shape[3]].iter().fold(1u64, |a, &d| a.saturating_mul(d as u64))
    }
}
