//! IF and WHILE as the TF converter writes `tf.cond` and `tf.while_loop`:
//! an IF on a bool input whose branches compute different things from the
//! operands (a constant operand among them now and then, as the converter
//! passes weights into branches), and a WHILE whose trip count is data (a
//! counter against an int32 limit input, 0 to 4 steps) carrying an
//! activation through a body of ADDs.

use crate::ops::activation_quant;
use crate::{Builder, Model, Rng, Ty, random_values};
use tinyaot_tests::writer::{QuantDef, Scalar};

const ADD: i32 = 0;
const CONCATENATION: i32 = 2;
const RESHAPE: i32 = 22;
const GATHER: i32 = 36;
const SUB: i32 = 41;
const LESS: i32 = 58;
const SLICE: i32 = 65;
const IF: i32 = 118;
const WHILE: i32 = 119;

/// `out = a OP b` with no fused activation (ADD and SUB share the table).
fn arith(b: &mut Builder, code: i32, a: i32, c: i32, out: i32) {
    let tag = if code == SUB { 28 } else { 11 };
    b.op(code, &[a, c], &[out], Some((tag, vec![(0, Scalar::I8(0))])));
}

pub fn control_flow(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::F32, Ty::I8, Ty::I16, Ty::I32]);
    let shape = [1, r.size(1, 3), r.size(1, 4)];
    let n: usize = shape.iter().product();
    let quant = |r: &mut Rng| activation_quant(r, ty, 0.02, 0.5);
    if r.chance(0.5) { if_model(r, ty, &shape, n, quant) } else { while_model(r, ty, &shape, n, quant) }
}

fn if_model(
    r: &mut Rng,
    ty: Ty,
    shape: &[usize],
    n: usize,
    quant: impl Fn(&mut Rng) -> Option<QuantDef>,
) -> (Model, String) {
    let mut b = Builder::default();
    let cond = b.input("cond", &[1], Ty::Bool, None);
    let xq = quant(r);
    let x = b.input("x", shape, ty, xq.clone());
    let kq = quant(r);
    let passed = r.chance(0.5);
    let k = passed.then(|| b.constant("k", shape, ty, random_values(r, ty, n), kq.clone()));
    let yq = quant(r);
    let y = b.output("y", shape, ty, yq.clone());
    let mut operands = vec![cond, x];
    operands.extend(k);
    b.op(IF, &operands, &[y], Some((92, vec![(0, Scalar::I32(1)), (1, Scalar::I32(2))])));
    let mut model = b.finish_graph();
    let mut labels = Vec::new();
    for (branch, code) in [(1, ADD), (2, SUB)] {
        let mut s = Builder::default();
        let xs = s.input("x", shape, ty, xq.clone());
        let ks = match k {
            Some(_) => s.input("k", shape, ty, kq.clone()),
            None => s.constant("k", shape, ty, random_values(r, ty, n), kq.clone()),
        };
        // The else branch sometimes hands its input straight back.
        if branch == 2 && r.chance(0.3) {
            s.mark_output(xs, ty);
            labels.push("else passes x through".to_string());
        } else {
            let ys = s.output("y", shape, ty, yq.clone());
            arith(&mut s, code, xs, ks, ys);
        }
        let index = model.add_subgraph(s);
        assert_eq!(index, branch);
    }
    let label =
        format!("IF {} {shape:?}, k {} {}", ty.name(), if passed { "passed in" } else { "inside" }, labels.join(", "));
    (model, label)
}

fn while_model(
    r: &mut Rng,
    ty: Ty,
    shape: &[usize],
    n: usize,
    quant: impl Fn(&mut Rng) -> Option<QuantDef>,
) -> (Model, String) {
    let mut b = Builder::default();
    let hq = quant(r);
    let h0 = b.input("h0", shape, ty, hq.clone());
    let limit = b.input("limit", &[1], Ty::I32, None);
    let start = b.ints("start", &[1], &[0]);
    let i = b.output("i", &[1], Ty::I32, None);
    let l = b.tensor("l", &[1], Ty::I32, None);
    let h = b.output("h", shape, ty, hq.clone());
    b.op(WHILE, &[start, limit, h0], &[i, l, h], Some((93, vec![(0, Scalar::I32(1)), (1, Scalar::I32(2))])));
    let mut model = b.finish_graph();
    model.ids_below = Some((1, 5));

    let mut c = Builder::default();
    let (ic, lc) = (c.input("i", &[1], Ty::I32, None), c.input("l", &[1], Ty::I32, None));
    c.input("h", shape, ty, hq.clone());
    let go = c.output("go", &[1], Ty::Bool, None);
    c.op(LESS, &[ic, lc], &[go], None);
    assert_eq!(model.add_subgraph(c), 1);

    let mut body = Builder::default();
    let (ib, lb) = (body.input("i", &[1], Ty::I32, None), body.input("l", &[1], Ty::I32, None));
    let hb = body.input("h", shape, ty, hq.clone());
    let one = body.ints("one", &[1], &[1]);
    let next = body.output("next_i", &[1], Ty::I32, None);
    arith(&mut body, ADD, ib, one, next);
    body.mark_output(lb, Ty::I32);
    let step = body.constant("step", shape, ty, random_values(r, ty, n), quant(r));
    let hn = body.output("next_h", shape, ty, hq);
    arith(&mut body, r.pick(&[ADD, SUB]), hb, step, hn);
    assert_eq!(model.add_subgraph(body), 2);
    (model, format!("WHILE {} {shape:?}", ty.name()))
}

/// A WHILE loop writing rows of a list as the TF converter lowers
/// TensorListSetItem in a Keras RNN with `return_sequences`: the body
/// gathers `m` rows of the input at the counter, offsets them, and writes
/// them over the list's rows `[i, i + m)` as SLICE (rows before) +
/// CONCATENATION + SLICE (rows after), whose SLICEs change shape every
/// step. The loop may stop before the last rows (they keep the list's
/// initial values). TFLM runs past the SLICEs; LiteRT's reference kernels
/// answer.
pub fn list_writes(r: &mut Rng) -> (Model, String) {
    list_writes_off_by(r, 0)
}

/// [`list_writes`] whose rows after the item start `gap` rows late (`gap`
/// 0: the converter's write; else rows are lost, a write the compiler
/// must not take for one).
fn list_writes_off_by(r: &mut Rng, gap: usize) -> (Model, String) {
    let ty = r.pick(&[Ty::F32, Ty::I8, Ty::I16, Ty::I32]);
    let m = r.size(1, 2);
    let steps_max = r.size(1, 4);
    let rows = m * steps_max + if r.chance(0.3) { r.size(0, 1) } else { 0 };
    let steps = if r.chance(0.3) { r.size(1, steps_max) } else { steps_max };
    let tail: Vec<usize> = (0..r.size(1, 2)).map(|_| r.size(1, 4)).collect();
    let shape: Vec<usize> = [rows].iter().chain(&tail).copied().collect();
    let item_shape: Vec<usize> = [m].iter().chain(&tail).copied().collect();
    let n: usize = shape.iter().product();
    let rank = shape.len();
    let xq = activation_quant(r, ty, 0.02, 0.5);
    let lq = activation_quant(r, ty, 0.02, 0.5);
    let explicit_sizes = r.chance(0.3);
    let own_sum = r.chance(0.5);
    let negative_axis = r.chance(0.3);

    let mut b = Builder::default();
    let x = b.input("x", &shape, ty, xq.clone());
    let start = b.ints("start", &[], &[0]);
    let list0 = b.constant("list", &shape, ty, random_values(r, ty, n), lq.clone());
    let i = b.tensor("i", &[], Ty::I32, None);
    let list = b.output("written", &shape, ty, lq.clone());
    let x_out = b.tensor("x_out", &shape, ty, xq.clone());
    b.op(WHILE, &[start, list0, x], &[i, list, x_out], Some((93, vec![(0, Scalar::I32(1)), (1, Scalar::I32(2))])));
    let mut model = b.finish_graph();
    model.litert = true;

    let mut c = Builder::default();
    let ic = c.input("i", &[], Ty::I32, None);
    c.input("list", &shape, ty, lq.clone());
    c.input("x", &shape, ty, xq.clone());
    let limit = c.ints("limit", &[], &[(steps * m) as i32]);
    let go = c.output("go", &[], Ty::Bool, None);
    c.op(LESS, &[ic, limit], &[go], None);
    assert_eq!(model.add_subgraph(c), 1);

    let mut body = Builder::default();
    let ib = body.input("i", &[], Ty::I32, None);
    let lb = body.input("list", &shape, ty, lq.clone());
    let xb = body.input("x", &shape, ty, xq.clone());
    let step = body.ints("m", &[], &[m as i32]);
    let after_step = body.ints("m_and_gap", &[], &[(m + gap) as i32]);
    let next = body.output("next_i", &[], Ty::I32, None);
    arith(&mut body, ADD, ib, step, next);
    // The rows: GATHER(x, [i] + [0, 1, ..]), offset by a constant.
    let one = body.ints("one", &[1], &[1]);
    let i1 = body.tensor("i_vec", &[1], Ty::I32, None);
    body.op(RESHAPE, &[ib, one], &[i1], None);
    let ramp = body.ints("ramp", &[m], &(0..m as i32).collect::<Vec<_>>());
    let at = body.tensor("at", &[m], Ty::I32, None);
    arith(&mut body, ADD, i1, ramp, at);
    let gathered = body.tensor("gathered", &item_shape, ty, xq.clone());
    body.op(GATHER, &[xb, at], &[gathered], Some((23, vec![(0, Scalar::I32(0))])));
    let k = body.constant("k", &item_shape, ty, random_values(r, ty, m * n / rows), activation_quant(r, ty, 0.02, 0.5));
    let item = body.tensor("item", &item_shape, ty, lq.clone());
    arith(&mut body, ADD, gathered, k, item);
    // The write: rows [0, i) ++ item ++ rows [i + m, end).
    let concat = |axis: i32| Some((10, vec![(0, Scalar::I32(axis)), (1, Scalar::I8(0))]));
    let dims: Vec<i32> = tail.iter().map(|&d| if explicit_sizes { d as i32 } else { -1 }).collect();
    let size_tail = body.ints("size_tail", &[rank - 1], &dims);
    let size = body.tensor("size", &[rank], Ty::I32, None);
    body.op(CONCATENATION, &[i1, size_tail], &[size], concat(0));
    let zeros = body.ints("zeros", &[rank], &vec![0; rank]);
    let placeholder = vec![1; rank];
    let prefix = body.dynamic("prefix", &placeholder, ty, lq.clone());
    body.op(SLICE, &[lb, zeros, size], &[prefix], None);
    let after = if own_sum || gap > 0 {
        let sum = body.tensor("after_i", &[], Ty::I32, None);
        arith(&mut body, ADD, ib, after_step, sum);
        sum
    } else {
        next
    };
    let after1 = body.tensor("after_vec", &[1], Ty::I32, None);
    body.op(RESHAPE, &[after, one], &[after1], None);
    let begin_tail = body.ints("begin_tail", &[rank - 1], &vec![0; rank - 1]);
    let begin = body.tensor("begin", &[rank], Ty::I32, None);
    body.op(CONCATENATION, &[after1, begin_tail], &[begin], concat(0));
    let to_end = body.ints("to_end", &[rank], &vec![-1; rank]);
    let suffix = body.dynamic("suffix", &placeholder, ty, lq.clone());
    body.op(SLICE, &[lb, begin, to_end], &[suffix], None);
    let written = body.output("written", &shape, ty, lq);
    body.op(CONCATENATION, &[prefix, item, suffix], &[written], concat(if negative_axis { -(rank as i32) } else { 0 }));
    body.mark_output(xb, ty);
    assert_eq!(model.add_subgraph(body), 2);
    let label = format!(
        "list writes {} {shape:?}, {m} rows a step, {steps} steps{}{}{}",
        ty.name(),
        if explicit_sizes { ", explicit sizes" } else { "" },
        if own_sum { ", its own i + m" } else { "" },
        if negative_axis { ", negative axis" } else { "" }
    );
    (model, label)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A list write the compiler cannot prove (the rows after the item
    /// start late) keeps its SLICE, whose error names the size; the same
    /// write proven compiles.
    #[test]
    fn only_proven_list_writes_are_rewritten() {
        for case in 0..12 {
            let (model, label) = list_writes_off_by(&mut Rng::for_case(5, case), 0);
            let bytes = model.def.to_bytes();
            let compiled = tinyaot_compiler::analyze(&bytes).map(|_| ()).map_err(|e| e.to_string());
            assert!(compiled.is_ok(), "{label}: {compiled:?}");
            let (model, label) = list_writes_off_by(&mut Rng::for_case(5, case), 1);
            let bytes = model.def.to_bytes();
            let refused = tinyaot_compiler::analyze(&bytes).err().map(|e| e.to_string());
            let refused = refused.unwrap_or_else(|| panic!("{label}: a gap of one row compiled"));
            assert!(refused.contains("(SLICE): size 'size' must be a constant in the model"), "{label}: {refused}");
        }
    }
}
