//! One random-model generator per operator: shapes (1s and odd sizes
//! included), every option, every dtype tinyaot supports for it, and
//! quantization from tiny to large scales with zero points at the ends of
//! their range. Builtin codes, option tables and field ids follow the TFLite
//! schema.

use crate::{Builder, Model, Rng, Ty};
use tinyaot_tests::writer::{Flex, OpDef, QuantDef, Scalar, TensorDef, dtype, flexbuffer_map};

/// A generator: a random model and a label of what it drew.
pub type Generator = fn(&mut Rng) -> (Model, String);

/// Every generator, by operator name.
pub const GENERATORS: &[(&str, Generator)] = &[
    ("CONV_2D", |r| conv_2d(r, false)),
    ("CONV_2D_WIDE", |r| conv_2d(r, true)),
    ("CONV_2D_HYBRID", conv_2d_hybrid),
    ("TILE", tile),
    ("GELU", gelu),
    ("DEPTHWISE_CONV_2D_HYBRID", depthwise_conv_2d_hybrid),
    ("DEPTHWISE_CONV_2D", depthwise_conv_2d),
    ("FULLY_CONNECTED", fully_connected),
    ("FULLY_CONNECTED_HYBRID", fully_connected_hybrid),
    ("AVERAGE_POOL_2D", |r| pool_2d(r, 1, "AVERAGE_POOL_2D")),
    ("MAX_POOL_2D", |r| pool_2d(r, 17, "MAX_POOL_2D")),
    ("ADD", |r| binary(r, 0, 11)),
    ("SUB", |r| binary(r, 41, 28)),
    ("MUL", |r| binary(r, 18, 21)),
    ("SOFTMAX", softmax),
    ("LOGISTIC", |r| unary(r, Unary::Logistic)),
    ("TANH", |r| unary(r, Unary::Tanh)),
    ("RELU", |r| unary(r, Unary::Relu)),
    ("RELU6", |r| unary(r, Unary::Relu6)),
    ("LEAKY_RELU", |r| unary(r, Unary::LeakyRelu)),
    ("HARD_SWISH", |r| unary(r, Unary::HardSwish)),
    ("QUANTIZE", quantize),
    ("DEQUANTIZE", dequantize),
    ("MEAN", mean),
    ("CONCATENATION", concatenation),
    ("PAD", pad),
    ("MAXIMUM", |r| binary(r, 55, 39)),
    ("MINIMUM", |r| binary(r, 57, 39)),
    ("SQUARED_DIFFERENCE", |r| binary(r, 99, 0)),
    ("DIV", |r| binary(r, 42, 29)),
    ("ABS", |r| unary(r, Unary::Abs)),
    ("NEG", |r| unary(r, Unary::Neg)),
    ("RSQRT", |r| unary(r, Unary::Rsqrt)),
    ("ELU", |r| unary(r, Unary::Elu)),
    ("FLOAT_MATH", float_math),
    ("SUM", |r| reduce(r, 74, "SUM")),
    ("REDUCE_MAX", |r| reduce(r, 82, "REDUCE_MAX")),
    ("REDUCE_MIN", |r| reduce(r, 89, "REDUCE_MIN")),
    ("ARG_MAX", |r| arg_min_max(r, 56, 40)),
    ("ARG_MIN", |r| arg_min_max(r, 79, 57)),
    ("TRANSPOSE", transpose),
    ("RESHAPE", reshape),
    ("SPACE_TO_DEPTH", |r| space_depth(r, 26, 19)),
    ("DEPTH_TO_SPACE", |r| space_depth(r, 5, 94)),
    ("RESIZE_NEAREST_NEIGHBOR", |r| resize(r, 97, 74)),
    ("RESIZE_BILINEAR", |r| resize(r, 23, 15)),
    ("GATHER", gather),
    ("STRIDED_SLICE", strided_slice),
    ("SLICE", slice),
    ("SPLIT", split),
    ("PACK", pack),
    ("TRANSPOSE_CONV", transpose_conv),
    ("PRELU", prelu),
    ("CAST", cast),
    ("SPLIT_V", split_v),
    ("UNPACK", unpack),
    ("PADV2", padv2),
    ("SQUEEZE", squeeze),
    ("EXPAND_DIMS", expand_dims),
    ("CHAIN", crate::chains::chain),
    ("CHAIN", crate::chains::chain),
    ("CHAIN", crate::chains::chain),
    ("SVDF", svdf),
    ("UNIDIRECTIONAL_SEQUENCE_LSTM", lstm),
    ("REVERSE_V2", reverse_v2),
    ("MIRROR_PAD", mirror_pad),
    ("SPACE_TO_BATCH_ND", |r| space_batch(r, true)),
    ("BATCH_TO_SPACE_ND", |r| space_batch(r, false)),
    ("BROADCAST_TO", broadcast_to),
    ("FILL", fill),
    ("ZEROS_LIKE", zeros_like),
    ("EQUAL", |r| comparison(r, 71)),
    ("NOT_EQUAL", |r| comparison(r, 72)),
    ("GREATER", |r| comparison(r, 61)),
    ("GREATER_EQUAL", |r| comparison(r, 62)),
    ("LESS", |r| comparison(r, 58)),
    ("LESS_EQUAL", |r| comparison(r, 63)),
    ("LOGICAL_AND", |r| logical(r, 86)),
    ("LOGICAL_OR", |r| logical(r, 84)),
    ("LOGICAL_NOT", logical_not),
    ("SELECT_V2", select_v2),
    ("REDUCE_ALL", reduce_all),
    ("FLOOR_DIV", |r| floor_binary(r, 90)),
    ("FLOOR_MOD", |r| floor_binary(r, 95)),
    ("L2_POOL_2D", |r| pool_2d(r, 12, "L2_POOL_2D")),
    ("SHAPE", shape),
    ("GATHER_ND", gather_nd),
    ("BATCH_MATMUL", batch_matmul),
    ("BATCH_MATMUL_HYBRID", batch_matmul_hybrid),
    ("SVDF_HYBRID", svdf_hybrid),
    ("LSTM_HYBRID", lstm_hybrid),
    ("DYNAMIC_UPDATE_SLICE", dynamic_update_slice),
    ("EMBEDDING_LOOKUP", embedding_lookup),
    ("ADD_N", add_n),
    ("CUMSUM", cumsum),
    ("L2_NORMALIZATION", l2_normalization),
    ("LOG_SOFTMAX", log_softmax),
    ("BROADCAST_ARGS", broadcast_args),
    ("FLOAT16_WEIGHTS", float16_weights),
    ("CHAIN_MASKS", crate::chains::chain_with_masks),
    ("CHAIN_MASKS", crate::chains::chain_with_masks),
    ("UINT8", uint8),
    ("RESOURCE_VARIABLES", crate::variables::resource_variables),
    ("RESOURCE_VARIABLES", crate::variables::resource_variables),
    ("CONTROL_FLOW", crate::control::control_flow),
    ("CONTROL_FLOW", crate::control::control_flow),
    ("SIGNAL_WINDOW", signal_window),
    ("SIGNAL_FFT_AUTO_SCALE", signal_fft_auto_scale),
    ("SIGNAL_ENERGY", signal_energy),
    ("SIGNAL_FILTER_BANK_SQUARE_ROOT", signal_filter_bank_square_root),
    ("SIGNAL_FILTER_BANK_LOG", signal_filter_bank_log),
    ("SIGNAL_FILTER_BANK", signal_filter_bank),
    ("SIGNAL_PCAN", signal_pcan),
    ("SIGNAL_SPECTRAL_SUBTRACTION", signal_spectral_subtraction),
    ("INTEGER_BINARY", integer_binary),
    ("SIGNAL_RFFT", signal_rfft),
    ("INT4_WEIGHTS", int4_weights),
    ("DEAD_CHANNELS", dead_channels),
    ("DETECTION_POSTPROCESS", detection_postprocess),
    ("SIGNAL_IRFFT", signal_irfft),
    ("SIGNAL_DELAY", signal_delay),
    ("CIRCULAR_BUFFER", circular_buffer),
    ("SIGNAL_FRAMER", signal_framer),
    ("SIGNAL_STACKER", signal_stacker),
    ("SIGNAL_OVERLAP_ADD", signal_overlap_add),
    ("DECODE", decode),
    ("WINDOW_CHAIN", crate::chains::window_chain),
    ("WINDOW_CHAIN", crate::chains::window_chain),
];

// Builtin option union tags (schema `BuiltinOptions`).
const CONV_2D_OPTIONS: u8 = 1;
const DEPTHWISE_OPTIONS: u8 = 2;
const POOL_2D_OPTIONS: u8 = 5;
const FULLY_CONNECTED_OPTIONS: u8 = 8;
const SOFTMAX_OPTIONS: u8 = 9;
const CONCATENATION_OPTIONS: u8 = 10;
const REDUCER_OPTIONS: u8 = 27;
const LEAKY_RELU_OPTIONS: u8 = 75;
const BATCH_MATMUL_OPTIONS: u8 = 101;
const CUMSUM_OPTIONS: u8 = 102;

pub(crate) fn per_tensor(scale: f32, zero_point: i64) -> Option<QuantDef> {
    QuantDef::per_tensor(scale, zero_point)
}

/// Quantization of an activation of type `ty`: int8 any zero point, int16
/// symmetric (TFLM's rule for 16-bit activations); `None` for float.
pub(crate) fn activation_quant(r: &mut Rng, ty: Ty, lo: f64, hi: f64) -> Option<QuantDef> {
    match ty {
        Ty::I8 => per_tensor(r.log_uniform(lo, hi), r.zero_point(-128, 127)),
        Ty::I16 => per_tensor(r.log_uniform(lo / 64.0, hi / 64.0), 0),
        _ => None,
    }
}

pub(crate) fn scale_of(q: &Option<QuantDef>) -> f64 {
    q.as_ref().map_or(1.0, |q| f64::from(q.scale[0]))
}

/// The output quantization for values of typical size `real`: a scale that
/// puts them at a random fraction of the type's range (saturating now and
/// then, as real layers do).
pub(crate) fn output_quant(r: &mut Rng, ty: Ty, real: f64) -> Option<QuantDef> {
    let spread = r.log_uniform(0.05, 3.0) as f64;
    match ty {
        Ty::I8 => per_tensor((real / (40.0 * spread)).max(1e-9) as f32, r.zero_point(-128, 127)),
        Ty::I16 => per_tensor((real / (8000.0 * spread)).max(1e-12) as f32, 0),
        _ => None,
    }
}

/// A fused activation: NONE, RELU, RELU_N1_TO_1, RELU6.
pub(crate) fn activation(r: &mut Rng) -> i8 {
    r.pick(&[0, 0, 1, 2, 3])
}

fn act_name(a: i8) -> &'static str {
    ["none", "relu", "relu_n1_to_1", "relu6"][a as usize]
}

/// SAME (0) or VALID (1) output size of a window.
pub(crate) fn out_size(padding: i8, input: usize, kernel: usize, stride: usize, dilation: usize) -> Option<usize> {
    let effective = (kernel - 1) * dilation + 1;
    match padding {
        0 => Some(input.div_ceil(stride)),
        _ => (input >= effective).then(|| (input - effective) / stride + 1),
    }
}

/// int8 weights (symmetric) with one scale or one per channel along `axis`.
pub(crate) fn weights_i8(
    r: &mut Rng,
    n: usize,
    channels: usize,
    axis: i32,
    per_channel: bool,
) -> (Vec<u8>, Option<QuantDef>, Vec<f64>) {
    let bytes: Vec<u8> = (0..n).map(|_| r.range(-127, 127) as i8 as u8).collect();
    let count = if per_channel { channels } else { 1 };
    let scales: Vec<f32> = (0..count).map(|_| r.log_uniform(1e-4, 0.1)).collect();
    let per_channel_scales = (0..channels).map(|c| f64::from(scales[if per_channel { c } else { 0 }])).collect();
    (bytes, Some(QuantDef { scale: scales, zero_point: vec![0; count], axis }), per_channel_scales)
}

pub(crate) fn floats(r: &mut Rng, n: usize, amplitude: f64) -> Vec<u8> {
    (0..n).flat_map(|_| (((r.unit() * 2.0 - 1.0) * amplitude) as f32).to_le_bytes()).collect()
}

/// A constant weight tensor of `shape` with `channels` output channels
/// along `axis`: float32 in `[-amplitude, amplitude)`, or int8 (one scale
/// or one per channel). Returns the tensor and each channel's scale.
#[allow(clippy::too_many_arguments)]
pub(crate) fn weights(
    b: &mut Builder,
    r: &mut Rng,
    ty: Ty,
    name: &str,
    shape: &[usize],
    (channels, axis): (usize, i32),
    per_channel: bool,
    amplitude: f64,
) -> (i32, Vec<f64>) {
    let n = shape.iter().product();
    if ty == Ty::F32 {
        (b.constant(name, shape, Ty::F32, floats(r, n, amplitude), None), vec![1.0; channels])
    } else {
        let (bytes, q, scales) = weights_i8(r, n, channels, axis, per_channel);
        (b.constant(name, shape, Ty::I8, bytes, q), scales)
    }
}

/// The bias of a quantized conv-like layer: int32 for int8, int64 for
/// 16x8, scale `input * weight` per channel.
pub(crate) fn bias(b: &mut Builder, r: &mut Rng, ty: Ty, channels: usize, in_scale: f64, w_scales: &[f64]) -> i32 {
    let scales: Vec<f32> = w_scales.iter().map(|&w| (in_scale * w) as f32).collect();
    let q = Some(QuantDef { scale: scales, zero_point: vec![0; channels], axis: 0 });
    let magnitude = r.pick(&[0i64, 100, 5000, 1 << 20]);
    let values: Vec<i64> = (0..channels).map(|_| r.range(-magnitude, magnitude)).collect();
    match ty {
        Ty::I16 => b.constant("bias", &[channels], Ty::I64, values.iter().flat_map(|v| v.to_le_bytes()).collect(), q),
        Ty::F32 => b.constant("bias", &[channels], Ty::F32, floats(r, channels, 1.0), None),
        _ => {
            b.constant("bias", &[channels], Ty::I32, values.iter().flat_map(|&v| (v as i32).to_le_bytes()).collect(), q)
        }
    }
}

/// Typical magnitude of a dot product of `depth` terms.
pub(crate) fn dot_magnitude(ty: Ty, in_scale: f64, w_scale: f64, depth: usize) -> f64 {
    let (x, w) = match ty {
        Ty::F32 => (1.2, 0.6),
        Ty::I16 => (19000.0 * in_scale, 73.0 * w_scale),
        _ => (74.0 * in_scale, 73.0 * w_scale),
    };
    x * w * (depth as f64).sqrt()
}

fn conv_like_ty(r: &mut Rng) -> Ty {
    r.pick(&[Ty::I8, Ty::I8, Ty::I8, Ty::F32, Ty::I16])
}

/// Conv2DOptions: padding, strides (h, w), activation, dilations (h, w).
fn conv_options(padding: i8, [sh, sw]: [usize; 2], act: i8, [dh, dw]: [usize; 2]) -> Vec<(u16, Scalar)> {
    vec![
        (0, Scalar::I8(padding)),
        (1, Scalar::I32(sw as i32)),
        (2, Scalar::I32(sh as i32)),
        (3, Scalar::I8(act)),
        (4, Scalar::I32(dw as i32)),
        (5, Scalar::I32(dh as i32)),
    ]
}

/// DepthwiseConv2DOptions: [`conv_options`] with the depth multiplier.
fn depthwise_options(
    padding: i8,
    [sh, sw]: [usize; 2],
    multiplier: usize,
    act: i8,
    [dh, dw]: [usize; 2],
) -> Vec<(u16, Scalar)> {
    vec![
        (0, Scalar::I8(padding)),
        (1, Scalar::I32(sw as i32)),
        (2, Scalar::I32(sh as i32)),
        (3, Scalar::I32(multiplier as i32)),
        (4, Scalar::I8(act)),
        (5, Scalar::I32(dw as i32)),
        (6, Scalar::I32(dh as i32)),
    ]
}

/// `wide`: many channels and long rows (int8 mostly, 1x1 half the time),
/// the shapes the DSP cores' two-pixel paths take (`DOT_PAIRS`), odd pixel
/// and channel counts included.
fn conv_2d(r: &mut Rng, wide: bool) -> (Model, String) {
    let ty = if wide { r.pick(&[Ty::I8, Ty::I8, Ty::I8, Ty::I16]) } else { conv_like_ty(r) };
    let (h, w) = if wide { (r.size(1, 7), r.size(1, 7)) } else { (r.size(1, 11), r.size(1, 11)) };
    let groups = if wide { 1 } else { r.pick(&[1, 1, 1, 2, 3]) };
    let group_channels = if wide { r.size(4, 72) } else { r.size(1, 4) };
    let c = groups * group_channels;
    let oc = groups * if wide { r.size(1, 100) } else { r.size(1, 4) };
    let (kh, kw) = if wide && r.chance(0.5) { (1, 1) } else { (r.size(1, 4), r.size(1, 4)) };
    let (sh, sw) = (r.size(1, 3), r.size(1, 3));
    let (dh, dw) = if r.chance(0.25) { (r.size(1, 3), r.size(1, 3)) } else { (1, 1) };
    let mut padding = r.pick(&[0i8, 1]);
    let (mut oh, mut ow) = (out_size(padding, h, kh, sh, dh), out_size(padding, w, kw, sw, dw));
    if oh.is_none() || ow.is_none() {
        padding = 0;
        (oh, ow) = (out_size(0, h, kh, sh, dh), out_size(0, w, kw, sw, dw));
    }
    let (oh, ow) = (oh.unwrap(), ow.unwrap());
    let act = activation(r);
    let per_channel = ty != Ty::F32 && r.chance(0.7);
    let mut b = Builder::default();
    let in_q = activation_quant(r, ty, 1e-3, 0.5);
    let input = b.input("input", &[1, h, w, c], ty, in_q.clone());
    let depth = kh * kw * group_channels;
    let (filter, w_scales) = weights(&mut b, r, ty, "filter", &[oc, kh, kw, group_channels], (oc, 0), per_channel, 1.0);
    let with_bias = r.chance(0.8);
    let bias = if with_bias { bias(&mut b, r, ty, oc, scale_of(&in_q), &w_scales) } else { -1 };
    let out_q = output_quant(r, ty, dot_magnitude(ty, scale_of(&in_q), w_scales[0], depth));
    let output = b.output("output", &[1, oh, ow, oc], ty, out_q);
    let options = conv_options(padding, [sh, sw], act, [dh, dw]);
    let label = format!(
        "{} {h}x{w}x{c} -> {oc}, {kh}x{kw} stride {sh}x{sw} dilation {dh}x{dw} {} {} groups {groups}{}{}",
        ty.name(),
        ["SAME", "VALID"][padding as usize],
        act_name(act),
        if per_channel { " per-channel" } else { "" },
        if with_bias { "" } else { " no bias" },
    );
    (b.finish(3, &[input, filter, bias], &[output], Some((CONV_2D_OPTIONS, options))), label)
}

/// Hybrid (dynamic-range) CONV_2D: float32 input and output, constant int8
/// filter with one scale, per-channel scales or filter groups (LiteRT's two
/// paths), float32 bias. Answered by LiteRT's reference kernels.
fn conv_2d_hybrid(r: &mut Rng) -> (Model, String) {
    let (h, w) = (r.size(1, 9), r.size(1, 9));
    let groups = r.pick(&[1, 1, 1, 2]);
    let group_channels = r.size(1, 6);
    let c = groups * group_channels;
    let oc = groups * r.size(1, 5);
    let (kh, kw) = (r.size(1, 3), r.size(1, 3));
    let (sh, sw) = (r.size(1, 2), r.size(1, 2));
    let (dh, dw) = if r.chance(0.2) { (r.size(1, 2), r.size(1, 2)) } else { (1, 1) };
    let mut padding = r.pick(&[0i8, 1]);
    if out_size(padding, h, kh, sh, dh).is_none() || out_size(padding, w, kw, sw, dw).is_none() {
        padding = 0;
    }
    let (Some(oh), Some(ow)) = (out_size(padding, h, kh, sh, dh), out_size(padding, w, kw, sw, dw)) else {
        return conv_2d_hybrid(r);
    };
    let act = activation(r);
    let per_channel = groups > 1 || r.chance(0.5);
    let batches = r.pick(&[1, 1, 2]);
    let mut b = Builder::default();
    let input = b.input("input", &[batches, h, w, c], Ty::F32, None);
    let (filter, _) = weights(&mut b, r, Ty::I8, "filter", &[oc, kh, kw, group_channels], (oc, 0), per_channel, 1.0);
    let bias = bias(&mut b, r, Ty::F32, oc, 1.0, &[]);
    let output = b.output("output", &[batches, oh, ow, oc], Ty::F32, None);
    let options = conv_options(padding, [sh, sw], act, [dh, dw]);
    let label = format!(
        "{batches}x{h}x{w}x{c} -> {oc}, {kh}x{kw} stride {sh}x{sw} dilation {dh}x{dw} {} {} groups {groups}{}",
        ["SAME", "VALID"][padding as usize],
        act_name(act),
        if per_channel { " per-channel" } else { "" },
    );
    let mut m = b.finish(3, &[input, filter, bias], &[output], Some((CONV_2D_OPTIONS, options)));
    m.litert = true;
    let label = uint8_weights(r, &mut m, filter, label);
    (m, label)
}

fn depthwise_conv_2d(r: &mut Rng) -> (Model, String) {
    let ty = conv_like_ty(r);
    let (h, w) = (r.size(1, 11), r.size(1, 11));
    let c = r.size(1, 8);
    let multiplier = r.pick(&[1, 1, 1, 2, 3]);
    let oc = c * multiplier;
    let (kh, kw) = (r.size(1, 5), r.size(1, 5));
    let (sh, sw) = (r.size(1, 3), r.size(1, 3));
    let (dh, dw) = if r.chance(0.25) { (r.size(1, 3), r.size(1, 3)) } else { (1, 1) };
    let mut padding = r.pick(&[0i8, 1]);
    if out_size(padding, h, kh, sh, dh).is_none() || out_size(padding, w, kw, sw, dw).is_none() {
        padding = 0;
    }
    let oh = out_size(padding, h, kh, sh, dh).unwrap();
    let ow = out_size(padding, w, kw, sw, dw).unwrap();
    let act = activation(r);
    let per_channel = ty != Ty::F32 && r.chance(0.7);
    let mut b = Builder::default();
    let in_q = activation_quant(r, ty, 1e-3, 0.5);
    let input = b.input("input", &[1, h, w, c], ty, in_q.clone());
    let (filter, w_scales) = weights(&mut b, r, ty, "filter", &[1, kh, kw, oc], (oc, 3), per_channel, 1.0);
    // TFLM's depthwise kernels read the bias unconditionally: an omitted
    // one crashes the interpreter (float too), so TFLM cannot judge it.
    let bias = bias(&mut b, r, ty, oc, scale_of(&in_q), &w_scales);
    let out_q = output_quant(r, ty, dot_magnitude(ty, scale_of(&in_q), w_scales[0], kh * kw));
    let output = b.output("output", &[1, oh, ow, oc], ty, out_q);
    let options = depthwise_options(padding, [sh, sw], multiplier, act, [dh, dw]);
    let label = format!(
        "{} {h}x{w}x{c} x{multiplier}, {kh}x{kw} stride {sh}x{sw} dilation {dh}x{dw} {} {}{}",
        ty.name(),
        ["SAME", "VALID"][padding as usize],
        act_name(act),
        if per_channel { " per-channel" } else { "" },
    );
    (b.finish(4, &[input, filter, bias], &[output], Some((DEPTHWISE_OPTIONS, options))), label)
}

/// Hybrid (dynamic-range) DEPTHWISE_CONV_2D: float32 input and output,
/// constant int8 filter with a scale per output channel (what LiteRT
/// reads), float32 bias, batch 1 or 2. Answered by LiteRT's reference
/// kernels.
fn depthwise_conv_2d_hybrid(r: &mut Rng) -> (Model, String) {
    let (h, w) = (r.size(1, 9), r.size(1, 9));
    let c = r.size(1, 6);
    let multiplier = r.pick(&[1, 1, 2, 3]);
    let oc = c * multiplier;
    let (kh, kw) = (r.size(1, 4), r.size(1, 4));
    let (sh, sw) = (r.size(1, 2), r.size(1, 2));
    let (dh, dw) = if r.chance(0.2) { (r.size(1, 2), r.size(1, 2)) } else { (1, 1) };
    let mut padding = r.pick(&[0i8, 1]);
    if out_size(padding, h, kh, sh, dh).is_none() || out_size(padding, w, kw, sw, dw).is_none() {
        padding = 0;
    }
    let (Some(oh), Some(ow)) = (out_size(padding, h, kh, sh, dh), out_size(padding, w, kw, sw, dw)) else {
        return depthwise_conv_2d_hybrid(r);
    };
    let act = activation(r);
    let batches = r.pick(&[1, 1, 2]);
    let mut b = Builder::default();
    let input = b.input("input", &[batches, h, w, c], Ty::F32, None);
    let (filter, _) = weights(&mut b, r, Ty::I8, "filter", &[1, kh, kw, oc], (oc, 3), true, 1.0);
    let bias = bias(&mut b, r, Ty::F32, oc, 1.0, &[]);
    let output = b.output("output", &[batches, oh, ow, oc], Ty::F32, None);
    let options = depthwise_options(padding, [sh, sw], multiplier, act, [dh, dw]);
    let label = format!(
        "{batches}x{h}x{w}x{c} x{multiplier}, {kh}x{kw} stride {sh}x{sw} dilation {dh}x{dw} {} {}",
        ["SAME", "VALID"][padding as usize],
        act_name(act),
    );
    let mut m = b.finish(4, &[input, filter, bias], &[output], Some((DEPTHWISE_OPTIONS, options)));
    m.litert = true;
    (m, label)
}

fn fully_connected(r: &mut Rng) -> (Model, String) {
    let ty = conv_like_ty(r);
    let depth = r.size(1, 40);
    let units = r.size(1, 20);
    let keep_dims = r.chance(0.3);
    let in_shape: Vec<usize> = if keep_dims { vec![1, r.size(1, 4), depth] } else { vec![r.size(1, 3), depth] };
    let rows: usize = in_shape[..in_shape.len() - 1].iter().product();
    let out_shape: Vec<usize> = if keep_dims { vec![1, in_shape[1], units] } else { vec![rows, units] };
    let act = activation(r);
    let per_channel = ty == Ty::I8 && r.chance(0.3);
    let mut b = Builder::default();
    let in_q = activation_quant(r, ty, 1e-3, 0.5);
    let input = b.input("input", &in_shape, ty, in_q.clone());
    let (weights, w_scales) = weights(&mut b, r, ty, "weights", &[units, depth], (units, 0), per_channel, 1.0);
    let with_bias = r.chance(0.8);
    let bias = if with_bias { bias(&mut b, r, ty, units, scale_of(&in_q), &w_scales) } else { -1 };
    let out_q = output_quant(r, ty, dot_magnitude(ty, scale_of(&in_q), w_scales[0], depth));
    let output = b.output("output", &out_shape, ty, out_q);
    let options = vec![(0, Scalar::I8(act)), (2, Scalar::Bool(keep_dims))];
    let label = format!(
        "{} {in_shape:?} -> {units} {}{}{}{}",
        ty.name(),
        act_name(act),
        if keep_dims { " keep_num_dims" } else { "" },
        if per_channel { " per-channel" } else { "" },
        if with_bias { "" } else { " no bias" },
    );
    (b.finish(9, &[input, weights, bias], &[output], Some((FULLY_CONNECTED_OPTIONS, options))), label)
}

/// Hybrid (dynamic-range) FULLY_CONNECTED: float32 input and output,
/// constant int8 weights with a per-tensor or per-channel scale, float32
/// bias or none, inputs quantized symmetrically or not
/// (`asymmetric_quantize_inputs`). TFLM does not run these: LiteRT's
/// reference kernels answer (float32 within 1e-5).
fn fully_connected_hybrid(r: &mut Rng) -> (Model, String) {
    let depth = r.size(1, 48);
    let units = r.size(1, 20);
    let keep_dims = r.chance(0.3);
    let in_shape: Vec<usize> = if keep_dims { vec![1, r.size(1, 4), depth] } else { vec![r.size(1, 3), depth] };
    let rows: usize = in_shape[..in_shape.len() - 1].iter().product();
    let out_shape: Vec<usize> = if keep_dims { vec![1, in_shape[1], units] } else { vec![rows, units] };
    let act = activation(r);
    let per_channel = r.chance(0.4);
    let asymmetric = r.chance(0.5);
    let mut b = Builder::default();
    let input = b.input("input", &in_shape, Ty::F32, None);
    let (weights, _) = weights(&mut b, r, Ty::I8, "weights", &[units, depth], (units, 0), per_channel, 1.0);
    let with_bias = r.chance(0.8);
    let bias = if with_bias { bias(&mut b, r, Ty::F32, units, 1.0, &[]) } else { -1 };
    let output = b.output("output", &out_shape, Ty::F32, None);
    let options = vec![(0, Scalar::I8(act)), (2, Scalar::Bool(keep_dims)), (3, Scalar::Bool(asymmetric))];
    let label = format!(
        "{in_shape:?} -> {units} {}{}{}{}{}",
        act_name(act),
        if keep_dims { " keep_num_dims" } else { "" },
        if per_channel { " per-channel" } else { "" },
        if asymmetric { " asymmetric inputs" } else { "" },
        if with_bias { "" } else { " no bias" },
    );
    let mut m = b.finish(9, &[input, weights, bias], &[output], Some((FULLY_CONNECTED_OPTIONS, options)));
    m.litert = true;
    let label = uint8_weights(r, &mut m, weights, label);
    (m, label)
}

/// Now and then a hybrid op's int8 weights typed uint8 (the same bytes),
/// which LiteRT's FULLY_CONNECTED and CONV_2D read as int8.
fn uint8_weights(r: &mut Rng, m: &mut Model, weights: i32, label: String) -> String {
    if !r.chance(0.2) {
        return label;
    }
    m.def.subgraphs[0].tensors[weights as usize].dtype = Ty::U8.code();
    format!("{label} (uint8 weights)")
}

fn pool_2d(r: &mut Rng, code: i32, name: &str) -> (Model, String) {
    // L2_POOL_2D: float32 only in TFLM.
    let ty = if code == 12 { Ty::F32 } else { r.pick(&[Ty::I8, Ty::I8, Ty::F32, Ty::I16]) };
    let (h, w, c) = (r.size(1, 12), r.size(1, 12), r.size(1, 8));
    let (fh, fw) = (r.size(1, 4), r.size(1, 4));
    let (sh, sw) = (r.size(1, 3), r.size(1, 3));
    let mut padding = r.pick(&[0i8, 1]);
    if out_size(padding, h, fh, sh, 1).is_none() || out_size(padding, w, fw, sw, 1).is_none() {
        padding = 0;
    }
    let (oh, ow) = (out_size(padding, h, fh, sh, 1).unwrap(), out_size(padding, w, fw, sw, 1).unwrap());
    let act = activation(r);
    let mut b = Builder::default();
    // Pooling keeps its input's quantization (TFLM does not rescale).
    let q = activation_quant(r, ty, 1e-3, 0.5);
    let input = b.input("input", &[1, h, w, c], ty, q.clone());
    let output = b.output("output", &[1, oh, ow, c], ty, q);
    let options = vec![
        (0, Scalar::I8(padding)),
        (1, Scalar::I32(sw as i32)),
        (2, Scalar::I32(sh as i32)),
        (3, Scalar::I32(fw as i32)),
        (4, Scalar::I32(fh as i32)),
        (5, Scalar::I8(act)),
    ];
    let label = format!(
        "{} {h}x{w}x{c}, {fh}x{fw} stride {sh}x{sw} {} {} ({name})",
        ty.name(),
        ["SAME", "VALID"][padding as usize],
        act_name(act)
    );
    (b.finish(code, &[input], &[output], Some((POOL_2D_OPTIONS, options))), label)
}

/// Two shapes that broadcast (NumPy rules), ranks 1 to 5, and the result.
fn broadcast_shapes(r: &mut Rng) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
    let rank = r.size(1, 5);
    let full: Vec<usize> = (0..rank).map(|_| r.pick(&[1, 2, 3, 4, 5, 7])).collect();
    let mut side = || -> Vec<usize> {
        let keep = if r.chance(0.3) { r.size(1, rank) } else { rank };
        let mut s: Vec<usize> = full[rank - keep..].to_vec();
        for d in s.iter_mut() {
            if r.chance(0.3) {
                *d = 1;
            }
        }
        s
    };
    let (a, c) = (side(), side());
    let out: Vec<usize> = (0..rank)
        .map(|i| {
            let at = |s: &[usize]| if i + s.len() >= rank { s[i + s.len() - rank] } else { 1 };
            at(&a).max(at(&c))
        })
        .collect();
    (a, c, out)
}

/// ADD (0), SUB (41), MUL (18), DIV (42), MAXIMUM (55), MINIMUM (57),
/// SQUARED_DIFFERENCE (99), with broadcasting.
fn binary(r: &mut Rng, code: i32, options_tag: u8) -> (Model, String) {
    // DIV: TFLM's int8 kernel takes no int16 (and divides by zero on a
    // divisor at its zero point: such inputs are not drawn).
    let ty = if code == 42 { r.pick(&[Ty::I8, Ty::F32]) } else { r.pick(&[Ty::I8, Ty::I8, Ty::F32, Ty::I16]) };
    let (sa, sb, so) = broadcast_shapes(r);
    let fused = matches!(code, 0 | 41 | 18 | 42);
    let act = if !fused {
        0
    } else if ty == Ty::I16 {
        r.pick(&[0, 1])
    } else {
        activation(r)
    };
    let mut b = Builder::default();
    let qa = activation_quant(r, ty, 1e-3, 0.5);
    // MAXIMUM/MINIMUM compare raw values: one quantization for all three.
    let same = matches!(code, 55 | 57);
    let qb = if same || r.chance(0.2) { qa.clone() } else { activation_quant(r, ty, 1e-3, 0.5) };
    let magnitude = match (ty, code) {
        (Ty::F32, 18) => 1.5,
        (Ty::F32, _) => 2.0,
        (Ty::I16, 18) => 19000.0 * scale_of(&qa) * 19000.0 * scale_of(&qb),
        (Ty::I16, 99) => (19000.0 * scale_of(&qa).max(scale_of(&qb))).powi(2),
        (Ty::I16, _) => 19000.0 * scale_of(&qa).max(scale_of(&qb)),
        (_, 18) => 74.0 * scale_of(&qa) * 74.0 * scale_of(&qb),
        (_, 99) => (74.0 * scale_of(&qa).max(scale_of(&qb))).powi(2),
        _ => 74.0 * scale_of(&qa).max(scale_of(&qb)),
    };
    let out_q = if same {
        qa.clone()
    } else if code == 42 && ty == Ty::I8 {
        // TFLM's int8 DIV rounds by a shift of `headroom + reciprocal
        // exponent - output exponent`, past 31 (undefined in C++, and
        // different on x86 and Arm) unless `s1 / (s2 * so)` is at least
        // 2^9: only that regime has one answer to compare with.
        let ratio = f64::from(1u32 << r.size(9, 12));
        per_tensor((scale_of(&qa) / (scale_of(&qb) * ratio)) as f32, r.zero_point(-128, 127))
    } else {
        output_quant(r, ty, magnitude)
    };
    let qb_zero = qb.as_ref().map_or(0, |q| q.zero_point[0] as i8);
    let a = b.input("a", &sa, ty, qa);
    let c = b.input("b", &sb, ty, qb);
    let out = b.output("output", &so, ty, out_q);
    let mut options = if fused { vec![(0, Scalar::I8(act))] } else { vec![] };
    // ADD and SUB: int16 with power-of-two scales or the general rescale.
    let pot = matches!(code, 0 | 41) && ty == Ty::I16 && r.chance(0.5);
    if matches!(code, 0 | 41) {
        options.push((1, Scalar::Bool(pot)));
    }
    let label =
        format!("{} {sa:?} {sb:?} -> {so:?} {}{}", ty.name(), act_name(act), if pot { " pot_scale_int16" } else { "" });
    let options = (options_tag != 0).then_some((options_tag, options));
    let divisor_zero = qb_zero;
    let mut m = b.finish(code, &[a, c], &[out], options);
    if code == 42 && ty == Ty::I8 {
        m.nonzero = Some((1, divisor_zero));
    }
    (m, label)
}

fn softmax(r: &mut Rng) -> (Model, String) {
    let (ty_in, ty_out) =
        r.pick(&[(Ty::I8, Ty::I8), (Ty::I8, Ty::I8), (Ty::I8, Ty::I16), (Ty::F32, Ty::F32), (Ty::I16, Ty::I16)]);
    let rank = r.size(1, 4);
    let shape: Vec<usize> = (0..rank).map(|i| if i + 1 == rank { r.size(1, 40) } else { r.size(1, 3) }).collect();
    let beta = match r.size(0, 3) {
        0 => 1.0,
        1 => r.pick(&[0.5f32, 2.0, 0.25]),
        _ => r.log_uniform(0.05, 5.0),
    };
    let mut b = Builder::default();
    let in_q = match ty_in {
        Ty::I8 => per_tensor(r.log_uniform(1e-3, 0.3), r.zero_point(-128, 127)),
        Ty::I16 => per_tensor(r.log_uniform(1e-4, 1e-3), 0),
        _ => None,
    };
    // TFLM's fixed output quantization: int8 1/256 at -128; int16 from
    // int8 1/65536 at -32768, from int16 1/32768 at 0.
    let out_q = match (ty_in, ty_out) {
        (_, Ty::I8) => per_tensor(1.0 / 256.0, -128),
        (Ty::I8, Ty::I16) => per_tensor(1.0 / 65536.0, -32768),
        (_, Ty::I16) => per_tensor(1.0 / 32768.0, 0),
        _ => None,
    };
    let input = b.input("input", &shape, ty_in, in_q);
    let output = b.output("output", &shape, ty_out, out_q);
    let label = format!("{} -> {} {shape:?} beta {beta}", ty_in.name(), ty_out.name());
    (b.finish(25, &[input], &[output], Some((SOFTMAX_OPTIONS, vec![(0, Scalar::F32(beta))]))), label)
}

#[derive(Clone, Copy)]
enum Unary {
    Logistic,
    Tanh,
    Relu,
    Relu6,
    LeakyRelu,
    HardSwish,
    Abs,
    Neg,
    Rsqrt,
    Elu,
}

fn unary(r: &mut Rng, op: Unary) -> (Model, String) {
    let types: &[Ty] = match op {
        Unary::HardSwish | Unary::Elu => &[Ty::I8, Ty::F32],
        Unary::Neg => &[Ty::F32],
        _ => &[Ty::I8, Ty::I8, Ty::F32, Ty::I16],
    };
    let ty = r.pick(types);
    let rank = r.size(1, 4);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(1, 9)).collect();
    let mut b = Builder::default();
    let in_q = activation_quant(r, ty, 1e-3, 0.2);
    let out_q = match (op, ty) {
        (Unary::Logistic, Ty::I8) => per_tensor(1.0 / 256.0, -128),
        (Unary::Tanh, Ty::I8) => per_tensor(1.0 / 128.0, 0),
        (Unary::Logistic | Unary::Tanh, Ty::I16) => per_tensor(1.0 / 32768.0, 0),
        (_, Ty::F32) => None,
        _ => {
            if r.chance(0.3) {
                in_q.clone()
            } else {
                activation_quant(r, ty, 1e-3, 0.2)
            }
        }
    };
    // RSQRT of a negative value is undefined: keep float inputs positive by
    // a positive zero point shift is not possible, so int8/int16 inputs of
    // RSQRT use a zero point at the bottom of the range.
    let (in_q, out_q) = match (op, ty) {
        (Unary::Rsqrt, Ty::I8) => (per_tensor(r.log_uniform(1e-3, 0.2), -128), out_q),
        _ => (in_q, out_q),
    };
    let input = b.input("input", &shape, ty, in_q);
    let output = b.output("output", &shape, ty, out_q);
    let (code, options, extra) = match op {
        Unary::Abs => (101, None, String::new()),
        Unary::Neg => (59, None, String::new()),
        Unary::Rsqrt => (76, None, String::new()),
        Unary::Elu => (111, None, String::new()),
        Unary::Logistic => (14, None, String::new()),
        Unary::Tanh => (28, None, String::new()),
        Unary::Relu => (19, None, String::new()),
        Unary::Relu6 => (21, None, String::new()),
        Unary::HardSwish => (117, None, String::new()),
        Unary::LeakyRelu => {
            let alpha = r.pick(&[0.2f32, 0.01, 0.3, -0.5, 1.5, 0.0]);
            (98, Some((LEAKY_RELU_OPTIONS, vec![(0, Scalar::F32(alpha))])), format!(" alpha {alpha}"))
        }
    };
    let label = format!("{} {shape:?}{extra}", ty.name());
    let mut m = b.finish(code, &[input], &[output], options);
    m.non_negative = matches!(op, Unary::Rsqrt);
    (m, label)
}

fn quantize(r: &mut Rng) -> (Model, String) {
    let (from, to) = r.pick(&[
        (Ty::F32, Ty::I8),
        (Ty::I8, Ty::I8),
        (Ty::F32, Ty::I16),
        (Ty::I16, Ty::I8),
        (Ty::I8, Ty::I16),
        (Ty::I16, Ty::I16),
    ]);
    let shape: Vec<usize> = (0..r.size(1, 4)).map(|_| r.size(1, 9)).collect();
    let mut b = Builder::default();
    let in_q = activation_quant(r, from, 1e-3, 0.3);
    let magnitude = match from {
        Ty::F32 => 2.0,
        Ty::I16 => 19000.0 * scale_of(&in_q),
        _ => 74.0 * scale_of(&in_q),
    };
    let input = b.input("input", &shape, from, in_q);
    let output = b.output("output", &shape, to, output_quant(r, to, magnitude));
    let label = format!("{} -> {} {shape:?}", from.name(), to.name());
    (b.finish(114, &[input], &[output], None), label)
}

fn dequantize(r: &mut Rng) -> (Model, String) {
    let from = r.pick(&[Ty::I8, Ty::I16]);
    let shape: Vec<usize> = (0..r.size(1, 4)).map(|_| r.size(1, 9)).collect();
    let mut b = Builder::default();
    let q = activation_quant(r, from, 1e-3, 0.5);
    let input = b.input("input", &shape, from, q);
    let output = b.output("output", &shape, Ty::F32, None);
    let label = format!("{} {shape:?}", from.name());
    (b.finish(6, &[input], &[output], None), label)
}

fn mean(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::I8, Ty::I8, Ty::F32, Ty::I16]);
    let rank = r.size(1, 4);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(1, 7)).collect();
    let mut axes: Vec<i32> = (0..rank as i32).filter(|_| r.chance(0.5)).collect();
    if axes.is_empty() {
        axes.push(r.range(0, rank as i64 - 1) as i32);
    }
    // Negative axes now and then, as converters write them.
    let written: Vec<i32> = axes.iter().map(|&a| if r.chance(0.3) { a - rank as i32 } else { a }).collect();
    let keep_dims = r.chance(0.5);
    let out_shape: Vec<usize> = (0..rank)
        .filter_map(|i| if axes.contains(&(i as i32)) { keep_dims.then_some(1) } else { Some(shape[i]) })
        .collect();
    let mut b = Builder::default();
    let in_q = activation_quant(r, ty, 1e-3, 0.5);
    let out_q = if r.chance(0.5) { in_q.clone() } else { activation_quant(r, ty, 1e-3, 0.5) };
    let input = b.input("input", &shape, ty, in_q);
    let axis = b.ints("axis", &[written.len()], &written);
    let output = b.output("output", &out_shape, ty, out_q);
    let label = format!("{} {shape:?} axes {written:?}{}", ty.name(), if keep_dims { " keep_dims" } else { "" });
    (b.finish(40, &[input, axis], &[output], Some((REDUCER_OPTIONS, vec![(0, Scalar::Bool(keep_dims))]))), label)
}

fn concatenation(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::I8, Ty::F32, Ty::I16, Ty::I32]);
    let rank = r.size(1, 4);
    let base: Vec<usize> = (0..rank).map(|_| r.size(1, 5)).collect();
    let axis = r.size(0, rank - 1);
    let n = r.size(1, 4);
    let q = activation_quant(r, ty, 1e-3, 0.5);
    let mut b = Builder::default();
    let mut inputs = Vec::new();
    let mut total = 0;
    for k in 0..n {
        let mut s = base.clone();
        s[axis] = r.size(1, 4);
        total += s[axis];
        inputs.push(b.input(&format!("in{k}"), &s, ty, q.clone()));
    }
    let mut out_shape = base;
    out_shape[axis] = total;
    let output = b.output("output", &out_shape, ty, q);
    let written = if r.chance(0.3) { axis as i32 - rank as i32 } else { axis as i32 };
    let label = format!("{} {n} inputs -> {out_shape:?} axis {written}", ty.name());
    (b.finish(2, &inputs, &[output], Some((CONCATENATION_OPTIONS, vec![(0, Scalar::I32(written))]))), label)
}

fn pad(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::I8, Ty::F32, Ty::I16, Ty::I32]);
    let rank = r.size(1, 4);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(1, 6)).collect();
    let pads: Vec<i32> = (0..2 * rank).map(|_| r.pick(&[0, 0, 1, 2, 3])).collect();
    let out: Vec<usize> = (0..rank).map(|i| shape[i] + (pads[2 * i] + pads[2 * i + 1]) as usize).collect();
    let q = activation_quant(r, ty, 1e-3, 0.5);
    let mut b = Builder::default();
    let input = b.input("input", &shape, ty, q.clone());
    let paddings = b.ints("paddings", &[rank, 2], &pads);
    let output = b.output("output", &out, ty, q);
    let label = format!("{} {shape:?} pads {pads:?}", ty.name());
    (b.finish(34, &[input, paddings], &[output], None), label)
}

/// Float-only elementwise math: SQRT, EXP, LOG, SIN, COS, SQUARE (inputs
/// positive where the function needs it).
fn float_math(r: &mut Rng) -> (Model, String) {
    let (code, name) = r.pick(&[
        (75, "SQRT"),
        (47, "EXP"),
        (73, "LOG"),
        (66, "SIN"),
        (108, "COS"),
        (92, "SQUARE"),
        (8, "FLOOR"),
        (104, "CEIL"),
        (116, "ROUND"),
    ]);
    // ROUND's ties, and values on integers, now and then.
    let halves = matches!(name, "ROUND" | "FLOOR" | "CEIL") && r.chance(0.5);
    let shape: Vec<usize> = (0..r.size(1, 4)).map(|_| r.size(1, 9)).collect();
    let mut b = Builder::default();
    let input = b.input("input", &shape, Ty::F32, None);
    let output = b.output("output", &shape, Ty::F32, None);
    let mut m = b.finish(code, &[input], &[output], None);
    // SQRT and LOG of negative inputs are NaN on both sides: allowed.
    m.inputs = vec![(Ty::F32, shape.iter().product())];
    m.halves = halves;
    (m, format!("{name} float32 {shape:?}{}", if halves { " on halves" } else { "" }))
}

/// SUM, REDUCE_MAX, REDUCE_MIN: like MEAN.
fn reduce(r: &mut Rng, code: i32, name: &str) -> (Model, String) {
    let (mut m, label) = loop {
        let (m, label) = mean(r);
        // TFLM's REDUCE_MAX/MIN take float32 and int8 only.
        if code == 74 || !label.starts_with("int16") {
            break (m, label);
        }
    };
    m.def.opcodes = vec![(code, None)];
    // REDUCE_MAX/MIN keep the input's quantization in TFLM.
    if code != 74 {
        let q = m.def.subgraphs[0].tensors[0].quant.clone();
        let out = m.def.subgraphs[0].outputs[0] as usize;
        m.def.subgraphs[0].tensors[out].quant = q;
    }
    (m, format!("{name}: {label}"))
}

fn arg_min_max(r: &mut Rng, code: i32, options_tag: u8) -> (Model, String) {
    // TFLM: float32, uint8, int8 in; int32 out (tinyaot also takes int16,
    // int32 and int64, which TFLM refuses).
    let ty = r.pick(&[Ty::I8, Ty::F32]);
    let rank = r.size(1, 4);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(1, 7)).collect();
    let axis = r.size(0, rank - 1);
    let written = if r.chance(0.3) { axis as i32 - rank as i32 } else { axis as i32 };
    let out_ty = Ty::I32;
    let out_shape: Vec<usize> = (0..rank).filter(|&i| i != axis).map(|i| shape[i]).collect();
    let mut b = Builder::default();
    let q = activation_quant(r, ty, 1e-3, 0.5);
    let input = b.input("input", &shape, ty, q);
    let axis_t = b.ints("axis", &[1], &[written]);
    let output = b.output("output", &out_shape, out_ty, None);
    let options = vec![(0, Scalar::I8(out_ty.code()))];
    let label = format!("{} {shape:?} axis {written} -> {}", ty.name(), out_ty.name());
    (b.finish(code, &[input, axis_t], &[output], Some((options_tag, options))), label)
}

/// Data-movement ops keep their input's quantization; `types` are those
/// TFLM's kernel takes.
fn movement_ty(r: &mut Rng, types: &[Ty]) -> (Ty, Option<QuantDef>) {
    let ty = r.pick(types);
    (ty, activation_quant(r, ty, 1e-3, 0.5))
}

const ALL: &[Ty] = &[Ty::I8, Ty::F32, Ty::I16, Ty::I32];
const NO_INT32: &[Ty] = &[Ty::I8, Ty::F32, Ty::I16];
const FLOAT_INT8: &[Ty] = &[Ty::I8, Ty::F32];

/// REVERSE_V2: a contiguous run of axes (TFLM's rule), any of its dtypes.
fn reverse_v2(r: &mut Rng) -> (Model, String) {
    let (ty, q) = movement_ty(r, ALL);
    let rank = r.size(1, 5);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(1, 5)).collect();
    let first = r.size(0, rank - 1);
    let count = r.size(1, rank - first);
    let axes: Vec<i32> =
        (first..first + count).map(|a| if r.chance(0.3) { a as i32 - rank as i32 } else { a as i32 }).collect();
    let mut b = Builder::default();
    let input = b.input("input", &shape, ty, q.clone());
    let axis_t = b.ints("axis", &[axes.len()], &axes);
    let output = b.output("output", &shape, ty, q);
    let label = format!("{} {shape:?} axes {axes:?}", ty.name());
    (b.finish(105, &[input, axis_t], &[output], None), label)
}

/// MIRROR_PAD, REFLECT or SYMMETRIC, pads up to what the mode allows.
fn mirror_pad(r: &mut Rng) -> (Model, String) {
    let (ty, q) = movement_ty(r, FLOAT_INT8);
    let rank = r.size(1, 4);
    let symmetric = r.chance(0.5);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(if symmetric { 1 } else { 2 }, 6)).collect();
    let limit = |n: usize| if symmetric { n } else { n - 1 };
    let pads: Vec<i32> = (0..2 * rank).map(|i| r.size(0, limit(shape[i / 2]).min(3)) as i32).collect();
    let out: Vec<usize> = (0..rank).map(|i| shape[i] + (pads[2 * i] + pads[2 * i + 1]) as usize).collect();
    let mut b = Builder::default();
    let input = b.input("input", &shape, ty, q.clone());
    let paddings = b.ints("paddings", &[rank, 2], &pads);
    let output = b.output("output", &out, ty, q);
    let label = format!("{} {shape:?} pads {pads:?} {}", ty.name(), if symmetric { "SYMMETRIC" } else { "REFLECT" });
    let options = vec![(0, Scalar::I8(symmetric as i8))];
    (b.finish(100, &[input, paddings], &[output], Some((77, options))), label)
}

/// SPACE_TO_BATCH_ND (paddings) and BATCH_TO_SPACE_ND (crops), NHWC or NHC.
/// SPACE_TO_BATCH_ND without padding: TFLM pads with an uninitialized
/// value (see the compiler's `space_batch.rs`), so padded cases cannot be
/// compared.
fn space_batch(r: &mut Rng, to_batch: bool) -> (Model, String) {
    let (ty, q) = movement_ty(r, FLOAT_INT8);
    let unpadded = to_batch;
    let rank4 = r.chance(0.75);
    let spatial = if rank4 { 2 } else { 1 };
    let block: Vec<usize> = (0..spatial).map(|_| r.size(1, 3)).collect();
    let (n, c) = (r.size(1, 2), r.size(1, 4));
    let mut pads = Vec::new();
    let mut space = Vec::new();
    let mut blocked = Vec::new();
    for &k in &block {
        let out = r.size(1, 4);
        // The padded (or uncropped) size is out * k; split its excess.
        let full = out * k;
        let excess = if unpadded { 0 } else { r.size(0, (full - 1).min(3)) };
        let before = r.size(0, excess);
        pads.extend([before as i32, (excess - before) as i32]);
        space.push(full - excess);
        blocked.push(out);
    }
    let prod: usize = block.iter().product();
    let mut space_shape = vec![n];
    space_shape.extend(&space);
    space_shape.push(c);
    let mut batch_shape = vec![n * prod];
    batch_shape.extend(&blocked);
    batch_shape.push(c);
    let (in_shape, out_shape) = if to_batch { (space_shape, batch_shape) } else { (batch_shape, space_shape) };
    let mut b = Builder::default();
    let input = b.input("input", &in_shape, ty, q.clone());
    let block_i32: Vec<i32> = block.iter().map(|&k| k as i32).collect();
    let block_t = b.ints("block_shape", &[spatial], &block_i32);
    let pads_t = b.ints(if to_batch { "paddings" } else { "crops" }, &[spatial, 2], &pads);
    let output = b.output("output", &out_shape, ty, q);
    let label = format!("{} {in_shape:?} -> {out_shape:?} block {block:?} pads {pads:?}", ty.name());
    (b.finish(if to_batch { 38 } else { 37 }, &[input, block_t, pads_t], &[output], None), label)
}

/// BROADCAST_TO: an input of up to the output's rank with some dimensions 1.
fn broadcast_to(r: &mut Rng) -> (Model, String) {
    let (ty, q) = movement_ty(r, ALL);
    let rank = r.size(1, 5);
    let out: Vec<usize> = (0..rank).map(|_| r.size(1, 4)).collect();
    let in_rank = r.size(0, rank);
    let shape: Vec<usize> = out[rank - in_rank..].iter().map(|&n| if r.chance(0.5) { 1 } else { n }).collect();
    let mut b = Builder::default();
    let input = b.input("input", &shape, ty, q.clone());
    let out_i32: Vec<i32> = out.iter().map(|&n| n as i32).collect();
    let shape_t = b.ints("shape", &[rank], &out_i32);
    let output = b.output("output", &out, ty, q);
    let label = format!("{} {shape:?} -> {out:?}", ty.name());
    (b.finish(130, &[input, shape_t], &[output], None), label)
}

/// GELU (LiteRT's builtin; TFLM has none): int8 (LiteRT's table) and
/// float32, exact or tanh-approximate. Answered by LiteRT's reference
/// kernels (float32 within 1e-5: its Eigen erfc and tanh are not libm's).
fn gelu(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::I8, Ty::I8, Ty::F32]);
    let rank = r.size(1, 4);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(1, 9)).collect();
    let approximate = r.chance(0.5);
    let mut b = Builder::default();
    let in_q = activation_quant(r, ty, 1e-3, 0.2);
    let out_q = activation_quant(r, ty, 1e-3, 0.2);
    let input = b.input("input", &shape, ty, in_q);
    let output = b.output("output", &shape, ty, out_q);
    const GELU_OPTIONS: u8 = 116;
    let options = vec![(0, Scalar::Bool(approximate))];
    let label = format!("{} {shape:?}{}", ty.name(), if approximate { " approximate" } else { "" });
    let mut m = b.finish(150, &[input], &[output], Some((GELU_OPTIONS, options)));
    m.litert = true;
    (m, label)
}

/// TILE (LiteRT's builtin; TFLM has none): rank 1 to 5, multiples 1 to 3
/// as an int32 or int64 constant. Answered by LiteRT's reference kernels.
fn tile(r: &mut Rng) -> (Model, String) {
    let (ty, q) = movement_ty(r, ALL);
    let rank = r.size(1, 5);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(1, 4)).collect();
    let multiples: Vec<usize> = (0..rank).map(|_| r.size(1, 3)).collect();
    let out: Vec<usize> = shape.iter().zip(&multiples).map(|(&d, &m)| d * m).collect();
    let mut b = Builder::default();
    let input = b.input("input", &shape, ty, q.clone());
    let wide = r.chance(0.3);
    let m = if wide {
        let bytes = multiples.iter().flat_map(|&m| (m as i64).to_le_bytes()).collect();
        b.constant("multiples", &[rank], Ty::I64, bytes, None)
    } else {
        let m32: Vec<i32> = multiples.iter().map(|&m| m as i32).collect();
        b.ints("multiples", &[rank], &m32)
    };
    let output = b.output("output", &out, ty, q);
    let label = format!("{} {shape:?} x {multiples:?}{}", ty.name(), if wide { " (int64)" } else { "" });
    let mut model = b.finish(69, &[input, m], &[output], None);
    model.litert = true;
    (model, label)
}

/// FILL: an input scalar into a constant shape (a constant scalar would
/// leave the model without inputs, which neither side runs).
fn fill(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::F32, Ty::I32, Ty::I8]);
    let q = activation_quant(r, ty, 1e-3, 0.5);
    let rank = r.size(1, 4);
    let out: Vec<usize> = (0..rank).map(|_| r.size(1, 5)).collect();
    let mut b = Builder::default();
    let out_i32: Vec<i32> = out.iter().map(|&n| n as i32).collect();
    let dims = b.ints("dims", &[rank], &out_i32);
    let value = b.input("value", &[], ty, q.clone());
    let output = b.output("output", &out, ty, q);
    let label = format!("{} {out:?}", ty.name());
    (b.finish(94, &[dims, value], &[output], None), label)
}

/// ZEROS_LIKE.
fn zeros_like(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::F32, Ty::I32, Ty::I64, Ty::I8]);
    let q = activation_quant(r, ty, 1e-3, 0.5);
    let shape: Vec<usize> = (0..r.size(1, 4)).map(|_| r.size(1, 5)).collect();
    let mut b = Builder::default();
    let input = b.input("input", &shape, ty, q.clone());
    let output = b.output("output", &shape, ty, q);
    (b.finish(93, &[input], &[output], None), format!("{} {shape:?}", ty.name()))
}

fn transpose(r: &mut Rng) -> (Model, String) {
    let (ty, q) = movement_ty(r, NO_INT32);
    let rank = r.size(1, 5);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(1, 5)).collect();
    let mut perm: Vec<usize> = (0..rank).collect();
    for i in (1..rank).rev() {
        perm.swap(i, r.size(0, i));
    }
    let out: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
    let mut b = Builder::default();
    let input = b.input("input", &shape, ty, q.clone());
    let perm_i32: Vec<i32> = perm.iter().map(|&p| p as i32).collect();
    let perm_t = b.ints("perm", &[rank], &perm_i32);
    let output = b.output("output", &out, ty, q);
    let label = format!("{} {shape:?} perm {perm:?}", ty.name());
    (b.finish(39, &[input, perm_t], &[output], None), label)
}

fn reshape(r: &mut Rng) -> (Model, String) {
    let (ty, q) = movement_ty(r, NO_INT32);
    let shape: Vec<usize> = (0..r.size(1, 4)).map(|_| r.size(1, 6)).collect();
    let n: usize = shape.iter().product();
    let out: Vec<usize> = if r.chance(0.5) { vec![n] } else { vec![1, n] };
    let mut b = Builder::default();
    let input = b.input("input", &shape, ty, q.clone());
    // Reshape then a unary op, so the view feeds a kernel.
    let mid = b.tensor("reshaped", &out, ty, q.clone());
    let shape_i32: Vec<i32> = out.iter().map(|&d| d as i32).collect();
    let new_shape = b.ints("shape", &[out.len()], &shape_i32);
    let output = b.output("output", &out, ty, q);
    let label = format!("{} {shape:?} -> {out:?}", ty.name());
    let mut m = b.finish(22, &[input, new_shape], &[mid], None);
    m.def.opcodes.push((39, None)); // TRANSPOSE with the identity permutation
    let perm: Vec<i32> = (0..out.len() as i32).collect();
    let sub = &mut m.def.subgraphs[0];
    m.def.buffers.push(perm.iter().flat_map(|v| v.to_le_bytes()).collect());
    sub.tensors.push(tinyaot_tests::writer::TensorDef::constant(
        "perm",
        &[out.len() as i32],
        Ty::I32.code(),
        m.def.buffers.len() as u32 - 1,
        None,
    ));
    let perm_t = sub.tensors.len() as i32 - 1;
    sub.ops.push(tinyaot_tests::writer::OpDef {
        opcode: 1,
        inputs: vec![mid, perm_t],
        outputs: vec![output],
        options: None,
        custom_options: None,
    });
    (m, label)
}

fn space_depth(r: &mut Rng, code: i32, options_tag: u8) -> (Model, String) {
    let (ty, q) = movement_ty(r, FLOAT_INT8);
    let block = r.size(1, 3);
    let (shape, out) = if code == 26 {
        let (h, w, c) = (block * r.size(1, 4), block * r.size(1, 4), r.size(1, 4));
        (vec![1, h, w, c], vec![1, h / block, w / block, c * block * block])
    } else {
        let (h, w, c) = (r.size(1, 4), r.size(1, 4), block * block * r.size(1, 3));
        (vec![1, h, w, c], vec![1, h * block, w * block, c / (block * block)])
    };
    let mut b = Builder::default();
    let input = b.input("input", &shape, ty, q.clone());
    let output = b.output("output", &out, ty, q);
    let label = format!("{} {shape:?} block {block}", ty.name());
    (b.finish(code, &[input], &[output], Some((options_tag, vec![(0, Scalar::I32(block as i32))]))), label)
}

fn resize(r: &mut Rng, code: i32, options_tag: u8) -> (Model, String) {
    let ty = if code == 23 { r.pick(FLOAT_INT8) } else { movement_ty(r, NO_INT32).0 };
    let q = activation_quant(r, ty, 1e-3, 0.5);
    let (h, w, c) = (r.size(1, 6), r.size(1, 6), r.size(1, 4));
    let (oh, ow) = (r.size(1, 12), r.size(1, 12));
    let align = r.chance(0.3);
    let half = !align && r.chance(0.5);
    let mut b = Builder::default();
    let input = b.input("input", &[1, h, w, c], ty, q.clone());
    let size = b.ints("size", &[2], &[oh as i32, ow as i32]);
    let output = b.output("output", &[1, oh, ow, c], ty, q);
    let (fa, fh) = if code == 23 { (2, 3) } else { (0, 1) };
    let options = vec![(fa, Scalar::Bool(align)), (fh, Scalar::Bool(half))];
    let label = format!(
        "{} {h}x{w}x{c} -> {oh}x{ow}{}{}",
        ty.name(),
        if align { " align_corners" } else { "" },
        if half { " half_pixel_centers" } else { "" }
    );
    (b.finish(code, &[input, size], &[output], Some((options_tag, options))), label)
}

fn gather(r: &mut Rng) -> (Model, String) {
    let (ty, q) = movement_ty(r, FLOAT_INT8);
    let rank = r.size(1, 4);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(1, 6)).collect();
    let axis = r.size(0, rank - 1);
    let n = r.size(1, 5);
    let indices: Vec<i32> = (0..n).map(|_| r.range(0, shape[axis] as i64 - 1) as i32).collect();
    let mut out: Vec<usize> = shape[..axis].to_vec();
    out.push(n);
    out.extend_from_slice(&shape[axis + 1..]);
    let written = if r.chance(0.3) { axis as i32 - rank as i32 } else { axis as i32 };
    let mut b = Builder::default();
    let input = b.input("params", &shape, ty, q.clone());
    let idx = b.ints("indices", &[n], &indices);
    let output = b.output("output", &out, ty, q);
    let label = format!("{} {shape:?} axis {written} indices {indices:?}", ty.name());
    (b.finish(36, &[input, idx], &[output], Some((23, vec![(0, Scalar::I32(written))]))), label)
}

fn strided_slice(r: &mut Rng) -> (Model, String) {
    let (ty, q) = movement_ty(r, ALL);
    let rank = r.size(1, 4);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(1, 7)).collect();
    let (mut begin, mut end, mut strides, mut out) = (vec![], vec![], vec![], vec![]);
    let (mut begin_mask, mut end_mask, mut shrink) = (0i32, 0i32, 0i32);
    for (i, &d) in shape.iter().enumerate() {
        let d = d as i64;
        if r.chance(0.15) {
            // Shrink: one index, the dimension disappears.
            let at = r.range(0, d - 1);
            begin.push(if r.chance(0.3) { (at - d) as i32 } else { at as i32 });
            end.push(at as i32 + 1);
            strides.push(1);
            shrink |= 1 << i;
            continue;
        }
        let stride = r.pick(&[1i64, 1, 2, 3, -1, -2]);
        let (mut b0, mut e0) = (r.range(0, d - 1), r.range(0, d));
        if stride < 0 {
            (b0, e0) = (r.range(0, d - 1), r.range(-1, d - 1));
        }
        if r.chance(0.2) {
            begin_mask |= 1 << i;
            b0 = if stride > 0 { 0 } else { d - 1 };
        }
        if r.chance(0.2) {
            end_mask |= 1 << i;
            e0 = if stride > 0 { d } else { -1 };
        }
        // Elements from b0 towards e0 (exclusive) in steps of |stride|.
        let span = |b0: i64, e0: i64| {
            let d = if stride > 0 { e0 - b0 } else { b0 - e0 };
            (d.max(0) as u64).div_ceil(stride.unsigned_abs()) as i64
        };
        if span(b0, e0) == 0 {
            // An empty slice: take the whole dimension instead.
            (b0, e0) = if stride > 0 { (0, d) } else { (d - 1, -1) };
        }
        out.push(span(b0, e0) as usize);
        begin.push(b0 as i32);
        // A negative end other than the "before 0" sentinel counts from the back.
        end.push(if e0 == -1 && stride < 0 && end_mask & (1 << i) == 0 { -(d as i32) - 1 } else { e0 as i32 });
        strides.push(stride as i32);
    }
    let mut b = Builder::default();
    let input = b.input("input", &shape, ty, q.clone());
    let bt = b.ints("begin", &[rank], &begin);
    let et = b.ints("end", &[rank], &end);
    let st = b.ints("strides", &[rank], &strides);
    let output = b.output("output", &out, ty, q);
    let mut options = vec![(0, Scalar::I32(begin_mask)), (1, Scalar::I32(end_mask)), (4, Scalar::I32(shrink))];
    // Fields TFLM ignores (ellipsis and new-axis masks, offset): set now
    // and then, the output shaped as if they were not.
    let ignored = if r.chance(0.15) { r.size(1, 7) } else { 0 };
    if ignored & 1 != 0 {
        options.push((2, Scalar::I32(1 << r.size(0, rank - 1))));
    }
    if ignored & 2 != 0 {
        options.push((3, Scalar::I32(1 << r.size(0, rank - 1))));
    }
    if ignored & 4 != 0 {
        options.push((5, Scalar::Bool(true)));
    }
    let label = format!(
        "{} {shape:?} begin {begin:?} end {end:?} strides {strides:?} masks b{begin_mask} e{end_mask} s{shrink}{}",
        ty.name(),
        if ignored != 0 { format!(" ignored fields {ignored}") } else { String::new() }
    );
    (b.finish(45, &[input, bt, et, st], &[output], Some((32, options))), label)
}

fn slice(r: &mut Rng) -> (Model, String) {
    let (ty, q) = movement_ty(r, ALL);
    let rank = r.size(1, 4);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(1, 7)).collect();
    let begin: Vec<i32> = shape.iter().map(|&d| r.range(0, d as i64 - 1) as i32).collect();
    let size: Vec<i32> = shape
        .iter()
        .zip(&begin)
        .map(|(&d, &b0)| if r.chance(0.2) { -1 } else { r.range(1, d as i64 - b0 as i64) as i32 })
        .collect();
    let out: Vec<usize> = shape
        .iter()
        .zip(&begin)
        .zip(&size)
        .map(|((&d, &b0), &s)| if s < 0 { d - b0 as usize } else { s as usize })
        .collect();
    let mut b = Builder::default();
    let input = b.input("input", &shape, ty, q.clone());
    let bt = b.ints("begin", &[rank], &begin);
    let st = b.ints("size", &[rank], &size);
    let output = b.output("output", &out, ty, q);
    let label = format!("{} {shape:?} begin {begin:?} size {size:?}", ty.name());
    (b.finish(65, &[input, bt, st], &[output], None), label)
}

fn split(r: &mut Rng) -> (Model, String) {
    let (ty, q) = movement_ty(r, ALL);
    let rank = r.size(1, 4);
    let axis = r.size(0, rank - 1);
    let parts = r.size(1, 3);
    let mut shape: Vec<usize> = (0..rank).map(|_| r.size(1, 5)).collect();
    shape[axis] = parts * r.size(1, 3);
    let mut out = shape.clone();
    out[axis] /= parts;
    let written = if r.chance(0.3) { axis as i32 - rank as i32 } else { axis as i32 };
    let mut b = Builder::default();
    let axis_t = b.ints("axis", &[], &[written]);
    let input = b.input("input", &shape, ty, q.clone());
    let outputs: Vec<i32> = (0..parts).map(|k| b.output(&format!("out{k}"), &out, ty, q.clone())).collect();
    let label = format!("{} {shape:?} axis {written} into {parts}", ty.name());
    (b.finish(49, &[axis_t, input], &outputs, Some((35, vec![(0, Scalar::I32(parts as i32))]))), label)
}

fn pack(r: &mut Rng) -> (Model, String) {
    let (ty, q) = movement_ty(r, ALL);
    let rank = r.size(1, 3);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(1, 5)).collect();
    let n = r.size(1, 4);
    let axis = r.size(0, rank);
    let mut out = shape.clone();
    out.insert(axis, n);
    let mut b = Builder::default();
    let inputs: Vec<i32> = (0..n).map(|k| b.input(&format!("in{k}"), &shape, ty, q.clone())).collect();
    let output = b.output("output", &out, ty, q);
    let label = format!("{} {n} x {shape:?} axis {axis}", ty.name());
    let options = vec![(0, Scalar::I32(n as i32)), (1, Scalar::I32(axis as i32))];
    (b.finish(83, &inputs, &[output], Some((59, options))), label)
}

fn transpose_conv(r: &mut Rng) -> (Model, String) {
    let ty = conv_like_ty(r);
    let (h, w, c) = (r.size(1, 6), r.size(1, 6), r.size(1, 4));
    let oc = r.size(1, 4);
    let (kh, kw) = (r.size(1, 4), r.size(1, 4));
    let (sh, sw) = (r.size(1, 3), r.size(1, 3));
    let padding = r.pick(&[0i8, 1]);
    // TFLite's output size for each padding.
    let size = |i: usize, k: usize, s: usize| if padding == 0 { i * s } else { (i - 1) * s + k };
    let (oh, ow) = (size(h, kh, sh), size(w, kw, sw));
    let per_channel = ty != Ty::F32 && r.chance(0.7);
    let mut b = Builder::default();
    // TFLM ignores the output shape input: streaming models feed it from a
    // graph input.
    let fed = r.chance(0.2);
    let shape_t = if fed {
        b.input("output_shape", &[4], Ty::I32, None)
    } else {
        b.ints("output_shape", &[4], &[1, oh as i32, ow as i32, oc as i32])
    };
    let in_q = activation_quant(r, ty, 1e-3, 0.5);
    let (filter, w_scales) = weights(&mut b, r, ty, "filter", &[oc, kh, kw, c], (oc, 0), per_channel, 1.0);
    let input = b.input("input", &[1, h, w, c], ty, in_q.clone());
    let with_bias = r.chance(0.7);
    let bias = if with_bias { bias(&mut b, r, ty, oc, scale_of(&in_q), &w_scales) } else { -1 };
    let out_q = output_quant(r, ty, dot_magnitude(ty, scale_of(&in_q), w_scales[0], kh * kw * c));
    let output = b.output("output", &[1, oh, ow, oc], ty, out_q);
    let options = vec![(0, Scalar::I8(padding)), (1, Scalar::I32(sw as i32)), (2, Scalar::I32(sh as i32))];
    let label = format!(
        "{} {h}x{w}x{c} -> {oh}x{ow}x{oc}, {kh}x{kw} stride {sh}x{sw} {}{}{}{}",
        ty.name(),
        ["SAME", "VALID"][padding as usize],
        if per_channel { " per-channel" } else { "" },
        if with_bias { "" } else { " no bias" },
        if fed { " output shape fed" } else { "" },
    );
    (b.finish(67, &[shape_t, filter, input, bias], &[output], Some((49, options))), label)
}

fn prelu(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(FLOAT_INT8);
    let rank = r.size(1, 4);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(1, 6)).collect();
    // alpha broadcasts against the input: often per channel (last dim).
    let alpha_shape: Vec<usize> = if r.chance(0.5) {
        vec![shape[rank - 1]]
    } else {
        shape.iter().map(|&d| if r.chance(0.5) { 1 } else { d }).collect()
    };
    let n: usize = alpha_shape.iter().product();
    let mut b = Builder::default();
    let in_q = activation_quant(r, ty, 1e-3, 0.5);
    let input = b.input("input", &shape, ty, in_q.clone());
    let alpha = if ty == Ty::F32 {
        b.constant("alpha", &alpha_shape, Ty::F32, floats(r, n, 1.0), None)
    } else {
        let q = per_tensor(r.log_uniform(1e-3, 0.05), r.zero_point(-128, 127));
        let bytes = (0..n).map(|_| r.bits() as u8).collect();
        b.constant("alpha", &alpha_shape, Ty::I8, bytes, q)
    };
    let out_q = output_quant(r, ty, 74.0 * scale_of(&in_q));
    let output = b.output("output", &shape, ty, out_q);
    let label = format!("{} {shape:?} alpha {alpha_shape:?}", ty.name());
    (b.finish(54, &[input, alpha], &[output], None), label)
}

fn cast(r: &mut Rng) -> (Model, String) {
    let from = r.pick(&[Ty::F32, Ty::I8, Ty::I16, Ty::I32, Ty::Bool]);
    let to = r.pick(&[Ty::F32, Ty::I8, Ty::I16, Ty::I32]);
    let shape: Vec<usize> = (0..r.size(1, 3)).map(|_| r.size(1, 8)).collect();
    let mut b = Builder::default();
    let input = b.input("input", &shape, from, None);
    let output = b.output("output", &shape, to, None);
    let label = format!("{} -> {} {shape:?}", from.name(), to.name());
    (b.finish(53, &[input], &[output], None), label)
}

fn split_v(r: &mut Rng) -> (Model, String) {
    let (ty, q) = movement_ty(r, ALL);
    let rank = r.size(1, 4);
    let axis = r.size(0, rank - 1);
    let parts = r.size(1, 4);
    let sizes: Vec<usize> = (0..parts).map(|_| r.size(1, 4)).collect();
    let mut shape: Vec<usize> = (0..rank).map(|_| r.size(1, 5)).collect();
    shape[axis] = sizes.iter().sum();
    // One size may be -1: the rest of the dimension.
    let mut written: Vec<i32> = sizes.iter().map(|&s| s as i32).collect();
    if r.chance(0.3) {
        let k = r.size(0, parts - 1);
        written[k] = -1;
    }
    let mut b = Builder::default();
    let input = b.input("input", &shape, ty, q.clone());
    let sizes_t = b.ints("size_splits", &[parts], &written);
    let axis_t = b.ints("axis", &[], &[axis as i32]);
    let outputs: Vec<i32> = sizes
        .iter()
        .enumerate()
        .map(|(k, &n)| {
            let mut s = shape.clone();
            s[axis] = n;
            b.output(&format!("out{k}"), &s, ty, q.clone())
        })
        .collect();
    let label = format!("{} {shape:?} axis {axis} sizes {written:?}", ty.name());
    (b.finish(102, &[input, sizes_t, axis_t], &outputs, Some((79, vec![(0, Scalar::I32(parts as i32))]))), label)
}

fn unpack(r: &mut Rng) -> (Model, String) {
    let (ty, q) = movement_ty(r, ALL);
    let rank = r.size(2, 4);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(1, 4)).collect();
    let axis = r.size(0, rank - 1);
    let mut out = shape.clone();
    let n = out.remove(axis);
    let mut b = Builder::default();
    let input = b.input("input", &shape, ty, q.clone());
    let outputs: Vec<i32> = (0..n).map(|k| b.output(&format!("out{k}"), &out, ty, q.clone())).collect();
    let label = format!("{} {shape:?} axis {axis}", ty.name());
    let options = vec![(0, Scalar::I32(n as i32)), (1, Scalar::I32(axis as i32))];
    (b.finish(88, &[input], &outputs, Some((64, options))), label)
}

fn padv2(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::I8, Ty::F32, Ty::I16]);
    let rank = r.size(1, 4);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(1, 6)).collect();
    let pads: Vec<i32> = (0..2 * rank).map(|_| r.pick(&[0, 0, 1, 2, 3])).collect();
    let out: Vec<usize> = (0..rank).map(|i| shape[i] + (pads[2 * i] + pads[2 * i + 1]) as usize).collect();
    let q = activation_quant(r, ty, 1e-3, 0.5);
    let mut b = Builder::default();
    let input = b.input("input", &shape, ty, q.clone());
    let paddings = b.ints("paddings", &[rank, 2], &pads);
    let value = super::random_values(r, ty, 1);
    let value_t = b.constant("constant_values", &[], ty, value, q.clone());
    let output = b.output("output", &out, ty, q);
    let label = format!("{} {shape:?} pads {pads:?}", ty.name());
    (b.finish(60, &[input, paddings, value_t], &[output], None), label)
}

fn squeeze(r: &mut Rng) -> (Model, String) {
    let (ty, q) = movement_ty(r, ALL);
    let rank = r.size(1, 5);
    let shape: Vec<usize> = (0..rank).map(|_| if r.chance(0.4) { 1 } else { r.size(2, 5) }).collect();
    let out: Vec<usize> = shape.iter().copied().filter(|&d| d != 1).collect();
    let mut b = Builder::default();
    let input = b.input("input", &shape, ty, q.clone());
    let output = b.output("output", &out, ty, q);
    let label = format!("{} {shape:?} -> {out:?}", ty.name());
    (b.finish(43, &[input], &[output], None), label)
}

fn expand_dims(r: &mut Rng) -> (Model, String) {
    let (ty, q) = movement_ty(r, NO_INT32);
    let rank = r.size(1, 4);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(1, 5)).collect();
    let axis = r.size(0, rank);
    let written = if r.chance(0.3) { axis as i32 - rank as i32 - 1 } else { axis as i32 };
    let mut out = shape.clone();
    out.insert(axis, 1);
    let mut b = Builder::default();
    let input = b.input("input", &shape, ty, q.clone());
    let axis_t = b.ints("axis", &[1], &[written]);
    let output = b.output("output", &out, ty, q);
    let label = format!("{} {shape:?} axis {written}", ty.name());
    (b.finish(70, &[input, axis_t], &[output], None), label)
}

/// SVDF over 2 to 5 invokes in a row (the state carries over): float32, or
/// int8 with an int16 or int8 state; rank, batch, memory and bias drawn.
fn svdf(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::F32, Ty::I8, Ty::I8]);
    let state_ty = if ty == Ty::F32 { Ty::F32 } else { r.pick(&[Ty::I16, Ty::I16, Ty::I8]) };
    let (batch, input_size, units, rank, memory) =
        (r.size(1, 2), r.size(1, 12), r.size(1, 5), r.size(1, 3), r.size(1, 6));
    let filters = units * rank;
    let act = activation(r);
    let mut b = Builder::default();
    let in_q = activation_quant(r, ty, 1e-2, 0.2);
    let input = b.input("input", &[batch, input_size], ty, in_q.clone());
    let (wf, wt, state_q, out_q, bias_scale) = if ty == Ty::F32 {
        let wf =
            b.constant("weights_feature", &[filters, input_size], Ty::F32, floats(r, filters * input_size, 0.5), None);
        let wt = b.constant("weights_time", &[filters, memory], Ty::F32, floats(r, filters * memory, 0.5), None);
        (wf, wt, None, None, 0.0)
    } else {
        let fq = per_tensor(r.log_uniform(1e-3, 0.02), 0);
        let wf_bytes = (0..filters * input_size).map(|_| r.range(-127, 127) as i8 as u8).collect();
        let wf = b.constant("weights_feature", &[filters, input_size], Ty::I8, wf_bytes, fq.clone());
        // The state holds feature activations: a scale that keeps them in range.
        let feature = scale_of(&in_q) * scale_of(&fq) * 74.0 * 73.0 * (input_size as f64).sqrt();
        let state_range = if state_ty == Ty::I16 { 8000.0 } else { 40.0 };
        let sq = per_tensor((feature / state_range * r.log_uniform(0.5, 2.0) as f64) as f32, 0);
        let (wt_bytes, tq) = if state_ty == Ty::I16 {
            let v: Vec<u8> =
                (0..filters * memory).flat_map(|_| (r.range(-20000, 20000) as i16).to_le_bytes()).collect();
            (v, per_tensor(r.log_uniform(1e-5, 1e-4), 0))
        } else {
            let v: Vec<u8> = (0..filters * memory).map(|_| r.range(-127, 127) as i8 as u8).collect();
            (v, per_tensor(r.log_uniform(1e-3, 0.02), 0))
        };
        let wt = b.constant("weights_time", &[filters, memory], state_ty, wt_bytes, tq.clone());
        let time_range = if state_ty == Ty::I16 { 12000.0 } else { 73.0 };
        let out = scale_of(&sq) * state_range * scale_of(&tq) * time_range * ((memory * rank) as f64).sqrt();
        let bias_scale = (scale_of(&sq) * scale_of(&tq)) as f32;
        (wf, wt, sq, output_quant(r, Ty::I8, out), bias_scale)
    };
    // TFLM's SVDF reads the bias unconditionally (an omitted one crashes
    // the interpreter) and checks its scale is state x time weights.
    let bias_t = if ty == Ty::F32 {
        b.constant("bias", &[units], Ty::F32, floats(r, units, 0.5), None)
    } else {
        let values: Vec<u8> = (0..units).flat_map(|_| (r.range(-2000, 2000) as i32).to_le_bytes()).collect();
        b.constant("bias", &[units], Ty::I32, values, per_tensor(bias_scale, 0))
    };
    let state = b.variable("state", &[batch, memory * filters], state_ty, state_q);
    let output = b.output("output", &[batch, units], ty, out_q);
    let options = vec![(0, Scalar::I32(rank as i32)), (1, Scalar::I8(act))];
    let invokes = r.size(2, 5);
    let label = format!(
        "{} state {} batch {batch} input {input_size} units {units} rank {rank} memory {memory} {} x{invokes}",
        ty.name(),
        state_ty.name(),
        act_name(act),
    );
    let mut m = b.finish(27, &[input, wf, wt, bias_t, state], &[output], Some((6, options)));
    m.invokes = invokes;
    (m, label)
}

/// Hybrid SVDF (float32 input, state and output with int8 feature and
/// time weights, which TFLM does not run) over 2 to 5 invokes, answered by
/// LiteRT's reference kernel: symmetric or asymmetric input frames, a bias
/// or none, a `reset()` between two invokes now and then.
/// Hybrid UNIDIRECTIONAL_SEQUENCE_LSTM (LiteRT's `EvalHybrid`): float32
/// input, states and output, int8 weights with one scale each (uint8 now
/// and then: LiteRT reads the bytes as int8), float32 biases, inputs and
/// hidden state quantized per row symmetrically or not; batch- or
/// time-major, cell clip; several invokes, a reset now and then.
/// Answered by LiteRT's reference kernels.
fn lstm_hybrid(r: &mut Rng) -> (Model, String) {
    let (batch, time, n_input, units) = (r.size(1, 3), r.size(1, 4), r.size(1, 8), r.size(1, 6));
    let time_major = r.chance(0.3);
    let clip = if r.chance(0.3) { r.pick(&[0.5f32, 1.0, 3.0]) } else { 0.0 };
    let asymmetric = r.chance(0.5);
    let weight_ty = if r.chance(0.2) { Ty::U8 } else { Ty::I8 };
    let shape = if time_major { [time, batch, n_input] } else { [batch, time, n_input] };
    let out_shape = if time_major { [time, batch, units] } else { [batch, time, units] };
    let mut b = Builder::default();
    let mut inputs = vec![b.input("input", &shape, Ty::F32, None)];
    for (k, gate) in ["input", "forget", "cell", "output"].iter().cycle().take(8).enumerate() {
        let (name, cols) =
            if k < 4 { (format!("{gate}_weights"), n_input) } else { (format!("{gate}_recurrent"), units) };
        let bytes = (0..units * cols).map(|_| r.range(-127, 127) as i8 as u8).collect();
        inputs.push(b.constant(&name, &[units, cols], weight_ty, bytes, per_tensor(r.log_uniform(0.002, 0.03), 0)));
    }
    inputs.extend([-1, -1, -1]); // peepholes
    for gate in ["input", "forget", "cell", "output"] {
        inputs.push(b.constant(&format!("{gate}_bias"), &[units], Ty::F32, floats(r, units, 0.5), None));
    }
    inputs.extend([-1, -1]); // projection
    inputs.push(b.variable("output_state", &[batch, units], Ty::F32, None));
    inputs.push(b.variable("cell_state", &[batch, units], Ty::F32, None));
    inputs.extend([-1, -1, -1, -1]); // layer norm
    let output = b.output("output", &out_shape, Ty::F32, None);
    let options =
        vec![(0, Scalar::I8(4)), (1, Scalar::F32(clip)), (3, Scalar::Bool(time_major)), (4, Scalar::Bool(asymmetric))];
    let mut m = b.finish(44, &inputs, &[output], Some((71, options)));
    m.invokes = r.size(2, 4);
    m.reset_at = r.chance(0.3).then(|| r.size(1, m.invokes - 1));
    m.litert = true;
    let label = format!(
        "{} weights, batch {batch} time {time} input {n_input} units {units}{}{}{} x{}{}",
        weight_ty.name(),
        if time_major { " time-major" } else { "" },
        if clip > 0.0 { format!(" cell clip {clip}") } else { String::new() },
        if asymmetric { " asymmetric inputs" } else { "" },
        m.invokes,
        m.reset_at.map_or(String::new(), |k| format!(", reset before {k}")),
    );
    (m, label)
}

fn svdf_hybrid(r: &mut Rng) -> (Model, String) {
    let (batch, input_size, units, rank, memory) =
        (r.size(1, 2), r.size(1, 12), r.size(1, 5), r.size(1, 3), r.size(1, 6));
    let filters = units * rank;
    let act = activation(r);
    let asymmetric = r.chance(0.5);
    let mut b = Builder::default();
    let input = b.input("input", &[batch, input_size], Ty::F32, None);
    let mut int8 = |b: &mut Builder, name: &str, shape: [usize; 2]| {
        let bytes = (0..shape[0] * shape[1]).map(|_| r.range(-127, 127) as i8 as u8).collect();
        b.constant(name, &shape, Ty::I8, bytes, per_tensor(r.log_uniform(1e-3, 0.02), 0))
    };
    let wf = int8(&mut b, "weights_feature", [filters, input_size]);
    let wt = int8(&mut b, "weights_time", [filters, memory]);
    let with_bias = r.chance(0.7);
    let bias = if with_bias { b.constant("bias", &[units], Ty::F32, floats(r, units, 0.5), None) } else { -1 };
    let state = b.variable("state", &[batch, memory * filters], Ty::F32, None);
    let output = b.output("output", &[batch, units], Ty::F32, None);
    let options = vec![(0, Scalar::I32(rank as i32)), (1, Scalar::I8(act)), (2, Scalar::Bool(asymmetric))];
    let mut m = b.finish(27, &[input, wf, wt, bias, state], &[output], Some((6, options)));
    m.invokes = r.size(2, 5);
    m.reset_at = r.chance(0.3).then(|| r.size(1, m.invokes - 1));
    m.litert = true;
    let label = format!(
        "batch {batch} input {input_size} units {units} rank {rank} memory {memory} {}{}{} x{}{}",
        act_name(act),
        if asymmetric { " asymmetric inputs" } else { "" },
        if with_bias { "" } else { " no bias" },
        m.invokes,
        m.reset_at.map_or(String::new(), |k| format!(", reset before {k}")),
    );
    (m, label)
}

/// UNIDIRECTIONAL_SEQUENCE_LSTM over 2 to 4 invokes in a row (the states
/// carry over): float32, int8 (int8 weights, int32 biases, an int16 cell
/// state of power-of-two scale, an int8 hidden state with any zero point)
/// or 16x8 (int16 activations, int64 biases); batch- or time-major, cell
/// clip or none; no peephole, projection or layer norm (TFLM has none).
fn lstm(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::F32, Ty::F32, Ty::I8, Ty::I8, Ty::I16]);
    let (batch, time, n_input, units) = (r.size(1, 2), r.size(1, 4), r.size(1, 6), r.size(1, 5));
    let time_major = r.chance(0.3);
    let clip = if r.chance(0.4) { r.pick(&[0.5f32, 1.0, 3.0]) } else { 0.0 };
    let shape = if time_major { [time, batch, n_input] } else { [batch, time, n_input] };
    let out_shape = if time_major { [time, batch, units] } else { [batch, time, units] };
    let mut b = Builder::default();
    let in_q = activation_quant(r, ty, 0.005, 0.05);
    // The hidden state (and the output, which TFLM writes in its
    // quantization) holds tanh-sized values.
    let hidden_q = match ty {
        Ty::I8 => per_tensor(r.log_uniform(1.0 / 160.0, 1.0 / 60.0), r.zero_point(-40, 40)),
        Ty::I16 => per_tensor(r.log_uniform(1.0 / 40000.0, 1.0 / 16000.0), 0),
        _ => None,
    };
    let input = b.input("input", &shape, ty, in_q.clone());
    let mut inputs = vec![input];
    let mut weight_scales = Vec::new();
    for (k, gate) in ["input", "forget", "cell", "output"].iter().cycle().take(8).enumerate() {
        let (name, cols) =
            if k < 4 { (format!("{gate}_weights"), n_input) } else { (format!("{gate}_recurrent"), units) };
        let t = if ty == Ty::F32 {
            b.constant(&name, &[units, cols], Ty::F32, floats(r, units * cols, 0.6), None)
        } else {
            let bytes = (0..units * cols).map(|_| r.range(-127, 127) as i8 as u8).collect();
            let scale = r.log_uniform(0.002, 0.02);
            let x = if k < 4 { scale_of(&in_q) } else { scale_of(&hidden_q) };
            weight_scales.push(x * f64::from(scale));
            b.constant(&name, &[units, cols], Ty::I8, bytes, per_tensor(scale, 0))
        };
        inputs.push(t);
    }
    inputs.extend([-1, -1, -1]); // peepholes
    // TFLM's LSTM reads every gate bias (an omitted one crashes it).
    for (g, gate) in ["input", "forget", "cell", "output"].iter().enumerate() {
        let name = format!("{gate}_bias");
        let t = match ty {
            Ty::F32 => b.constant(&name, &[units], Ty::F32, floats(r, units, 0.5), None),
            _ => {
                // About +-0.5 in the gate's input x weight scale.
                let limit = (0.5 / weight_scales[g]).min(1e6) as i64;
                let values: Vec<i64> = (0..units).map(|_| r.range(-limit, limit)).collect();
                let (bias_ty, bytes): (Ty, Vec<u8>) = if ty == Ty::I8 {
                    (Ty::I32, values.iter().flat_map(|&v| (v as i32).to_le_bytes()).collect())
                } else {
                    (Ty::I64, values.iter().flat_map(|&v| v.to_le_bytes()).collect())
                };
                b.constant(&name, &[units], bias_ty, bytes, per_tensor(weight_scales[g] as f32, 0))
            }
        };
        inputs.push(t);
    }
    inputs.extend([-1, -1]); // projection
    let (cell_ty, cell_q, cell_power) = match ty {
        Ty::F32 => (Ty::F32, None, 0),
        _ => {
            let power = r.pick(&[-15, -13, -11, -11, -10, -9]);
            (Ty::I16, per_tensor(2f32.powi(power), 0), power)
        }
    };
    inputs.push(b.variable("output_state", &[batch, units], ty, hidden_q.clone()));
    inputs.push(b.variable("cell_state", &[batch, units], cell_ty, cell_q));
    inputs.extend([-1, -1, -1, -1]); // layer norm: TFLM wants all 24 inputs listed
    let output = b.output("output", &out_shape, ty, hidden_q);
    let options = vec![(0, Scalar::I8(4)), (1, Scalar::F32(clip)), (3, Scalar::Bool(time_major))];
    let invokes = r.size(2, 4);
    let label = format!(
        "{}{} batch {batch} time {time} input {n_input} units {units}{}{} x{invokes}",
        ty.name(),
        if ty == Ty::F32 { String::new() } else { format!(" cell 2^{cell_power}") },
        if time_major { " time-major" } else { "" },
        if clip > 0.0 { format!(" cell clip {clip}") } else { String::new() },
    );
    let mut m = b.finish(44, &inputs, &[output], Some((71, options)));
    m.invokes = invokes;
    (m, label)
}

/// EQUAL (71), NOT_EQUAL (72), GREATER (61), GREATER_EQUAL (62), LESS
/// (58), LESS_EQUAL (63), with broadcasting, giving bool. Inputs often
/// meet (halves, small integers, int8 inputs of one quantization).
fn comparison(r: &mut Rng, code: i32) -> (Model, String) {
    let equality = matches!(code, 71 | 72);
    let types: &[Ty] =
        if equality { &[Ty::I8, Ty::F32, Ty::I32, Ty::I64, Ty::Bool] } else { &[Ty::I8, Ty::F32, Ty::I32, Ty::I64] };
    let ty = r.pick(types);
    let (sa, sb, so) = broadcast_shapes(r);
    let mut b = Builder::default();
    // TFLM's int8 rescaling needs scales below 1.
    let qa = activation_quant(r, ty, 1e-3, 0.9);
    let qb = if r.chance(0.4) { qa.clone() } else { activation_quant(r, ty, 1e-3, 0.9) };
    let a = b.input("a", &sa, ty, qa);
    let c = b.input("b", &sb, ty, qb);
    let out = b.output("output", &so, Ty::Bool, None);
    let label = format!("{} {sa:?} {sb:?} -> {so:?}", ty.name());
    let mut m = b.finish(code, &[a, c], &[out], None);
    m.halves = r.chance(0.7);
    m.narrow = r.chance(0.7);
    (m, label)
}

/// LOGICAL_AND (86), LOGICAL_OR (84) of bools, with broadcasting.
fn logical(r: &mut Rng, code: i32) -> (Model, String) {
    let (sa, sb, so) = broadcast_shapes(r);
    let mut b = Builder::default();
    let a = b.input("a", &sa, Ty::Bool, None);
    let c = b.input("b", &sb, Ty::Bool, None);
    let out = b.output("output", &so, Ty::Bool, None);
    (b.finish(code, &[a, c], &[out], None), format!("bool {sa:?} {sb:?} -> {so:?}"))
}

/// LOGICAL_NOT of bools.
fn logical_not(r: &mut Rng) -> (Model, String) {
    let shape: Vec<usize> = (0..r.size(1, 4)).map(|_| r.size(1, 7)).collect();
    let mut b = Builder::default();
    let input = b.input("input", &shape, Ty::Bool, None);
    let output = b.output("output", &shape, Ty::Bool, None);
    (b.finish(87, &[input], &[output], None), format!("bool {shape:?}"))
}

/// SELECT_V2: condition, x and y broadcast against each other; the
/// condition a graph input, or computed by a comparison of two inputs in
/// the graph (a bool tensor inside the arena).
fn select_v2(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::I8, Ty::F32, Ty::I16]);
    let rank = r.size(1, 5);
    let full: Vec<usize> = (0..rank).map(|_| r.pick(&[1, 2, 3, 4, 5])).collect();
    let mut side = || -> Vec<usize> {
        let keep = if r.chance(0.3) { r.size(0, rank) } else { rank };
        let mut s: Vec<usize> = full[rank - keep..].to_vec();
        for d in s.iter_mut() {
            if r.chance(0.3) {
                *d = 1;
            }
        }
        s
    };
    let (sc, sx, sy) = (side(), side(), side());
    let so: Vec<usize> = (0..rank)
        .map(|i| {
            let at = |s: &[usize]| if i + s.len() >= rank { s[i + s.len() - rank] } else { 1 };
            at(&sc).max(at(&sx)).max(at(&sy))
        })
        .collect();
    let mut b = Builder::default();
    let q = activation_quant(r, ty, 1e-3, 0.5);
    let computed = r.chance(0.4);
    let condition = if computed {
        let p = b.input("p", &sc, Ty::F32, None);
        let t = b.input("q", &sc, Ty::F32, None);
        let c = b.tensor("condition", &sc, Ty::Bool, None);
        b.op(61, &[p, t], &[c], None);
        c
    } else {
        b.input("condition", &sc, Ty::Bool, None)
    };
    let x = b.input("x", &sx, ty, q.clone());
    let y = b.input("y", &sy, ty, q.clone());
    let out = b.output("output", &so, ty, q);
    b.op(123, &[condition, x, y], &[out], None);
    let label = format!(
        "{} condition {sc:?}{} x {sx:?} y {sy:?} -> {so:?}",
        ty.name(),
        if computed { " (GREATER)" } else { "" }
    );
    (b.finish_graph(), label)
}

/// REDUCE_ALL of bools over MEAN's draws of shapes, axes and keep_dims.
fn reduce_all(r: &mut Rng) -> (Model, String) {
    let (mut m, label) = mean(r);
    m.def.opcodes = vec![(140, None)];
    let sub = &mut m.def.subgraphs[0];
    for t in [sub.inputs[0], sub.outputs[0]] {
        let t = &mut sub.tensors[t as usize];
        t.dtype = Ty::Bool.code();
        t.quant = None;
    }
    m.inputs[0].0 = Ty::Bool;
    m.outputs[0].0 = Ty::Bool;
    let label = label.split_once(' ').map_or(label.clone(), |(_, rest)| format!("bool {rest}"));
    (m, label)
}

/// FLOOR_DIV (90), FLOOR_MOD (95): float32 with broadcasting (TFLM fails
/// on a zero divisor; random floats are never exactly zero).
fn floor_binary(r: &mut Rng, code: i32) -> (Model, String) {
    let (sa, sb, so) = broadcast_shapes(r);
    // int32 is LiteRT's (TFLM has float32 only): answered by its reference
    // kernels, the divisors nonzero (LiteRT's invoke fails on a zero), the
    // extremes now and then (FLOOR_DIV's i32::MIN over -1 wraps).
    let int32 = r.chance(0.5);
    let ty = if int32 { Ty::I32 } else { Ty::F32 };
    let mut b = Builder::default();
    let a = b.input("a", &sa, ty, None);
    let c = b.input("b", &sb, ty, None);
    let out = b.output("output", &so, ty, None);
    let mut m = b.finish(code, &[a, c], &[out], None);
    if int32 {
        // C's `i32::MIN % -1` traps (LiteRT's FloorMod dies on it): FLOOR_MOD
        // takes the next value up.
        let low = if code == 95 { i32::MIN as i64 + 1 } else { i32::MIN as i64 };
        let extreme = |r: &mut Rng, v: i64| if r.chance(0.05) { r.pick(&[low, i32::MAX as i64]) } else { v };
        let mut values: Vec<i64> = Vec::new();
        for _ in 0..sa.iter().product::<usize>() {
            let v = r.range(-1000, 1000);
            values.push(extreme(r, v));
        }
        for _ in 0..sb.iter().product::<usize>() {
            let v = r.pick(&[-1, 1]) * r.range(1, 40);
            values.push(if r.chance(0.05) { r.pick(&[-1, i32::MIN as i64, i32::MAX as i64]) } else { v });
        }
        m.fixed = Some(values);
        m.litert = true;
    }
    (m, format!("{} {sa:?} {sb:?} -> {so:?}", ty.name()))
}

/// SHAPE of an input of any rank and dtype, as int32.
fn shape(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::I8, Ty::F32, Ty::I16, Ty::I32, Ty::Bool]);
    let dims: Vec<usize> = (0..r.size(1, 5)).map(|_| r.size(1, 6)).collect();
    let mut b = Builder::default();
    let q = activation_quant(r, ty, 1e-3, 0.5);
    let input = b.input("input", &dims, ty, q);
    let output = b.output("output", &[dims.len()], Ty::I32, None);
    (b.finish(77, &[input], &[output], None), format!("{} {dims:?}", ty.name()))
}

/// GATHER_ND: constant index tuples over params of rank 1 to 4, now and
/// then one running past its dimension into the next (TFLM checks only
/// the flat position).
fn gather_nd(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(FLOAT_INT8);
    let dims: Vec<usize> = (0..r.size(1, 4)).map(|_| r.size(1, 5)).collect();
    let nd = r.size(1, dims.len());
    let mut shape: Vec<usize> = (0..r.size(0, 2)).map(|_| r.size(1, 4)).collect();
    let tuples: usize = shape.iter().product();
    shape.push(nd);
    let mut values = Vec::new();
    for _ in 0..tuples {
        for &d in &dims[..nd] {
            values.push(r.range(0, d as i64 - 1) as i32);
        }
        if nd > 1 && dims[nd - 2] > 1 && r.chance(0.1) {
            // One past the last dimension's end: the next row's start.
            let end = values.len();
            values[end - 1] = dims[nd - 1] as i32;
            values[end - 2] = 0;
        }
    }
    let mut out: Vec<usize> = shape[..shape.len() - 1].to_vec();
    out.extend(&dims[nd..]);
    let mut b = Builder::default();
    let q = activation_quant(r, ty, 1e-3, 0.5);
    let params = b.input("params", &dims, ty, q.clone());
    let indices = b.ints("indices", &shape, &values);
    let output = b.output("output", &out, ty, q);
    (b.finish(107, &[params, indices], &[output], None), format!("{} {dims:?} indices {shape:?}", ty.name()))
}

/// BATCH_MATMUL: ranks 2 to 5 with broadcast batch dimensions, adj_x and
/// adj_y, float32, int8 (zero points on both operands) and int16; the
/// right operand now and then a constant (weights).
/// BATCH_MATMUL's operand shapes: `[m, k, n]` matrices, 0 to 3 batch
/// dimensions broadcast between the two (now and then 1 on one side),
/// either operand stored transposed. Returns (lhs, rhs, output shapes,
/// adj_x, adj_y).
fn batch_matmul_shapes(r: &mut Rng) -> (Vec<usize>, Vec<usize>, Vec<usize>, bool, bool) {
    let (m, k, n) = (r.size(1, 6), r.size(1, 9), r.size(1, 6));
    let batch_rank = r.size(0, 3);
    let full: Vec<usize> = (0..batch_rank).map(|_| r.size(1, 3)).collect();
    let mut side = || -> Vec<usize> {
        let keep = r.size(0, batch_rank);
        full[batch_rank - keep..].iter().map(|&d| if r.chance(0.3) { 1 } else { d }).collect()
    };
    let (lb, rb) = (side(), side());
    let out_batch: Vec<usize> = (0..lb.len().max(rb.len()))
        .map(|i| {
            let rank = lb.len().max(rb.len());
            let at = |s: &[usize]| if i + s.len() >= rank { s[i + s.len() - rank] } else { 1 };
            at(&lb).max(at(&rb))
        })
        .collect();
    let (adj_x, adj_y) = (r.chance(0.4), r.chance(0.4));
    let mut ls = lb.clone();
    ls.extend(if adj_x { [k, m] } else { [m, k] });
    let mut rs = rb.clone();
    rs.extend(if adj_y { [n, k] } else { [k, n] });
    let mut os = out_batch;
    os.extend([m, n]);
    (ls, rs, os, adj_x, adj_y)
}

fn batch_matmul(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::I8, Ty::I8, Ty::F32, Ty::I16]);
    let (ls, rs, os, adj_x, adj_y) = batch_matmul_shapes(r);
    let k = if adj_x { ls[ls.len() - 2] } else { ls[ls.len() - 1] };
    let mut b = Builder::default();
    let ql = activation_quant(r, ty, 1e-3, 0.5);
    let qr = activation_quant(r, ty, 1e-3, 0.5);
    let magnitude = match ty {
        Ty::F32 => 2.0 * (k as f64).sqrt(),
        Ty::I16 => 19000.0 * scale_of(&ql) * 19000.0 * scale_of(&qr) * (k as f64).sqrt(),
        _ => 74.0 * scale_of(&ql) * 74.0 * scale_of(&qr) * (k as f64).sqrt(),
    };
    let qo = output_quant(r, ty, magnitude);
    let lhs = b.input("lhs", &ls, ty, ql);
    let constant = r.chance(0.3);
    let rhs = if constant {
        let count: usize = rs.iter().product();
        let bytes = crate::random_values(r, ty, count);
        b.constant("rhs", &rs, ty, bytes, qr)
    } else {
        b.input("rhs", &rs, ty, qr)
    };
    let out = b.output("output", &os, ty, qo);
    let options = vec![(0, Scalar::Bool(adj_x)), (1, Scalar::Bool(adj_y))];
    let label = format!(
        "{} {ls:?} x {rs:?}{} -> {os:?}{}{}",
        ty.name(),
        if constant { " (constant)" } else { "" },
        if adj_x { " adj_x" } else { "" },
        if adj_y { " adj_y" } else { "" }
    );
    (b.finish(126, &[lhs, rhs], &[out], Some((BATCH_MATMUL_OPTIONS, options))), label)
}

/// Hybrid BATCH_MATMUL (float32 lhs and output, a constant int8 rhs,
/// which TFLM does not run), answered by LiteRT's reference kernel: the
/// shapes of `batch_matmul`, one scale or one per column, symmetric or
/// asymmetric input rows.
fn batch_matmul_hybrid(r: &mut Rng) -> (Model, String) {
    let (ls, mut rs, mut os, adj_x, adj_y) = batch_matmul_shapes(r);
    let n = os[os.len() - 1];
    let per_channel = r.chance(0.4);
    let mut asymmetric = r.chance(0.5);
    // LiteRT sums the weight rows of batch dimensions 1 and 2 of five only:
    // with a leading fifth dimension it reads sums it never wrote.
    if rs.len() == 5 && rs[0] > 1 {
        if r.chance(0.5) {
            asymmetric = false;
        } else {
            rs[0] = 1;
            os[0] = if ls.len() == 5 { ls[0] } else { 1 };
        }
    }
    let mut b = Builder::default();
    let lhs = b.input("lhs", &ls, Ty::F32, None);
    let axis = if adj_y { rs.len() - 2 } else { rs.len() - 1 };
    let (rhs, _) = weights(&mut b, r, Ty::I8, "rhs", &rs, (n, axis as i32), per_channel, 1.0);
    let out = b.output("output", &os, Ty::F32, None);
    let options = vec![(0, Scalar::Bool(adj_x)), (1, Scalar::Bool(adj_y)), (2, Scalar::Bool(asymmetric))];
    let label = format!(
        "{ls:?} x int8 {rs:?} -> {os:?}{}{}{}{}",
        if adj_x { " adj_x" } else { "" },
        if adj_y { " adj_y" } else { "" },
        if per_channel { " per-channel" } else { "" },
        if asymmetric { " asymmetric inputs" } else { "" },
    );
    let mut m = b.finish(126, &[lhs, rhs], &[out], Some((BATCH_MATMUL_OPTIONS, options)));
    m.litert = true;
    (m, label)
}

/// DYNAMIC_UPDATE_SLICE: the start a graph input (int32 or int64, small
/// values that TFLM clamps into the operand), or a constant.
fn dynamic_update_slice(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(ALL);
    let dims: Vec<usize> = (0..r.size(1, 4)).map(|_| r.size(1, 5)).collect();
    let update: Vec<usize> = dims.iter().map(|&d| r.size(1, d)).collect();
    let index_ty = r.pick(&[Ty::I32, Ty::I64]);
    let mut b = Builder::default();
    let q = activation_quant(r, ty, 1e-3, 0.5);
    let operand = b.input("operand", &dims, ty, q.clone());
    let upd = b.input("update", &update, ty, q.clone());
    let starts = if r.chance(0.3) {
        let values: Vec<i32> = dims.iter().map(|_| r.range(-2, 4) as i32).collect();
        b.ints("starts", &[dims.len()], &values)
    } else {
        b.input("starts", &[dims.len()], index_ty, None)
    };
    let out = b.output("output", &dims, ty, q);
    let mut m = b.finish(151, &[operand, upd, starts], &[out], None);
    m.narrow = true;
    (m, format!("{} {dims:?} update {update:?} {} starts", ty.name(), index_ty.name()))
}

/// EMBEDDING_LOOKUP: a constant table (or an input), float32, int8, or
/// int8 read as float32; ids constant or a graph input.
fn embedding_lookup(r: &mut Rng) -> (Model, String) {
    let (table_ty, out_ty) = r.pick(&[(Ty::F32, Ty::F32), (Ty::I8, Ty::I8), (Ty::I8, Ty::F32)]);
    let rows = r.size(1, 9);
    let mut dims = vec![rows];
    dims.extend((0..r.size(1, 3)).map(|_| r.size(1, 5)));
    let n = r.size(1, 6);
    let mut b = Builder::default();
    let q = match (table_ty, out_ty) {
        (Ty::I8, Ty::F32) => per_tensor(r.log_uniform(1e-3, 0.5), 0),
        _ => activation_quant(r, table_ty, 1e-3, 0.5),
    };
    let computed_ids = r.chance(0.5);
    let ids = if computed_ids {
        b.input("ids", &[n], Ty::I32, None)
    } else {
        let values: Vec<i32> = (0..n).map(|_| r.range(0, rows as i64 - 1) as i32).collect();
        b.ints("ids", &[n], &values)
    };
    // A graph needs an input: constant ids read a computed table.
    let constant_table = computed_ids && r.chance(0.7);
    let table = if constant_table {
        let bytes = crate::random_values(r, table_ty, dims.iter().product());
        b.constant("table", &dims, table_ty, bytes, q.clone())
    } else {
        b.input("table", &dims, table_ty, q.clone())
    };
    let mut out_shape = vec![n];
    out_shape.extend(&dims[1..]);
    let out_q = if out_ty == Ty::F32 { None } else { q };
    let out = b.output("output", &out_shape, out_ty, out_q);
    let mut m = b.finish(7, &[ids, table], &[out], None);
    if computed_ids {
        m.ids_below = Some((0, rows as i32));
    }
    let label = format!(
        "{} -> {} table {dims:?}{} ids [{n}]{}",
        table_ty.name(),
        out_ty.name(),
        if constant_table { " (constant)" } else { "" },
        if computed_ids { " (computed)" } else { "" }
    );
    (m, label)
}

/// ADD_N of 2 to 4 inputs (one of them now and then given twice), float32
/// or int8 (one quantization for every input, as TFLM requires).
fn add_n(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(FLOAT_INT8);
    let shape: Vec<usize> = (0..r.size(1, 4)).map(|_| r.size(1, 6)).collect();
    let count = r.size(2, 4);
    let mut b = Builder::default();
    let q = activation_quant(r, ty, 1e-3, 0.5);
    let mut inputs: Vec<i32> = (0..count).map(|i| b.input(&format!("x{i}"), &shape, ty, q.clone())).collect();
    if r.chance(0.2) {
        inputs.push(inputs[0]);
    }
    let out_q = output_quant(r, ty, 74.0 * scale_of(&q) * (inputs.len() as f64).sqrt());
    let out = b.output("output", &shape, ty, out_q);
    let label = format!("{} {shape:?} x{}", ty.name(), inputs.len());
    (b.finish(106, &inputs, &[out], None), label)
}

/// CUMSUM along any axis (negative now and then), exclusive and reverse,
/// float32 and int8.
fn cumsum(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(FLOAT_INT8);
    let shape: Vec<usize> = (0..r.size(1, 4)).map(|_| r.size(1, 6)).collect();
    let axis = r.size(0, shape.len() - 1) as i32;
    let written = if r.chance(0.3) { axis - shape.len() as i32 } else { axis };
    let (exclusive, reverse) = (r.chance(0.5), r.chance(0.5));
    let mut b = Builder::default();
    let q = activation_quant(r, ty, 1e-3, 0.5);
    let input = b.input("input", &shape, ty, q.clone());
    let axis_t = b.ints("axis", &[], &[written]);
    let out_q = output_quant(r, ty, 74.0 * scale_of(&q) * (shape[axis as usize] as f64).sqrt());
    let out = b.output("output", &shape, ty, out_q);
    let options = vec![(0, Scalar::Bool(exclusive)), (1, Scalar::Bool(reverse))];
    let label = format!(
        "{} {shape:?} axis {written}{}{}",
        ty.name(),
        if exclusive { " exclusive" } else { "" },
        if reverse { " reverse" } else { "" }
    );
    (b.finish(128, &[input, axis_t], &[out], Some((CUMSUM_OPTIONS, options))), label)
}

/// L2_NORMALIZATION over the last axis, float32 and int8 (output scale
/// 1/128, zero point 0, as the converter writes it).
fn l2_normalization(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(FLOAT_INT8);
    let shape: Vec<usize> = (0..r.size(1, 4)).map(|_| r.size(1, 9)).collect();
    let mut b = Builder::default();
    let q = activation_quant(r, ty, 1e-3, 0.5);
    let input = b.input("input", &shape, ty, q);
    let out_q = if ty == Ty::I8 { per_tensor(1.0 / 128.0, 0) } else { None };
    let out = b.output("output", &shape, ty, out_q);
    (b.finish(11, &[input], &[out], None), format!("{} {shape:?}", ty.name()))
}

/// LOG_SOFTMAX over the last axis, float32 and int8 (output scale 16/256,
/// zero point 127, as TFLM requires).
fn log_softmax(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(FLOAT_INT8);
    let shape: Vec<usize> = (0..r.size(1, 4)).map(|_| r.size(1, 12)).collect();
    let mut b = Builder::default();
    // Scales up to hundreds: past 2^5, the input multiplier is capped.
    let q = if ty == Ty::I8 { per_tensor(r.log_uniform(1e-3, 600.0), r.zero_point(-128, 127)) } else { None };
    let input = b.input("input", &shape, ty, q);
    let out_q = if ty == Ty::I8 { per_tensor(16.0 / 256.0, 127) } else { None };
    let out = b.output("output", &shape, ty, out_q);
    (b.finish(50, &[input], &[out], None), format!("{} {shape:?}", ty.name()))
}

/// BROADCAST_ARGS of two computed shapes (int32 or int64) that broadcast:
/// each dimension equal, or 1 on one side.
fn broadcast_args(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::I32, Ty::I64]);
    let (a, c, out) = broadcast_shapes(r);
    let mut b = Builder::default();
    let x = b.input("a", &[a.len()], ty, None);
    let y = b.input("b", &[c.len()], ty, None);
    let o = b.output("output", &[out.len()], ty, None);
    let mut m = b.finish(145, &[x, y], &[o], None);
    m.fixed = Some([a.clone(), c.clone()].concat().iter().map(|&d| d as i64).collect());
    (m, format!("{} {a:?} {c:?} -> {out:?}", ty.name()))
}

/// The value of a normal float16 `h`, computed apart from the compiler.
fn half_value(h: u16) -> f32 {
    let magnitude = (1.0 + f64::from(h & 0x3FF) / 1024.0) * 2f64.powi(i32::from((h >> 10) & 0x1F) - 15);
    (if h >> 15 == 1 { -magnitude } else { magnitude }) as f32
}

/// float16 weights as the converter writes them (a constant behind a
/// DEQUANTIZE) into a float32 FULLY_CONNECTED or CONV_2D. TFLM has no
/// float16 DEQUANTIZE: it runs the float32 twin, the same weights widened.
fn float16_weights(r: &mut Rng) -> (Model, String) {
    let conv = r.chance(0.5);
    let (batch, depth, units) = (r.size(1, 3), r.size(1, 12), r.size(1, 8));
    let (h, w, k) = (r.size(2, 6), r.size(2, 6), r.size(1, 2));
    let (in_shape, w_shape, out_shape) = if conv {
        let (oh, ow) = (h - k + 1, w - k + 1);
        (vec![1, h, w, depth], vec![units, k, k, depth], vec![1, oh, ow, units])
    } else {
        (vec![batch, depth], vec![units, depth], vec![batch, units])
    };
    let half = crate::random_values(r, Ty::F16, w_shape.iter().product());
    let wide: Vec<u8> =
        half.chunks_exact(2).flat_map(|h| half_value(u16::from_le_bytes([h[0], h[1]])).to_le_bytes()).collect();
    let build = |folded: bool| {
        let mut b = Builder::default();
        let x = b.input("x", &in_shape, Ty::F32, None);
        let weights = if folded {
            let h = b.constant("weights_f16", &w_shape, Ty::F16, half.clone(), None);
            let w = b.tensor("weights", &w_shape, Ty::F32, None);
            b.op(6, &[h], &[w], None);
            w
        } else {
            b.constant("weights", &w_shape, Ty::F32, wide.clone(), None)
        };
        let y = b.output("y", &out_shape, Ty::F32, None);
        if conv {
            let options = vec![(0, Scalar::I8(1)), (1, Scalar::I32(1)), (2, Scalar::I32(1))];
            b.op(3, &[x, weights, -1], &[y], Some((CONV_2D_OPTIONS, options)));
        } else {
            b.op(9, &[x, weights, -1], &[y], Some((FULLY_CONNECTED_OPTIONS, vec![])));
        }
        b.finish_graph()
    };
    let mut m = build(true);
    m.reference = Some(build(false).def);
    (m, format!("{} {in_shape:?} weights {w_shape:?}", if conv { "CONV_2D" } else { "FULLY_CONNECTED" }))
}

/// uint8 where TFLM takes it: QUANTIZE uint8 -> int8 and int8 -> uint8
/// (the wrappers of older quantized models), DEQUANTIZE uint8 -> float32,
/// and a uint8 RESHAPE (TFLM's CONCATENATION takes no uint8; it takes
/// bool, drawn here too).
fn uint8(r: &mut Rng) -> (Model, String) {
    let shape: Vec<usize> = (0..r.size(1, 4)).map(|_| r.size(1, 7)).collect();
    let u8_quant = |r: &mut Rng| per_tensor(r.log_uniform(1e-3, 0.5), r.zero_point(0, 255));
    let mut b = Builder::default();
    let (case, label) = r.pick(&[
        (0, "quantize uint8 -> int8"),
        (1, "quantize int8 -> uint8"),
        (2, "dequantize uint8"),
        (3, "uint8 reshape"),
        (4, "bool concatenation"),
    ]);
    match case {
        0 => {
            let q = u8_quant(r);
            let x = b.input("x", &shape, Ty::U8, q.clone());
            let out_q = if r.chance(0.5) {
                per_tensor(q.as_ref().map_or(1.0, |q| q.scale[0]), r.zero_point(-128, 127))
            } else {
                activation_quant(r, Ty::I8, 1e-3, 0.5)
            };
            let y = b.output("y", &shape, Ty::I8, out_q);
            b.op(114, &[x], &[y], None);
        }
        1 => {
            let q = activation_quant(r, Ty::I8, 1e-3, 0.5);
            let x = b.input("x", &shape, Ty::I8, q.clone());
            let out_q = if r.chance(0.5) {
                per_tensor(q.as_ref().map_or(1.0, |q| q.scale[0]), r.zero_point(0, 255))
            } else {
                u8_quant(r)
            };
            let y = b.output("y", &shape, Ty::U8, out_q);
            b.op(114, &[x], &[y], None);
        }
        2 => {
            let x = b.input("x", &shape, Ty::U8, u8_quant(r));
            let y = b.output("y", &shape, Ty::F32, None);
            b.op(6, &[x], &[y], None);
        }
        3 => {
            let q = u8_quant(r);
            let x = b.input("x", &shape, Ty::U8, q.clone());
            let flat: usize = shape.iter().product();
            let new_shape = b.ints("shape", &[2], &[1, flat as i32]);
            let y = b.output("y", &[1, flat], Ty::U8, q);
            b.op(22, &[x, new_shape], &[y], None);
        }
        _ => {
            let x = b.input("x", &shape, Ty::Bool, None);
            let z = b.input("z", &shape, Ty::Bool, None);
            let mut joined = shape.clone();
            joined[0] *= 2;
            let y = b.output("y", &joined, Ty::Bool, None);
            b.op(2, &[x, z], &[y], Some((CONCATENATION_OPTIONS, vec![(0, Scalar::I32(0))])));
        }
    }
    (b.finish_graph(), format!("{label} {shape:?}"))
}

/// The signal library's WINDOW: int16 frames times an int16 window
/// (a constant, as the audio front end has it, or an input), shifted.
fn signal_window(r: &mut Rng) -> (Model, String) {
    let frame = r.size(1, 40);
    let frames = r.size(1, 3);
    let shape = if r.chance(0.5) { vec![frames * frame] } else { vec![frames, frame] };
    let shift = r.size(0, 20) as i64;
    let mut b = Builder::default();
    let input = b.input("input", &shape, Ty::I16, None);
    let constant = r.chance(0.7);
    let window = if constant {
        let bytes = crate::random_values(r, Ty::I16, frame);
        b.constant("window", &[frame], Ty::I16, bytes, None)
    } else {
        b.input("window", &[frame], Ty::I16, None)
    };
    let output = b.output("output", &shape, Ty::I16, None);
    b.custom_op("SignalWindow", &[input, window], &[output], flexbuffer_map(&[("shift", Flex::Int(shift))]));
    (b.finish_graph(), format!("{shape:?} window [{frame}]{} shift {shift}", if constant { " (constant)" } else { "" }))
}

/// The signal library's FFT_AUTO_SCALE: an int16 frame (its samples kept
/// below a random magnitude, so every shift occurs) scaled up, and the
/// shift. The frame is a WINDOW's output, its samples capped by the shift.
fn signal_fft_auto_scale(r: &mut Rng) -> (Model, String) {
    let len = r.size(1, 64);
    // Now and then -32768 among small samples, or all zeros (TFLM's
    // order-dependent maximum and its MSB of 0).
    let extremes = r.chance(0.3);
    let quiet = if extremes { 0 } else { r.size(0, 15) as i64 };
    let mut b = Builder::default();
    let input = b.input("input", &[len], Ty::I16, None);
    // WINDOW by ones shifted right by `quiet`: samples of any magnitude.
    let ones = b.constant("ones", &[len], Ty::I16, (0..len).flat_map(|_| 1i16.to_le_bytes()).collect(), None);
    let frame = b.tensor("frame", &[len], Ty::I16, None);
    b.custom_op("SignalWindow", &[input, ones], &[frame], flexbuffer_map(&[("shift", Flex::Int(quiet))]));
    let output = b.output("output", &[len], Ty::I16, None);
    let bits = b.output("scale_bits", &[], Ty::I32, None);
    b.custom_op("SignalFftAutoScale", &[frame], &[output, bits], Vec::new());
    let mut m = b.finish_graph();
    if extremes {
        let zeros = r.chance(0.3);
        m.fixed = Some(
            (0..len)
                .map(|_| {
                    if zeros {
                        0
                    } else if r.chance(0.2) {
                        -32768
                    } else {
                        r.range(-300, 300)
                    }
                })
                .collect(),
        );
    }
    (m, format!("[{len}] samples >> {quiet}{}", if extremes { " with extremes" } else { "" }))
}

/// The signal library's ENERGY over the whole spectrum (TFLM leaves bins
/// outside `start..end` unwritten: only the full range has one answer).
fn signal_energy(r: &mut Rng) -> (Model, String) {
    let bins = r.size(1, 40);
    let mut b = Builder::default();
    let input = b.input("spectrum", &[2 * bins], Ty::I16, None);
    let output = b.output("energy", &[bins], Ty::U32, None);
    let options = flexbuffer_map(&[("end_index", Flex::Int(bins as i64)), ("start_index", Flex::Int(0))]);
    b.custom_op("SignalEnergy", &[input], &[output], options);
    (b.finish_graph(), format!("{bins} bins"))
}

/// The signal library's FILTER_BANK_SQUARE_ROOT: uint64 channels of every
/// magnitude, a run-time shift of 0 to 16.
fn signal_filter_bank_square_root(r: &mut Rng) -> (Model, String) {
    let channels = r.size(1, 40);
    let shift = r.range(0, 16);
    let mut b = Builder::default();
    let input = b.input("channels", &[channels], Ty::U64, None);
    let bits = b.input("scale_bits", &[], Ty::I32, None);
    let output = b.output("output", &[channels], Ty::U32, None);
    b.custom_op("SignalFilterBankSquareRoot", &[input, bits], &[output], Vec::new());
    let mut m = b.finish_graph();
    m.fixed = Some(vec![shift]);
    (m, format!("{channels} channels >> {shift}"))
}

/// The signal library's FILTER_BANK_LOG: uint32 channels of every
/// magnitude, a correction shift and an output scale.
fn signal_filter_bank_log(r: &mut Rng) -> (Model, String) {
    let channels = r.size(1, 40);
    let bits = r.range(0, 8);
    let any = r.range(1, 1 << 20);
    let scale = r.pick(&[1, 64, 1600, 65536, any]);
    let mut b = Builder::default();
    let input = b.input("channels", &[channels], Ty::U32, None);
    let output = b.output("log", &[channels], Ty::I16, None);
    let options = flexbuffer_map(&[("input_correction_bits", Flex::Int(bits)), ("output_scale", Flex::Int(scale))]);
    b.custom_op("SignalFilterBankLog", &[input], &[output], options);
    (b.finish_graph(), format!("{channels} channels << {bits}, scale {scale}"))
}

/// The signal library's FILTER_BANK with a mel-like constant config:
/// overlapping channels of increasing width over the spectrum, Q12
/// weights and their complements (now and then negative ones).
fn signal_filter_bank(r: &mut Rng) -> (Model, String) {
    let channels = r.size(1, 12);
    let (mut freq, mut starts, mut widths) = (Vec::new(), Vec::new(), Vec::new());
    let (mut bin, mut weight) = (r.size(0, 3), 0);
    for _ in 0..=channels {
        let width = r.size(1, 5);
        freq.push(bin as i32);
        starts.push(weight as i32);
        widths.push(width as i32);
        bin += r.size(1, width);
        weight += width;
    }
    let bins = freq.iter().zip(&widths).map(|(f, w)| f + w).max().unwrap_or(1) as usize + r.size(0, 3);
    let signed = r.chance(0.2);
    let weights: Vec<i32> =
        (0..weight).map(|_| if signed { r.range(-4096, 4096) } else { r.range(0, 4096) } as i32).collect();
    let unweights: Vec<i32> = weights.iter().map(|w| 4096 - w).collect();
    let mut b = Builder::default();
    let spectrum = b.input("spectrum", &[bins], Ty::U32, None);
    let mut table = |name: &str, values: &[i32]| {
        let bytes = values.iter().flat_map(|&v| (v as i16).to_le_bytes()).collect();
        b.constant(name, &[values.len()], Ty::I16, bytes, None)
    };
    let config = [
        table("weights", &weights),
        table("unweights", &unweights),
        table("frequency_starts", &freq),
        table("weight_starts", &starts),
        table("widths", &widths),
    ];
    let output = b.output("channels", &[channels], Ty::U64, None);
    let inputs = [&[spectrum][..], &config[..]].concat();
    b.custom_op(
        "SignalFilterBank",
        &inputs,
        &[output],
        flexbuffer_map(&[("num_channels", Flex::Int(channels as i64))]),
    );
    (b.finish_graph(), format!("{bins} bins -> {channels} channels{}", if signed { " (signed weights)" } else { "" }))
}

/// The signal library's PCAN: channels and noise estimates of every
/// magnitude, a constant gain table of the 125 entries a 32-bit estimate
/// can reach (TFLM reads past a shorter one), an SNR shift.
fn signal_pcan(r: &mut Rng) -> (Model, String) {
    let channels = r.size(1, 40);
    let table_len = 125;
    let shift = r.range(0, 12);
    let mut b = Builder::default();
    let input = b.input("channels", &[channels], Ty::U32, None);
    let noise = b.input("noise", &[channels], Ty::U32, None);
    let bytes = crate::random_values(r, Ty::I16, table_len);
    let gains = b.constant("gains", &[table_len], Ty::I16, bytes, None);
    let output = b.output("output", &[channels], Ty::U32, None);
    b.custom_op("SignalPCAN", &[input, noise, gains], &[output], flexbuffer_map(&[("snr_shift", Flex::Int(shift))]));
    (b.finish_graph(), format!("{channels} channels, gains [{table_len}], snr_shift {shift}"))
}

/// The signal library's FILTER_BANK_SPECTRAL_SUBTRACTION over 2 to 5
/// invokes in a row (its noise estimate carried), smoothing fractions of
/// 14 bits as the front end's (alternates on odd channels), clamping on or
/// off, channels of every magnitude below the smoothing headroom.
fn signal_spectral_subtraction(r: &mut Rng) -> (Model, String) {
    let channels = r.size(1, 40);
    let bits = 14i64;
    let smoothing_bits = r.range(0, 10);
    let s = r.range(0, 1 << bits);
    let alt = r.range(0, 1 << bits);
    let clamping = r.chance(0.5);
    let floor = r.range(0, 1 << bits);
    let mut b = Builder::default();
    let input = b.input("channels", &[channels], Ty::U32, None);
    let output = b.output("output", &[channels], Ty::U32, None);
    let noise = b.output("noise_estimate", &[channels], Ty::U32, None);
    let options = flexbuffer_map(&[
        ("alternate_one_minus_smoothing", Flex::Int((1 << bits) - alt)),
        ("alternate_smoothing", Flex::Int(alt)),
        ("clamping", Flex::Bool(clamping)),
        ("min_signal_remaining", Flex::Int(floor)),
        ("num_channels", Flex::Int(channels as i64)),
        ("one_minus_smoothing", Flex::Int((1 << bits) - s)),
        ("smoothing", Flex::Int(s)),
        ("smoothing_bits", Flex::Int(smoothing_bits)),
        ("spectral_subtraction_bits", Flex::Int(bits)),
    ]);
    b.custom_op("SignalFilterBankSpectralSubtraction", &[input], &[output, noise], options);
    let mut m = b.finish_graph();
    m.invokes = r.size(2, 5);
    // Channels that the headroom shift keeps within 32 bits, as the front
    // end's are.
    m.fixed = Some((0..m.invokes * channels).map(|_| r.range(0, (1i64 << (32 - smoothing_bits)) - 1)).collect());
    let label = format!(
        "{channels} channels x{} invokes, smoothing {s}/{alt} >> {bits}, headroom {smoothing_bits}{}",
        m.invokes,
        if clamping { ", clamping" } else { "" }
    );
    (m, label)
}

/// int32 ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM (and int64 MAXIMUM, MINIMUM)
/// with broadcasting and fused activations (which TFLM's int32 ADD
/// ignores); divisors never 0 (TFLM crashes on them).
fn integer_binary(r: &mut Rng) -> (Model, String) {
    let (code, tag, name) = r.pick(&[
        (0, 11, "ADD"),
        (41, 28, "SUB"),
        (18, 21, "MUL"),
        (42, 29, "DIV"),
        (55, 0, "MAXIMUM"),
        (57, 0, "MINIMUM"),
    ]);
    let ty = if tag == 0 && r.chance(0.3) { Ty::I64 } else { Ty::I32 };
    let (sa, sb, so) = broadcast_shapes(r);
    let act = if tag == 0 { 0 } else { activation(r) };
    let mut b = Builder::default();
    let x = b.input("a", &sa, ty, None);
    let y = b.input("b", &sb, ty, None);
    let out = b.output("output", &so, ty, None);
    let options = (tag != 0).then(|| (tag as u8, vec![(0, Scalar::I8(act))]));
    let mut m = b.finish(code, &[x, y], &[out], options);
    let count = |s: &[usize]| s.iter().product::<usize>();
    let mut values: Vec<i64> = (0..count(&sa)).map(|_| r.range(-1000, 1000)).collect();
    values.extend((0..count(&sb)).map(|_| {
        let v = r.range(1, 60);
        if r.chance(0.5) { -v } else { v }
    }));
    m.fixed = Some(values);
    (m, format!("{name} {} {sa:?} {sb:?} -> {so:?} {}", ty.name(), act_name(act)))
}

/// The signal library's int16 RFFT: lengths whose half factors into
/// radices 2 to 5 (4, 3, 2 and 5 stages all drawn), frames shorter than
/// the length (zero-padded), one or two frames.
fn signal_rfft(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::I16, Ty::I16, Ty::I32, Ty::F32]);
    let fft = r.pick(&FFT_LENGTHS);
    let frame = if r.chance(0.5) { fft } else { r.size(1, fft) };
    let frames = r.size(1, 2);
    let shape = if frames == 1 && r.chance(0.5) { vec![frame] } else { vec![frames, frame] };
    let out_shape = if shape.len() == 1 { vec![fft + 2] } else { vec![frames, fft + 2] };
    let mut b = Builder::default();
    let input = b.input("frames", &shape, ty, None);
    let output = b.output("spectrum", &out_shape, ty, None);
    let options = flexbuffer_map(&[("T", Flex::Int(i64::from(ty.code()))), ("fft_length", Flex::Int(fft as i64))]);
    b.custom_op("SignalRfft", &[input], &[output], options);
    (b.finish_graph(), format!("{} {shape:?} fft_length {fft}", ty.name()))
}

/// FFT lengths whose half factors into radices 2 to 5 (4, 3, 2 and 5
/// stages all drawn).
const FFT_LENGTHS: [usize; 20] = [4, 6, 8, 10, 12, 16, 18, 20, 24, 30, 32, 40, 50, 64, 96, 100, 128, 250, 256, 512];

/// The signal library's IRFFT, int16, int32 and float32: frames of
/// `fft_length / 2 + 1` complex bins (now and then a few more, unread)
/// back into `fft_length` samples, one or two frames.
fn signal_irfft(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::I16, Ty::I32, Ty::F32]);
    let fft = r.pick(&FFT_LENGTHS);
    let bins = fft / 2 + 1 + if r.chance(0.2) { r.size(1, 3) } else { 0 };
    let frames = r.size(1, 2);
    let (shape, out_shape) = if frames == 1 && r.chance(0.5) {
        (vec![2 * bins], vec![fft])
    } else {
        (vec![frames, 2 * bins], vec![frames, fft])
    };
    let mut b = Builder::default();
    let input = b.input("spectrum", &shape, ty, None);
    let output = b.output("frames", &out_shape, ty, None);
    let options = flexbuffer_map(&[("T", Flex::Int(i64::from(ty.code()))), ("fft_length", Flex::Int(fft as i64))]);
    b.custom_op("SignalIrfft", &[input], &[output], options);
    (b.finish_graph(), format!("{} {shape:?} fft_length {fft}", ty.name()))
}

/// The signal library's DELAY over 2 to 5 invokes (a `reset()` between two
/// now and then): rows of 1 to 40 samples, delays shorter and longer than a
/// row (0 included).
fn signal_delay(r: &mut Rng) -> (Model, String) {
    let frame = r.size(1, 40);
    let shape = if r.chance(0.5) { vec![frame] } else { vec![r.size(1, 3), frame] };
    let (within, beyond) = (r.size(1, frame), frame + r.size(1, 30));
    let delay = r.pick(&[0, 1, 2, within, frame, beyond]);
    let mut b = Builder::default();
    let input = b.input("samples", &shape, Ty::I16, None);
    let output = b.output("delayed", &shape, Ty::I16, None);
    b.custom_op("SignalDelay", &[input], &[output], flexbuffer_map(&[("delay_length", Flex::Int(delay as i64))]));
    let mut m = b.finish_graph();
    stream(r, &mut m);
    let label = format!("{shape:?} delay {delay}, {} invokes, reset before {:?}", m.invokes, m.reset_at);
    (m, label)
}

/// TFLM's CIRCULAR_BUFFER (custom op) with its rows as a graph output or
/// read by a requantizing QUANTIZE: rows of 1 to 24 values, 1 to 13 slots,
/// `cycles_max` 1 to 3, or 0 or absent (TFLM's fallback: 1 for 5 or 13
/// slots, else 2). The rows are a variable tensor: TFLM keeps a plain
/// tensor's rows only as long as nothing else reuses its arena bytes.
/// Several invokes (the stopped ones give no outputs on either side), a
/// reset now and then.
fn circular_buffer(r: &mut Rng) -> (Model, String) {
    const QUANTIZE: i32 = 114;
    let (h, w) = (r.size(1, 3), r.size(1, 8));
    let slots = r.pick(&[1, 2, 3, 4, 5, 6, 13]);
    let cycles = r.pick(&[-1i64, 0, 1, 1, 2, 3]);
    let mut b = Builder::default();
    let q = activation_quant(r, Ty::I8, 1e-3, 0.5);
    let input = b.input("frame", &[1, 1, h, w], Ty::I8, q.clone());
    let rows = b.variable("rows", &[1, slots, h, w], Ty::I8, q);
    let options = if cycles < 0 { Vec::new() } else { flexbuffer_map(&[("cycles_max", Flex::Int(cycles))]) };
    b.custom_op("CIRCULAR_BUFFER", &[input], &[rows], options);
    let direct = r.chance(0.4);
    if direct {
        b.mark_output(rows, Ty::I8);
    } else {
        let out_q = activation_quant(r, Ty::I8, 1e-3, 0.5);
        let out = b.output("requantized", &[1, slots, h, w], Ty::I8, out_q);
        b.op(QUANTIZE, &[rows], &[out], None);
    }
    let mut m = b.finish_graph();
    m.invokes = r.size(2, 9);
    m.reset_at = r.chance(0.4).then(|| r.size(1, m.invokes - 1));
    let label = format!(
        "[1, {slots}, {h}, {w}] cycles_max {}{}, {} invokes, reset before {:?}",
        if cycles < 0 { "absent".to_string() } else { cycles.to_string() },
        if direct { ", rows as the output" } else { ", requantized" },
        m.invokes,
        m.reset_at
    );
    (m, label)
}

/// Several invokes in a row with the state carried, a `reset()` before
/// one of them now and then.
fn stream(r: &mut Rng, m: &mut Model) {
    m.invokes = r.size(2, 5);
    m.reset_at = r.chance(0.4).then(|| r.size(1, m.invokes - 1));
}

/// The signal library's FRAMER: rows of 1 to 4 steps, frames shorter and
/// longer than a step, with and without prefill (without, the first frame
/// slots hold no whole frame: `valid` false, the slot untouched).
fn signal_framer(r: &mut Rng) -> (Model, String) {
    let step = r.size(1, 12);
    let inner = step * r.size(1, 4);
    let prefill = r.chance(0.6);
    let size = if prefill { step + r.size(0, 24) } else { r.size(1, 30) };
    let rows = r.size(1, 3);
    let frames = inner / step;
    let (shape, out_shape) = if rows == 1 && r.chance(0.5) {
        (vec![inner], vec![frames, size])
    } else {
        (vec![rows, inner], vec![rows, frames, size])
    };
    let mut b = Builder::default();
    let input = b.input("samples", &shape, Ty::I16, None);
    let output = b.output("frames", &out_shape, Ty::I16, None);
    let valid = b.output("valid", &[], Ty::Bool, None);
    let options = flexbuffer_map(&[
        ("frame_size", Flex::Int(size as i64)),
        ("frame_step", Flex::Int(step as i64)),
        ("prefill", Flex::Bool(prefill)),
    ]);
    b.custom_op("SignalFramer", &[input], &[output, valid], options);
    let mut m = b.finish_graph();
    stream(r, &mut m);
    // Frame slots are written once the buffer first holds a frame.
    let prefilled = if prefill { size - step } else { 0 };
    let (mut held, mut written) = (prefilled, vec![false; frames]);
    let mut unwritten = m.invokes;
    for invoke in 0..m.invokes {
        if m.reset_at == Some(invoke) {
            held = prefilled;
        }
        for slot in written.iter_mut() {
            held += step;
            if held >= size {
                *slot = true;
                held -= step;
            }
        }
        if written.iter().all(|&w| w) {
            unwritten = invoke;
            break;
        }
    }
    m.unwritten = Some((0, unwritten));
    let label = format!(
        "{shape:?} frames of {size} every {step}{}, {} invokes, reset before {:?}",
        if prefill { ", prefill" } else { "" },
        m.invokes,
        m.reset_at
    );
    (m, label)
}

/// The signal library's STACKER: 1 to 16 channels, left and right context
/// 0 to 3 frames, a step of 1 to all of them.
fn signal_stacker(r: &mut Rng) -> (Model, String) {
    let channels = r.size(1, 16);
    let (left, right) = (r.size(0, 3), r.size(0, 3));
    let step = r.size(1, left + right + 1);
    let size = channels * (left + right + 1);
    let mut b = Builder::default();
    let input = b.input("frame", &[channels], Ty::I16, None);
    let output = b.output("stack", &[size], Ty::I16, None);
    let valid = b.output("valid", &[], Ty::Bool, None);
    let options = flexbuffer_map(&[
        ("num_channels", Flex::Int(channels as i64)),
        ("stacker_left_context", Flex::Int(left as i64)),
        ("stacker_right_context", Flex::Int(right as i64)),
        ("stacker_step", Flex::Int(step as i64)),
    ]);
    b.custom_op("SignalStacker", &[input], &[output, valid], options);
    let mut m = b.finish_graph();
    stream(r, &mut m);
    m.invokes = r.size(2, 7);
    m.reset_at = m.reset_at.map(|k| k.min(m.invokes - 1));
    // The stack is written once the buffer first holds one.
    let mut held = 0;
    let mut unwritten = m.invokes;
    for invoke in 0..m.invokes {
        if m.reset_at == Some(invoke) || invoke == 0 {
            held = channels * left;
        }
        held += channels;
        if held >= size {
            unwritten = invoke;
            break;
        }
    }
    m.unwritten = Some((0, unwritten));
    let label = format!(
        "{channels} channels, context {left}+{right}, step {step}, {} invokes, reset before {:?}",
        m.invokes, m.reset_at
    );
    (m, label)
}

/// The signal library's OVERLAP_ADD, int16 (saturating) and float32: 1 to
/// 3 frames of 1 to 24 samples, steps up to the frame size.
fn signal_overlap_add(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::I16, Ty::F32]);
    let size = r.size(1, 24);
    let step = r.size(1, size);
    let frames = r.size(1, 3);
    let rows = r.size(1, 2);
    let (shape, out_shape) = if rows == 1 && r.chance(0.5) {
        (vec![frames, size], vec![frames * step])
    } else {
        (vec![rows, frames, size], vec![rows, frames * step])
    };
    let mut b = Builder::default();
    let input = b.input("frames", &shape, ty, None);
    let output = b.output("samples", &out_shape, ty, None);
    let options = flexbuffer_map(&[("T", Flex::Int(i64::from(ty.code()))), ("frame_step", Flex::Int(step as i64))]);
    b.custom_op("SignalOverlapAdd", &[input], &[output], options);
    let mut m = b.finish_graph();
    stream(r, &mut m);
    let label = format!("{} {shape:?} step {step}, {} invokes, reset before {:?}", ty.name(), m.invokes, m.reset_at);
    (m, label)
}

/// int4 weights (TensorType 17, two per byte, low nibble first) on int8
/// CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED, as TFLM takes them: one
/// of those generators' int8 models, its weights redrawn in -8..=7 and
/// packed.
fn int4_weights(r: &mut Rng) -> (Model, String) {
    const INT4: i8 = 17;
    loop {
        let (op, generate) = r.pick(&[
            ("CONV_2D", (|r| conv_2d(r, false)) as Generator),
            ("DEPTHWISE_CONV_2D", depthwise_conv_2d),
            ("FULLY_CONNECTED", fully_connected),
        ]);
        let (mut m, label) = generate(r);
        let sg = &mut m.def.subgraphs[0];
        let Some(&w) = sg.ops[0].inputs.get(1) else { continue };
        let weights = &sg.tensors[w as usize];
        let input = &sg.tensors[sg.ops[0].inputs[0] as usize];
        if weights.dtype != Ty::I8.code() || input.dtype != Ty::I8.code() || weights.buffer == 0 {
            continue;
        }
        let buffer = weights.buffer as usize;
        let values: Vec<i8> = m.def.buffers[buffer].iter().map(|_| r.range(-8, 7) as i8).collect();
        let packed: Vec<u8> =
            values.chunks(2).map(|p| (p[0] as u8 & 0x0F) | ((*p.get(1).unwrap_or(&0) as u8 & 0x0F) << 4)).collect();
        m.def.buffers[buffer] = packed;
        m.def.subgraphs[0].tensors[w as usize].dtype = INT4;
        return (m, format!("{op} int4 weights: {label}"));
    }
}

/// Dead output channels as trained models have them (all-zero weights, a
/// bias near +/-2^30 and a weight scale so small that the requantization's
/// right shift passes 23, beyond the short form): int8 CONV_2D,
/// DEPTHWISE_CONV_2D and FULLY_CONNECTED models of those generators with
/// per-channel weights, some channels made dead. Such a channel's output
/// is one value whatever the input, which the fused kernels give
/// (`Requant::settle_constant_channels`).
fn dead_channels(r: &mut Rng) -> (Model, String) {
    loop {
        let (op, generate) = r.pick(&[
            (
                "CONV_2D",
                (|r| {
                    let wide = r.chance(0.5);
                    conv_2d(r, wide)
                }) as Generator,
            ),
            ("DEPTHWISE_CONV_2D", depthwise_conv_2d),
            ("FULLY_CONNECTED", fully_connected),
        ]);
        let (mut m, label) = generate(r);
        let sg = &m.def.subgraphs[0];
        let (Some(&w), Some(&b)) = (sg.ops[0].inputs.get(1), sg.ops[0].inputs.get(2)) else { continue };
        let (input, output) = (sg.ops[0].inputs[0] as usize, sg.ops[0].outputs[0] as usize);
        if b < 0 || sg.tensors[input].dtype != Ty::I8.code() || sg.tensors[output].dtype != Ty::I8.code() {
            continue;
        }
        let (wt, bt) = (&sg.tensors[w as usize], &sg.tensors[b as usize]);
        let Some(q) = wt.quant.clone() else { continue };
        if wt.dtype != Ty::I8.code() || bt.dtype != Ty::I32.code() || wt.buffer == 0 || bt.buffer == 0 {
            continue;
        }
        let channels = q.scale.len();
        if channels < 2 {
            continue;
        }
        let scale_of = |t: usize| sg.tensors[t].quant.as_ref().map_or(1.0, |q| q.scale[0]);
        let (in_scale, out_scale) = (scale_of(input), scale_of(output));
        let (wb, bb) = (wt.buffer as usize, bt.buffer as usize);
        let (axis, shape) = (q.axis as usize, wt.shape.clone());
        let inner: usize = shape[axis + 1..].iter().map(|&d| d as usize).product();
        let mut scales = q.scale.clone();
        let mut dead = Vec::new();
        for (c, scale) in scales.iter_mut().enumerate() {
            if !(r.chance(0.5) || dead.is_empty() && c + 1 == channels) {
                continue;
            }
            dead.push(c);
            // Every weight of channel c along the quantized axis.
            for (k, v) in m.def.buffers[wb].iter_mut().enumerate() {
                if (k / inner) % channels == c {
                    *v = 0;
                }
            }
            let bias = r.pick(&[1i32, -1]) * (1 << 30) + r.range(-200, 200) as i32;
            m.def.buffers[bb][4 * c..4 * c + 4].copy_from_slice(&bias.to_le_bytes());
            // The effective scale in*w/out: 2^-31 .. 2^-24.
            *scale = (r.log_uniform(4.7e-10, 6.0e-8) as f64 * out_scale as f64 / in_scale as f64) as f32;
        }
        let sg = &mut m.def.subgraphs[0];
        if let Some(q) = sg.tensors[w as usize].quant.as_mut() {
            q.scale = scales;
        }
        return (m, format!("{op} dead channels {dead:?}: {label}"));
    }
}

/// DETECTION_POSTPROCESS (the SSD head), float32: 1 to 40 anchors of
/// positive size, 1 to 6 classes with or without a background column,
/// regular NMS (thresholds drawn; rows past the count are zeroed) and fast
/// NMS (which leaves rows past the count as they were, so it is drawn with
/// every box kept and no overlap large enough: the count is the row count;
/// one class per detection).
fn detection_postprocess(r: &mut Rng) -> (Model, String) {
    let classes = r.size(1, 6);
    let columns = classes + usize::from(r.chance(0.5));
    let regular = r.chance(0.5);
    let max_detections = r.size(1, 10);
    let boxes = if regular { r.size(1, 40) } else { r.size(max_detections, 40) };
    let stride = r.pick(&[4, 4, 5]);
    // TFLM's fast NMS writes past its outputs with more than one class per
    // detection (its row index counts classes): one, as SSD heads have.
    let per_anchor = if regular { r.size(1, 3) } else { 1 };
    let per_class = r.size(1, 10);
    let rows = if regular { max_detections } else { max_detections * per_anchor.min(classes) };
    let mut b = Builder::default();
    let encodings = b.input("box_encodings", &[1, boxes, stride], Ty::F32, None);
    let scores = b.input("class_predictions", &[1, boxes, columns], Ty::F32, None);
    let anchors: Vec<u8> = (0..boxes)
        .flat_map(|_| [r.unit(), r.unit(), 0.05 + 0.4 * r.unit(), 0.05 + 0.4 * r.unit()])
        .flat_map(|v| (v as f32).to_le_bytes())
        .collect();
    let anchors = b.constant("anchors", &[boxes, 4], Ty::F32, anchors, None);
    let out_boxes = b.output("detection_boxes", &[1, rows, 4], Ty::F32, None);
    let out_classes = b.output("detection_classes", &[1, rows], Ty::F32, None);
    let out_scores = b.output("detection_scores", &[1, rows], Ty::F32, None);
    let count = b.output("num_detections", &[1], Ty::F32, None);
    let (score_threshold, iou) = if regular { (r.unit() * 2.0 - 1.0, 0.1 + 0.9 * r.unit()) } else { (-3.0, 1.0) };
    let mut options = vec![
        ("max_detections", Flex::Int(max_detections as i64)),
        ("max_classes_per_detection", Flex::Int(per_anchor as i64)),
        ("nms_score_threshold", Flex::Float(score_threshold)),
        ("nms_iou_threshold", Flex::Float(iou)),
        ("num_classes", Flex::Int(classes as i64)),
        ("y_scale", Flex::Float(r.pick(&[10.0, 1.0, 5.0]))),
        ("x_scale", Flex::Float(r.pick(&[10.0, 1.0, 5.0]))),
        ("h_scale", Flex::Float(r.pick(&[5.0, 1.0, 2.0]))),
        ("w_scale", Flex::Float(r.pick(&[5.0, 1.0, 2.0]))),
    ];
    if regular || r.chance(0.5) {
        options.push(("use_regular_nms", Flex::Bool(regular)));
    }
    if r.chance(0.7) {
        options.push(("detections_per_class", Flex::Int(per_class as i64)));
    }
    b.custom_op(
        "TFLite_Detection_PostProcess",
        &[encodings, scores, anchors],
        &[out_boxes, out_classes, out_scores, count],
        flexbuffer_map(&options),
    );
    let label = format!(
        "{} NMS, {boxes} anchors, {classes} classes ({columns} columns), {max_detections} detections, threshold {score_threshold:.2}, IoU {iou:.2}",
        if regular { "regular" } else { "fast" }
    );
    (b.finish_graph(), label)
}

/// TFLM's DECODE (`TFLM_DECODE`, what its compression tool inserts): a
/// FULLY_CONNECTED, CONV_2D or DEPTHWISE_CONV_2D case (int8, 16x8 or
/// float32) whose filter, and often its bias, are look-up-table
/// compressed: each channel's values cut down to a table of at most
/// `2^width` entries (width 1 to 7), the indices packed most significant
/// bit first, the tables `stride` entries apart (padded past their
/// entries now and then). Channels as TFLM reads them: the tensor's
/// scales along axis 0 (filters, biases), interleaved along the last axis
/// (depthwise filters), one table without quantization (float32). Or, a
/// third of the time, pruned (`DecodeStatePrune`: a bit per element, the
/// kept values listed, the rest zero points), or for int8 tensors
/// Huffman-coded (`DecodeStateHuffman`, one- and two-level tables of 16-
/// or 32-bit entries). One DECODE for all the op's compressed tensors, or
/// one each.
fn decode(r: &mut Rng) -> (Model, String) {
    let (mut m, label) = match r.size(0, 2) {
        0 => fully_connected(r),
        1 => conv_2d(r, false),
        _ => depthwise_conv_2d(r),
    };
    let def = &mut m.def;
    let op = def.subgraphs[0].ops[0].clone();
    let constants: Vec<i32> = op.inputs[1..]
        .iter()
        .copied()
        .filter(|&t| t >= 0 && def.subgraphs[0].tensors[t as usize].buffer != 0)
        .collect();
    let chosen: Vec<i32> = constants.iter().copied().filter(|_| r.chance(0.7)).collect();
    let chosen = if chosen.is_empty() { constants[..1].to_vec() } else { chosen };
    let mut pairs = Vec::new();
    let mut notes = Vec::new();
    for &t in &chosen {
        let tensor = def.subgraphs[0].tensors[t as usize].clone();
        let size = match tensor.dtype {
            dtype::I8 => 1,
            dtype::I16 => 2,
            dtype::F32 | dtype::I32 => 4,
            _ => 8,
        };
        let data = def.buffers[tensor.buffer as usize].clone();
        let count = data.len() / size;
        let (bits, ancillary, note) = if tensor.dtype == dtype::I8 && r.chance(0.3) {
            huffman_encoded(r, &data, &tensor.name)
        } else if r.chance(0.3) {
            // Pruned: about `keep` of the elements listed in order, a bit
            // each, the others the zero point (0 here: the filters are
            // symmetric, the biases zero-pointed at 0 or unquantized).
            let mut bits = vec![0u8; count.div_ceil(8)];
            let mut ancillary = vec![2, 1, 0, 0, 1];
            ancillary.resize(16, 0);
            let keep = r.unit();
            for k in 0..count {
                if r.unit() < keep {
                    bits[k / 8] |= 0x80 >> (k % 8);
                    ancillary.extend_from_slice(&data[k * size..(k + 1) * size]);
                }
            }
            (bits, ancillary, format!("{} pruned (kept {:.0}%)", tensor.name, 100.0 * keep))
        } else {
            lut_encoded(r, &data, size, &tensor)
        };
        let sub = &mut def.subgraphs[0];
        let mut add = |name: String, bytes: Vec<u8>| {
            def.buffers.push(bytes);
            let len = def.buffers.last().map_or(0, Vec::len) as i32;
            let buffer = def.buffers.len() as u32 - 1;
            sub.tensors.push(TensorDef::constant(&name, &[len], dtype::U8, buffer, None));
            sub.tensors.len() as i32 - 1
        };
        let encoded = add(format!("{}_encoded", tensor.name), bits);
        let ancillary = add(format!("{}_ancillary", tensor.name), ancillary);
        sub.tensors[t as usize].buffer = 0;
        pairs.push((encoded, ancillary, t));
        notes.push(note);
    }
    def.opcodes.push((32, Some("TFLM_DECODE".into())));
    let opcode = def.opcodes.len() as u32 - 1;
    let decode_op = |pairs: &[(i32, i32, i32)]| OpDef {
        opcode,
        inputs: pairs.iter().flat_map(|&(e, a, _)| [e, a]).collect(),
        outputs: pairs.iter().map(|p| p.2).collect(),
        options: None,
        custom_options: None,
    };
    let ops = &mut def.subgraphs[0].ops;
    if r.chance(0.5) {
        ops.insert(0, decode_op(&pairs));
    } else {
        for (k, pair) in pairs.iter().enumerate() {
            ops.insert(k, decode_op(std::slice::from_ref(pair)));
        }
    }
    (m, format!("{label}; decoded: {}", notes.join(", ")))
}

/// A look-up-table encoding of `data` (elements of `size` bytes, in the
/// channels of `tensor` as TFLM reads them): each channel cut to a table of
/// its first distinct values (its first value repeated where it has
/// fewer), `stride` entries apart, every element then drawn from its
/// channel's table. Returns the packed indices, the ancillary data and a
/// label.
fn lut_encoded(r: &mut Rng, data: &[u8], size: usize, tensor: &TensorDef) -> (Vec<u8>, Vec<u8>, String) {
    let count = data.len() / size;
    let (channels, interleaved) = match &tensor.quant {
        Some(q) if q.scale.len() > 1 => (q.scale.len(), q.axis as usize == tensor.shape.len() - 1),
        Some(q) => (q.scale.len(), false),
        None => (1, false),
    };
    let width = r.size(1, 7);
    let entries = r.size(1, 1 << width);
    let stride = if r.chance(0.3) { (1 << width).min(128) } else { entries };
    let channel_of = |k: usize| if interleaved { k % channels } else { k / (count / channels) };
    let mut tables = vec![Vec::<Vec<u8>>::new(); channels];
    for k in 0..count {
        let (c, v) = (channel_of(k), data[k * size..(k + 1) * size].to_vec());
        if tables[c].len() < entries && !tables[c].contains(&v) {
            tables[c].push(v);
        }
    }
    let mut ancillary = vec![0, 1, 0, 0, 1, width as u8, stride as u8];
    ancillary.resize(16, 0);
    for table in &mut tables {
        while table.len() < stride {
            table.push(table[0].clone());
        }
        ancillary.extend(table.iter().flatten());
    }
    let mut bits = vec![0u8; (count * width).div_ceil(8)];
    for k in 0..count {
        let index = r.size(0, entries - 1);
        for b in 0..width {
            if (index >> (width - 1 - b)) & 1 == 1 {
                let bit = k * width + b;
                bits[bit / 8] |= 0x80 >> (bit % 8);
            }
        }
    }
    let label = format!(
        "{} {width}-bit x{entries}{}{}",
        tensor.name,
        if stride > entries { format!(" stride {stride}") } else { String::new() },
        if interleaved { " last axis" } else { "" }
    );
    (bits, ancillary, label)
}

/// A Huffman coding of int8 `data` as TFLM's `DecodeStateHuffman` reads it:
/// code lengths from the values' counts (a fixed 8 bits when the tree
/// grows deeper than 30), canonical codes packed most significant bit
/// first, a first table indexed by `n` bits and, for the codes longer
/// than that, a second table per `n`-bit prefix indexed by the rest (each
/// symbol entry counting the bits of its code in that read: TFLM reads the
/// others again). 16-bit table entries where the offsets fit, else 32-bit.
/// Returns the stream, the ancillary data and a label.
fn huffman_encoded(r: &mut Rng, data: &[u8], name: &str) -> (Vec<u8>, Vec<u8>, String) {
    let mut counts = std::collections::BTreeMap::<u8, usize>::new();
    for &v in data {
        *counts.entry(v).or_default() += 1;
    }
    // Huffman tree: merge the two lightest until one is left; a symbol's
    // length is the number of merges above it.
    let mut nodes: Vec<(usize, Vec<u8>)> = counts.iter().map(|(&v, &c)| (c, vec![v])).collect();
    let mut length = std::collections::BTreeMap::<u8, usize>::new();
    while nodes.len() > 1 {
        nodes.sort_by_key(|n| std::cmp::Reverse(n.0));
        let (a, b) = (nodes.pop().unwrap(), nodes.pop().unwrap());
        for &v in a.1.iter().chain(&b.1) {
            *length.entry(v).or_default() += 1;
        }
        nodes.push((a.0 + b.0, [a.1, b.1].concat()));
    }
    if length.is_empty() {
        length.insert(data[0], 1);
    }
    if length.values().any(|&l| l > 30) {
        length.values_mut().for_each(|l| *l = 8);
    }
    // Canonical codes: by length, then value.
    let mut order: Vec<(usize, u8)> = length.iter().map(|(&v, &l)| (l, v)).collect();
    order.sort_unstable();
    // (value, code, length)
    let mut codes: Vec<(u8, u32, usize)> = Vec::new();
    let (mut code, mut prev) = (0u32, order[0].0);
    for (i, &(l, v)) in order.iter().enumerate() {
        if i > 0 {
            code = (code + 1) << (l - prev);
        }
        prev = l;
        codes.push((v, code, l));
    }
    let longest = order.last().map_or(1, |o| o.0);
    let n = r.size(longest.saturating_sub(15).max(1), longest.min(15));
    // Tables: the first (2^n entries), then a second one per long prefix.
    let symbol = |value: u8, used: usize, wide: bool| {
        if wide {
            (1u32 << 31) | ((used as u32) << 27) | value as u32
        } else {
            0x8000 | ((used as u32) << 11) | value as u32
        }
    };
    let build = |wide: bool| -> Option<Vec<u32>> {
        let mut table = vec![0u32; 1 << n];
        for p in 0..1u32 << n {
            let short = codes.iter().find(|&&(_, c, l)| l <= n && (p >> (n - l)) == c);
            if let Some(&(v, _, l)) = short {
                table[p as usize] = symbol(v, l, wide);
                continue;
            }
            let long: Vec<(u8, u32, usize)> =
                codes.iter().copied().filter(|&(_, c, l)| l > n && (c >> (l - n)) == p).collect();
            if long.is_empty() {
                // No code starts so (a single-value tensor): any symbol.
                table[p as usize] = symbol(order[0].1, n, wide);
                continue;
            }
            let m = long.iter().map(|x| x.2 - n).max().unwrap_or(1);
            let (start, offset) = (table.len(), table.len() - p as usize);
            if offset > if wide { 0x07FF_FFFF } else { 0x07FF } {
                return None;
            }
            table[p as usize] =
                if wide { ((m as u32 - 1) << 27) | offset as u32 } else { ((m as u32 - 1) << 11) | offset as u32 };
            table.resize(start + (1 << m), 0);
            for s in 0..1u32 << m {
                let (v, _, l) =
                    long.iter().find(|&&(_, c, l)| (s >> (m - (l - n))) == (c & ((1 << (l - n)) - 1))).copied()?;
                table[start + s as usize] = symbol(v, l - n, wide);
            }
        }
        Some(table)
    };
    let wide = r.chance(0.3);
    let (wide, table) = match build(wide) {
        Some(t) => (wide, t),
        None => (true, build(true).expect("32-bit offsets fit")),
    };
    let mut ancillary = vec![1, 1, 0, 0, 1, ((n as u8 - 1) << 4) | wide as u8];
    ancillary.resize(16, 0);
    for &e in &table {
        if wide {
            ancillary.extend_from_slice(&e.to_le_bytes());
        } else {
            ancillary.extend_from_slice(&(e as u16).to_le_bytes());
        }
    }
    let mut stream = Vec::new();
    let mut at = 0usize;
    for &v in data {
        let Some(&(_, c, l)) = codes.iter().find(|x| x.0 == v) else { unreachable!("every value has a code") };
        for b in 0..l {
            if at / 8 >= stream.len() {
                stream.push(0);
            }
            if (c >> (l - 1 - b)) & 1 == 1 {
                stream[at / 8] |= 0x80 >> (at % 8);
            }
            at += 1;
        }
    }
    stream.resize(stream.len().next_multiple_of(4) + 4, 0);
    (
        stream,
        ancillary,
        format!("{name} Huffman {} symbols, {n}-bit first table{}", codes.len(), if wide { ", 32-bit" } else { "" }),
    )
}
