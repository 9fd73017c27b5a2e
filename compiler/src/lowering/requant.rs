//! Requantization constants computed at compile time: integer ranges, the
//! per-channel multipliers of conv-like ops ([`Requant`] for int8,
//! [`Requant16`] for 16x8, the runtime's types of the same names), bias
//! checks and the bias with the input offset folded in.

use super::context::OpCx;
use super::options::Activation;
use crate::diag::Error;
use crate::graph::{DType, Tensor};
use crate::lowering::emit::Emit;
use proc_macro2::TokenStream;

/// Integer range of a quantized activation type.
pub fn qrange(dtype: DType) -> (i32, i32) {
    match dtype {
        DType::I8 => (i8::MIN as i32, i8::MAX as i32),
        DType::U8 => (0, 255),
        DType::I16 => (i16::MIN as i32, i16::MAX as i32),
        _ => (i32::MIN, i32::MAX),
    }
}

/// Per-channel requantization constants for conv-like ops: the effective
/// scale `input * filter[c] / output` (in double, as TFLM), quantized.
pub fn conv_multipliers(
    cx: &OpCx<'_, '_>,
    input: &Tensor<'_>,
    filter: &Tensor<'_>,
    output: &Tensor<'_>,
    channels: usize,
) -> Result<(Vec<i32>, Vec<i32>), Error> {
    let (in_scale, _) = cx.per_tensor(input)?;
    let (out_scale, _) = cx.per_tensor(output)?;
    let fq = filter
        .quant
        .as_ref()
        .ok_or_else(|| cx.err(format!("filter '{}' has no quantization parameters", filter.name)))?;
    if fq.scales.len() != 1 && fq.scales.len() != channels {
        return Err(cx.err(format!(
            "filter '{}' has {} scales; expected 1 or one per output channel ({channels})",
            filter.name,
            fq.scales.len()
        )));
    }
    // A uint8 model's filter has one zero point (`weight_offset`).
    if fq.zero_points.iter().any(|&z| z != 0) && !(cx.node.from_uint8 && fq.zero_points.len() == 1) {
        return Err(cx.err(format!("filter '{}' must be symmetric (zero point 0)", filter.name)));
    }
    let mut mult = Vec::with_capacity(channels);
    let mut shift = Vec::with_capacity(channels);
    for c in 0..channels {
        let fs = if fq.scales.len() == 1 { fq.scales[0] } else { fq.scales[c] };
        // LiteRT's uint8 layers take the legacy multiplier
        // (`GetQuantizedConvolutionMultipler`): the scales' product in
        // float32, then divided in double. The double rounding of the
        // requantization tells the two apart now and then (MobileNet v1
        // 1.0 224's uint8 pointwise convolutions).
        let eff = if cx.node.from_uint8 {
            f64::from(in_scale * fs) / f64::from(out_scale)
        } else {
            in_scale as f64 * fs as f64 / out_scale as f64
        };
        let (m, s) = crate::quant::quantize_multiplier(eff);
        if s > 30 {
            return Err(cx.err(format!(
                "the effective scale {eff:e} (input x filter / output) of channel {c} is too large to requantize"
            )));
        }
        mult.push(m);
        shift.push(s);
    }
    Ok((mult, shift))
}

/// Checks an optional bias: `dtype`, `channels` elements, constant.
pub fn check_bias(cx: &OpCx<'_, '_>, bias: Option<&Tensor<'_>>, dtype: DType, channels: usize) -> Result<(), Error> {
    if let Some(b) = bias {
        if b.dtype != dtype {
            return Err(cx.unsupported(&format!("a {} bias", b.dtype.name()), &format!("{} bias", dtype.name())));
        }
        if b.elements != channels {
            return Err(cx.err(format!("bias '{}' has {} elements, expected {channels}", b.name, b.elements)));
        }
    }
    Ok(())
}

/// `bias[c] + input_offset * sum(row c of the weights)` for every output
/// channel, wrapping like the int32 accumulator: the input offset folded
/// into the bias, so the inner loop is a plain int8 dot product.
pub fn folded_bias(weights: &[u8], bias: Option<&[u8]>, channels: usize, input_offset: i32) -> Vec<i32> {
    let depth = weights.len() / channels.max(1);
    (0..channels)
        .map(|c| {
            let b = bias.map_or(0, |b| i32::from_le_bytes([b[4 * c], b[4 * c + 1], b[4 * c + 2], b[4 * c + 3]]));
            let sum: i32 = weights[c * depth..(c + 1) * depth].iter().map(|&w| w as i8 as i32).sum();
            b.wrapping_add(input_offset.wrapping_mul(sum))
        })
        .collect()
}

/// Per output channel, the range an int8 conv-like op's sums lie in:
/// `bias -/+ 255 * sum |w - weight_zero_point|` (an input minus its zero
/// point lies in -255..=255). The filter holds each channel's weights
/// together (CONV_2D `[oc, kh, kw, ic]`, FULLY_CONNECTED `[units, depth]`)
/// or channel by channel (DEPTHWISE_CONV_2D `[1, kh, kw, oc]`). `None`
/// unless the filter and the bias are constants.
pub fn sum_ranges(
    filter: &Tensor<'_>,
    weight_zero_point: i32,
    bias: Option<&Tensor<'_>>,
    channels: usize,
) -> Option<Vec<(i64, i64)>> {
    let w = filter.data.as_deref()?;
    let bias = match bias {
        Some(b) => Some(b.data.as_deref()?),
        None => None,
    };
    if channels == 0 || w.len() % channels != 0 || bias.is_some_and(|b| b.len() < 4 * channels) {
        return None;
    }
    let depth = w.len() / channels;
    let grouped = filter.shape.first() == Some(&channels);
    Some(
        (0..channels)
            .map(|c| {
                let b = bias.map_or(0, |b| i32::from_le_bytes([b[4 * c], b[4 * c + 1], b[4 * c + 2], b[4 * c + 3]]));
                let weights: i64 = (0..depth)
                    .map(|k| w[if grouped { c * depth + k } else { k * channels + c }] as i8 as i64)
                    .map(|v| (v - weight_zero_point as i64).abs())
                    .sum();
                (b as i64 - 255 * weights, b as i64 + 255 * weights)
            })
            .collect(),
    )
}

/// The arithmetic of CONV_2D and DEPTHWISE_CONV_2D: int8 with int32 bias
/// and per-channel requantization, or float32 with its clamp.
#[allow(clippy::too_many_arguments)]
pub fn conv_arith(
    cx: &OpCx<'_, '_>,
    input: &Tensor<'_>,
    filter: &Tensor<'_>,
    bias: Option<&Tensor<'_>>,
    output: &Tensor<'_>,
    channels: usize,
    activation: Activation,
) -> Result<Arith<Requant>, Error> {
    match (input.dtype, filter.dtype, output.dtype) {
        (DType::I8, DType::I8, DType::I8) => {
            check_bias(cx, bias, DType::I32, channels)?;
            let mut q = Requant::new(cx, input, filter, output, channels, activation)?;
            if let Some(ranges) = sum_ranges(filter, -q.weight_offset, bias, channels) {
                q.settle_constant_channels(&ranges);
            }
            Ok(Arith::Int8(q))
        }
        (DType::I16, DType::I8, DType::I16) => {
            Ok(Arith::Int16(Requant16::new(cx, input, filter, bias, output, channels, activation)?))
        }
        (DType::F32, DType::F32, DType::F32) => {
            check_bias(cx, bias, DType::F32, channels)?;
            let (lo, hi) = activation.float_range();
            Ok(Arith::Float(lo, hi))
        }
        (DType::F32, DType::I8 | DType::U8, DType::F32) => Err(hybrid_unsupported(cx)),
        (i, f, o) => Err(cx.unsupported(
            &format!("input {}, filter {}, output {}", i.name(), f.name(), o.name()),
            "int8/int8/int8 (int32 bias), int16/int8/int16 (int64 or int32 bias), float32/float32/float32",
        )),
    }
}

/// The int8 requantization constants of a conv-like op (runtime `Requant`).
#[derive(Clone, Debug)]
pub struct Requant {
    /// Negated input zero point.
    pub input_offset: i32,
    /// Output zero point.
    pub output_offset: i32,
    /// Per-channel significands.
    pub multiplier: Vec<i32>,
    /// Per-channel exponents.
    pub shift: Vec<i32>,
    /// Quantized activation range.
    pub act_min: i32,
    /// Upper end.
    pub act_max: i32,
    /// Negated filter zero point: 0 but in a uint8 model
    /// (`lowering::uint8`), whose per-tensor filters are asymmetric; only
    /// the reference kernels take it ([`Requant::emit_arithmetic`]).
    pub weight_offset: i32,
    /// Per channel, the requantized value (before the output offset) of a
    /// channel whose every sum gives the same one and whose scale is
    /// outside the short form (`settle_constant_channels`); empty: none.
    pub constant: Vec<Option<i32>>,
}

impl Requant {
    /// Computes the constants of a conv-like op with `channels` outputs.
    pub fn new(
        cx: &OpCx<'_, '_>,
        input: &Tensor<'_>,
        filter: &Tensor<'_>,
        output: &Tensor<'_>,
        channels: usize,
        activation: Activation,
    ) -> Result<Requant, Error> {
        let (_, in_zp) = cx.per_tensor(input)?;
        let (out_scale, out_zp) = cx.per_tensor(output)?;
        let (multiplier, shift) = conv_multipliers(cx, input, filter, output, channels)?;
        let (qmin, qmax) = qrange(output.dtype);
        let (act_min, act_max) = activation.quant_range(out_scale, out_zp, qmin, qmax);
        let weight_offset = match &filter.quant {
            Some(q) if q.zero_points.len() == 1 => -(q.zero_points[0] as i32),
            _ => 0,
        };
        Ok(Requant {
            input_offset: -in_zp,
            output_offset: out_zp,
            multiplier,
            shift,
            act_min,
            act_max,
            weight_offset,
            constant: Vec::new(),
        })
    }

    /// Channels outside the short form's reach (typically a multiplier so
    /// small that the right shift exceeds `DOWN_MAX_RIGHT`: the dead
    /// channels of trained models, all-zero weights and a huge bias) whose
    /// every possible sum (in `ranges[c]`) requantizes to one value: that
    /// value, so the short form can give it (multiplier 0, the value in its
    /// offset) and the fused kernels take the layer. The requantization is
    /// monotone in the sum, so both ends of the range decide.
    pub fn settle_constant_channels(&mut self, ranges: &[(i64, i64)]) {
        use crate::fixedpoint::{down_scale_of, multiply_by_quantized_multiplier};
        self.constant = self
            .multiplier
            .iter()
            .zip(&self.shift)
            .zip(ranges)
            .map(|((&m, &s), &(lo, hi))| {
                let (Ok(lo), Ok(hi)) = (i32::try_from(lo), i32::try_from(hi)) else { return None };
                // (A left shift may wrap a large sum: not monotone there.)
                let short = s > 0 || down_scale_of(m, s, self.output_offset).is_some();
                let (first, last) =
                    (multiply_by_quantized_multiplier(lo, m, s), multiply_by_quantized_multiplier(hi, m, s));
                (!short && first == last).then_some(first)
            })
            .collect();
    }

    /// `&::tinyaot::__private::kernels::Rescale { .. }`, the fast kernels' form, with
    /// the per-channel scales precomputed: the short form with the output
    /// zero point folded in (`kernels::down_scale_of`) when every channel's
    /// multiplier is below 1/2, else the general one (`kernels::scale_of`).
    pub fn emit_rescale(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error> {
        use crate::fixedpoint::scale_of;
        let pairs = || self.multiplier.iter().zip(&self.shift);
        let (form, scales) = match self.down_scales() {
            Some(down) => (quote::quote!(Down), down),
            None => {
                let any = pairs().map(|(&m, &s)| {
                    scale_of(m, s)
                        .ok_or_else(|| Error::model(format!("internal error: multiplier {m}, shift {s} out of range")))
                });
                (quote::quote!(Any), any.collect::<Result<_, _>>()?)
            }
        };
        let scales = cx.i32s(scales.as_flattened());
        let Requant { input_offset, output_offset, act_min, act_max, .. } = self;
        Ok(quote::quote!(&::tinyaot::__private::kernels::Rescale {
            input_offset: #input_offset,
            output_offset: #output_offset,
            scales: ::tinyaot::__private::kernels::Scales::#form(#scales.as_chunks::<4>().0),
            act_min: #act_min,
            act_max: #act_max,
        }))
    }

    /// Every channel's short-form scale (`kernels::down_scale_of`), if
    /// every channel has one.
    pub fn down_scales(&self) -> Option<Vec<[i32; 4]>> {
        use crate::fixedpoint::down_scale_of;
        let constant = |c: usize| self.constant.get(c).copied().flatten();
        (self.multiplier.iter().zip(&self.shift).enumerate())
            .map(|(c, (&m, &s))| match constant(c) {
                // The constant channel's output, saturated as the int8
                // requantization saturates it.
                Some(v) => down_scale_of(0, -1, self.output_offset.saturating_add(v).clamp(-128, 128)),
                None => down_scale_of(m, s, self.output_offset),
            })
            .collect()
    }

    /// Whether the kernels fuse this requantization into their sums (the
    /// runtime's `dot::fused_scales`): every multiplier in the short form
    /// and an activation range that is the whole int8 range. A constant of
    /// the kernel, so only the path it takes is compiled.
    pub fn fused(&self) -> bool {
        tinyaot_common::requant::fuses(self.act_min, self.act_max, self.down_scales().is_some())
    }

    /// Whether the fused kernels must nudge negative sums' rounding: not
    /// where the output zero point is -128 (the kernels' `NUDGE`), where a
    /// negative sum's output is -128 either way
    /// (`fixedpoint::rescale_down_unnudged`).
    pub fn nudges(&self) -> bool {
        !(self.fused() && self.output_offset == -128)
    }

    /// The runtime `Arithmetic` the reference kernels take: [`Requant::emit`],
    /// wrapped in `WeightOffset` where the filter has a zero point.
    pub fn emit_arithmetic(&self, cx: &mut Emit<'_>) -> TokenStream {
        let q = self.emit(cx);
        match self.weight_offset {
            0 => q,
            offset => quote::quote!(&::tinyaot::__private::kernels::fully_connected::WeightOffset {
                q: #q,
                weight_offset: #offset,
            }),
        }
    }

    /// `&::tinyaot::__private::kernels::Requant { .. }` with the tables in flash.
    pub fn emit(&self, cx: &mut Emit<'_>) -> TokenStream {
        let Requant { input_offset, output_offset, act_min, act_max, .. } = self;
        let m = cx.i32s(&self.multiplier);
        let s = cx.i32s(&self.shift);
        quote::quote!(&::tinyaot::__private::kernels::Requant {
            input_offset: #input_offset,
            output_offset: #output_offset,
            multiplier: #m,
            shift: #s,
            act_min: #act_min,
            act_max: #act_max,
        })
    }
}

/// The arithmetic of an op: int8, 16x8 or float32.
#[derive(Clone, Debug)]
pub enum Arith<Q> {
    /// Quantized int8 with its constants.
    Int8(Q),
    /// int16 activations with int8 weights (conv-like ops only).
    Int16(Requant16),
    /// float32 with its activation clamp.
    Float(f32, f32),
}

impl<Q> Arith<Q> {
    /// `(accumulator type, constants)` of the runtime's `Arithmetic`, the
    /// argument of the reference kernels (`conv2d`, `depthwise`,
    /// `fully_connected`): int8 constants by `int8`, the 16x8 ones as
    /// `Requant16`, float32 as `F32Range`.
    pub fn emit_arithmetic(
        &self,
        cx: &mut Emit<'_>,
        int8: impl FnOnce(&Q, &mut Emit<'_>) -> TokenStream,
    ) -> (TokenStream, TokenStream) {
        match self {
            Arith::Int8(q) => (quote::quote!(i32), int8(q, cx)),
            Arith::Int16(w) => w.emit(cx),
            Arith::Float(lo, hi) => {
                let (lo, hi) = (crate::lowering::emit::f32_lit(*lo), crate::lowering::emit::f32_lit(*hi));
                (quote::quote!(f32), quote::quote!(&::tinyaot::__private::kernels::F32Range { min: #lo, max: #hi }))
            }
        }
    }

    /// Bytes per activation element.
    pub fn elem_bytes(&self) -> usize {
        match self {
            Arith::Int8(_) => 1,
            Arith::Int16(_) => 2,
            Arith::Float(..) => 4,
        }
    }
}

/// The constants of a 16x8 conv-like op (runtime `Requant16`).
#[derive(Clone, Debug)]
pub struct Requant16 {
    /// Per-channel significands.
    pub multiplier: Vec<i32>,
    /// Per-channel exponents.
    pub shift: Vec<i32>,
    /// Quantized activation range.
    pub act_min: i32,
    /// Upper end.
    pub act_max: i32,
    /// Accumulate in 64 bits (int64 bias, TFLite's default) or 32 (int32 bias).
    pub acc64: bool,
}

impl Requant16 {
    /// Checks a 16x8 op and computes its constants.
    pub fn new(
        cx: &OpCx<'_, '_>,
        input: &Tensor<'_>,
        filter: &Tensor<'_>,
        bias: Option<&Tensor<'_>>,
        output: &Tensor<'_>,
        channels: usize,
        activation: Activation,
    ) -> Result<Requant16, Error> {
        let (_, zi) = cx.per_tensor(input)?;
        let (so, zo) = cx.per_tensor(output)?;
        if zi != 0 || zo != 0 {
            return Err(cx.err("int16 activations must be symmetric (zero point 0), as TFLite requires"));
        }
        let acc64 = match bias.map(|b| b.dtype) {
            None | Some(DType::I64) => true,
            Some(DType::I32) => false,
            Some(d) => {
                return Err(
                    cx.unsupported(&format!("a {} bias with int16 activations", d.name()), "int64 or int32 bias")
                );
            }
        };
        check_bias(cx, bias, if acc64 { DType::I64 } else { DType::I32 }, channels)?;
        let (multiplier, shift) = conv_multipliers(cx, input, filter, output, channels)?;
        if acc64 && shift.iter().any(|&s| s >= 8) {
            return Err(cx.err("an effective scale is too large for TFLite's 64-bit requantization (shift >= 8)"));
        }
        let (act_min, act_max) = activation.quant_range(so, 0, i16::MIN as i32, i16::MAX as i32);
        Ok(Requant16 { multiplier, shift, act_min, act_max, acc64 })
    }

    /// `(accumulator type, &Requant16 { .. })` tokens.
    /// With int64 sums the constants of TFLite's 64-bit rescale, folded
    /// (the runtime's `Requant16` says so).
    pub fn emit(&self, cx: &mut Emit<'_>) -> (TokenStream, TokenStream) {
        let (m, s): (Vec<i32>, Vec<i32>) = if self.acc64 {
            let reduce = |(&m, &s)| tinyaot_common::fixedpoint::reduce_multiplier_i64(m, s);
            self.multiplier.iter().zip(&self.shift).map(reduce).unzip()
        } else {
            (self.multiplier.clone(), self.shift.clone())
        };
        let (m, s) = (cx.i32s(&m), cx.i32s(&s));
        let (lo, hi) = (self.act_min, self.act_max);
        let acc = if self.acc64 { quote::quote!(i64) } else { quote::quote!(i32) };
        (
            acc,
            quote::quote!(&::tinyaot::__private::kernels::int16::Requant16 { multiplier: #m, shift: #s, act_min: #lo, act_max: #hi }),
        )
    }
}

/// The int8 rescaling of TFLite's running sums, ADD_N and CUMSUM (every
/// input of one scale): each value rescaled as ADD does (a 20-bit headroom
/// shift, the multiplier 1/2 exactly), the sum rescaled to the output once.
#[derive(Clone, Copy, Debug)]
pub struct SumRescale {
    input_offset: i32,
    output_offset: i32,
    multiplier: i32,
    shift: i32,
}

impl SumRescale {
    /// TFLM's `kAddNIntegerShift` and `kCumSumIntegerShift`.
    const LEFT_SHIFT: i32 = 20;

    /// The constants for int8 `input` (the scale every summed value has)
    /// into `output`.
    pub fn new(cx: &OpCx<'_, '_>, input: &Tensor<'_>, output: &Tensor<'_>) -> Result<SumRescale, Error> {
        let (scale, zero_point) = cx.per_tensor(input)?;
        let (out_scale, output_offset) = cx.per_tensor(output)?;
        let real = 2.0 * scale as f64 / ((1i64 << Self::LEFT_SHIFT) as f64 * out_scale as f64);
        let (multiplier, shift) = crate::quant::quantize_multiplier_smaller_than_one(real).ok_or_else(|| {
            cx.err("the input/output scales need an output multiplier of one or more, which TFLM rejects")
        })?;
        Ok(SumRescale { input_offset: -zero_point, output_offset, multiplier, shift })
    }

    /// A block declaring `const Q: AddQuant` (input 1 only) around `body`,
    /// which sums `Q.rescaled1(x)` from `Q.rescaled1(0)` (TFLite's sums
    /// start from a rescaled zero input) and finishes with
    /// `Q.add_rescaled(sum, 0)`.
    pub fn emit_with(&self, body: TokenStream) -> TokenStream {
        let SumRescale { input_offset, output_offset, multiplier, shift } = *self;
        let left_shift = Self::LEFT_SHIFT;
        quote::quote!({
            const Q: ::tinyaot::__private::kernels::binary::AddQuant = ::tinyaot::__private::kernels::binary::AddQuant {
                input1_offset: #input_offset, input2_offset: 0, output_offset: #output_offset,
                left_shift: #left_shift, input1_multiplier: 1 << 30, input1_shift: 0,
                input2_multiplier: 0, input2_shift: 0, output_multiplier: #multiplier, output_shift: #shift,
                act_min: -128, act_max: 127,
            };
            #body
        })
    }
}

/// The error for a hybrid layer tinyaot does not run: float32 activations
/// with integer weights, which TFLM refuses too.
pub fn hybrid_unsupported(cx: &OpCx<'_, '_>) -> Error {
    cx.err(
        "float32 activations with integer weights: a hybrid (dynamic-range) model, which TFLM does not run \
         either (\"Hybrid models are not supported on TFLite Micro\"); tinyaot runs hybrid \
         FULLY_CONNECTED, CONV_2D, DEPTHWISE_CONV_2D, BATCH_MATMUL, SVDF and UNIDIRECTIONAL_SEQUENCE_LSTM with int8 \
         weights (uint8 too in \
         FULLY_CONNECTED and CONV_2D, as LiteRT), not this layer: convert \
         with full-integer quantization (a representative dataset and int8 inputs/outputs) or keep the \
         weights float32",
    )
}
