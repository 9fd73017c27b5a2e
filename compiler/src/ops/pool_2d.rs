//! MAX_POOL_2D and AVERAGE_POOL_2D (int8, int16, float32) and L2_POOL_2D
//! (float32, as TFLM): SAME/VALID, strides, fused RELU family. They share
//! options and geometry, so they share this file.

use crate::diag::Error;
use crate::graph::DType;
use crate::lowering::context::OpCx;
use crate::lowering::emit::{Emit, f32_lit};
use crate::lowering::operator::{InPlace, Operator, WindowOp};
use crate::lowering::options::{Activation, Padding, positive};
use crate::lowering::requant::{Arith, qrange};
use crate::lowering::window::{Geometry, window_slack};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::tflite::fields::pool_2d as field;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Max,
    Average,
    L2,
}

#[derive(Debug)]
struct Pool2d {
    kind: Kind,
    input: usize,
    output: usize,
    geo: Geometry,
    arith: Arith<(i32, i32)>,
    /// `i8` or `i16` for quantized pools.
    int_type: &'static str,
    /// An average of a uint8 model: LiteRT's uint8 rounding (half up).
    half_up: bool,
}

pub fn lower_max(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower(cx, Kind::Max)
}

pub fn lower_average(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower(cx, Kind::Average)
}

pub fn lower_l2(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    lower(cx, Kind::L2)
}

fn lower(cx: &OpCx<'_, '_>, kind: Kind) -> Result<Box<dyn Operator>, Error> {
    cx.arity(1, 1, 1)?;
    let opts = cx.options(field::TAG, "Pool2DOptions")?;
    let o = opts.as_ref();
    let padding = Padding::parse(cx, o.map(|o| o.scalar::<i8>(field::PADDING, 0)).transpose()?.unwrap_or(0))?;
    let stride = [positive(cx, o, field::STRIDE_H, 0, "stride_h")?, positive(cx, o, field::STRIDE_W, 0, "stride_w")?];
    let filter = [
        positive(cx, o, field::FILTER_HEIGHT, 0, "filter_height")?,
        positive(cx, o, field::FILTER_WIDTH, 0, "filter_width")?,
    ];
    let activation =
        Activation::parse(cx, o.map(|o| o.scalar::<i8>(field::FUSED_ACTIVATION, 0)).transpose()?.unwrap_or(0))?;
    let input = cx.input(0)?;
    let output = cx.output(0)?;
    cx.activation_tensor(input, "input")?;
    let ishape = cx.nhwc(input, "input")?;
    let geo = Geometry::new(cx, ishape, filter, ishape[3], stride, [1, 1], padding, output)?;
    // Every window must cover at least one input pixel (TFLM fails at run
    // time otherwise); with SAME/VALID padding it always does, check anyway.
    if geo.pad[0] >= filter[0] || geo.pad[1] >= filter[1] {
        return Err(cx.err("the padding is as large as the filter: some windows would be empty"));
    }
    let arith = match (input.dtype, output.dtype) {
        (DType::I8, DType::I8) | (DType::I16, DType::I16) if kind != Kind::L2 => {
            let (scale, zp) = cx.per_tensor(output)?;
            let (qmin, qmax) = qrange(output.dtype);
            Arith::Int8(activation.quant_range(scale, zp, qmin, qmax))
        }
        (DType::F32, DType::F32) => {
            let (lo, hi) = activation.float_range();
            Arith::Float(lo, hi)
        }
        (i, o) => {
            let supported = if kind == Kind::L2 {
                "float32 -> float32 (as TFLM)"
            } else {
                "int8 -> int8, int16 -> int16, float32 -> float32"
            };
            return Err(cx.unsupported(&format!("input {}, output {}", i.name(), o.name()), supported));
        }
    };
    let int_type = if output.dtype == DType::I16 { "i16" } else { "i8" };
    let half_up = kind == Kind::Average && cx.node.from_uint8;
    Ok(Box::new(Pool2d { kind, input: input.index, output: output.index, geo, arith, int_type, half_up }))
}

impl Operator for Pool2d {
    fn in_place(&self) -> Option<InPlace> {
        let elem = if self.int_type == "i16" { 2 } else { self.arith.elem_bytes() };
        let slack = window_slack(&self.geo, elem, elem)?;
        Some(InPlace { input: self.input, output: self.output, slack })
    }

    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        self.emit_window(cx, &self.geo)
    }

    fn window(&self) -> Option<WindowOp> {
        Some(WindowOp { inputs: vec![self.input], output: self.output, geo: self.geo })
    }

    fn emit_window(&self, cx: &mut Emit<'_>, geo: &Geometry) -> Result<TokenStream, Error> {
        let [n, ih, iw, c] = geo.input;
        let [_, oh, ow, _] = geo.output;
        let [fh, fw] = geo.kernel;
        let io = cx.io(self.input, self.output)?;
        let win = geo.window();
        let prefix = match self.kind {
            Kind::Max => "max_pool",
            Kind::Average => "avg_pool",
            Kind::L2 => "l2_pool",
        };
        let pool = quote!(&::tinyaot::__private::kernels::pool::Pool { filter_h: #fh, filter_w: #fw, win: *#win });
        Ok(match self.arith {
            Arith::Int8((lo, hi)) => {
                // int8 averages over more than 256 taps overflow the DSP
                // kernel's 16-bit lanes: the int32 one.
                let int32_sums = self.kind == Kind::Average && self.int_type == "i8" && fh * fw > 256;
                let f = format_ident!("{prefix}_q{}", if int32_sums { "_i32" } else { "" });
                let t = format_ident!("{}", self.int_type);
                let half_up = (self.kind == Kind::Average).then(|| {
                    let h = self.half_up;
                    quote!(#h,)
                });
                quote!(::tinyaot::__private::kernels::pool::#f::<#t, #half_up #n, #ih, #iw, #c, #oh, #ow, _>(#io, #pool, #lo, #hi);)
            }
            Arith::Int16(_) => return Err(Error::model("internal error: int16 pooling is not lowered")),
            Arith::Float(lo, hi) => {
                let f = format_ident!("{prefix}_f32");
                let (lo, hi) = (f32_lit(lo), f32_lit(hi));
                quote!(::tinyaot::__private::kernels::pool::#f::<#n, #ih, #iw, #c, #oh, #ow, _>(#io, #pool, #lo, #hi);)
            }
        })
    }
}
