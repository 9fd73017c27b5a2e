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
const SUB: i32 = 41;
const LESS: i32 = 58;
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
