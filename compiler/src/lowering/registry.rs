//! The operator registry: which builtin codes tinyaot compiles, in which
//! dtypes, and the lowering function of each (the table in docs/operators.md and
//! `tinyaot ops` are generated from it).

use super::context::OpCx;
use super::operator::Operator;
use crate::diag::Error;
use crate::graph::{Graph, Node};
use crate::ops::*;

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
    OpSupport { code: 0, name: "ADD", dtypes: &["int8", "int16", "int32", "float32"], lower: binary::lower_add },
    OpSupport { code: 41, name: "SUB", dtypes: &["int8", "int16", "int32", "float32"], lower: binary::lower_sub },
    OpSupport { code: 18, name: "MUL", dtypes: &["int8", "int16", "int32", "float32"], lower: binary::lower_mul },
    OpSupport {
        code: 55,
        name: "MAXIMUM",
        dtypes: &["int8", "int16", "int32", "int64", "float32"],
        lower: binary::lower_maximum,
    },
    OpSupport {
        code: 57,
        name: "MINIMUM",
        dtypes: &["int8", "int16", "int32", "int64", "float32"],
        lower: binary::lower_minimum,
    },
    OpSupport { code: 42, name: "DIV", dtypes: &["int8", "int32", "float32"], lower: binary::lower_div },
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
    OpSupport { code: 3, name: "CONV_2D", dtypes: &["int8", "int16x8", "float32", HYBRID], lower: conv_2d::lower },
    OpSupport {
        code: 4,
        name: "DEPTHWISE_CONV_2D",
        dtypes: &["int8", "int16x8", "float32", HYBRID],
        lower: depthwise_conv_2d::lower,
    },
    OpSupport {
        code: 9,
        name: "FULLY_CONNECTED",
        dtypes: &["int8", "int16x8", "float32", HYBRID],
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
    OpSupport {
        code: 6,
        name: "DEQUANTIZE",
        dtypes: &["int8", "uint8", "int16 -> float32", "float16 constants (folded)"],
        lower: dequantize::lower,
    },
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
    OpSupport {
        code: 38,
        name: "SPACE_TO_BATCH_ND",
        dtypes: &["int8", "float32"],
        lower: space_batch::lower_space_to_batch,
    },
    OpSupport {
        code: 37,
        name: "BATCH_TO_SPACE_ND",
        dtypes: &["int8", "float32"],
        lower: space_batch::lower_batch_to_space,
    },
    OpSupport { code: 130, name: "BROADCAST_TO", dtypes: ANY, lower: fill::lower_broadcast_to },
    OpSupport { code: 69, name: "TILE", dtypes: ANY, lower: tile::lower },
    OpSupport { code: 150, name: "GELU", dtypes: &["int8", "float32"], lower: gelu::lower },
    OpSupport { code: 94, name: "FILL", dtypes: &["int8", "int32", "float32"], lower: fill::lower_fill },
    OpSupport {
        code: 93,
        name: "ZEROS_LIKE",
        dtypes: &["int8", "int32", "int64", "float32"],
        lower: fill::lower_zeros_like,
    },
    OpSupport { code: 100, name: "MIRROR_PAD", dtypes: &["int8", "float32"], lower: mirror_pad::lower },
    OpSupport {
        code: 105,
        name: "REVERSE_V2",
        dtypes: &["int8", "uint8", "int16", "int32", "float32"],
        lower: reverse_v2::lower,
    },
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
        dtypes: &["int8", "uint8", "int16", "int32", "int64", "float32 (any pair)", "bool -> any but bool"],
        lower: cast::lower,
    },
    OpSupport { code: 101, name: "ABS", dtypes: &["int8", "int16", "float32"], lower: math::lower_abs },
    OpSupport { code: 59, name: "NEG", dtypes: &["float32"], lower: math::lower_neg },
    OpSupport { code: 158, name: "SIGN", dtypes: &["int32", "float32"], lower: math::lower_sign },
    OpSupport { code: 75, name: "SQRT", dtypes: &["float32"], lower: math::lower_sqrt },
    OpSupport { code: 76, name: "RSQRT", dtypes: &["int8", "int16", "float32"], lower: math::lower_rsqrt },
    OpSupport { code: 47, name: "EXP", dtypes: &["float32"], lower: math::lower_exp },
    OpSupport { code: 73, name: "LOG", dtypes: &["float32"], lower: math::lower_log },
    OpSupport {
        code: 27,
        name: "SVDF",
        dtypes: &["int8 (int8 or int16 state)", "float32", HYBRID],
        lower: svdf::lower,
    },
    OpSupport {
        code: 44,
        name: "UNIDIRECTIONAL_SEQUENCE_LSTM",
        dtypes: &["int8 (int16 cell)", "int16x8 (int16 cell)", "float32", HYBRID],
        lower: lstm::lower,
    },
    OpSupport { code: 66, name: "SIN", dtypes: &["float32"], lower: math::lower_sin },
    OpSupport { code: 108, name: "COS", dtypes: &["float32"], lower: math::lower_cos },
    OpSupport { code: 92, name: "SQUARE", dtypes: &["float32"], lower: math::lower_square },
    OpSupport { code: 8, name: "FLOOR", dtypes: &["float32"], lower: math::lower_floor },
    OpSupport { code: 104, name: "CEIL", dtypes: &["float32"], lower: math::lower_ceil },
    OpSupport { code: 116, name: "ROUND", dtypes: &["float32"], lower: math::lower_round },
    OpSupport { code: 71, name: "EQUAL", dtypes: COMPARE_EQUAL, lower: comparison::lower_equal },
    OpSupport { code: 72, name: "NOT_EQUAL", dtypes: COMPARE_EQUAL, lower: comparison::lower_not_equal },
    OpSupport { code: 61, name: "GREATER", dtypes: COMPARE, lower: comparison::lower_greater },
    OpSupport { code: 62, name: "GREATER_EQUAL", dtypes: COMPARE, lower: comparison::lower_greater_equal },
    OpSupport { code: 58, name: "LESS", dtypes: COMPARE, lower: comparison::lower_less },
    OpSupport { code: 63, name: "LESS_EQUAL", dtypes: COMPARE, lower: comparison::lower_less_equal },
    OpSupport { code: 86, name: "LOGICAL_AND", dtypes: &["bool"], lower: logical::lower_and },
    OpSupport { code: 84, name: "LOGICAL_OR", dtypes: &["bool"], lower: logical::lower_or },
    OpSupport { code: 87, name: "LOGICAL_NOT", dtypes: &["bool"], lower: logical::lower_not },
    OpSupport { code: 123, name: "SELECT_V2", dtypes: SELECT, lower: select::lower },
    OpSupport { code: 64, name: "SELECT", dtypes: SELECT, lower: select::lower_v1 },
    OpSupport { code: 140, name: "REDUCE_ALL", dtypes: &["bool"], lower: mean::lower_all },
    OpSupport { code: 81, name: "REDUCE_PROD", dtypes: &["int32", "int64", "float32"], lower: mean::lower_prod },
    OpSupport { code: 12, name: "L2_POOL_2D", dtypes: &["float32"], lower: pool_2d::lower_l2 },
    OpSupport {
        code: 126,
        name: "BATCH_MATMUL",
        dtypes: &["int8", "int16", "float32", HYBRID],
        lower: batch_matmul::lower,
    },
    OpSupport { code: 151, name: "DYNAMIC_UPDATE_SLICE", dtypes: ANY, lower: dynamic_update_slice::lower },
    OpSupport {
        code: 7,
        name: "EMBEDDING_LOOKUP",
        dtypes: &["int8", "float32", "int8 -> float32"],
        lower: embedding_lookup::lower,
    },
    OpSupport { code: 106, name: "ADD_N", dtypes: &["int8", "float32"], lower: add_n::lower },
    OpSupport { code: 128, name: "CUMSUM", dtypes: &["int8", "float32"], lower: cumsum::lower },
    OpSupport { code: 11, name: "L2_NORMALIZATION", dtypes: &["int8", "float32"], lower: l2_normalization::lower },
    OpSupport { code: 50, name: "LOG_SOFTMAX", dtypes: &["int8", "float32"], lower: log_softmax::lower },
    OpSupport { code: 145, name: "BROADCAST_ARGS", dtypes: &["int32", "int64"], lower: broadcast_args::lower },
    OpSupport { code: 107, name: "GATHER_ND", dtypes: ANY, lower: gather_nd::lower },
    OpSupport { code: 129, name: "CALL_ONCE", dtypes: &["-"], lower: call_once::lower },
    OpSupport { code: 118, name: "IF", dtypes: &["bool condition, any operands"], lower: control_flow::lower_if },
    OpSupport { code: 119, name: "WHILE", dtypes: &["any"], lower: control_flow::lower_while },
    OpSupport { code: 142, name: "VAR_HANDLE", dtypes: &["resource"], lower: resource_variable::lower_var_handle },
    OpSupport { code: 143, name: "READ_VARIABLE", dtypes: &["any"], lower: resource_variable::lower_read },
    OpSupport { code: 144, name: "ASSIGN_VARIABLE", dtypes: &["any"], lower: resource_variable::lower_assign },
    OpSupport { code: 77, name: "SHAPE", dtypes: &["any -> int32"], lower: shape::lower },
    OpSupport { code: 90, name: "FLOOR_DIV", dtypes: &["int32", "float32"], lower: binary::lower_floor_div },
    OpSupport { code: 95, name: "FLOOR_MOD", dtypes: &["int32", "float32"], lower: binary::lower_floor_mod },
    OpSupport { code: 78, name: "POW", dtypes: &["int32", "float32"], lower: binary::lower_pow },
    OpSupport { code: CUSTOM, name: "CUSTOM:SignalWindow", dtypes: &["int16"], lower: signal_window::lower },
    OpSupport {
        code: CUSTOM,
        name: "CUSTOM:SignalFftAutoScale",
        dtypes: &["int16 -> int16, int32"],
        lower: signal_fft_auto_scale::lower,
    },
    OpSupport {
        code: CUSTOM,
        name: "CUSTOM:SignalRfft",
        dtypes: &["int16", "int32", "float32"],
        lower: signal_rfft::lower,
    },
    OpSupport {
        code: CUSTOM,
        name: "CUSTOM:SignalIrfft",
        dtypes: &["int16", "int32", "float32"],
        lower: signal_irfft::lower,
    },
    OpSupport { code: CUSTOM, name: "CUSTOM:SignalEnergy", dtypes: &["int16 -> uint32"], lower: signal_energy::lower },
    OpSupport {
        code: CUSTOM,
        name: "CUSTOM:SignalFilterBankSquareRoot",
        dtypes: &["uint64, int32 -> uint32"],
        lower: signal_filter_bank_square_root::lower,
    },
    OpSupport {
        code: CUSTOM,
        name: "CUSTOM:SignalFilterBank",
        dtypes: &["uint32 (int16 config) -> uint64"],
        lower: signal_filter_bank::lower,
    },
    OpSupport {
        code: CUSTOM,
        name: "CUSTOM:SignalFilterBankSpectralSubtraction",
        dtypes: &["uint32 (state kept)"],
        lower: signal_filter_bank_spectral_subtraction::lower,
    },
    OpSupport {
        code: CUSTOM,
        name: "CUSTOM:SignalPCAN",
        dtypes: &["uint32 (int16 gains) -> uint32"],
        lower: signal_pcan::lower,
    },
    OpSupport {
        code: CUSTOM,
        name: "CUSTOM:TFLite_Detection_PostProcess",
        dtypes: &["float32"],
        lower: detection_postprocess::lower,
    },
    OpSupport {
        code: CUSTOM,
        name: decode::NAME,
        dtypes: &[
            "look-up-table compressed constants: bool, int8, int16, int32, int64, float32 (decoded at compile time)",
        ],
        lower: decode::lower,
    },
    OpSupport {
        code: CUSTOM,
        name: circular_buffer::NAME,
        dtypes: &["int8 (state kept; invoke() says when it stops)"],
        lower: circular_buffer::lower,
    },
    OpSupport { code: CUSTOM, name: "CUSTOM:SignalDelay", dtypes: &["int16 (state kept)"], lower: signal_delay::lower },
    OpSupport {
        code: CUSTOM,
        name: "CUSTOM:SignalFramer",
        dtypes: &["int16 -> int16, bool (state kept)"],
        lower: signal_framer::lower,
    },
    OpSupport {
        code: CUSTOM,
        name: "CUSTOM:SignalStacker",
        dtypes: &["int16 -> int16, bool (state kept)"],
        lower: signal_stacker::lower,
    },
    OpSupport {
        code: CUSTOM,
        name: "CUSTOM:SignalOverlapAdd",
        dtypes: &["int16, float32 (state kept)"],
        lower: signal_overlap_add::lower,
    },
    OpSupport {
        code: CUSTOM,
        name: "CUSTOM:SignalFilterBankLog",
        dtypes: &["uint32 -> int16"],
        lower: signal_filter_bank_log::lower,
    },
];

/// The builtin code of custom operators.
const CUSTOM: i32 = 32;

/// Comparisons: operand dtypes, the result bool.
const COMPARE: &[&str] = &["int8", "int32", "int64", "float32 -> bool"];
/// EQUAL and NOT_EQUAL also compare bools.
const COMPARE_EQUAL: &[&str] = &["int8", "int32", "int64", "float32", "bool -> bool"];

/// The operators' passes over the read graph, in order: resource variables
/// resolved to state tensors (before anything looks at variables), float16
/// and compressed constants folded, the converter's TensorList writes in
/// loops made box writes, uint8 sets run as int8, CIRCULAR_BUFFER's
/// state kept. The
/// graph stage runs them without naming an operator.
pub const GRAPH_PASSES: &[crate::graph::Pass] = &[
    crate::resources::resolve,
    crate::ops::dequantize::fold_float16_constants,
    crate::ops::decode::fold_constants,
    super::list_writes::rewrite,
    super::uint8::run_as_int8,
    crate::ops::circular_buffer::keep_state,
];

/// Reads a model's graph with every operator's graph pass (see
/// [`Graph::read_with`]).
pub fn read_graph<'a>(model: &crate::tflite::Model<'a>, fold_constant_operands: bool) -> Result<Graph<'a>, Error> {
    Graph::read_with(model, fold_constant_operands, GRAPH_PASSES)
}

/// What TFLM refuses and LiteRT runs, matched against LiteRT's reference
/// kernels (`ai-edge-litert`, `BUILTIN_REF`) in the differential suite:
/// (op, its dtypes entries of that kind). A test keeps each entry one of
/// the op's [`OpSupport::dtypes`].
pub const LITERT_ONLY: &[(&str, &[&str])] = &[
    ("BATCH_MATMUL", &[HYBRID]),
    ("CONV_2D", &[HYBRID]),
    ("DEPTHWISE_CONV_2D", &[HYBRID]),
    ("FLOOR_DIV", &["int32"]),
    ("FLOOR_MOD", &["int32"]),
    ("FULLY_CONNECTED", &[HYBRID]),
    ("GELU", &["int8", "float32"]),
    ("POW", &["int32", "float32"]),
    ("REDUCE_PROD", &["int32", "int64", "float32"]),
    ("SIGN", &["int32", "float32"]),
    ("SELECT", SELECT),
    ("SELECT_V2", SELECT_LITERT),
    ("SVDF", &[HYBRID]),
    ("TILE", ANY),
    ("UNIDIRECTIONAL_SEQUENCE_LSTM", &[HYBRID]),
];

/// SELECT's and SELECT_V2's x, y and output (the condition is bool).
const SELECT: &[&str] = &["int8", "int16", "float32", "int32", "int64", "uint8", "bool (bool condition)"];
/// Of those, what only LiteRT runs.
const SELECT_LITERT: &[&str] = &["int32", "int64", "uint8", "bool (bool condition)"];

/// A dynamic-range layer's dtypes entry.
const HYBRID: &str = "hybrid (float32, int8 weights)";

/// The supported operator names, sorted, for error messages.
pub fn supported_list() -> String {
    let mut names: Vec<&str> = SUPPORTED.iter().map(|s| s.name).collect();
    names.sort_unstable();
    names.join(", ")
}

/// The op x dtype table of docs/operators.md, generated from the registry (a test
/// keeps that copy equal to this).
pub fn support_table() -> String {
    let mut rows: Vec<&OpSupport> = SUPPORTED.iter().collect();
    rows.sort_by_key(|s| s.name);
    let mut t = String::from("| op | dtypes | of which LiteRT only |\n|---|---|---|\n");
    for s in rows {
        let mut dtypes: Vec<&str> = s.dtypes.to_vec();
        let mut litert: Vec<&str> =
            LITERT_ONLY.iter().find(|(name, _)| *name == s.name).map_or(&[][..], |o| o.1).to_vec();
        // A uint8 model's computing ops run as int8 (`lowering::uint8`).
        if let Some(words) = super::uint8::litert_dtypes(s.name) {
            if !dtypes.iter().any(|d| d.split(", ").any(|w| w == words)) {
                dtypes.push(words);
            }
            litert.push(words);
        }
        t.push_str(&format!("| {} | {} | {} |\n", s.name, dtypes.join(", "), litert.join(", ")));
    }
    t
}

/// Checks node `index` of the graph and returns its operator.
pub fn lower(graph: &Graph<'_>, node: &Node<'_>) -> Result<Box<dyn Operator>, Error> {
    let cx = OpCx { graph, node };
    // The copies the graph reader adds around an inlined subgraph.
    if node.code < 0 {
        return control_flow::lower_copies(&cx);
    }
    // Custom operators (code 32) are told apart by name (`CUSTOM:SignalWindow`).
    match SUPPORTED.iter().find(|s| s.code == node.code && (node.code != CUSTOM || s.name == node.name)) {
        Some(s) => (s.lower)(&cx),
        None => Err(cx.err(format!("operator not supported; supported operators: {}", supported_list()))),
    }
}

#[cfg(test)]
mod tests {
    use super::SUPPORTED;
    use crate::tflite::names::builtin_name;

    #[test]
    fn registry_codes_match_the_schema() {
        for s in SUPPORTED.iter().filter(|s| s.code != super::CUSTOM) {
            assert_eq!(builtin_name(s.code), Some(s.name), "code {}", s.code);
        }
        let mut codes: Vec<(i32, &str)> = SUPPORTED.iter().map(|s| (s.code, s.name)).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), SUPPORTED.len(), "an op is registered twice");
    }

    #[test]
    fn litert_only_entries_are_supported_dtypes() {
        for (name, dtypes) in super::LITERT_ONLY {
            let op = SUPPORTED.iter().find(|s| s.name == *name).unwrap_or_else(|| panic!("{name} is not registered"));
            for d in *dtypes {
                assert!(op.dtypes.contains(d), "{name}: {d} is not among its dtypes {:?}", op.dtypes);
            }
        }
    }
}
