//! DEPTHWISE_CONV_2D: int8 (per-channel symmetric filter, int32 bias) and
//! float32; depth multiplier, stride, dilation, SAME/VALID, fused RELU
//! family.

use super::conv_2d::Geometry;
use super::{Activation, Arith, InPlace, OpCx, Operator, Padding, Requant, conv_arith, positive, window_slack};
use crate::codegen::{Emit, f32_lit};
use crate::diag::Error;
use proc_macro2::TokenStream;
use quote::quote;

/// Union tag of `DepthwiseConv2DOptions`.
const OPTIONS: u8 = 2;

struct DepthwiseConv2d {
    input: usize,
    filter: usize,
    bias: Option<usize>,
    output: usize,
    geo: Geometry,
    multiplier: usize,
    arith: Arith<Requant>,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(2, 3, 1)?;
    let opts = cx.options(OPTIONS, "DepthwiseConv2DOptions")?;
    let o = opts.as_ref();
    let padding = Padding::parse(cx, o.map(|o| o.scalar::<i8>(0, 0)).transpose()?.unwrap_or(0))?;
    let stride = [positive(cx, o, 2, 0, "stride_h")?, positive(cx, o, 1, 0, "stride_w")?];
    let dilation = [positive(cx, o, 6, 1, "dilation_h")?, positive(cx, o, 5, 1, "dilation_w")?];
    let activation = Activation::parse(cx, o.map(|o| o.scalar::<i8>(4, 0)).transpose()?.unwrap_or(0))?;

    let input = cx.input(0)?;
    let filter = cx.input(1)?;
    let bias = cx.opt_input(2);
    let output = cx.output(0)?;
    cx.activation_tensor(input, "input")?;
    let ishape = cx.nhwc(input, "input")?;
    let [one, kh, kw, oc] = cx.nhwc(filter, "filter")?;
    let ic = ishape[3];
    if one != 1 || ic == 0 || oc % ic != 0 {
        return Err(cx.err(format!("filter shape {:?} must be [1, H, W, C*M] for input depth {ic}", filter.shape)));
    }
    // TFLite derives the multiplier from the shapes; the option must agree
    // when it is set.
    let multiplier = oc / ic;
    if let Some(o) = o {
        let m = o.scalar::<i32>(3, 0)?;
        if m != 0 && m as usize != multiplier {
            return Err(cx.err(format!(
                "depth_multiplier option {m} disagrees with the shapes (output depth {oc} / input depth {ic})"
            )));
        }
    }
    let geo = Geometry::new(cx, ishape, [kh, kw], oc, stride, dilation, padding, output)?;
    let arith = conv_arith(cx, input, filter, bias, output, oc, activation)?;
    Ok(Box::new(DepthwiseConv2d {
        input: input.index,
        filter: filter.index,
        bias: bias.map(|b| b.index),
        output: output.index,
        geo,
        multiplier,
        arith,
    }))
}

impl Operator for DepthwiseConv2d {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let [n, ih, iw, ic] = self.geo.input;
        let [_, oh, ow, _] = self.geo.output;
        let [kh, kw] = self.geo.kernel;
        let m = self.multiplier;
        let io = cx.io(self.input, self.output)?;
        let filter = cx.read(self.filter)?;
        let bias = cx.read_opt(self.bias)?;
        let win = self.geo.window();
        Ok(match &self.arith {
            Arith::Int8(q) => {
                let q = q.emit(cx);
                quote!(::tinyaot::kernels::depthwise::depthwise_s8::<#n, #ih, #iw, #ic, #oh, #ow, #m, #kh, #kw, _>(
                    #io, #filter, #bias, #win, #q);)
            }
            Arith::Int16(w) => {
                let (acc, q) = w.emit(cx);
                quote!(::tinyaot::kernels::int16::depthwise_s16::<#acc, #n, #ih, #iw, #ic, #oh, #ow, #m, #kh, #kw, _>(
                    #io, #filter, #bias, #win, #q);)
            }
            Arith::Float(lo, hi) => {
                let (lo, hi) = (f32_lit(*lo), f32_lit(*hi));
                quote!(::tinyaot::kernels::depthwise::depthwise_f32::<#n, #ih, #iw, #ic, #oh, #ow, #m, #kh, #kw, _>(
                    #io, #filter, #bias, #win, #lo, #hi);)
            }
        })
    }

    fn in_place(&self) -> Option<InPlace> {
        let elem = self.arith.elem_bytes();
        let slack = window_slack(&self.geo, elem, elem)?;
        Some(InPlace { input: self.input, output: self.output, slack })
    }

    fn macs(&self) -> u64 {
        let [n, oh, ow, oc] = self.geo.output;
        let [kh, kw] = self.geo.kernel;
        [n, oh, ow, oc, kh, kw].iter().fold(1u64, |acc, &d| acc.saturating_mul(d as u64))
    }
}
