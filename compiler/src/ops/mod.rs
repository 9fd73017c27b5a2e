//! Operators: one file each, owning its options, shape and dtype rules,
//! compile-time constants and codegen. [`lower`] checks one graph node and
//! returns its [`Operator`]; anything unsupported is an error naming the op.

mod arg_max;
mod binary;
mod cast;
mod concatenation;
mod conv_2d;
mod depthwise_conv_2d;
mod dequantize;
mod elu;
mod fully_connected;
mod gather;
mod hard_swish;
mod leaky_relu;
mod logistic;
mod lstm;
mod math;
mod mean;
mod movement;
mod pack;
mod pad;
mod pool_2d;
mod quantize;
mod relu;
mod reshape;
mod resize_bilinear;
mod resize_nearest_neighbor;
mod slice;
mod softmax;
mod space_depth;
mod split;
mod svdf;
mod tanh;
mod transpose;
mod transpose_conv;
mod unary;

use crate::codegen::Emit;
use crate::diag::Error;
use crate::graph::{DType, Graph, Node, Tensor};
use crate::quant::quantize_f32;
use crate::tflite::Options;
use proc_macro2::TokenStream;

/// A checked operator, ready to emit.
pub trait Operator {
    /// Emits the statement(s) that run this op (nothing for aliases).
    fn emit(&self, cx: &mut Emit<'_>) -> Result<TokenStream, Error>;

    /// `Some((input, output))` when the output is a view of the input's
    /// bytes (RESHAPE): the planner gives both one buffer, no copy is made.
    fn alias(&self) -> Option<(usize, usize)> {
        None
    }

    /// Multiply-accumulates per invoke (for reports).
    fn macs(&self) -> u64 {
        0
    }

    /// Whether the output may overlap the main input, and by how much.
    fn in_place(&self) -> Option<InPlace> {
        None
    }

    /// The kernels this op can run with. Variant 0 needs no scratch; others
    /// trade scratch bytes for speed. `Emit::variant` tells `emit` which one
    /// the planner chose.
    fn variants(&self) -> Vec<Variant> {
        vec![Variant { name: "direct", scratch: 0, cost: self.macs() }]
    }
}

/// One way to run an op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variant {
    /// Short name for reports (`direct`, `im2col`).
    pub name: &'static str,
    /// Scratch bytes it needs during the op.
    pub scratch: usize,
    /// Estimated instructions per invoke (only compared between variants).
    pub cost: u64,
}

/// How each builtin operator is lowered, and in which dtypes.
pub struct OpSupport {
    /// Builtin code.
    pub code: i32,
    /// Name (as in the schema).
    pub name: &'static str,
    /// Activation dtypes supported.
    pub dtypes: &'static [&'static str],
    lower: fn(&OpCx<'_, '_>) -> Result<Box<dyn Operator>, Error>,
}

/// Data movement works on every element type the generated code has.
const ANY: &[&str] = &["int8", "uint8", "int16", "int32", "float32"];

/// Every supported operator: the registry the docs table is checked against.
pub const SUPPORTED: &[OpSupport] = &[
    OpSupport { code: 0, name: "ADD", dtypes: &["int8", "int16", "float32"], lower: binary::lower_add },
    OpSupport { code: 41, name: "SUB", dtypes: &["int8", "int16", "float32"], lower: binary::lower_sub },
    OpSupport { code: 18, name: "MUL", dtypes: &["int8", "int16", "float32"], lower: binary::lower_mul },
    OpSupport { code: 55, name: "MAXIMUM", dtypes: &["int8", "int16", "float32"], lower: binary::lower_maximum },
    OpSupport { code: 57, name: "MINIMUM", dtypes: &["int8", "int16", "float32"], lower: binary::lower_minimum },
    OpSupport { code: 42, name: "DIV", dtypes: &["int8", "float32"], lower: binary::lower_div },
    OpSupport { code: 54, name: "PRELU", dtypes: &["int8", "float32"], lower: binary::lower_prelu },
    OpSupport { code: 111, name: "ELU", dtypes: &["int8", "float32"], lower: elu::lower },
    OpSupport {
        code: 99,
        name: "SQUARED_DIFFERENCE",
        dtypes: &["int8", "int16", "float32"],
        lower: binary::lower_squared_difference,
    },
    OpSupport {
        code: 1,
        name: "AVERAGE_POOL_2D",
        dtypes: &["int8", "int16", "float32"],
        lower: pool_2d::lower_average,
    },
    OpSupport { code: 3, name: "CONV_2D", dtypes: &["int8", "int16x8", "float32"], lower: conv_2d::lower },
    OpSupport {
        code: 4,
        name: "DEPTHWISE_CONV_2D",
        dtypes: &["int8", "int16x8", "float32"],
        lower: depthwise_conv_2d::lower,
    },
    OpSupport {
        code: 9,
        name: "FULLY_CONNECTED",
        dtypes: &["int8", "int16x8", "float32"],
        lower: fully_connected::lower,
    },
    OpSupport { code: 17, name: "MAX_POOL_2D", dtypes: &["int8", "int16", "float32"], lower: pool_2d::lower_max },
    OpSupport { code: 22, name: "RESHAPE", dtypes: ANY, lower: reshape::lower },
    OpSupport {
        code: 25,
        name: "SOFTMAX",
        dtypes: &["int8", "int8 -> int16", "int16", "float32"],
        lower: softmax::lower,
    },
    OpSupport { code: 40, name: "MEAN", dtypes: &["int8", "int16", "float32"], lower: mean::lower },
    OpSupport { code: 6, name: "DEQUANTIZE", dtypes: &["int8", "uint8", "int16 -> float32"], lower: dequantize::lower },
    OpSupport { code: 14, name: "LOGISTIC", dtypes: &["int8", "int16", "float32"], lower: logistic::lower },
    OpSupport { code: 19, name: "RELU", dtypes: &["int8", "int16", "float32"], lower: relu::lower_relu },
    OpSupport { code: 20, name: "RELU_N1_TO_1", dtypes: &["int8", "float32"], lower: relu::lower_relu_n1_to_1 },
    OpSupport { code: 21, name: "RELU6", dtypes: &["int8", "int16", "float32"], lower: relu::lower_relu6 },
    OpSupport { code: 28, name: "TANH", dtypes: &["int8", "int16", "float32"], lower: tanh::lower },
    OpSupport { code: 98, name: "LEAKY_RELU", dtypes: &["int8", "int16", "float32"], lower: leaky_relu::lower },
    OpSupport {
        code: 114,
        name: "QUANTIZE",
        dtypes: &[
            "float32 -> int8/int16",
            "int8 -> int8/uint8/int16/int32",
            "uint8 -> int8",
            "int16 -> int8/int16/int32",
            "int32 -> int8/int16",
        ],
        lower: quantize::lower,
    },
    OpSupport { code: 117, name: "HARD_SWISH", dtypes: &["int8", "float32"], lower: hard_swish::lower },
    OpSupport { code: 43, name: "SQUEEZE", dtypes: ANY, lower: reshape::lower },
    OpSupport { code: 70, name: "EXPAND_DIMS", dtypes: ANY, lower: reshape::lower },
    OpSupport { code: 2, name: "CONCATENATION", dtypes: ANY, lower: concatenation::lower },
    OpSupport { code: 34, name: "PAD", dtypes: ANY, lower: pad::lower },
    OpSupport { code: 60, name: "PADV2", dtypes: ANY, lower: pad::lower },
    OpSupport { code: 39, name: "TRANSPOSE", dtypes: ANY, lower: transpose::lower },
    OpSupport {
        code: 67,
        name: "TRANSPOSE_CONV",
        dtypes: &["int8", "int16x8", "float32"],
        lower: transpose_conv::lower,
    },
    OpSupport { code: 65, name: "SLICE", dtypes: ANY, lower: slice::lower_slice },
    OpSupport { code: 45, name: "STRIDED_SLICE", dtypes: ANY, lower: slice::lower_strided },
    OpSupport { code: 49, name: "SPLIT", dtypes: ANY, lower: split::lower_split },
    OpSupport { code: 102, name: "SPLIT_V", dtypes: ANY, lower: split::lower_split_v },
    OpSupport { code: 83, name: "PACK", dtypes: ANY, lower: pack::lower_pack },
    OpSupport { code: 88, name: "UNPACK", dtypes: ANY, lower: pack::lower_unpack },
    OpSupport { code: 97, name: "RESIZE_NEAREST_NEIGHBOR", dtypes: ANY, lower: resize_nearest_neighbor::lower },
    OpSupport { code: 23, name: "RESIZE_BILINEAR", dtypes: &["int8", "float32"], lower: resize_bilinear::lower },
    OpSupport { code: 26, name: "SPACE_TO_DEPTH", dtypes: ANY, lower: space_depth::lower_space_to_depth },
    OpSupport { code: 5, name: "DEPTH_TO_SPACE", dtypes: ANY, lower: space_depth::lower_depth_to_space },
    OpSupport { code: 36, name: "GATHER", dtypes: ANY, lower: gather::lower },
    OpSupport { code: 74, name: "SUM", dtypes: &["int8", "int16", "float32"], lower: mean::lower_sum },
    OpSupport { code: 82, name: "REDUCE_MAX", dtypes: &["int8", "float32"], lower: mean::lower_max },
    OpSupport { code: 89, name: "REDUCE_MIN", dtypes: &["int8", "float32"], lower: mean::lower_min },
    OpSupport {
        code: 56,
        name: "ARG_MAX",
        dtypes: &["int8", "uint8", "int16", "int32", "float32 -> int32 or int64"],
        lower: arg_max::lower_max,
    },
    OpSupport {
        code: 79,
        name: "ARG_MIN",
        dtypes: &["int8", "uint8", "int16", "int32", "float32 -> int32 or int64"],
        lower: arg_max::lower_min,
    },
    OpSupport {
        code: 53,
        name: "CAST",
        dtypes: &["int8", "uint8", "int16", "int32", "int64", "float32 (any pair)"],
        lower: cast::lower,
    },
    OpSupport { code: 101, name: "ABS", dtypes: &["int8", "int16", "float32"], lower: math::lower_abs },
    OpSupport { code: 59, name: "NEG", dtypes: &["float32"], lower: math::lower_neg },
    OpSupport { code: 75, name: "SQRT", dtypes: &["float32"], lower: math::lower_sqrt },
    OpSupport { code: 76, name: "RSQRT", dtypes: &["int8", "int16", "float32"], lower: math::lower_rsqrt },
    OpSupport { code: 47, name: "EXP", dtypes: &["float32"], lower: math::lower_exp },
    OpSupport { code: 73, name: "LOG", dtypes: &["float32"], lower: math::lower_log },
    OpSupport { code: 27, name: "SVDF", dtypes: &["int8 (int8 or int16 state)", "float32"], lower: svdf::lower },
    OpSupport {
        code: 44,
        name: "UNIDIRECTIONAL_SEQUENCE_LSTM",
        dtypes: &["int8 (int16 cell)", "int16x8 (int16 cell)", "float32"],
        lower: lstm::lower,
    },
    OpSupport { code: 66, name: "SIN", dtypes: &["float32"], lower: math::lower_sin },
    OpSupport { code: 108, name: "COS", dtypes: &["float32"], lower: math::lower_cos },
    OpSupport { code: 92, name: "SQUARE", dtypes: &["float32"], lower: math::lower_square },
];

/// The supported operator names, sorted, for error messages.
pub fn supported_list() -> String {
    let mut names: Vec<&str> = SUPPORTED.iter().map(|s| s.name).collect();
    names.sort_unstable();
    names.join(", ")
}

/// The op x dtype table of the README, generated from the registry (a test
/// keeps the README's copy equal to this).
pub fn support_table() -> String {
    let mut rows: Vec<&OpSupport> = SUPPORTED.iter().collect();
    rows.sort_by_key(|s| s.name);
    let mut t = String::from("| op | dtypes |\n|---|---|\n");
    for s in rows {
        t.push_str(&format!("| {} | {} |\n", s.name, s.dtypes.join(", ")));
    }
    t
}

/// Checks node `index` of the graph and returns its operator.
pub fn lower(graph: &Graph<'_>, node: &Node<'_>) -> Result<Box<dyn Operator>, Error> {
    let cx = OpCx { graph, node };
    match SUPPORTED.iter().find(|s| s.code == node.code) {
        Some(s) => (s.lower)(&cx),
        None => Err(cx.err(format!("operator not supported; supported operators: {}", supported_list()))),
    }
}

/// What an operator's lowering sees: the graph and its node.
pub struct OpCx<'g, 'a> {
    /// The whole graph.
    pub graph: &'g Graph<'a>,
    /// This operator.
    pub node: &'g Node<'a>,
}

impl<'g, 'a> OpCx<'g, 'a> {
    /// An error about this op.
    pub fn err(&self, msg: impl std::fmt::Display) -> Error {
        Error::op(self.node.index, &self.node.name, msg)
    }

    /// Checks the number of inputs (`min..=max`) and outputs.
    pub fn arity(&self, min_in: usize, max_in: usize, outs: usize) -> Result<(), Error> {
        let n = self.node.inputs.len();
        if n < min_in || n > max_in {
            let want = if min_in == max_in { format!("{min_in}") } else { format!("{min_in} to {max_in}") };
            return Err(self.err(format!("expected {want} inputs, found {n}")));
        }
        if self.node.outputs.len() != outs {
            return Err(self.err(format!("expected {outs} outputs, found {}", self.node.outputs.len())));
        }
        Ok(())
    }

    /// Input `i`, which must be present.
    pub fn input(&self, i: usize) -> Result<&'g Tensor<'a>, Error> {
        self.opt_input(i).ok_or_else(|| self.err(format!("input {i} is missing")))
    }

    /// Input `i`, if present.
    pub fn opt_input(&self, i: usize) -> Option<&'g Tensor<'a>> {
        self.node.inputs.get(i).copied().flatten().map(|t| &self.graph.tensors[t])
    }

    /// Output `i`.
    pub fn output(&self, i: usize) -> Result<&'g Tensor<'a>, Error> {
        self.node
            .outputs
            .get(i)
            .map(|&t| &self.graph.tensors[t])
            .ok_or_else(|| self.err(format!("output {i} is missing")))
    }

    /// The builtin options table, checking its union tag.
    pub fn options(&self, tag: u8, table: &str) -> Result<Option<Options<'a>>, Error> {
        match (self.node.options_type, self.node.options) {
            (0, _) | (_, None) => Ok(None),
            (t, Some(o)) if t == tag => Ok(Some(o)),
            (t, _) => Err(self.err(format!("expected {table} (union tag {tag}), found options of tag {t}"))),
        }
    }

    /// Error for an unsupported dtype combination.
    pub fn unsupported(&self, what: &str, supported: &str) -> Error {
        self.err(format!("{what} is not supported; supported: {supported}"))
    }

    /// Requires an activation (non-constant) tensor.
    pub fn activation_tensor(&self, t: &Tensor<'_>, role: &str) -> Result<(), Error> {
        if t.data.is_some() {
            return Err(self.err(format!("{role} '{}' must not be a constant", t.name)));
        }
        Ok(())
    }

    /// Requires a constant tensor.
    pub fn constant<'t>(&self, t: &'t Tensor<'a>, role: &str) -> Result<&'a [u8], Error> {
        t.data.ok_or_else(|| self.err(format!("{role} '{}' must be a constant in the model", t.name)))
    }

    /// Checks that the stored shape of `t` equals `expected`.
    pub fn check_shape(&self, t: &Tensor<'_>, expected: &[usize]) -> Result<(), Error> {
        if t.shape != expected {
            return Err(self
                .err(format!("tensor '{}' has shape {:?}, but the op's inputs give {:?}", t.name, t.shape, expected)));
        }
        Ok(())
    }

    /// Requires rank 4 and returns the dims.
    pub fn nhwc(&self, t: &Tensor<'_>, role: &str) -> Result<[usize; 4], Error> {
        <[usize; 4]>::try_from(t.shape.as_slice())
            .map_err(|_| self.err(format!("{role} '{}' must have rank 4 (NHWC), it has shape {:?}", t.name, t.shape)))
    }

    /// Requires a per-tensor quantized tensor.
    pub fn per_tensor(&self, t: &Tensor<'_>) -> Result<(f32, i32), Error> {
        t.per_tensor_quant().map_err(|m| self.err(m))
    }
}

/// A fused activation function (TFLite `ActivationFunctionType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    /// None.
    None,
    /// max(x, 0)
    Relu,
    /// clamp(x, -1, 1)
    ReluN1To1,
    /// clamp(x, 0, 6)
    Relu6,
}

impl Activation {
    /// Parses the option value.
    pub fn parse(cx: &OpCx<'_, '_>, code: i8) -> Result<Activation, Error> {
        match code {
            0 => Ok(Activation::None),
            1 => Ok(Activation::Relu),
            2 => Ok(Activation::ReluN1To1),
            3 => Ok(Activation::Relu6),
            4 => Err(cx.err("fused TANH activation is not supported")),
            5 => Err(cx.err("fused SIGN_BIT activation is not supported")),
            c => Err(cx.err(format!("unknown fused activation {c}"))),
        }
    }

    /// The float clamp range (TFLite `CalculateActivationRange`).
    pub fn float_range(self) -> (f32, f32) {
        match self {
            Activation::None => (f32::MIN, f32::MAX),
            Activation::Relu => (0.0, f32::MAX),
            Activation::ReluN1To1 => (-1.0, 1.0),
            Activation::Relu6 => (0.0, 6.0),
        }
    }

    /// The quantized clamp range for an output of the given quantization and
    /// type range (TFLite `CalculateActivationRangeQuantized`).
    pub fn quant_range(self, scale: f32, zero_point: i32, qmin: i32, qmax: i32) -> (i32, i32) {
        let q = |x: f32| quantize_f32(x, scale, zero_point);
        match self {
            Activation::None => (qmin, qmax),
            Activation::Relu => (qmin.max(q(0.0)), qmax),
            Activation::Relu6 => (qmin.max(q(0.0)), qmax.min(q(6.0))),
            Activation::ReluN1To1 => (qmin.max(q(-1.0)), qmax.min(q(1.0))),
        }
    }
}

/// Integer range of a quantized activation type.
pub fn qrange(dtype: DType) -> (i32, i32) {
    match dtype {
        DType::I8 => (i8::MIN as i32, i8::MAX as i32),
        DType::U8 => (0, 255),
        DType::I16 => (i16::MIN as i32, i16::MAX as i32),
        _ => (i32::MIN, i32::MAX),
    }
}

/// TFLite padding: SAME or VALID.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Padding {
    /// Output size ceil(in / stride), zero padding split with the extra at the end.
    Same,
    /// No padding.
    Valid,
}

impl Padding {
    /// Parses the option value.
    pub fn parse(cx: &OpCx<'_, '_>, code: i8) -> Result<Padding, Error> {
        match code {
            0 => Ok(Padding::Same),
            1 => Ok(Padding::Valid),
            c => Err(cx.err(format!("unknown padding {c}"))),
        }
    }

    /// Output size along one axis (TFLite `ComputeOutSize`).
    pub fn out_size(self, input: usize, filter: usize, stride: usize, dilation: usize) -> Option<usize> {
        let effective = filter.checked_sub(1)?.checked_mul(dilation)?.checked_add(1)?;
        match self {
            Padding::Same => Some(input.div_ceil(stride)),
            Padding::Valid => input.checked_sub(effective).map(|d| d / stride + 1),
        }
    }

    /// Leading padding along one axis (TFLite `ComputePadding`).
    pub fn leading(input: usize, filter: usize, stride: usize, dilation: usize, output: usize) -> usize {
        let effective = (filter as i64 - 1) * dilation as i64 + 1;
        let total = (output as i64 - 1) * stride as i64 + effective - input as i64;
        (total.max(0) / 2) as usize
    }
}

/// Reads a stride/dilation/filter-size option that must be >= 1.
pub fn positive(
    cx: &OpCx<'_, '_>,
    opts: Option<&Options<'_>>,
    id: u16,
    default: i32,
    what: &str,
) -> Result<usize, Error> {
    let v = match opts {
        Some(o) => o.scalar::<i32>(id, default)?,
        None => default,
    };
    usize::try_from(v)
        .ok()
        .filter(|&v| (1..=1 << 16).contains(&v))
        .ok_or_else(|| cx.err(format!("{what} must be between 1 and 65536, it is {v}")))
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
    if fq.zero_points.iter().any(|&z| z != 0) {
        return Err(cx.err(format!("filter '{}' must be symmetric (zero point 0)", filter.name)));
    }
    let mut mult = Vec::with_capacity(channels);
    let mut shift = Vec::with_capacity(channels);
    for c in 0..channels {
        let fs = if fq.scales.len() == 1 { fq.scales[0] } else { fq.scales[c] };
        let eff = in_scale as f64 * fs as f64 / out_scale as f64;
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
            Ok(Arith::Int8(Requant::new(cx, input, filter, output, channels, activation)?))
        }
        (DType::I16, DType::I8, DType::I16) => {
            Ok(Arith::Int16(Wide::new(cx, input, filter, bias, output, channels, activation)?))
        }
        (DType::F32, DType::F32, DType::F32) => {
            check_bias(cx, bias, DType::F32, channels)?;
            let (lo, hi) = activation.float_range();
            Ok(Arith::Float(lo, hi))
        }
        (i, f, o) => Err(cx.unsupported(
            &format!("input {}, filter {}, output {}", i.name(), f.name(), o.name()),
            "int8/int8/int8 (int32 bias), int16/int8/int16 (int64 or int32 bias), float32/float32/float32",
        )),
    }
}

/// Largest layer (int8 weight bytes) whose rows the compiler widens at
/// compile time (`layout::pack_rows_wide`): twice the flash, about a third
/// fewer instructions in the dot products on DSP cores. Small layers are
/// the ones whose per-pixel work is least amortized.
pub const WIDE_ROWS_MAX_BYTES: usize = 1024;

/// int8 weight rows packed for the kernels' blocked dot products
/// (`kernels::PackedRows`): bytes (`layout::pack_rows`), and for small
/// layers also widened words (`layout::pack_rows_wide`), which the
/// generated code uses where they are faster: cores with the DSP
/// extension and x86-64 (the other array is never referenced, so the
/// linker drops it).
#[derive(Clone, Debug)]
pub struct PackedRows {
    /// `layout::pack_rows`.
    pub bytes: Vec<u8>,
    /// `layout::pack_rows_wide` as little-endian words, for small layers.
    pub wide: Option<Vec<u8>>,
}

impl PackedRows {
    /// `channels` rows of `depth` values (`rows[c * depth + k]`).
    pub fn new(rows: &[i8], channels: usize, depth: usize) -> PackedRows {
        use crate::layout::{pack_rows, pack_rows_wide, packed_len, packed_wide_len};
        let mut packed = vec![0i8; packed_len(channels, depth)];
        pack_rows(rows, channels, depth, &mut packed);
        let wide = (packed.len() <= WIDE_ROWS_MAX_BYTES).then(|| {
            let mut words = vec![0u32; packed_wide_len(channels, depth)];
            pack_rows_wide(rows, channels, depth, &mut words);
            words.iter().flat_map(|w| w.to_le_bytes()).collect()
        });
        PackedRows { bytes: packed.iter().map(|&b| b as u8).collect(), wide }
    }

    /// The flash constant(s) as the slice the kernels take.
    pub fn emit(&self, cx: &mut Emit<'_>) -> TokenStream {
        match &self.wide {
            None => {
                let bytes = cx.bytes(&self.bytes);
                quote::quote!(#bytes.cast::<i8>())
            }
            Some(wide) => {
                // WEIGHT_BYTES counts the larger, widened layout.
                let wide = cx.bytes(wide);
                let bytes = cx.alternative_bytes(&self.bytes);
                quote::quote!({
                    #[cfg(any(target_feature = "dsp", target_arch = "x86_64"))]
                    let rows = #wide.cast::<u32>();
                    #[cfg(not(any(target_feature = "dsp", target_arch = "x86_64")))]
                    let rows = #bytes.cast::<i8>();
                    rows
                })
            }
        }
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
        Ok(Requant { input_offset: -in_zp, output_offset: out_zp, multiplier, shift, act_min, act_max })
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
        self.multiplier.iter().zip(&self.shift).map(|(&m, &s)| down_scale_of(m, s, self.output_offset)).collect()
    }

    /// Whether the kernels fuse this requantization into their sums (the
    /// runtime's `dot::fused_scales`): every multiplier in the short form
    /// and an activation range that is the whole int8 range. A constant of
    /// the kernel, so only the path it takes is compiled.
    pub fn fused(&self) -> bool {
        tinyaot_common::requant::fuses(self.act_min, self.act_max, self.down_scales().is_some())
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
    Int16(Wide),
    /// float32 with its activation clamp.
    Float(f32, f32),
}

impl<Q> Arith<Q> {
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
pub struct Wide {
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

impl Wide {
    /// Checks a 16x8 op and computes its constants.
    pub fn new(
        cx: &OpCx<'_, '_>,
        input: &Tensor<'_>,
        filter: &Tensor<'_>,
        bias: Option<&Tensor<'_>>,
        output: &Tensor<'_>,
        channels: usize,
        activation: Activation,
    ) -> Result<Wide, Error> {
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
        Ok(Wide { multiplier, shift, act_min, act_max, acc64 })
    }

    /// `(accumulator type, &Requant16 { .. })` tokens.
    pub fn emit(&self, cx: &mut Emit<'_>) -> (TokenStream, TokenStream) {
        let m = cx.i32s(&self.multiplier);
        let s = cx.i32s(&self.shift);
        let (lo, hi) = (self.act_min, self.act_max);
        let acc = if self.acc64 { quote::quote!(i64) } else { quote::quote!(i32) };
        (
            acc,
            quote::quote!(&::tinyaot::__private::kernels::int16::Requant16 { multiplier: #m, shift: #s, act_min: #lo, act_max: #hi }),
        )
    }
}

/// An op that may write its output over its (dying) input: the output may
/// start at most `slack` bytes after the input's start (negative: before),
/// and overlap it from there on. Computed per kernel from the order in
/// which it reads and writes (see `window_slack`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InPlace {
    /// The input tensor whose bytes may be overwritten.
    pub input: usize,
    /// The output tensor.
    pub output: usize,
    /// Largest allowed `output offset - input offset`, in bytes.
    pub slack: i64,
}

/// Most output pixels simulated for a slack; larger ops are not run in place.
const MAX_SIMULATED_PIXELS: usize = 1 << 20;

/// The in-place slack of a window kernel (conv, depthwise, pool) that
/// visits output pixels in NHWC order and, for each pixel, reads its whole
/// (clipped) input window, for every channel, before moving on: when pixel
/// `k` is written (bytes up to `(k + 1) * OC * out_elem`), every input byte
/// from the first one pixel `k` or any later pixel reads must be intact.
pub fn window_slack(geo: &conv_2d::Geometry, in_elem: usize, out_elem: usize) -> Option<i64> {
    let [n, ih, iw, ic] = geo.input;
    let [_, oh, ow, oc] = geo.output;
    let pixels = n.checked_mul(oh)?.checked_mul(ow)?;
    if pixels > MAX_SIMULATED_PIXELS {
        return None;
    }
    let first_tap = |origin: i64, dilation: usize, size: usize, k: usize| -> Option<usize> {
        (0..k).map(|t| origin + (t * dilation) as i64).find(|&p| p >= 0 && (p as usize) < size).map(|p| p as usize)
    };
    let mut reads = Vec::with_capacity(pixels);
    for b in 0..n {
        for oy in 0..oh {
            let y0 = (oy * geo.stride[0]) as i64 - geo.pad[0] as i64;
            for ox in 0..ow {
                let x0 = (ox * geo.stride[1]) as i64 - geo.pad[1] as i64;
                let first = match (
                    first_tap(y0, geo.dilation[0], ih, geo.kernel[0]),
                    first_tap(x0, geo.dilation[1], iw, geo.kernel[1]),
                ) {
                    (Some(y), Some(x)) => ((b * ih + y) * iw + x) * ic * in_elem,
                    // An empty window reads nothing: no constraint from it.
                    _ => usize::MAX,
                };
                reads.push(first);
            }
        }
    }
    let mut slack = i64::MAX;
    let mut suffix_min = usize::MAX;
    for k in (0..pixels).rev() {
        suffix_min = suffix_min.min(reads[k]);
        if suffix_min != usize::MAX {
            let written = ((k + 1) * oc * out_elem) as i64;
            slack = slack.min(suffix_min as i64 - written);
        }
    }
    Some(if slack == i64::MAX { 0 } else { slack })
}

#[cfg(test)]
mod tests {
    use super::SUPPORTED;
    use crate::tflite::names::builtin_name;

    #[test]
    fn registry_codes_match_the_schema() {
        for s in SUPPORTED {
            assert_eq!(builtin_name(s.code), Some(s.name), "code {}", s.code);
        }
        let mut codes: Vec<i32> = SUPPORTED.iter().map(|s| s.code).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), SUPPORTED.len(), "an op is registered twice");
    }
}
