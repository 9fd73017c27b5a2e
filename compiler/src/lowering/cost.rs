//! Estimated Cortex-M4 cycles of the kernels that compete for an op
//! (`Variant::cost`): the planner takes the cheapest variant that fits the
//! RAM budget and compares tiled plans by the sum over their ops, so the
//! estimates are in one unit across ops, M4 cycles at zero wait states.
//!
//! Each formula was calibrated on `firmware-profile` (the
//! `qemu-m4cycles` timings) over the project's models and the benchmark
//! set (the figures each was checked against are beside it), then scaled
//! to the per-op cycles `cycle-estimates` measures (each op between two
//! marks of a hook, the M4F's first invoke: the sums over each kernel's
//! ops). The ops with one kernel take `PER_OP`'s fitted rows. The
//! estimates rank kernels and add up to `CYCLES_M4`; they do not predict
//! an op to the percent (a layer of few channels pays its calls and its
//! tails more than these say; a WHILE body is counted once).

use crate::graph::{DType, Graph, Node};
use crate::lowering::operator::Operator;
use crate::lowering::variant::Variant;

/// CONV_2D, the direct kernel (any groups, any requantization): per
/// output a fixed part (the requantization, the window's clipping) and
/// per filter tap its bounds and pointers, then about 5 cycles per MAC
/// (two sign-extending byte loads, a multiply-accumulate, the loop).
/// Calibration: 3x3 with 2 values per tap (`conv_grouped_int8`), 389
/// cycles per output (here 391); 1x1 with 3 (the int4 model's int8 twin),
/// 116 (here 116).
pub fn conv_direct(outputs: u64, taps: u64, tap_depth: u64) -> u64 {
    outputs * (76 + taps * (25 + 5 * tap_depth))
}

/// CONV_2D over gathered rows (`conv2d_im2col_s8`): per MAC the dot
/// products' inner loop (pixel pairs: 19 cycles per 16 MACs), per output
/// its requantization and a share of the block's bookkeeping, per pixel
/// the gather (a window's values copied and widened; a 1x1 layer's pixel
/// only widened). Where the requantization does not fuse, sums go through
/// memory and the shared requantization loop. Calibration: `resnet_block_int8`
/// (3x3 8 -> 8) 111 cycles per output and 5.1 per gathered value (here 106
/// and 5); kws_ref_model's 1x1 64 -> 64 layers 93 per output, 3.4 per
/// value (here 96 and 3).
/// Per-op marks: 0.82 of this over the 38 layers of the set.
pub fn conv_im2col(outputs: u64, depth: u64, pixels: u64, pointwise: bool, fused: bool) -> u64 {
    let per_output = if fused { depth * 6 / 5 + 20 } else { depth * 7 / 5 + 26 };
    let per_value = if pointwise { 3 } else { 5 };
    (outputs * per_output + pixels * depth * per_value) * 82 / 100
}

/// CONV_2D 16x8 over gathered windows (`conv2d_im2col_16x8`): per MAC the
/// dot products' inner loop (a word of weights, two `SXTB16` and two
/// `SMLAD` per 4 MACs of a row), per output the 64-bit requantization, per
/// pixel the gather (none for a 1x1 layer read in place).
pub fn conv_16x8(outputs: u64, depth: u64, pixels: u64, pointwise: bool) -> u64 {
    let per_value = if pointwise { 0 } else { 3 };
    outputs * (depth * 3 / 2 + 40) + pixels * depth * per_value
}

/// DEPTHWISE_CONV_2D, the direct kernels: the 4-channel groups of
/// multiplier 1 (`depthwise_m1_s8`, `SMLAD` over 16-bit lanes) or the
/// generic loop (other multipliers, dilation, partial groups). Calibration:
/// VWW's 3x3 over 256 channels 51 cycles per output (here 51); the
/// generic 3x3 of `depthwise_int8`, multiplier 2, 159 (here 156).
/// Per-op marks: 1.7 times this over the 11 layers that run it where
/// widened rows compete (the loads and the channel loop cost more than
/// the VWW layer showed).
pub fn depthwise_direct(outputs: u64, taps: u64, grouped_lanes: bool) -> u64 {
    let cycles = if grouped_lanes { outputs * (15 + 4 * taps) } else { outputs * (30 + 14 * taps) };
    cycles * 17 / 10
}

/// DEPTHWISE_CONV_2D of integer layers with a multiplier above 1
/// (`depthwise_multiplier`): per output the requantization and its share
/// of the pixel's tap lookups, per tap a weight load and a
/// multiply-accumulate (the input's load and offset shared by the M
/// outputs). Calibration: `bench_dwmult` (docs/firmware.md), 3x3 over 16
/// channels with multiplier 2, 112 cycles per output (here 112); 3x3
/// stride 2 over 32 with multiplier 3, 96 (here 112).
pub fn depthwise_multiplier(outputs: u64, taps: u64) -> u64 {
    outputs * (40 + 8 * taps)
}

/// DEPTHWISE_CONV_2D over widened input rows (`depthwise_rows_s8`): per
/// output the requantization and the pair loop, per tap about 2 cycles
/// (one `SMLAD` per tap pair per output, its loads shared by two outputs),
/// per input value the widening into the ring. Calibration: kws_ref_model's
/// 3x3 over 64 channels 41.6 cycles per output (here 40); the 4x7 stride-3
/// layer of `depthwise_shapes_int8`, 88 (here 87).
/// Per-op marks: 0.64 of this over the 25 layers of the set.
pub fn depthwise_rows(outputs: u64, taps: u64, widened: u64) -> u64 {
    (outputs * (19 + taps * 21 / 10) + widened * 34 / 10) * 64 / 100
}

/// DEPTHWISE_CONV_2D of a 1-channel input with a multiplier (`Im2col`): the
/// window gathered once per pixel, then the output channels as dot products
/// of the single-pixel kernel (sums through the requantization loop).
pub fn depthwise_im2col(outputs: u64, taps: u64, pixels: u64) -> u64 {
    outputs * (taps * 7 / 5 + 26) + pixels * taps * 5
}

/// DEPTHWISE_CONV_2D on Helium (`depthwise_vector_s8`, the plan's
/// [`Kernel::Vector`](crate::lowering::variant::Kernel)): per pixel and
/// group of 8 channels the taps' 16-bit products and the requantization,
/// per pixel the window's bookkeeping; in estimated Cortex-M55 cycles
/// (`tests/tools/qemu_m55cycles.c`). Calibration (`firmware-profile ...
/// m55`, 3x3 layers): VWW's 12x12x64 960 cycles per pixel (here 950),
/// 24x24x32 542 (here 530), 48x48x8 214 (here 215), 3x3x256 3,434 (here
/// 3,470); kws_ref_model's 25x5x64 968 (here 950).
pub fn depthwise_vector(pixels: u64, channels: u64, taps: u64) -> u64 {
    let groups = channels.div_ceil(8);
    pixels * (groups * (33 + 8 * taps) + 110)
}

/// The op's variants with a cost each. An op with one kernel takes the
/// estimate of [`by_tensors`] where the table has its row (its own rough
/// one otherwise, or the table's default when it has none); an op whose
/// kernels compete keeps its own formulas (they rank its kernels). On a
/// plan for Helium (`helium`), an op's vector variant replaces its others
/// but the direct one ([`Operator::vector_variant`]).
pub fn variants(op: &dyn Operator, node: &Node<'_>, graph: &Graph<'_>, helium: bool) -> Vec<Variant> {
    let mut variants = op.variants();
    if let Some(vector) = op.vector_variant().filter(|_| helium) {
        variants.truncate(1);
        variants.push(vector);
        return variants;
    }
    if let [only] = variants.as_mut_slice() {
        match by_tensors(node, graph, op.macs()) {
            Some(cost) => only.cost = cost,
            None if only.cost == 0 => only.cost = fallback(node, graph),
            None => {}
        }
    }
    variants
}

/// How an op computes, for the estimate table: `f32`, `hybrid` (float
/// activations with int8 weights, quantized on the fly), `i16`, or `i8`
/// (the other integer ops).
pub fn arithmetic(node: &Node<'_>, graph: &Graph<'_>) -> &'static str {
    let out = node.outputs.first().map(|&t| graph.tensors[t].dtype);
    let int8_weights = || {
        node.inputs.iter().flatten().any(|&t| graph.tensors[t].data.is_some() && graph.tensors[t].dtype == DType::I8)
    };
    match out {
        Some(DType::F32) if int8_weights() => "hybrid",
        Some(DType::F32) => "f32",
        Some(DType::I16) => "i16",
        _ => "i8",
    }
}

/// The sizes an estimate reads: output and activation input elements
/// (constants left out).
pub fn sizes(node: &Node<'_>, graph: &Graph<'_>) -> (u64, u64) {
    let elements = |ts: &mut dyn Iterator<Item = usize>| -> u64 {
        ts.filter(|&t| graph.tensors[t].data.is_none()).map(|t| graph.tensors[t].elements as u64).sum()
    };
    (elements(&mut node.outputs.iter().copied()), elements(&mut node.inputs.iter().flatten().copied()))
}

/// Estimated Cortex-M4 cycles of an op with one kernel, from its
/// multiply-accumulates (`macs`) and tensor sizes: `PER_OP`'s row for its operator
/// and arithmetic (fitted on the per-op profiles `cycle-estimates` takes
/// of the project's models and the benchmark set), `None` without one.
pub fn by_tensors(node: &Node<'_>, graph: &Graph<'_>, macs: u64) -> Option<u64> {
    let arithmetic = arithmetic(node, graph);
    let &(_, _, per_mac, per_output, per_input, fixed) =
        PER_OP.iter().find(|row| row.0 == node.name && row.1 == arithmetic)?;
    let (outputs, inputs) = sizes(node, graph);
    Some(fixed + (per_mac * macs + per_output * outputs + per_input * inputs) / 10)
}

/// An op without a row: its outputs at a rough cost per element (float,
/// integer), until a fit gives it a row.
fn fallback(node: &Node<'_>, graph: &Graph<'_>) -> u64 {
    let (outputs, _) = sizes(node, graph);
    let per_output = if arithmetic(node, graph) == "f32" { FLOAT_PER_OUTPUT } else { INTEGER_PER_OUTPUT };
    FALLBACK_FIXED + per_output * outputs / 10
}

/// Operator, arithmetic, then tenths of a cycle per multiply-accumulate,
/// per output element and per activation input element, and fixed cycles.
const PER_OP: &[(&str, &str, u64, u64, u64, u64)] = &[
    // Written by tests/tools/fit_costs.py from `cycle-estimates --csv` (M4F: the
    // project's models and the benchmark set).
    ("ABS", "f32", 0, 174, 0, 109),
    ("ABS", "i16", 0, 220, 0, 0),
    ("ABS", "i8", 0, 69, 0, 752),
    ("ADD", "f32", 0, 155, 0, 522),
    ("ADD", "i16", 0, 0, 0, 3135),
    ("ADD", "i8", 0, 158, 0, 522),
    ("ARG_MAX", "i8", 0, 287, 0, 0),
    ("ARG_MIN", "i8", 0, 518, 0, 0),
    ("ASSIGN_VARIABLE", "i8", 0, 0, 60, 36),
    ("AVERAGE_POOL_2D", "f32", 0, 325, 34, 1973),
    ("AVERAGE_POOL_2D", "i16", 0, 803, 0, 0),
    ("AVERAGE_POOL_2D", "i8", 0, 185, 35, 1217),
    ("BATCH_MATMUL", "f32", 0, 488, 520, 0),
    ("BATCH_MATMUL", "i16", 0, 1938, 0, 0),
    ("BATCH_MATMUL", "i8", 0, 1923, 0, 0),
    ("CALL_ONCE", "i8", 0, 0, 0, 0),
    ("CAST", "f32", 0, 58, 0, 38),
    ("CAST", "i8", 0, 93, 0, 0),
    ("CONCATENATION", "f32", 0, 285, 0, 570),
    ("CONCATENATION", "i16", 0, 352, 0, 0),
    ("CONCATENATION", "i8", 0, 103, 0, 645),
    ("CONV_2D", "f32", 46, 184, 20, 56),
    ("CONV_2D", "hybrid", 77, 0, 0, 0),
    ("CONV_2D", "i16", 107, 645, 0, 0),
    ("CONV_2D", "i8", 279, 0, 0, 0),
    ("COS", "f32", 0, 17598, 0, 0),
    ("CUSTOM:SignalEnergy", "i8", 0, 146, 0, 0),
    ("CUSTOM:SignalFftAutoScale", "i16", 0, 146, 0, 0),
    ("CUSTOM:SignalFilterBank", "i8", 0, 5030, 0, 0),
    ("CUSTOM:SignalFilterBankLog", "i16", 0, 526, 0, 0),
    ("CUSTOM:SignalFilterBankSpectralSubtraction", "i8", 0, 223, 0, 0),
    ("CUSTOM:SignalFilterBankSquareRoot", "i8", 0, 2665, 0, 0),
    ("CUSTOM:SignalPCAN", "i8", 0, 481, 0, 0),
    ("CUSTOM:SignalRfft", "i16", 0, 1458, 0, 0),
    ("CUSTOM:SignalWindow", "i16", 0, 161, 0, 0),
    ("CUSTOM:TFLM_DECODE", "i8", 0, 0, 0, 21),
    ("DEPTHWISE_CONV_2D", "f32", 45, 202, 26, 0),
    ("DEPTHWISE_CONV_2D", "hybrid", 259, 0, 0, 0),
    ("DEPTHWISE_CONV_2D", "i16", 250, 0, 0, 0),
    ("DEPTHWISE_CONV_2D", "i8", 130, 293, 57, 0),
    ("DEPTH_TO_SPACE", "f32", 0, 676, 0, 0),
    ("DEPTH_TO_SPACE", "i8", 0, 662, 0, 0),
    ("DEQUANTIZE", "f32", 0, 209, 0, 0),
    ("DIV", "f32", 0, 377, 0, 0),
    ("DIV", "i8", 0, 265, 0, 0),
    ("ELU", "f32", 0, 27370, 0, 0),
    ("ELU", "i8", 0, 137, 0, 0),
    ("EQUAL", "i8", 0, 103, 0, 0),
    ("EXP", "f32", 0, 29145, 0, 0),
    ("FULLY_CONNECTED", "f32", 36, 344, 68, 214),
    ("FULLY_CONNECTED", "hybrid", 70, 0, 0, 0),
    ("FULLY_CONNECTED", "i16", 120, 0, 0, 0),
    // Set by hand after the dense lane kernel (`dot::dense_lanes_down`):
    // within 2% of the estimator on the benchmark set's AD layers.
    ("FULLY_CONNECTED", "i8", 12, 199, 0, 280),
    ("GATHER", "f32", 0, 3, 0, 329),
    ("GATHER", "i8", 0, 8, 0, 0),
    ("GREATER", "i8", 0, 0, 211, 50),
    ("GREATER_EQUAL", "i8", 0, 204, 0, 0),
    ("HARD_SWISH", "f32", 0, 375, 0, 0),
    ("HARD_SWISH", "i8", 0, 136, 0, 0),
    ("IF", "i8", 0, 0, 0, 0),
    ("LEAKY_RELU", "f32", 0, 224, 0, 0),
    ("LEAKY_RELU", "i16", 0, 256, 0, 0),
    ("LEAKY_RELU", "i8", 0, 135, 0, 0),
    ("LESS", "i8", 0, 0, 0, 440),
    ("LESS_EQUAL", "i8", 0, 193, 0, 0),
    ("LOG", "f32", 0, 40780, 0, 0),
    ("LOGICAL_AND", "i8", 0, 0, 0, 395),
    ("LOGICAL_NOT", "i8", 0, 164, 0, 0),
    ("LOGICAL_OR", "i8", 0, 82, 0, 0),
    ("LOGISTIC", "f32", 0, 31452, 0, 69300),
    ("LOGISTIC", "i16", 0, 346, 0, 0),
    ("LOGISTIC", "i8", 0, 135, 0, 0),
    ("MAXIMUM", "f32", 0, 176, 0, 0),
    ("MAXIMUM", "i8", 0, 166, 0, 0),
    ("MAX_POOL_2D", "f32", 0, 784, 0, 0),
    ("MAX_POOL_2D", "i16", 0, 865, 0, 0),
    ("MAX_POOL_2D", "i8", 0, 601, 0, 718),
    ("MEAN", "f32", 0, 0, 41, 0),
    ("MEAN", "i16", 0, 241, 31, 0),
    ("MEAN", "i8", 0, 118, 35, 0),
    ("MINIMUM", "f32", 0, 176, 0, 0),
    ("MINIMUM", "i8", 0, 165, 0, 0),
    ("MUL", "f32", 0, 186, 0, 361),
    ("MUL", "i16", 0, 468, 0, 10),
    ("MUL", "i8", 0, 475, 0, 0),
    ("NEG", "f32", 0, 134, 0, 0),
    ("NOT_EQUAL", "i8", 0, 117, 0, 0),
    ("PACK", "f32", 0, 604, 0, 0),
    ("PACK", "i8", 0, 578, 0, 0),
    ("PAD", "f32", 0, 214, 0, 0),
    ("PAD", "i16", 0, 230, 0, 0),
    ("PAD", "i8", 0, 151, 0, 0),
    ("PRELU", "f32", 0, 169, 0, 0),
    ("PRELU", "i8", 0, 383, 0, 0),
    ("QUANTIZE", "i16", 0, 319, 0, 145),
    ("QUANTIZE", "i8", 0, 122, 40, 388),
    ("QUANTIZE: uint8 input 'image' as int8", "i8", 0, 151, 0, 0),
    ("QUANTIZE: uint8 output 'clipped' as int8", "i8", 0, 145, 0, 0),
    ("QUANTIZE: uint8 output 'gate' as int8", "i8", 0, 143, 0, 0),
    ("QUANTIZE: uint8 output 'probabilities' as int8", "i8", 0, 172, 0, 0),
    ("READ_VARIABLE", "f32", 0, 123, 0, 0),
    ("REDUCE_ALL", "i8", 0, 475, 0, 0),
    ("REDUCE_MAX", "f32", 0, 268, 0, 0),
    ("REDUCE_MAX", "i8", 0, 206, 0, 0),
    ("REDUCE_MIN", "f32", 0, 398, 0, 0),
    ("REDUCE_MIN", "i8", 0, 316, 0, 0),
    ("RELU", "f32", 0, 192, 0, 0),
    ("RELU", "i16", 0, 305, 0, 0),
    ("RELU", "i8", 0, 136, 0, 0),
    ("RELU6", "f32", 0, 254, 0, 0),
    ("RELU6", "i16", 0, 155, 0, 0),
    ("RELU6", "i8", 0, 135, 0, 0),
    ("RESHAPE", "f32", 0, 0, 0, 60),
    ("RESHAPE", "i16", 0, 0, 0, 0),
    ("RESHAPE", "i8", 0, 0, 0, 22),
    ("RESIZE_BILINEAR", "f32", 0, 342, 18, 0),
    ("RESIZE_BILINEAR", "i8", 0, 821, 0, 639),
    ("RESIZE_NEAREST_NEIGHBOR", "f32", 0, 27, 0, 0),
    ("RESIZE_NEAREST_NEIGHBOR", "i8", 0, 4, 0, 0),
    ("RSQRT", "f32", 0, 913, 0, 0),
    ("RSQRT", "i16", 0, 4536, 0, 0),
    ("RSQRT", "i8", 0, 135, 0, 0),
    ("SELECT_V2", "f32", 0, 123, 0, 0),
    ("SELECT_V2", "i8", 0, 120, 0, 0),
    ("SIN", "f32", 0, 17742, 0, 0),
    ("SOFTMAX", "f32", 0, 27075, 0, 0),
    ("SOFTMAX", "i16", 0, 873, 0, 0),
    ("SOFTMAX", "i8", 0, 3177, 0, 721),
    ("SPACE_TO_DEPTH", "f32", 0, 248, 0, 0),
    ("SPACE_TO_DEPTH", "i8", 0, 235, 0, 0),
    ("SPLIT", "f32", 0, 711, 0, 0),
    ("SPLIT", "i8", 0, 578, 0, 0),
    ("SQRT", "f32", 0, 761, 0, 0),
    ("SQUARE", "f32", 0, 192, 0, 0),
    ("SQUARED_DIFFERENCE", "f32", 0, 178, 0, 0),
    ("SQUARED_DIFFERENCE", "i16", 0, 793, 0, 0),
    ("SQUARED_DIFFERENCE", "i8", 0, 722, 0, 0),
    ("STRIDED_SLICE", "f32", 0, 0, 63, 971),
    ("STRIDED_SLICE", "i16", 0, 350, 0, 0),
    ("STRIDED_SLICE", "i8", 0, 0, 19, 2166),
    ("SUB", "f32", 0, 156, 0, 492),
    ("SUB", "i16", 0, 386, 0, 0),
    ("SUB", "i8", 0, 142, 0, 801),
    ("SUM", "f32", 0, 996, 0, 0),
    ("SUM", "i8", 0, 1299, 0, 0),
    ("SVDF", "f32", 98, 0, 0, 0),
    ("SVDF", "i8", 96, 0, 0, 0),
    ("TANH", "f32", 0, 54983, 0, 20716),
    ("TANH", "i16", 0, 346, 0, 0),
    ("TANH", "i8", 0, 85, 0, 604),
    ("TRANSPOSE", "f32", 0, 240, 0, 0),
    ("TRANSPOSE", "i16", 0, 323, 0, 0),
    ("TRANSPOSE", "i8", 0, 225, 0, 0),
    ("TRANSPOSE_CONV", "f32", 241, 0, 0, 0),
    ("TRANSPOSE_CONV", "i16", 346, 0, 0, 0),
    ("TRANSPOSE_CONV", "i8", 325, 0, 0, 0),
    ("UNIDIRECTIONAL_SEQUENCE_LSTM", "f32", 7210, 0, 0, 0),
    ("UNIDIRECTIONAL_SEQUENCE_LSTM", "i16", 376, 0, 0, 0),
    ("UNIDIRECTIONAL_SEQUENCE_LSTM", "i8", 345, 0, 0, 0),
    ("UNPACK", "f32", 0, 604, 0, 0),
    ("UNPACK", "i8", 0, 578, 0, 0),
    ("VAR_HANDLE", "i8", 0, 0, 0, 21),
    ("WHILE", "i8", 0, 0, 107, 82),
    ("loop test of subgraph 2", "i8", 0, 632, 0, 0),
    ("loop test of subgraph 4", "i8", 0, 912, 0, 0),
    ("subgraph inputs of subgraph 1", "f32", 0, 99, 0, 0),
    ("subgraph inputs of subgraph 1", "i8", 0, 731, 0, 0),
    ("subgraph inputs of subgraph 2", "f32", 0, 97, 0, 0),
    ("subgraph inputs of subgraph 3", "i8", 0, 1059, 0, 0),
    ("subgraph outputs of subgraph 1", "f32", 0, 119, 0, 0),
    ("subgraph outputs of subgraph 2", "f32", 0, 119, 0, 0),
    ("subgraph outputs of subgraph 2", "i8", 0, 608, 0, 0),
    ("subgraph outputs of subgraph 4", "i8", 0, 910, 0, 0),
];
/// An op without a row: fixed cycles, tenths of a cycle per output element
/// in float and on integers.
const FALLBACK_FIXED: u64 = 60;
const FLOAT_PER_OUTPUT: u64 = 120;
const INTEGER_PER_OUTPUT: u64 = 60;

#[cfg(test)]
mod tests {
    use super::*;

    /// The rankings the planner relies on, at the shapes of the
    /// benchmark models: gathered rows beat the direct convolution, widened
    /// rows beat both direct depthwise kernels.
    #[test]
    fn faster_kernels_cost_less() {
        // ResNet-8's 3x3 16 -> 16 over 32x32.
        let (outputs, pixels) = (32 * 32 * 16, 32 * 32);
        assert!(conv_im2col(outputs, 144, pixels, false, true) < conv_direct(outputs, 9, 16));
        assert!(conv_im2col(outputs, 144, pixels, false, true) < conv_im2col(outputs, 144, pixels, false, false));
        // kws_ref_model's depthwise 3x3 over 25x5x64.
        let outputs = 25 * 5 * 64;
        assert!(depthwise_rows(outputs, 9, outputs) < depthwise_direct(outputs, 9, true));
        assert!(depthwise_direct(outputs, 9, true) < depthwise_direct(outputs, 9, false));
        // A multiplier-8 depthwise of a 1-channel input.
        assert!(depthwise_im2col(outputs, 9, outputs / 8) < depthwise_direct(outputs, 9, false));
    }
}
