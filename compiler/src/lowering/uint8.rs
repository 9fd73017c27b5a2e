//! Legacy uint8 models (TF1-era asymmetric quantization: image classifiers
//! and detectors still published in model zoos) run on the int8 kernels.
//!
//! TFLM refuses uint8 arithmetic; LiteRT's reference kernels run it. For
//! most ops LiteRT's uint8 arithmetic only ever sees `q - zero_point`, so
//! the same op on `q - 128` with the zero point `zp - 128` (an int8
//! tensor) gives LiteRT's answer minus 128, bit for bit: the int8 kernel
//! computes it. This pass rewrites each connected set of uint8 tensors
//! whose every op is one of `OPS` that way (constants shifted at compile
//! time) and marks their ops ([`crate::graph::Node::from_uint8`]): the few
//! whose uint8 arithmetic does see the raw values (AVERAGE_POOL_2D's
//! rounding, CONCATENATION's rescaling) and the conv-like ops (whose uint8
//! filters have a zero point, which int8 filters do not) read the mark.
//! A uint8 graph input or output stays uint8 to the caller: a QUANTIZE
//! that flips the top bit (in place where the plan allows) joins it to the
//! int8 tensor. A set that touches any other op stays uint8 (and that op
//! says whether it takes uint8).

use crate::diag::Error;
use crate::graph::{DType, Graph, Node, Tensor};

/// How an op takes part in a uint8 set.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Computes on quantized values: the reason to run the set as int8.
    Computes,
    /// Moves or selects values (or converts them to float, or finds the
    /// largest): right on uint8 and on the shifted int8 alike.
    Moves,
}

/// The ops whose uint8 form LiteRT runs and whose int8 form on shifted
/// tensors gives the same bits (each in the differential suite's `UINT8_OPS`
/// generator against LiteRT's reference kernels), with the words of the op
/// table's LiteRT column.
const OPS: &[(&str, Role, &str)] = &[
    ("ADD", Role::Computes, "uint8"),
    ("SUB", Role::Computes, "uint8"),
    ("MUL", Role::Computes, "uint8"),
    ("MAXIMUM", Role::Computes, "uint8"),
    ("MINIMUM", Role::Computes, "uint8"),
    ("CONV_2D", Role::Computes, "uint8"),
    ("DEPTHWISE_CONV_2D", Role::Computes, "uint8"),
    ("FULLY_CONNECTED", Role::Computes, "uint8"),
    ("AVERAGE_POOL_2D", Role::Computes, "uint8"),
    ("MAX_POOL_2D", Role::Computes, "uint8"),
    ("SOFTMAX", Role::Computes, "uint8"),
    ("LOGISTIC", Role::Computes, "uint8"),
    ("TANH", Role::Computes, "uint8"),
    ("RELU", Role::Computes, "uint8"),
    ("RELU6", Role::Computes, "uint8"),
    ("RELU_N1_TO_1", Role::Computes, "uint8"),
    ("LEAKY_RELU", Role::Computes, "uint8"),
    ("HARD_SWISH", Role::Computes, "uint8"),
    ("L2_NORMALIZATION", Role::Computes, "uint8"),
    ("MEAN", Role::Computes, "uint8"),
    ("REDUCE_MAX", Role::Computes, "uint8"),
    ("REDUCE_MIN", Role::Computes, "uint8"),
    ("RESIZE_BILINEAR", Role::Computes, "uint8"),
    ("MIRROR_PAD", Role::Computes, "uint8"),
    ("SPACE_TO_BATCH_ND", Role::Computes, "uint8"),
    ("BATCH_TO_SPACE_ND", Role::Computes, "uint8"),
    ("QUANTIZE", Role::Computes, "float32 -> uint8, uint8 -> uint8"),
    ("CUSTOM:TFLite_Detection_PostProcess", Role::Computes, "uint8 inputs"),
    ("CONCATENATION", Role::Moves, "uint8 inputs quantized apart (rescaled)"),
    ("DEQUANTIZE", Role::Moves, "uint8"),
    ("PAD", Role::Moves, "uint8"),
    ("PADV2", Role::Moves, "uint8"),
    ("ARG_MAX", Role::Moves, "uint8"),
    ("ARG_MIN", Role::Moves, "uint8"),
    ("RESHAPE", Role::Moves, "uint8"),
    ("SQUEEZE", Role::Moves, "uint8"),
    ("EXPAND_DIMS", Role::Moves, "uint8"),
    ("TRANSPOSE", Role::Moves, "uint8"),
    ("SLICE", Role::Moves, "uint8"),
    ("STRIDED_SLICE", Role::Moves, "uint8"),
    ("SPLIT", Role::Moves, "uint8"),
    ("SPLIT_V", Role::Moves, "uint8"),
    ("PACK", Role::Moves, "uint8"),
    ("UNPACK", Role::Moves, "uint8"),
    ("GATHER", Role::Moves, "uint8"),
    ("GATHER_ND", Role::Moves, "uint8"),
    ("RESIZE_NEAREST_NEIGHBOR", Role::Moves, "uint8"),
    ("SPACE_TO_DEPTH", Role::Moves, "uint8"),
    ("DEPTH_TO_SPACE", Role::Moves, "uint8"),
    ("SELECT", Role::Moves, "uint8"),
    ("SELECT_V2", Role::Moves, "uint8"),
];

/// The builtin code of QUANTIZE (the flips at the graph's edges).
const QUANTIZE: i32 = 114;

/// What the op table says of a computing op's uint8 form (LiteRT only:
/// TFLM refuses uint8 arithmetic), `None` for the others.
pub fn litert_dtypes(name: &str) -> Option<&'static str> {
    OPS.iter().find(|&&(n, role, _)| n == name && (role == Role::Computes || n == "CONCATENATION")).map(|o| o.2)
}

/// The op's role, `None` when its uint8 tensors must stay uint8: not in
/// [`OPS`], in a called subgraph, or a float32 layer with uint8 weights
/// (the hybrid ops read those bytes as int8, unshifted).
fn role(graph: &Graph<'_>, node: &Node<'_>) -> Option<Role> {
    if !node.scopes.is_empty() || node.code < 0 {
        return None;
    }
    let role = OPS.iter().find(|(n, ..)| *n == node.name).map(|&(_, r, _)| r)?;
    // CONCATENATION computes where its inputs are quantized apart from the
    // output (LiteRT rescales them).
    let params = |t: usize| graph.tensors[t].quant.as_ref().map(|q| (q.scales.clone(), q.zero_points.clone()));
    let rescales = node.name == "CONCATENATION"
        && node.outputs.first().is_some_and(|&o| node.inputs.iter().flatten().any(|&i| params(i) != params(o)));
    let role = if rescales { Role::Computes } else { role };
    // Ops between uint8 and other types convert; any other op with a
    // float32 or int8 tensor mixes them (a hybrid layer, int8 weights: which
    // LiteRT reads otherwise or not at all).
    (node.name == "QUANTIZE"
        || node.name == "DEQUANTIZE"
        || node.name == "CUSTOM:TFLite_Detection_PostProcess"
        || mixed(graph, node).is_none())
    .then_some(role)
}

/// The node's first float32 or int8 tensor.
fn mixed<'g>(graph: &'g Graph<'_>, node: &Node<'_>) -> Option<&'g Tensor<'g>> {
    let mut tensors = node.inputs.iter().flatten().chain(&node.outputs).map(|&t| &graph.tensors[t]);
    tensors.find(|t| matches!(t.dtype, DType::F32 | DType::I8))
}

/// A uint8 tensor the pass may shift: quantized, one zero point per scale
/// (each in range), not state.
fn shiftable(t: &Tensor<'_>) -> bool {
    t.dtype == DType::U8
        && !t.is_variable
        && t.quant.as_ref().is_some_and(|q| {
            !q.scales.is_empty()
                && q.zero_points.len() == q.scales.len()
                && q.zero_points.iter().all(|z| (0..=255).contains(z))
        })
}

/// The node's first uint8 tensor.
fn uint8_tensor(graph: &Graph<'_>, node: &Node<'_>) -> Option<usize> {
    node.inputs.iter().flatten().chain(&node.outputs).copied().find(|&t| graph.tensors[t].dtype == DType::U8)
}

fn find(parent: &mut [usize], mut t: usize) -> usize {
    while parent[t] != t {
        parent[t] = parent[parent[t]];
        t = parent[t];
    }
    t
}

/// The pass (registered in `registry::GRAPH_PASSES`).
pub fn run_as_int8(graph: &mut Graph<'_>) -> Result<(), Error> {
    let count = graph.tensors.len();
    if !graph.tensors.iter().any(|t| t.dtype == DType::U8) {
        return Ok(());
    }
    let mut parent: Vec<usize> = (0..count).collect();
    // Per set (at its root, after the unions): an op outside OPS or an
    // unshiftable tensor keeps it uint8; a computing op makes it worth it.
    let mut kept = vec![false; count];
    let mut computes = vec![false; count];
    let mut marks = Vec::new();
    // Per set, the first reason it stays uint8.
    let mut why: Vec<Option<String>> = vec![None; count];
    for node in &graph.nodes {
        let Some(first) = uint8_tensor(graph, node) else { continue };
        let tensors: Vec<usize> = node
            .inputs
            .iter()
            .flatten()
            .chain(&node.outputs)
            .copied()
            .filter(|&t| graph.tensors[t].dtype == DType::U8)
            .collect();
        let role = role(graph, node);
        for &t in &tensors {
            let (a, b) = (find(&mut parent, first), find(&mut parent, t));
            parent[b] = a;
        }
        let reason = match role {
            None if !node.scopes.is_empty() => Some(format!("{} runs in a called subgraph", node.label())),
            None => Some(match mixed(graph, node) {
                Some(t) if OPS.iter().any(|(n, ..)| *n == node.name) => {
                    format!("{} mixes them with {} '{}'", node.label(), t.dtype.name(), t.name)
                }
                _ => format!("{} does not take uint8", node.label()),
            }),
            Some(_) => None,
        };
        marks.push((first, role, reason));
    }
    for (t, role, reason) in &marks {
        let root = find(&mut parent, *t);
        match role {
            None => kept[root] = true,
            Some(Role::Computes) => computes[root] = true,
            Some(Role::Moves) => {}
        }
        if why[root].is_none() {
            why[root] = reason.clone();
        }
    }
    for t in 0..count {
        let tensor = &graph.tensors[t];
        if tensor.dtype == DType::U8 && !shiftable(tensor) {
            let root = find(&mut parent, t);
            kept[root] = true;
            why[root].get_or_insert_with(|| format!("tensor '{}' is not quantized per tensor", tensor.name));
        }
    }
    // The computing ops of the sets kept: their errors say why.
    let touching = graph.nodes.iter().filter(|n| uint8_tensor(graph, n).is_some());
    let mut notes = Vec::new();
    for (node, (t, role, _)) in touching.zip(&marks) {
        let root = find(&mut parent, *t);
        if *role == Some(Role::Computes) && kept[root] {
            notes.push(((node.subgraph, node.index), why[root].clone().unwrap_or_default()));
        }
    }
    graph.uint8_kept = notes;
    let shifted: Vec<bool> = (0..count)
        .map(|t| {
            let root = find(&mut parent, t);
            graph.tensors[t].dtype == DType::U8 && computes[root] && !kept[root]
        })
        .collect();
    if !shifted.iter().any(|&s| s) {
        return Ok(());
    }
    for node in &mut graph.nodes {
        node.from_uint8 = node.inputs.iter().flatten().chain(&node.outputs).any(|&t| shifted[t]);
    }
    let edges: Vec<(usize, bool)> = (graph.inputs.iter().map(|&t| (t, true)))
        .chain(graph.outputs.iter().map(|&t| (t, false)))
        .filter(|&(t, _)| shifted[t])
        .collect();
    for (t, s) in graph.tensors.iter_mut().zip(&shifted) {
        if *s {
            shift(t);
        }
    }
    // The caller's uint8 tensors, flipped into and out of the int8 ones.
    let mut front = Vec::new();
    for (t, is_input) in edges {
        let mut outer = graph.tensors[t].clone();
        unshift(&mut outer);
        outer.index = graph.tensors.len();
        // The caller's tensor keeps the model's name.
        graph.tensors[t].name = format!("{} (as int8)", outer.name);
        let (from, to) = if is_input { (outer.index, t) } else { (t, outer.index) };
        let side = if is_input { "input" } else { "output" };
        let flip = flip_node(format!("QUANTIZE: uint8 {side} '{}' as int8", outer.name), from, to);
        if is_input {
            for i in graph.inputs.iter_mut().filter(|i| **i == t) {
                *i = outer.index;
            }
            front.push(flip);
        } else {
            for o in graph.outputs.iter_mut().filter(|o| **o == t) {
                *o = outer.index;
            }
            graph.nodes.push(flip);
        }
        graph.tensors.push(outer);
    }
    graph.nodes.splice(0..0, front);
    Ok(())
}

/// uint8 `q` with zero point `z` as int8 `q - 128` with `z - 128`.
fn shift(t: &mut Tensor<'_>) {
    t.dtype = DType::I8;
    if let Some(q) = &mut t.quant {
        q.zero_points.iter_mut().for_each(|z| *z -= 128);
    }
    if let Some(data) = &mut t.data {
        data.to_mut().iter_mut().for_each(|b| *b ^= 0x80);
    }
}

/// The inverse of [`shift`] for a tensor without data.
fn unshift(t: &mut Tensor<'_>) {
    t.dtype = DType::U8;
    if let Some(q) = &mut t.quant {
        q.zero_points.iter_mut().for_each(|z| *z += 128);
    }
}

/// A QUANTIZE between a uint8 tensor and its int8 twin (same scale, zero
/// points 128 apart: QUANTIZE's kernel flips the top bit).
fn flip_node<'a>(name: String, from: usize, to: usize) -> Node<'a> {
    Node {
        index: 0,
        subgraph: 0,
        scopes: Vec::new(),
        code: QUANTIZE,
        name,
        version: 1,
        inputs: vec![Some(from)],
        outputs: vec![to],
        options_type: 0,
        options: None,
        custom_options: None,
        fixed_order: false,
        from_uint8: true,
    }
}
