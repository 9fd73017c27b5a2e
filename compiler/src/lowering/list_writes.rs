//! TensorList writes inside loops, as the TFLite converter lowers them,
//! turned into one DYNAMIC_UPDATE_SLICE.
//!
//! A Keras RNN layer without a fused op (`LSTM`, `GRU`, `SimpleRNN` with
//! `return_sequences`, `Bidirectional`) becomes a WHILE loop whose body
//! writes step `i`'s output into a list tensor `L` of static shape
//! `[steps, ...]`. The converter writes `L[i] = x` as
//!
//! ```text
//! prefix = SLICE(L, begin [0, 0, ..], size [i, -1, ..])
//! suffix = SLICE(L, begin [i + m, 0, ..], size [-1, -1, ..])
//! L'     = CONCATENATION(prefix, x, suffix, axis 0)      // x: [m, ...]
//! ```
//!
//! whose two SLICEs have shapes that change every iteration (the file gives
//! them a placeholder shape): TFLM runs past their ends, LiteRT resizes
//! them at run time. The three ops are one box write,
//! `DYNAMIC_UPDATE_SLICE(L, x, [i, -1, ..])` (its start clamped into `L`,
//! so the prefix's `-1` sizes start the box at 0 where the box spans the
//! whole dimension), with static shapes and `L` updated in place. The pass
//! proves the pattern from the index arithmetic (the suffix starts `m` rows
//! after the prefix ends: the same tensor element plus constants, through
//! RESHAPE, CONCATENATION, PACK, ADD and SUB), rewrites the CONCATENATION
//! and drops the SLICEs and what only they used. A write it cannot prove
//! stays as it is (and SLICE's error names the size that is not constant).

use crate::diag::Error;
use crate::graph::{DType, Graph, codes};
use crate::tflite::fields::{arithmetic, concatenation as field};

/// DYNAMIC_UPDATE_SLICE's builtin code.
const DYNAMIC_UPDATE_SLICE: i32 = 151;
/// How deep the index arithmetic is followed (real files: 2 or 3 ops).
const MAX_DEPTH: usize = 8;

/// The graph pass (registered in `registry::GRAPH_PASSES`).
pub fn rewrite(graph: &mut Graph<'_>) -> Result<(), Error> {
    let mut gone = vec![false; graph.nodes.len()];
    // Each write's own tensors are read by it alone: rewriting one leaves
    // what the others see as it was.
    let producers = Producers::of(graph);
    for n in 0..graph.nodes.len() {
        if let Some(write) = ListWrite::find(graph, &producers, n)? {
            let node = &mut graph.nodes[n];
            node.code = DYNAMIC_UPDATE_SLICE;
            node.name = "DYNAMIC_UPDATE_SLICE".into();
            node.version = 1;
            node.inputs = vec![Some(write.list), Some(write.item), Some(write.start)];
            (node.options_type, node.options) = (0, None);
            gone[write.prefix] = true;
            gone[write.suffix] = true;
        }
    }
    if gone.iter().any(|&g| g) {
        drop_unused(graph, &mut gone);
        graph.remove_nodes(&gone);
    }
    Ok(())
}

/// One proven list write: the CONCATENATION becomes
/// `DYNAMIC_UPDATE_SLICE(list, item, start)`.
struct ListWrite {
    list: usize,
    item: usize,
    /// The prefix's size vector: its first element is the row the item
    /// goes to, the others clamp to 0.
    start: usize,
    prefix: usize,
    suffix: usize,
}

impl ListWrite {
    /// The write whose CONCATENATION is node `n`, if node `n` is one.
    fn find(graph: &Graph<'_>, producers: &Producers, n: usize) -> Result<Option<ListWrite>, Error> {
        let node = &graph.nodes[n];
        let (&[Some(a), Some(item), Some(b)], &[out]) = (node.inputs.as_slice(), node.outputs.as_slice()) else {
            return Ok(None);
        };
        if node.name != "CONCATENATION" || node.code < 0 {
            return Ok(None);
        }
        let options = node.options.filter(|_| node.options_type == field::TAG);
        let axis = options.map(|o| o.scalar::<i32>(field::AXIS, 0)).transpose()?.unwrap_or(0);
        let activation = options.map(|o| o.scalar::<i8>(field::FUSED_ACTIVATION, 0)).transpose()?.unwrap_or(0);
        let rank = graph.tensors[out].shape.len();
        if rank == 0 || (axis != 0 && axis != -(rank as i32)) || activation != 0 {
            return Ok(None);
        }
        let (Some(prefix), Some(suffix)) = (producers.single(a), producers.single(b)) else { return Ok(None) };
        let (p, s) = (&graph.nodes[prefix], &graph.nodes[suffix]);
        if p.name != "SLICE" || s.name != "SLICE" || p.scopes != node.scopes || s.scopes != node.scopes {
            return Ok(None);
        }
        let (&[Some(list), Some(p_begin), Some(p_size)], &[Some(list2), Some(s_begin), Some(s_size)]) =
            (p.inputs.as_slice(), s.inputs.as_slice())
        else {
            return Ok(None);
        };
        let t = &graph.tensors;
        let (l, x, o) = (&t[list], &t[item], &t[out]);
        let rows = x.shape.first().copied().unwrap_or(0);
        let same_kind = |k: usize| t[k].dtype == l.dtype && t[k].quant == l.quant;
        if list2 != list
            || o.shape != l.shape
            || x.shape.len() != rank
            || x.shape[1..] != l.shape[1..]
            || rows == 0
            || rows > l.shape[0]
            || ![item, out, a, b].into_iter().all(same_kind)
            || l.dtype.size().is_none()
            || producers.users(a) != 1
            || producers.users(b) != 1
        {
            return Ok(None);
        }
        // The prefix: rows [0, k) of whole rows; the suffix: rows
        // [k + rows, end) of whole rows.
        let whole = |v: Option<Term>, d: usize| {
            v.is_some_and(|v| v.constant() == Some(-1) || v.constant() == Some(l.shape[d] as i64))
        };
        let zero = |v: Option<Term>| v.is_some_and(|v| v.constant() == Some(0));
        let element = |tensor: usize, e: usize| Term::of(graph, producers, tensor, e, 0);
        let vector = |tensor: usize| t[tensor].shape == [rank] && matches!(t[tensor].dtype, DType::I32 | DType::I64);
        if ![p_begin, p_size, s_begin, s_size].into_iter().all(vector) {
            return Ok(None);
        }
        let proven = (0..rank).all(|d| zero(element(p_begin, d)))
            && (1..rank)
                .all(|d| whole(element(p_size, d), d) && zero(element(s_begin, d)) && whole(element(s_size, d), d))
            && element(s_size, 0).is_some_and(|v| v.constant() == Some(-1))
            && match (element(p_size, 0), element(s_begin, 0)) {
                (Some(k), Some(after)) => {
                    k.leaf.is_some() && k.leaf == after.leaf && after.offset - k.offset == rows as i64
                }
                _ => false,
            };
        Ok(proven.then_some(ListWrite { list, item, start: p_size, prefix, suffix }))
    }
}

/// Where each tensor is written and how often it is read.
struct Producers {
    /// The node writing each tensor, when exactly one does.
    writer: Vec<Option<usize>>,
    /// Whether more than one node writes it (a loop's state).
    shared: Vec<bool>,
    readers: Vec<usize>,
}

impl Producers {
    fn of(graph: &Graph<'_>) -> Producers {
        let n = graph.tensors.len();
        let mut p = Producers { writer: vec![None; n], shared: vec![false; n], readers: vec![0; n] };
        for (position, node) in graph.nodes.iter().enumerate() {
            for &o in &node.outputs {
                p.shared[o] |= p.writer[o].is_some();
                p.writer[o] = Some(position);
            }
            for i in node.inputs.iter().flatten() {
                p.readers[*i] += 1;
            }
        }
        for &o in &graph.outputs {
            p.readers[o] += 1;
        }
        p
    }

    /// The one node writing `tensor`.
    fn single(&self, tensor: usize) -> Option<usize> {
        self.writer[tensor].filter(|_| !self.shared[tensor])
    }

    fn users(&self, tensor: usize) -> usize {
        self.readers[tensor]
    }
}

/// An integer tensor element as `leaf + offset`: `leaf` is the element of a
/// tensor the arithmetic does not see through (a loop counter), `None` for
/// a constant.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Term {
    leaf: Option<(usize, usize)>,
    offset: i64,
}

impl Term {
    fn constant(self) -> Option<i64> {
        self.leaf.is_none().then_some(self.offset)
    }

    /// Element `e` of integer tensor `tensor`, through the ops that only
    /// move or offset integers.
    fn of(graph: &Graph<'_>, producers: &Producers, tensor: usize, e: usize, depth: usize) -> Option<Term> {
        let t = &graph.tensors[tensor];
        if !matches!(t.dtype, DType::I32 | DType::I64) || e >= t.elements.max(1) {
            return None;
        }
        if let Some(data) = &t.data {
            let size = t.dtype.size()?;
            let bytes = data.get(e * size..(e + 1) * size)?;
            let value = match t.dtype {
                DType::I32 => i32::from_le_bytes(bytes.try_into().ok()?) as i64,
                _ => i64::from_le_bytes(bytes.try_into().ok()?),
            };
            return Some(Term { leaf: None, offset: value });
        }
        let leaf = Some(Term { leaf: Some((tensor, e)), offset: 0 });
        let Some(position) = producers.single(tensor) else { return leaf };
        let node = &graph.nodes[position];
        if depth == MAX_DEPTH || t.is_variable {
            return leaf;
        }
        let input = |i: usize| node.inputs.get(i).copied().flatten();
        let next = |tensor: usize, e: usize| Term::of(graph, producers, tensor, e, depth + 1);
        match node.name.as_str() {
            "RESHAPE" | "SQUEEZE" | "EXPAND_DIMS" if node.code >= 0 => next(input(0)?, e),
            "CONCATENATION" | "PACK" if node.code >= 0 && t.shape.len() == 1 => {
                let mut at = e;
                for piece in node.inputs.iter().flatten() {
                    let count = graph.tensors[*piece].elements.max(1);
                    if at < count {
                        return next(*piece, at);
                    }
                    at -= count;
                }
                None
            }
            "ADD" | "SUB" if node.code >= 0 && t.elements <= 1 => {
                let (a, b) = (next(input(0)?, 0)?, next(input(1)?, 0)?);
                let sign = if node.name == "SUB" { -1 } else { 1 };
                // A fused activation would clamp: only a plain sum is seen
                // through.
                let tag = if node.name == "SUB" { arithmetic::SUB_TAG } else { arithmetic::ADD_TAG };
                let clamps = node
                    .options
                    .filter(|_| node.options_type == tag)
                    .is_some_and(|o| o.scalar::<i8>(arithmetic::FUSED_ACTIVATION, 0).ok() != Some(0));
                match (a.leaf, b.leaf) {
                    _ if clamps => leaf,
                    (_, None) => Some(Term { leaf: a.leaf, offset: a.offset.checked_add(sign * b.offset)? }),
                    (None, Some(_)) if sign == 1 => {
                        Some(Term { leaf: b.leaf, offset: a.offset.checked_add(b.offset)? })
                    }
                    _ => leaf,
                }
            }
            _ => leaf,
        }
    }
}

/// Marks in `gone` the nodes that wrote only for the marked ones: each
/// producer of a marked node's inputs whose outputs nothing else reads, if
/// it only computes (no state, no control flow), and so on up.
fn drop_unused(graph: &Graph<'_>, gone: &mut [bool]) {
    let producers = Producers::of(graph);
    let mut readers = producers.readers.clone();
    let mut work: Vec<usize> = (0..gone.len()).filter(|&p| gone[p]).collect();
    while let Some(p) = work.pop() {
        for &i in graph.nodes[p].inputs.iter().flatten() {
            readers[i] -= 1;
            let Some(q) = producers.single(i) else { continue };
            let node = &graph.nodes[q];
            let pure = node.code >= 0
                && !node.fixed_order
                && !matches!(node.code, codes::CALL_ONCE | codes::IF | codes::WHILE)
                && node.outputs.iter().all(|&o| !graph.tensors[o].is_variable);
            if !gone[q] && pure && node.outputs.iter().all(|&o| readers[o] == 0) {
                gone[q] = true;
                work.push(q);
            }
        }
    }
}
