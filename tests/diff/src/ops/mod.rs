//! One random-model generator per operator: shapes (1s and odd sizes
//! included), every option, every dtype tinyaot supports for it, and
//! quantization from tiny to large scales with zero points at the ends of
//! their range. Builtin codes, option tables and field ids follow the TFLite
//! schema. One file per operator family (`conv`, `pool`, `elementwise`,
//! `normalization`, `reduce`, `movement`, `recurrent`, `signal`); this file
//! holds the table of generators and the helpers they share.

mod conv;
mod elementwise;
mod movement;
mod normalization;
mod pool;
mod recurrent;
mod reduce;
mod signal;
mod uint8;

use conv::*;
use elementwise::*;
use movement::*;
use normalization::*;
use pool::*;
use recurrent::*;
use reduce::*;
use signal::*;
use uint8::*;

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
    ("DEPTHWISE_CONV_2D", |r| depthwise_conv_2d(r, false)),
    ("DEPTHWISE_CONV_2D_WIDE", |r| depthwise_conv_2d(r, true)),
    ("FULLY_CONNECTED", fully_connected),
    ("FULLY_CONNECTED_HYBRID", fully_connected_hybrid),
    ("AVERAGE_POOL_2D", |r| pool_2d(r, 1, "AVERAGE_POOL_2D")),
    ("MAX_POOL_2D", |r| pool_2d(r, 17, "MAX_POOL_2D")),
    ("ADD", |r| binary(r, 0, 11)),
    ("SUB", |r| binary(r, 41, 28)),
    ("ADD_SUB_MUL_RUNS", add_sub_mul_runs),
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
    ("SELECT_LITERT", select_litert),
    ("REDUCE_ALL", reduce_all),
    ("FLOOR_DIV", |r| floor_binary(r, 90)),
    ("FLOOR_MOD", |r| floor_binary(r, 95)),
    ("POW", pow),
    ("SIGN", sign),
    ("REDUCE_PROD", reduce_prod),
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
    ("LIST_WRITES", crate::control::list_writes),
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
    // (In the second window-chain slot: a new entry would shift every
    // seed's sample.)
    ("WINDOW_CHAIN_NCHW", crate::chains::window_chain_nchw),
    ("UINT8_OPS", uint8_ops),
    ("UINT8_OPS", uint8_ops),
    ("UINT8_OPS", uint8_ops),
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

/// Now and then a hybrid op's int8 weights typed uint8 (the same bytes),
/// which LiteRT's FULLY_CONNECTED and CONV_2D read as int8.
fn uint8_weights(r: &mut Rng, m: &mut Model, weights: i32, label: String) -> String {
    if !r.chance(0.2) {
        return label;
    }
    m.def.subgraphs[0].tensors[weights as usize].dtype = Ty::U8.code();
    format!("{label} (uint8 weights)")
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

/// Data-movement ops keep their input's quantization; `types` are those
/// TFLM's kernel takes.
fn movement_ty(r: &mut Rng, types: &[Ty]) -> (Ty, Option<QuantDef>) {
    let ty = r.pick(types);
    (ty, activation_quant(r, ty, 1e-3, 0.5))
}

const ALL: &[Ty] = &[Ty::I8, Ty::F32, Ty::I16, Ty::I32];
const NO_INT32: &[Ty] = &[Ty::I8, Ty::F32, Ty::I16];
const FLOAT_INT8: &[Ty] = &[Ty::I8, Ty::F32];

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

/// The value of a normal float16 `h`, computed apart from the compiler.
fn half_value(h: u16) -> f32 {
    let magnitude = (1.0 + f64::from(h & 0x3FF) / 1024.0) * 2f64.powi(i32::from((h >> 10) & 0x1F) - 15);
    (if h >> 15 == 1 { -magnitude } else { magnitude }) as f32
}

/// FFT lengths whose half factors into radices 2 to 5 (4, 3, 2 and 5
/// stages all drawn).
const FFT_LENGTHS: [usize; 20] = [4, 6, 8, 10, 12, 16, 18, 20, 24, 30, 32, 40, 50, 64, 96, 100, 128, 250, 256, 512];

/// Several invokes in a row with the state carried, a `reset()` before
/// one of them now and then.
fn stream(r: &mut Rng, m: &mut Model) {
    m.invokes = r.size(2, 5);
    m.reset_at = r.chance(0.4).then(|| r.size(1, m.invokes - 1));
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
