//! CONV_2D: int8 (per-channel or per-tensor symmetric filter, int32 bias),
//! 16x8 (int64 or int32 bias) and float32; stride, dilation, SAME/VALID, fused RELU/RELU6/RELU_N1_TO_1,
//! grouped filters. Hybrid (float32 activations, constant int8 filter),
//! which TFLM refuses, as LiteRT runs it (`kernels::hybrid::conv2d_hybrid`).

use crate::lowering::context::OpCx;
use crate::lowering::cost;
use crate::lowering::operator::{InPlace, Operator, WindowOp};
use crate::lowering::options::{Activation, Padding, positive};
use crate::lowering::requant::{Arith, Requant, conv_arith, folded_bias};
use crate::lowering::variant::{Kernel, PairKernel, Variant};
use crate::lowering::weights::PackedRows;
use crate::lowering::window::{Geometry, window_slack};

use crate::diag::Error;
use crate::graph::{DType, Tensor};
use crate::lowering::emit::{Emit, f32_lit};
use crate::lowering::im2col::Im2colS8;
use proc_macro2::TokenStream;
use quote::quote;

use crate::tflite::fields::conv_2d as field;

/// Reads the common stride/dilation/padding/activation options.
#[derive(Debug)]
pub struct WindowOptions {
    /// SAME or VALID.
    pub padding: Padding,
    /// (h, w)
    pub stride: [usize; 2],
    /// (h, w)
    pub dilation: [usize; 2],
    /// Fused activation.
    pub activation: Activation,
}

#[derive(Debug)]
struct Conv2d {
    input: usize,
    filter: usize,
    bias: Option<usize>,
    output: usize,
    geo: Geometry,
    filter_depth: usize,
    arith: Arith<Requant>,
    /// int8 with constant filters: the bias with the input offset folded in
    /// (what the im2col kernel needs).
    folded_bias: Option<Vec<i32>>,
    /// The filter bytes, for the im2col kernel's repacking.
    weights: Option<Vec<i8>>,
    /// The model stores the filter as int4: the kernels keep it so.
    int4: bool,
}

pub fn lower(cx: &OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error> {
    cx.arity(2, 3, 1)?;
    let opts = cx.options(field::TAG, "Conv2DOptions")?;
    let o = opts.as_ref();
    let wo = WindowOptions {
        padding: Padding::parse(cx, o.map(|o| o.scalar::<i8>(field::PADDING, 0)).transpose()?.unwrap_or(0))?,
        stride: [positive(cx, o, field::STRIDE_H, 0, "stride_h")?, positive(cx, o, field::STRIDE_W, 0, "stride_w")?],
        dilation: [
            positive(cx, o, field::DILATION_H, 1, "dilation_h")?,
            positive(cx, o, field::DILATION_W, 1, "dilation_w")?,
        ],
        activation: Activation::parse(
            cx,
            o.map(|o| o.scalar::<i8>(field::FUSED_ACTIVATION, 0)).transpose()?.unwrap_or(0),
        )?,
    };
    let input = cx.input(0)?;
    let filter = cx.input(1)?;
    let bias = cx.opt_input(2);
    let output = cx.output(0)?;
    cx.activation_tensor(input, "input")?;
    let ishape = cx.nhwc(input, "input")?;
    let [oc, kh, kw, kc] = cx.nhwc(filter, "filter")?;
    if kc == 0 || ishape[3] < kc || ishape[3] % kc != 0 || oc % (ishape[3] / kc) != 0 {
        return Err(cx.err(format!(
            "filter depth {kc} does not divide input depth {} into groups that divide {oc} output channels",
            ishape[3]
        )));
    }
    let geo = Geometry::new(cx, ishape, [kh, kw], oc, wo.stride, wo.dilation, wo.padding, output)?;
    // LiteRT reads uint8 hybrid filters as int8 (their bytes, unshifted).
    if let (DType::F32, DType::I8 | DType::U8, DType::F32) = (input.dtype, filter.dtype, output.dtype) {
        return HybridConv::lower(cx, filter, bias, geo, kc, wo.activation);
    }
    let arith = conv_arith(cx, input, filter, bias, output, oc, wo.activation)?;
    // Folding needs the filter and the bias (if any) in the model.
    let folded_bias = match (&arith, filter.data.as_deref(), bias.map(|b| b.data.as_deref())) {
        (Arith::Int8(q), Some(w), None) => Some(folded_bias(w, None, oc, q.input_offset)),
        (Arith::Int8(q), Some(w), Some(Some(b))) => Some(folded_bias(w, Some(b), oc, q.input_offset)),
        _ => None,
    };
    Ok(Box::new(Conv2d {
        input: input.index,
        filter: filter.index,
        bias: bias.map(|b| b.index),
        output: output.index,
        geo,
        filter_depth: kc,
        arith,
        folded_bias,
        weights: filter.data.as_deref().map(|w| w.iter().map(|&b| b as i8).collect()),
        int4: filter.int4,
    }))
}

impl Conv2d {
    /// A 1x1 window without padding: the im2col kernel reads input pixels
    /// directly and needs no patch.
    fn pointwise(&self) -> bool {
        self.geo.im2col_in_place()
    }

    /// The fused pixel-pair instance of the int8 im2col kernel, by the rule
    /// `conv2d_im2col_s8` follows (`layout::fused_pairs`), over the
    /// pair-row layout, which tells the kernel to take pairs (a whole block
    /// of 4 rows per pass: faster than byte rows at every depth, the input
    /// sums' correction included). int4 rows take none.
    fn pairs(&self, q: &Requant) -> Option<PairKernel> {
        let ([kh, kw], ic) = (self.geo.kernel, self.geo.input[3]);
        let depth = crate::layout::depth4(kh * kw * ic);
        // A filter zero point takes its own kernel, on plain rows.
        let pairs =
            q.fused() && q.weight_offset == 0 && !self.int4 && crate::layout::fused_pairs(depth, self.pointwise(), ic);
        pairs.then_some(PairKernel { depth, lanes: true, nudge: q.nudges() })
    }
}

impl Operator for Conv2d {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        self.emit_window(cx, &self.geo)
    }

    fn pair_kernel(&self, kernel: Kernel) -> Option<PairKernel> {
        match &self.arith {
            Arith::Int8(q) if kernel == Kernel::Im2col && self.weights.is_some() => self.pairs(q),
            _ => None,
        }
    }

    fn window(&self) -> Option<WindowOp> {
        Some(WindowOp { inputs: vec![self.input], output: self.output, geo: self.geo })
    }

    fn emit_window(&self, cx: &mut Emit<'_>, geo: &Geometry) -> Result<TokenStream, Error> {
        let [n, ih, iw, ic] = geo.input;
        let [_, oh, ow, oc] = geo.output;
        let [kh, kw] = geo.kernel;
        let kc = self.filter_depth;
        let io = cx.io(self.input, self.output)?;
        // Emitted only by the kernels that read the filter as the model has
        // it (the repacked ones carry their own copy).
        // An int4 one stays packed.
        let filter = |cx: &mut Emit<'_>| match cx.tensor_data(self.filter) {
            Some(values) if self.int4 => Ok(crate::lowering::weights::int4_filter(cx, values)),
            _ => cx.read(self.filter),
        };
        // The folded int8 kernels carry the bias inside their own table.
        let folded = cx.kernel() == Kernel::Im2col && matches!(self.arith, Arith::Int8(_));
        let bias = if folded { quote!(None) } else { cx.read_opt(self.bias)? };
        let win = geo.window();
        Ok(match &self.arith {
            Arith::Int8(q) if cx.kernel() == Kernel::Im2col => {
                let (Some(folded), Some(weights)) = (self.folded_bias.as_ref(), self.weights.as_ref()) else {
                    return Err(Error::model("internal error: im2col without a folded bias"));
                };
                if q.weight_offset != 0 {
                    // A uint8 model's filter zero point: the window sums'
                    // correction, one pixel at a time.
                    let d4 = crate::layout::depth4(kh * kw * ic);
                    let packed = PackedRows::of(weights, oc, kh * kw * ic, self.int4).emit(cx);
                    let folded = cx.i32s(folded);
                    let (offset, fuse, q) = (q.weight_offset, q.fused(), q.emit_rescale(cx)?);
                    let patch = geo.im2col_patch(cx)?;
                    return Ok(
                        quote!(::tinyaot::__private::kernels::conv::conv2d_im2col_offset_s8::<#n, #ih, #iw, #ic, #oh, #ow, #oc, #kh, #kw, #d4, #fuse, _>(
                        #io, #packed, #folded, #win, #q, #offset, #patch);),
                    );
                }
                // Blocks of rows for the blocked dot products.
                let depth = kh * kw * ic;
                let pairs = self.pairs(q);
                let rows = PackedRows::of(weights, oc, depth, self.int4);
                let rows = if pairs.is_some() { rows.pair_lanes(weights, oc, depth) } else { rows };
                // Skipped where every layer on the same pair instance may.
                let nudge = match pairs {
                    Some(k) => cx.pair_nudge(k.depth, k.lanes, k.nudge),
                    None => q.nudges(),
                };
                let layer = Im2colS8 { geo, ic, rows: rows.emit_by_family(cx), fuse: q.fused(), nudge };
                let folded = cx.i32s(folded);
                let q = q.emit_rescale(cx)?;
                let patch = geo.im2col_patch(cx)?;
                layer.emit(&io, &folded, &q, &patch)
            }
            // 16x8 over the filter as the model stores it.
            Arith::Int16(w) if cx.kernel() == Kernel::Im2col => {
                let (acc, q) = w.emit(cx);
                let filter = cx.read(self.filter)?;
                let patch = if geo.im2col_in_place() { quote!(&mut []) } else { cx.scratch::<i16>()? };
                quote!(::tinyaot::__private::kernels::conv::conv2d_im2col_16x8::<#acc, #n, #ih, #iw, #ic, #oh, #ow, #oc, #kh, #kw, _>(
                    #io, #filter, #bias, #win, #q, #patch);)
            }
            // Ungrouped constant float filter: transposed for side-by-side sums.
            Arith::Float(lo, hi) if kc == ic && cx.tensor_data(self.filter).is_some() => {
                let data = cx.tensor_data(self.filter).unwrap_or_default();
                let f: Vec<f32> = data.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
                let bytes: Vec<u8> =
                    crate::layout::pack_f32_oc(&f, oc, kh * kw, ic).flat_map(f32::to_le_bytes).collect();
                let packed = cx.bytes(&bytes);
                let (lo, hi) = (f32_lit(*lo), f32_lit(*hi));
                quote!(::tinyaot::__private::kernels::conv::conv2d_f32_oc::<#n, #ih, #iw, #ic, #oh, #ow, #oc, #kh, #kw, _>(
                    #io, #packed.cast::<f32>(), #bias, #win, #lo, #hi);)
            }
            arith => {
                let (acc, q) = arith.emit_arithmetic(cx, |q, cx| q.emit_arithmetic(cx));
                let filter = filter(cx)?;
                quote!(::tinyaot::__private::kernels::conv::conv2d::<#acc, _, #n, #ih, #iw, #ic, #oh, #ow, #oc, #kh, #kw, #kc, _>(
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
        self.geo.macs(self.filter_depth)
    }

    /// int8 without groups: the im2col kernel, with a patch of
    /// `KH * KW * IC` bytes (none for a 1x1 window); 16x8 without groups and
    /// int4: its im2col kernel, with a patch of as many int16 values. Costs in
    /// estimated M4 cycles (`lowering::cost`).
    fn variants(&self) -> Vec<Variant> {
        let [n, _, _, ic] = self.geo.input;
        let [_, oh, ow, oc] = self.geo.output;
        let [kh, kw] = self.geo.kernel;
        let pixels = (n * oh * ow) as u64;
        let outputs = pixels * oc as u64;
        let taps = (kh * kw) as u64;
        let direct = cost::conv_direct(outputs, taps, self.filter_depth as u64);
        let mut v = vec![Variant { kernel: Kernel::Direct, scratch: 0, cost: direct }];
        if self.folded_bias.is_some() && self.filter_depth == ic {
            let fused = matches!(&self.arith, Arith::Int8(q) if q.fused());
            let depth = taps * ic as u64;
            let im2col = cost::conv_im2col(outputs, depth, pixels, self.pointwise(), fused);
            let [pad_top, pad_left] = self.geo.pad;
            let scratch = tinyaot_common::scratch::conv_im2col(kh, kw, ic, pad_top != 0 || pad_left != 0);
            v.push(Variant { kernel: Kernel::Im2col, scratch, cost: im2col });
        }
        if matches!(self.arith, Arith::Int16(_)) && !self.int4 && self.filter_depth == ic {
            let [pad_top, pad_left] = self.geo.pad;
            let scratch = tinyaot_common::scratch::conv_im2col_16x8(kh, kw, ic, pad_top != 0 || pad_left != 0);
            let cost = cost::conv_16x8(outputs, taps * ic as u64, pixels, self.pointwise());
            v.push(Variant { kernel: Kernel::Im2col, scratch, cost });
        }
        v
    }
}

/// Hybrid CONV_2D: float32 input and output, constant int8 filter.
#[derive(Debug)]
struct HybridConv {
    input: usize,
    filter: usize,
    bias: Option<usize>,
    output: usize,
    geo: Geometry,
    filter_depth: usize,
    /// LiteRT's per-channel path (`HybridConvPerChannel`: input zero
    /// points, a scale per output channel): weight scales that differ, or
    /// filter groups. Otherwise one scale, symmetric input (`HybridConv`).
    per_channel: bool,
    scales: Vec<f32>,
    range: (f32, f32),
}

impl HybridConv {
    fn lower(
        cx: &OpCx<'_, '_>,
        filter: &Tensor<'_>,
        bias: Option<&Tensor<'_>>,
        geo: Geometry,
        filter_depth: usize,
        activation: Activation,
    ) -> Result<Box<dyn Operator>, Error> {
        let oc = geo.output[3];
        let scales = crate::lowering::hybrid::weight_scales(cx, filter, bias, oc)?;
        let grouped = filter_depth != geo.input[3];
        // LiteRT's per-channel path takes int8 filters only: a uint8 one
        // runs the per-tensor path with its first scale, and with filter
        // groups LiteRT refuses it.
        let uint8 = filter.dtype == DType::U8;
        if uint8 && grouped {
            return Err(
                cx.err("a hybrid uint8 filter with filter groups: LiteRT's grouped path takes int8 filters only")
            );
        }
        let differ = scales.iter().any(|&s| s != scales[0]);
        let per_channel = (differ || grouped) && !uint8;
        if per_channel && scales.len() != oc {
            return Err(cx.err(format!(
                "hybrid filter with {} scales for {oc} output channels (LiteRT reads one per channel {})",
                scales.len(),
                if grouped { "for filter groups" } else { "when they differ" }
            )));
        }
        Ok(Box::new(HybridConv {
            input: cx.input(0)?.index,
            filter: filter.index,
            bias: bias.map(|b| b.index),
            output: cx.output(0)?.index,
            geo,
            filter_depth,
            per_channel,
            scales: if per_channel { scales } else { vec![scales[0]] },
            range: activation.float_range(),
        }))
    }
}

impl Operator for HybridConv {
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        let [n, ih, iw, ic] = self.geo.input;
        let [_, oh, ow, oc] = self.geo.output;
        let [kh, kw] = self.geo.kernel;
        let kc = self.filter_depth;
        let input = cx.read(self.input)?;
        let filter = cx.read_i8(self.filter)?;
        let bias = cx.read_opt(self.bias)?;
        let output = cx.write(self.output)?;
        let win = self.geo.window();
        let scales = cx.f32s(&self.scales);
        let range = crate::lowering::hybrid::emit_range(self.range);
        let per_channel = self.per_channel;
        let q = cx.scratch::<i8>()?;
        Ok(
            quote!(::tinyaot::__private::kernels::hybrid::conv2d_hybrid::<#n, #ih, #iw, #ic, #oh, #ow, #oc, #kh, #kw, #kc, #per_channel>(
            #input, #filter, #bias, #win, #scales, #range, #q, #output);),
        )
    }

    fn macs(&self) -> u64 {
        self.geo.macs(self.filter_depth)
    }

    /// The quantized image lives in scratch.
    fn variants(&self) -> Vec<Variant> {
        let [_, ih, iw, ic] = self.geo.input;
        vec![Variant { kernel: Kernel::Direct, scratch: ih * iw * ic, cost: self.macs() * 4 }]
    }
}
