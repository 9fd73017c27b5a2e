//! DEPTHWISE_CONV_2D: int8 (per-channel symmetric filter, int32 bias) and
//! float32; depth multiplier, stride, dilation, SAME/VALID, fused RELU
//! family.

use crate::diag::Error;
use crate::graph::{DType, Tensor};
use crate::layout::{
    depthwise_row_width, depthwise_rows_doubled, pack_depthwise, pack_depthwise_int4, pack_depthwise_rows,
};
use crate::lowering::context::OpCx;
use crate::lowering::cost;
use crate::lowering::emit::{Emit, f32_lit};
use crate::lowering::im2col::Im2colS8;
use crate::lowering::operator::{InPlace, Operator, WindowOp};
use crate::lowering::options::{Activation, Padding, positive};
use crate::lowering::requant::{Arith, Requant, conv_arith};
use crate::lowering::variant::{Kernel, PairKernel, Variant};
use crate::lowering::weights::PackedRows;
use crate::lowering::window::{Geometry, window_slack};
use proc_macro2::TokenStream;
use quote::quote;

use crate::tflite::fields::depthwise_conv_2d as field;

#[derive(Debug)]
struct DepthwiseConv2d {
    input: usize,
    filter: usize,
    bias: Option<usize>,
    output: usize,
    geo: Geometry,
    multiplier: usize,
    arith: Arith<Requant>,
    /// int8 with a constant filter: its bytes, for the repacked kernels.
    weights: Option<Vec<i8>>,
    /// The model stores the filter as int4: the kernels keep it so (no
    /// widened-rows variant, whose 16-bit taps would be 4 times the flash).
    int4: bool,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(2, 3, 1)?;
    let opts = cx.options(field::TAG, "DepthwiseConv2DOptions")?;
    let o = opts.as_ref();
    let padding = Padding::parse(cx, o.map(|o| o.scalar::<i8>(field::PADDING, 0)).transpose()?.unwrap_or(0))?;
    let stride = [positive(cx, o, field::STRIDE_H, 0, "stride_h")?, positive(cx, o, field::STRIDE_W, 0, "stride_w")?];
    let dilation =
        [positive(cx, o, field::DILATION_H, 1, "dilation_h")?, positive(cx, o, field::DILATION_W, 1, "dilation_w")?];
    let activation =
        Activation::parse(cx, o.map(|o| o.scalar::<i8>(field::FUSED_ACTIVATION, 0)).transpose()?.unwrap_or(0))?;

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
        let m = o.scalar::<i32>(field::DEPTH_MULTIPLIER, 0)?;
        if m != 0 && m as usize != multiplier {
            return Err(cx.err(format!(
                "depth_multiplier option {m} disagrees with the shapes (output depth {oc} / input depth {ic})"
            )));
        }
    }
    let geo = Geometry::new(cx, ishape, [kh, kw], oc, stride, dilation, padding, output)?;
    if (input.dtype, filter.dtype, output.dtype) == (DType::F32, DType::I8, DType::F32) {
        return HybridDepthwise::lower(cx, filter, bias, geo, activation);
    }
    let arith = conv_arith(cx, input, filter, bias, output, oc, activation)?;
    Ok(Box::new(DepthwiseConv2d {
        input: input.index,
        filter: filter.index,
        bias: bias.map(|b| b.index),
        output: output.index,
        geo,
        multiplier,
        // Folding needs the filter and the bias (if any) in the model.
        weights: match (&arith, filter.data.as_deref(), bias.is_none_or(|b| b.data.is_some())) {
            (Arith::Int8(_), Some(w), true) => Some(w.iter().map(|&b| b as i8).collect()),
            _ => None,
        },
        int4: filter.int4,
        arith,
    }))
}

impl DepthwiseConv2d {
    /// `bias + input_offset * sum(every tap of the channel)` per channel.
    /// `other` (an int8 multiplier-1 kernel call), or on Helium targets
    /// the vector kernel (`depthwise::depthwise_vector_s8`, its own
    /// weight layout; `__private::helium_or!` keeps one) where it applies:
    /// any channel count (a last partial group predicated), no filter zero point, the fused
    /// requantization with one output offset for every channel. It needs
    /// no scratch, so the plan of either variant covers it.
    fn helium_or(&self, cx: &mut Emit<'_>, geo: &Geometry, other: TokenStream) -> Result<TokenStream, Error> {
        let (Arith::Int8(q), Some(weights), Some((scales, offset))) =
            (&self.arith, &self.weights, self.vector_scales())
        else {
            return Ok(other);
        };
        let [n, ih, iw, c] = geo.input;
        let [_, oh, ow, _] = geo.output;
        let [kh, kw] = geo.kernel;
        let folded = self.folded_bias(cx, weights, q.input_offset);
        let words: Vec<u8> = tinyaot_common::layout::pack_depthwise_vector(weights, &folded, &scales, kh * kw, c)
            .flat_map(u32::to_le_bytes)
            .collect();
        // In flash whatever `copy_weights` says: the plan's RAM copies
        // are of the other layout.
        let stream = cx.bytes_in_flash(&words);
        let io = cx.io(self.input, self.output)?;
        let win = geo.window();
        let input_offset = q.input_offset;
        Ok(quote!(::tinyaot::__private::helium_or!({
            ::tinyaot::__private::kernels::depthwise::depthwise_vector_s8::<#n, #ih, #iw, #c, #oh, #ow, #kh, #kw, _>(
                #io, #stream.cast::<u32>(), #win, #input_offset, #offset);
        }, { #other });))
    }

    /// Where Helium's vector kernel runs the layer: its short-form scales
    /// and their one output offset.
    fn vector_scales(&self) -> Option<(Vec<[i32; 4]>, i32)> {
        let (Arith::Int8(q), Some(_)) = (&self.arith, &self.weights) else { return None };
        let scales = q.down_scales().filter(|_| q.fused())?;
        let offset = tinyaot_common::fixedpoint::down_offset(scales.first()?);
        let one_offset = scales.iter().all(|s| tinyaot_common::fixedpoint::down_offset(s) == offset);
        (self.multiplier == 1 && q.weight_offset == 0 && !self.int4 && one_offset).then_some((scales, offset))
    }

    /// Whether the layer takes `depthwise_multiplier` (integer, a
    /// multiplier above 1, a filter read as stored; 16x8 windows within
    /// the 32-bit runs): `emit_window` emits it, `variants` costs it.
    fn multiplier_loop(&self) -> bool {
        let [kh, kw] = self.geo.kernel;
        self.multiplier > 1
            && !self.int4
            && match self.arith {
                Arith::Int8(_) => true,
                Arith::Int16(_) => kh * kw <= tinyaot_common::layout::RUN16,
                Arith::Float(..) => false,
            }
    }

    fn folded_bias<W: Copy + Into<i32>>(&self, cx: &Emit<'_>, weights: &[W], input_offset: i32) -> Vec<i32> {
        let oc = self.geo.output[3];
        let bias = self.bias.and_then(|b| cx.tensor_data(b));
        (0..oc)
            .map(|c| {
                let b = bias.map_or(0, |b| i32::from_le_bytes([b[4 * c], b[4 * c + 1], b[4 * c + 2], b[4 * c + 3]]));
                let sum: i32 = weights.iter().skip(c).step_by(oc).map(|&w| w.into()).sum();
                b.wrapping_add(input_offset.wrapping_mul(sum))
            })
            .collect()
    }
}

impl Operator for DepthwiseConv2d {
    /// With input depth 1 on the im2col kernel: its pairs over plain byte
    /// rows (`conv2d_im2col_s8`'s rule, `layout::fused_pairs`).
    fn pair_kernel(&self, kernel: Kernel) -> Option<PairKernel> {
        let (Arith::Int8(q), Some(_)) = (&self.arith, &self.weights) else { return None };
        let depth = crate::layout::depth4(self.geo.kernel[0] * self.geo.kernel[1]);
        let pointwise = self.geo.im2col_in_place();
        let pairs =
            kernel == Kernel::Im2col && q.fused() && !self.int4 && crate::layout::fused_pairs(depth, pointwise, 1);
        pairs.then_some(PairKernel { depth, lanes: false, nudge: q.nudges() })
    }

    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        self.emit_window(cx, &self.geo)
    }

    fn window(&self) -> Option<WindowOp> {
        Some(WindowOp { inputs: vec![self.input], output: self.output, geo: self.geo })
    }

    fn emit_window(&self, cx: &mut Emit<'_>, geo: &Geometry) -> Result<TokenStream, Error> {
        let [n, ih, iw, ic] = geo.input;
        let [_, oh, ow, _] = geo.output;
        let [kh, kw] = geo.kernel;
        let m = self.multiplier;
        let io = cx.io(self.input, self.output)?;
        let win = geo.window();
        if let (Arith::Int8(q), Some(weights)) = (&self.arith, &self.weights) {
            let oc = geo.output[3];
            let kernel = cx.kernel();
            if kernel == Kernel::Im2col {
                // Input depth 1: a convolution whose rows are the filter's columns.
                let taps = kh * kw;
                let rows: Vec<i8> =
                    (0..oc).flat_map(|c| (0..taps).map(move |t| (t, c))).map(|(t, c)| weights[t * oc + c]).collect();
                let rows = PackedRows::of(&rows, oc, taps, self.int4).emit_by_family(cx);
                let folded = self.folded_bias(cx, weights, q.input_offset);
                let folded = cx.i32s(&folded);
                let nudge = cx.pair_nudge(crate::layout::depth4(taps), false, q.nudges());
                let layer = Im2colS8 { geo, ic: 1, rows, fuse: q.fused(), nudge };
                let q = q.emit_rescale(cx)?;
                let patch = geo.im2col_patch(cx)?;
                return Ok(layer.emit(&io, &folded, &q, &patch));
            }
            if kernel == Kernel::WidenedRows {
                let sw = geo.stride[1];
                let rw = row_width(geo);
                // 16-bit taps: a uint8 model's filter zero point taken out
                // at compile time (`w - zero point` fits them).
                let weights: Vec<i16> = weights.iter().map(|&w| i16::from(w) + q.weight_offset as i16).collect();
                let weights = &weights[..];
                let folded = self.folded_bias(cx, weights, q.input_offset);
                // The variant is offered only where the requantization
                // fuses: every channel has its short form.
                let scales = q
                    .down_scales()
                    .filter(|_| q.fused())
                    .ok_or_else(|| Error::model("internal error: widened-rows depthwise without fused scales"))?;
                let doubled = depthwise_rows_doubled(weights, &folded, &scales, oc);
                let words: Vec<u8> = pack_depthwise_rows(weights, &folded, &scales, (kh, kw), oc, doubled)
                    .flat_map(u32::to_le_bytes)
                    .collect();
                let stream = cx.bytes(&words);
                let input_offset = q.input_offset;
                let nudge = q.nudges();
                let ring = cx.scratch::<i16>()?;
                let rows = quote!(::tinyaot::__private::kernels::depthwise::depthwise_rows_s8::<
                    #n, #ih, #iw, #ic, #oh, #ow, #kh, #kw, #sw, #rw, #nudge, #doubled, _>(
                    #io, #stream.cast::<u32>(), #win, #input_offset, #ring););
                return self.helium_or(cx, geo, rows);
            }
            if m == 1 && q.weight_offset == 0 {
                let int4 = self.int4;
                let words: Vec<u8> = if int4 {
                    pack_depthwise_int4(weights, kh * kw, oc).flat_map(u32::to_le_bytes).collect()
                } else {
                    pack_depthwise(weights, kh * kw, oc).flat_map(u32::to_le_bytes).collect()
                };
                let packed = cx.bytes(&words);
                let folded = self.folded_bias(cx, weights, q.input_offset);
                let folded = cx.i32s(&folded);
                let fuse = q.fused();
                let q = q.emit_rescale(cx)?;
                let groups = quote!(::tinyaot::__private::kernels::depthwise::depthwise_m1_s8::<
                    #n, #ih, #iw, #ic, #oh, #ow, #kh, #kw, #fuse, #int4, _>(
                    #io, #packed.cast::<u32>(), #folded, #win, #q););
                return if int4 { Ok(groups) } else { self.helium_or(cx, geo, groups) };
            }
        }
        let filter = match cx.tensor_data(self.filter) {
            Some(values) if self.int4 => crate::lowering::weights::int4_filter(cx, values),
            _ => cx.read(self.filter)?,
        };
        let bias = cx.read_opt(self.bias)?;
        Ok(match &self.arith {
            Arith::Float(lo, hi) if m == 1 => {
                let (lo, hi) = (f32_lit(*lo), f32_lit(*hi));
                quote!(::tinyaot::__private::kernels::depthwise::depthwise_m1_f32::<#n, #ih, #iw, #ic, #oh, #ow, #kh, #kw, _>(
                    #io, #filter, #bias, #win, #lo, #hi);)
            }
            // 32-bit sums where the window cannot overflow them: groups of
            // 8 channels for multiplier 1 and a filter read as it is, else
            // the block loop.
            Arith::Int16(w) if m == 1 && !self.int4 && kh * kw <= tinyaot_common::layout::RUN16 => {
                let (acc, q) = w.emit(cx);
                quote!(::tinyaot::__private::kernels::depthwise::depthwise_m1_16x8::<#acc, #n, #ih, #iw, #ic, #oh, #ow, #kh, #kw, _>(
                    #io, #filter, #bias, #win, #q);)
            }
            // Integer multipliers above 1: each tap's input value read
            // once for its M outputs (taps outside the image at the zero
            // point, whose offset value adds nothing).
            Arith::Int8(q) if self.multiplier_loop() => {
                let zero_point = proc_macro2::Literal::i8_suffixed(-q.input_offset as i8);
                // The fast kernels' scales (their short requantization
                // forms) where the filter has no zero point of its own.
                let q = if q.weight_offset == 0 { q.emit_rescale(cx)? } else { q.emit_arithmetic(cx) };
                quote!(::tinyaot::__private::kernels::depthwise::depthwise_multiplier::<_, _, #n, #ih, #iw, #ic, #oh, #ow, #m, #kh, #kw, _>(
                    #io, #filter, #bias, #win, #q, #zero_point);)
            }
            Arith::Int16(w) if self.multiplier_loop() => {
                let (acc, q) = w.emit(cx);
                quote!(::tinyaot::__private::kernels::depthwise::depthwise_multiplier::<_, _, #n, #ih, #iw, #ic, #oh, #ow, #m, #kh, #kw, _>(
                    #io, #filter, None, #win, &::tinyaot::__private::kernels::int16::Sums16::<#acc> { q: #q, bias: #bias }, 0i16);)
            }
            Arith::Int16(w) if kh * kw <= tinyaot_common::layout::RUN16 => {
                let (acc, q) = w.emit(cx);
                quote!(::tinyaot::__private::kernels::depthwise::depthwise::<i32, _, #n, #ih, #iw, #ic, #oh, #ow, #m, #kh, #kw, _>(
                    #io, #filter, None, #win, &::tinyaot::__private::kernels::int16::Sums16::<#acc> { q: #q, bias: #bias });)
            }
            arith => {
                let (acc, q) = arith.emit_arithmetic(cx, |q, cx| q.emit_arithmetic(cx));
                quote!(::tinyaot::__private::kernels::depthwise::depthwise::<#acc, _, #n, #ih, #iw, #ic, #oh, #ow, #m, #kh, #kw, _>(
                    #io, #filter, #bias, #win, #q);)
            }
        })
    }

    fn in_place(&self) -> Option<InPlace> {
        let elem = self.arith.elem_bytes();
        let slack = window_slack(&self.geo, elem, elem)?;
        Some(InPlace { input: self.input, output: self.output, slack })
    }

    fn macs(&self) -> u64 {
        self.geo.macs(1)
    }

    /// Input depth 1 (int8, constant filter): also the im2col convolution
    /// kernel, with a `KH * KW` byte patch. Multiplier 1 and dilation 1:
    /// also the widened-rows kernel, with `KH` input rows of 16-bit values.
    /// Costs in estimated M4 cycles (`lowering::cost`).
    fn variants(&self) -> Vec<Variant> {
        let [kh, kw] = self.geo.kernel;
        let [n, oh, ow, oc] = self.geo.output;
        let pixels = (n * oh * ow) as u64;
        let outputs = pixels * oc as u64;
        let taps = (kh * kw) as u64;
        // int8 with multiplier 1 runs 4-channel groups over 16-bit lanes.
        // (A filter zero point runs the reference loop, or the widened rows.)
        let offset = matches!(&self.arith, Arith::Int8(q) if q.weight_offset != 0);
        let lanes = matches!(self.arith, Arith::Int8(_)) && self.weights.is_some() && self.multiplier == 1 && !offset;
        let direct = if self.multiplier_loop() {
            cost::depthwise_multiplier(outputs, taps)
        } else {
            cost::depthwise_direct(outputs, taps, lanes)
        };
        let mut v = vec![Variant { kernel: Kernel::Direct, scratch: 0, cost: direct }];
        if self.weights.is_some() && self.geo.input[3] == 1 && self.multiplier > 1 && !offset {
            let [pad_top, pad_left] = self.geo.pad;
            let scratch = tinyaot_common::scratch::conv_im2col(kh, kw, 1, pad_top != 0 || pad_left != 0);
            v.push(Variant { kernel: Kernel::Im2col, scratch, cost: cost::depthwise_im2col(outputs, taps, pixels) });
        }
        // Where the assembly loop exists (the portable loop is only faster
        // on cores without the DSP extension).
        let rw = row_width(&self.geo);
        let fast = crate::layout::rows_fast(kh, kw, self.geo.stride[1], rw, oc);
        let fused = matches!(&self.arith, Arith::Int8(q) if q.fused());
        if self.weights.is_some() && !self.int4 && self.multiplier == 1 && self.geo.dilation == [1, 1] && fast && fused
        {
            let [_, ih, iw, _] = self.geo.input;
            let widened = (n * ih * iw * oc) as u64;
            let scratch = tinyaot_common::scratch::depthwise_rows(kh, oc, rw);
            v.push(Variant {
                kernel: Kernel::WidenedRows,
                scratch,
                cost: cost::depthwise_rows(outputs, taps, widened),
            });
        }
        v
    }

    /// Helium's depthwise (`depthwise_vector_s8`, which the direct
    /// variant's call also selects there): no scratch.
    fn vector_variant(&self) -> Option<Variant> {
        self.vector_scales()?;
        let [kh, kw] = self.geo.kernel;
        let [n, oh, ow, oc] = self.geo.output;
        let pixels = (n * oh * ow) as u64;
        Some(Variant {
            kernel: Kernel::Vector,
            scratch: 0,
            cost: cost::depthwise_vector(pixels, oc as u64, (kh * kw) as u64),
        })
    }
}

/// Halfwords per channel row of the widened-rows kernel.
fn row_width(geo: &Geometry) -> usize {
    depthwise_row_width(geo.output[2], geo.stride[1], geo.kernel[1])
}

/// Hybrid DEPTHWISE_CONV_2D (float32 input and output, constant int8
/// filter with one scale per output channel), as LiteRT runs it:
/// `kernels::hybrid::depthwise_hybrid`.
#[derive(Debug)]
struct HybridDepthwise {
    input: usize,
    filter: usize,
    bias: Option<usize>,
    output: usize,
    geo: Geometry,
    scales: Vec<f32>,
    range: (f32, f32),
}

impl HybridDepthwise {
    fn lower(
        cx: &OpCx<'_, '_>,
        filter: &Tensor<'_>,
        bias: Option<&Tensor<'_>>,
        geo: Geometry,
        activation: Activation,
    ) -> Result<Box<dyn Operator>, Error> {
        let oc = geo.output[3];
        let scales = crate::lowering::hybrid::weight_scales(cx, filter, bias, oc)?;
        if scales.len() != oc {
            return Err(cx.err(format!(
                "hybrid depthwise filter with {} scales for {oc} output channels (LiteRT reads one per channel)",
                scales.len()
            )));
        }
        Ok(Box::new(HybridDepthwise {
            input: cx.input(0)?.index,
            filter: filter.index,
            bias: bias.map(|b| b.index),
            output: cx.output(0)?.index,
            geo,
            scales,
            range: activation.float_range(),
        }))
    }
}

impl Operator for HybridDepthwise {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let [n, ih, iw, ic] = self.geo.input;
        let [_, oh, ow, oc] = self.geo.output;
        let [kh, kw] = self.geo.kernel;
        let input = cx.read(self.input)?;
        let filter = cx.read(self.filter)?;
        let bias = cx.read_opt(self.bias)?;
        let output = cx.write(self.output)?;
        let win = self.geo.window();
        let scales = cx.f32s(&self.scales);
        let range = crate::lowering::hybrid::emit_range(self.range);
        let q = cx.scratch::<i8>()?;
        Ok(
            quote!(::tinyaot::__private::kernels::hybrid::depthwise_hybrid::<#n, #ih, #iw, #ic, #oh, #ow, #oc, #kh, #kw>(
            #input, #filter, #bias, #win, #scales, #range, #q, #output);),
        )
    }

    fn macs(&self) -> u64 {
        self.geo.macs(1)
    }

    /// The quantized image lives in scratch.
    fn variants(&self) -> Vec<Variant> {
        let [_, ih, iw, ic] = self.geo.input;
        vec![Variant { kernel: Kernel::Direct, scratch: ih * iw * ic, cost: self.macs() * 4 }]
    }
}
