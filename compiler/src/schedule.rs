//! From checked ops to planner requests: which tensors need arena bytes,
//! when each is live (TFLM's definition), and which share bytes because
//! an op's output is a view of its input (RESHAPE).

use crate::diag::Error;
use crate::graph::{DType, Graph};
use crate::lowering::operator::Operator;
use crate::lowering::variant::Variant;
use std::collections::HashSet;

/// When a buffer is live, in TFLM's time steps: graph inputs are created
/// at 0, op `i` runs at `i + 1`, graph outputs live to the last op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lifetime {
    /// First time step (inclusive).
    pub first: usize,
    /// Last time step (inclusive).
    pub last: usize,
}

impl Lifetime {
    /// Whether two lifetimes share a time step.
    pub fn overlaps(&self, other: &Lifetime) -> bool {
        self.first <= other.last && other.first <= self.last
    }
}

/// What the planner is asked to place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// Bytes needed (unaligned).
    pub size: usize,
    /// When it is live.
    pub life: Lifetime,
    /// `Some((input, slack))`: this buffer is an op's output that may
    /// overlap request `input` (the op's dying input) when placed at most
    /// `slack` bytes after it.
    pub overlap: Option<(usize, i64)>,
}

/// One arena buffer: one tensor, or several that alias each other.
#[derive(Clone, Debug)]
pub struct Buffer {
    /// Display name (the first member tensor's name).
    pub name: String,
    /// Member tensors, the root first (empty for a scratch buffer).
    pub tensors: Vec<usize>,
    /// For a scratch buffer: the execution position of its op.
    pub scratch: Option<usize>,
    /// Bytes.
    pub size: usize,
    /// Live range in TFLM time steps (op `i` runs at `i + 1`).
    pub life: Lifetime,
}

/// Where the graph inputs live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inputs {
    /// In the arena; their bytes are reused once their last reader ran (TFLM's way).
    Reused,
    /// In the arena, intact through `invoke()` (`keep_inputs`).
    Kept,
    /// In the caller's memory, read there (`borrowed_inputs`): no arena bytes.
    Borrowed,
}

/// The arena buffers of a graph.
#[derive(Clone, Debug)]
pub struct Schedule {
    /// Buffers in tensor order of their root.
    pub buffers: Vec<Buffer>,
    /// For each tensor, its buffer (None for constants and unused tensors).
    pub buffer_of: Vec<Option<usize>>,
    /// The per-tensor requests TFLM would plan (no aliasing), for comparison.
    pub tflm_requests: Vec<Request>,
    /// Output buffers that may overlap their op's dying input buffer.
    pub overlaps: Vec<Overlap>,
    /// With borrowed inputs: for each tensor that is a graph input (or a
    /// view of one), the input's index; such tensors have no buffer.
    pub borrowed: Vec<Option<usize>>,
}

/// A proven-safe overlap: `output` may start at most `slack` bytes after
/// `input` starts (see `lowering::operator::InPlace`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overlap {
    /// Position (in execution order) of the op that reads `input` and
    /// writes `output`.
    pub op: usize,
    /// Output buffer.
    pub output: usize,
    /// Input buffer.
    pub input: usize,
    /// Largest allowed `output offset - input offset`.
    pub slack: i64,
}

impl Schedule {
    /// The planner's view of the buffers, with in-place overlaps allowed.
    pub fn requests(&self) -> Vec<Request> {
        let mut reqs: Vec<Request> =
            self.buffers.iter().map(|b| Request { size: b.size, life: b.life, overlap: None }).collect();
        for o in &self.overlaps {
            reqs[o.output].overlap = Some((o.input, o.slack));
        }
        reqs
    }

    /// The planner's view without any overlap (the classic problem).
    pub fn requests_without_overlap(&self) -> Vec<Request> {
        self.buffers.iter().map(|b| Request { size: b.size, life: b.life, overlap: None }).collect()
    }
}

/// TFLM's tensor lifetimes: graph inputs from time 0, op outputs from the
/// op's step, every tensor to its last reader, graph outputs to the end.
/// `order[p]` is the node run at position `p` (step `p + 1`).
/// `keep_inputs`: graph inputs live to the end too, so `invoke()` leaves
/// them as the caller wrote them (bool inputs always do).
fn tensor_lifetimes(graph: &Graph<'_>, order: &[usize], keep_inputs: bool) -> Vec<Option<Lifetime>> {
    let mut first: Vec<Option<usize>> = vec![None; graph.tensors.len()];
    let mut last: Vec<Option<usize>> = vec![None; graph.tensors.len()];
    for &t in &graph.inputs {
        first[t].get_or_insert(0);
        last[t] = Some(0);
    }
    for (pos, &n) in order.iter().enumerate() {
        let node = &graph.nodes[n];
        let step = pos + 1;
        for &t in &node.outputs {
            first[t].get_or_insert(step);
        }
        for &t in node.inputs.iter().flatten().chain(&node.outputs) {
            last[t] = Some(step);
        }
    }
    let end = graph.nodes.len();
    for &t in &graph.outputs {
        first[t].get_or_insert(end);
        last[t] = Some(end);
    }
    // A bool input is always kept: the caller may read it back as `&[bool]`,
    // and another tensor's bytes in its place would not be bools.
    for &t in &graph.inputs {
        if keep_inputs || graph.tensors[t].dtype == DType::Bool {
            last[t] = Some(end);
        }
    }
    first.into_iter().zip(last).map(|(f, l)| Some(Lifetime { first: f?, last: l? })).collect()
}

/// Builds the buffers for running the nodes in `order`. `ops[i]` is the
/// lowered form of node `i`, run with kernel variant `choice[i]`; `inputs`
/// says where the graph inputs live.
pub fn schedule(
    graph: &Graph<'_>,
    ops: &[Box<dyn Operator>],
    order: &[usize],
    choice: &[Variant],
    inputs: Inputs,
) -> Result<Schedule, Error> {
    let keep_inputs = inputs == Inputs::Kept;
    let lifetimes = tensor_lifetimes(graph, order, keep_inputs);
    // TFLM's own figure is always for its lifetimes and the model's order.
    let tflm_lifetimes = if keep_inputs { tensor_lifetimes(graph, order, false) } else { lifetimes.clone() };
    let n = graph.tensors.len();

    // Tensors that need arena bytes.
    let needs = |t: usize| {
        let tensor = &graph.tensors[t];
        tensor.data.is_none() && !tensor.is_variable && lifetimes[t].is_some() && tensor.bytes > 0
    };
    let root = check_and_alias(graph, ops, order, &lifetimes)?;

    let mut buffers: Vec<Buffer> = Vec::new();
    let mut buffer_of: Vec<Option<usize>> = vec![None; n];
    let mut by_root: Vec<Option<usize>> = vec![None; n];
    let mut tflm_requests = Vec::new();
    let mut borrowed = vec![None; n];
    for t in 0..n {
        if !needs(t) {
            continue;
        }
        let Some(life) = lifetimes[t] else { continue };
        if let Some(tflm_life) = tflm_lifetimes[t] {
            tflm_requests.push(Request { size: graph.tensors[t].bytes, life: tflm_life, overlap: None });
        }
        // A borrowed input and its views stay in the caller's memory.
        if inputs == Inputs::Borrowed
            && let Some(k) = graph.inputs.iter().position(|&i| i == root[t])
        {
            borrowed[t] = Some(k);
            continue;
        }
        let r = root[t];
        let b = match by_root[r] {
            Some(b) => {
                let buf: &mut Buffer = &mut buffers[b];
                buf.tensors.push(t);
                buf.size = buf.size.max(graph.tensors[t].bytes);
                buf.life.first = buf.life.first.min(life.first);
                buf.life.last = buf.life.last.max(life.last);
                b
            }
            None => {
                buffers.push(Buffer {
                    name: graph.tensors[t].name.clone(),
                    tensors: vec![t],
                    scratch: None,
                    size: graph.tensors[t].bytes,
                    life,
                });
                by_root[r] = Some(buffers.len() - 1);
                buffers.len() - 1
            }
        };
        buffer_of[t] = Some(b);
    }
    // Scratch buffers, live only during their op (after the tensors, as in TFLM).
    for (pos, &n) in order.iter().enumerate() {
        let variants = ops[n].variants();
        // An op whose plainest kernel still needs scratch (a hybrid layer's
        // quantized input, the NMS's lists) needs it in TFLM or LiteRT too:
        // their figure counts it.
        if let Some(v) = variants.first().filter(|v| v.scratch > 0) {
            let life = Lifetime { first: pos + 1, last: pos + 1 };
            tflm_requests.push(Request { size: v.scratch, life, overlap: None });
        }
        if let Some(v) = choice.get(n).filter(|v| v.scratch > 0) {
            buffers.push(Buffer {
                name: format!("scratch: op {pos} {} {}", graph.nodes[n].name, v.kernel.name()),
                tensors: Vec::new(),
                scratch: Some(pos),
                size: v.scratch,
                life: Lifetime { first: pos + 1, last: pos + 1 },
            });
        }
    }

    let overlaps = in_place_candidates(graph, ops, order, &buffers, &buffer_of);
    Ok(Schedule { buffers, buffer_of, tflm_requests, overlaps, borrowed })
}

/// Checks what the plan relies on (every used tensor has storage, no
/// variable is a graph input or output, no view of a constant, every tensor
/// written before it is read in `order`) and returns each tensor's alias
/// root (a view's output points back to its input's buffer).
fn check_and_alias(
    graph: &Graph<'_>,
    ops: &[Box<dyn Operator>],
    order: &[usize],
    lifetimes: &[Option<Lifetime>],
) -> Result<Vec<usize>, Error> {
    for (t, tensor) in graph.tensors.iter().enumerate() {
        if tensor.data.is_none() && lifetimes[t].is_some() && tensor.bytes == 0 && !tensor.is_variable {
            return Err(Error::model(format!(
                "tensor '{}' ({}) has no storage: {}",
                tensor.name,
                tensor.describe(),
                if tensor.dtype.size().is_none() { "its dtype is not supported" } else { "it is empty" }
            )));
        }
        if tensor.is_variable && (graph.inputs.contains(&t) || graph.outputs.contains(&t)) {
            return Err(Error::model(format!(
                "variable tensor '{}' is a graph input or output; state is kept inside the model",
                tensor.name
            )));
        }
    }

    // Alias roots: follow each aliasing op's output back to its input.
    let mut root: Vec<usize> = (0..graph.tensors.len()).collect();
    for (node, op) in graph.nodes.iter().zip(ops) {
        if let Some((input, output)) = op.alias() {
            if graph.tensors[input].data.is_some() || graph.tensors[input].is_variable {
                return Err(Error::op(
                    &node.label(),
                    format!(
                        "a view of the constant or variable tensor '{}' is not supported",
                        graph.tensors[input].name
                    ),
                ));
            }
            root[output] = root[input];
        }
    }

    // Every tensor read by an op must be written first (or be a graph input).
    let mut written: Vec<bool> = graph.tensors.iter().map(|t| t.is_variable).collect();
    for &t in &graph.inputs {
        written[t] = true;
    }
    for &n in order {
        let node = &graph.nodes[n];
        for &t in node.inputs.iter().flatten() {
            if !written[t] && graph.tensors[t].data.is_none() {
                return Err(Error::op(
                    &node.label(),
                    format!("reads tensor '{}' before any op writes it", graph.tensors[t].name),
                ));
            }
        }
        for &t in &node.outputs {
            written[t] = true;
        }
    }
    Ok(root)
}

/// In-place candidates: the input buffer dies at this op, the output
/// buffer is born here, no other input of the op shares the input's
/// buffer (it would be read through an aliasing view), one per output.
fn in_place_candidates(
    graph: &Graph<'_>,
    ops: &[Box<dyn Operator>],
    order: &[usize],
    buffers: &[Buffer],
    buffer_of: &[Option<usize>],
) -> Vec<Overlap> {
    let mut overlaps = Vec::new();
    let mut taken = HashSet::new();
    for (pos, &n) in order.iter().enumerate() {
        let (node, op) = (&graph.nodes[n], &ops[n]);
        let Some(ip) = op.in_place() else { continue };
        let step = pos + 1;
        let (Some(bi), Some(bo)) = (buffer_of[ip.input], buffer_of[ip.output]) else { continue };
        let shared = node.inputs.iter().flatten().filter(|&&t| buffer_of[t] == Some(bi)).count() > 1;
        // A graph output lives on after the last op: never overwrite it.
        let is_output = buffers[bi].tensors.iter().any(|t| graph.outputs.contains(t));
        let (ti, to) = (graph.tensors[ip.input].dtype, graph.tensors[ip.output].dtype);
        let same_type = ti == to || (op.in_place_bytes() && ti.size() == to.size());
        if bi != bo
            && !shared
            && !is_output
            && same_type
            && buffers[bi].life.last == step
            && buffers[bo].life.first == step
            && taken.insert(bo)
        {
            overlaps.push(Overlap { op: pos, output: bo, input: bi, slack: ip.slack });
        }
    }
    overlaps
}
