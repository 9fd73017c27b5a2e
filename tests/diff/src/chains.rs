//! Small multi-op models: a random chain of the layers real models are
//! made of (conv, depthwise, pooling, activations, residual ADD, channel
//! concatenation, global mean, RESHAPE + FULLY_CONNECTED + SOFTMAX), so the
//! planner's buffer reuse, in-place overlaps, scratch and views meet each
//! other as they do in real models.

use crate::ops::{
    activation, activation_quant, bias, dot_magnitude, out_size, output_quant, per_tensor, scale_of, weights,
};
use crate::{Builder, Model, Rng, Ty};
use tinyaot_tests::writer::{QuantDef, Scalar};

/// A tensor of the chain: index, NHWC shape, quantization.
#[derive(Clone)]
struct Node {
    t: i32,
    shape: [usize; 4],
    q: Option<QuantDef>,
}

/// A random chain of 2 to 6 layers, int8 or float32.
pub fn chain(r: &mut Rng) -> (Model, String) {
    build(r, false)
}

/// A chain that also draws the later ops: a GREATER mask feeding
/// SELECT_V2 (a bool tensor inside the arena), L2_NORMALIZATION and
/// LOG_SOFTMAX over channels, CUMSUM (their in-place plans among others).
pub fn chain_with_masks(r: &mut Rng) -> (Model, String) {
    build(r, true)
}

/// The chain; `later_ops` widens the draw (kept apart so `chain`'s cases,
/// and the regressions naming them, stay as they were).
fn build(r: &mut Rng, later_ops: bool) -> (Model, String) {
    let ty = r.pick(&[Ty::I8, Ty::I8, Ty::F32]);
    let mut b = Builder::default();
    let shape = [1, r.size(2, 10), r.size(2, 10), r.size(1, 4)];
    let q = activation_quant(r, ty, 1e-2, 0.1);
    let input = b.input("input", &shape, ty, q.clone());
    let mut seen = vec![Node { t: input, shape, q }];
    let mut steps = Vec::new();
    let count = r.size(2, 6);
    let mut n = 0;
    while steps.len() < count {
        n += 1;
        let x = seen.last().unwrap().clone();
        let name = format!("t{n}");
        let step = match r.size(0, if later_ops { 10 } else { 7 }) {
            0 => conv(&mut b, r, ty, &x, &name),
            1 => depthwise(&mut b, r, ty, &x, &name),
            2 => pool(&mut b, r, ty, &x, &name),
            3 => unary(&mut b, r, ty, &x, &name),
            4 => residual(&mut b, r, ty, &x, &seen, &name),
            5 => concat(&mut b, r, ty, &x, &seen, &name),
            6 if x.shape[1] * x.shape[2] > 1 => global_mean(&mut b, r, ty, &x, &name),
            8 => gate(&mut b, ty, &x, &seen, &name),
            9 => normalize(&mut b, r, ty, &x, &name),
            10 => cumsum(&mut b, r, ty, &x, &name),
            _ => conv(&mut b, r, ty, &x, &name),
        };
        if let Some((node, label)) = step {
            seen.push(node);
            steps.push(label);
        }
    }
    let last = seen.last().unwrap().clone();
    let (out, tail) = if r.chance(0.5) { classifier(&mut b, r, ty, &last) } else { (last.t, String::new()) };
    // The chain's last tensor is the graph output.
    let out_shape: Vec<i32> = b.shape_of(out);
    b.mark_output(out, ty);
    let label = format!("{} {shape:?}: {}{tail} -> {out_shape:?}", ty.name(), steps.join(", "));
    (b.finish_graph(), label)
}

fn conv(b: &mut Builder, r: &mut Rng, ty: Ty, x: &Node, name: &str) -> Option<(Node, String)> {
    let [_, h, w, c] = x.shape;
    let (k, s) = (r.size(1, 3), r.size(1, 2));
    let padding =
        if out_size(1, h, k, s, 1).is_some() && out_size(1, w, k, s, 1).is_some() { r.pick(&[0i8, 1]) } else { 0 };
    let (oh, ow) = (out_size(padding, h, k, s, 1)?, out_size(padding, w, k, s, 1)?);
    let oc = r.size(1, 6);
    let act = activation(r);
    let per_channel = ty != Ty::F32 && r.chance(0.7);
    let (filter, w_scales) = weights(b, r, ty, &format!("{name}_w"), &[oc, k, k, c], (oc, 0), per_channel, 0.7);
    let bias_t = bias(b, r, ty, oc, scale_of(&x.q), &w_scales);
    let q = output_quant(r, ty, dot_magnitude(ty, scale_of(&x.q), w_scales[0], k * k * c));
    let out = b.tensor(name, &[1, oh, ow, oc], ty, q.clone());
    let options =
        vec![(0, Scalar::I8(padding)), (1, Scalar::I32(s as i32)), (2, Scalar::I32(s as i32)), (3, Scalar::I8(act))];
    b.op(3, &[x.t, filter, bias_t], &[out], Some((1, options)));
    Some((Node { t: out, shape: [1, oh, ow, oc], q }, format!("conv {k}x{k}/{s} -> {oc}")))
}

fn depthwise(b: &mut Builder, r: &mut Rng, ty: Ty, x: &Node, name: &str) -> Option<(Node, String)> {
    let [_, h, w, c] = x.shape;
    let (k, s) = (r.size(1, 3), r.size(1, 2));
    let (oh, ow) = (out_size(0, h, k, s, 1)?, out_size(0, w, k, s, 1)?);
    let per_channel = ty != Ty::F32 && r.chance(0.7);
    let (filter, w_scales) = weights(b, r, ty, &format!("{name}_w"), &[1, k, k, c], (c, 3), per_channel, 0.7);
    let bias_t = bias(b, r, ty, c, scale_of(&x.q), &w_scales);
    let q = output_quant(r, ty, dot_magnitude(ty, scale_of(&x.q), w_scales[0], k * k));
    let out = b.tensor(name, &[1, oh, ow, c], ty, q.clone());
    let options = vec![
        (0, Scalar::I8(0)),
        (1, Scalar::I32(s as i32)),
        (2, Scalar::I32(s as i32)),
        (3, Scalar::I32(1)),
        (4, Scalar::I8(activation(r))),
    ];
    b.op(4, &[x.t, filter, bias_t], &[out], Some((2, options)));
    Some((Node { t: out, shape: [1, oh, ow, c], q }, format!("depthwise {k}x{k}/{s}")))
}

fn pool(b: &mut Builder, r: &mut Rng, ty: Ty, x: &Node, name: &str) -> Option<(Node, String)> {
    let [_, h, w, c] = x.shape;
    let (k, s) = (r.size(2, 3), r.size(1, 2));
    let padding =
        if out_size(1, h, k, s, 1).is_some() && out_size(1, w, k, s, 1).is_some() { r.pick(&[0i8, 1]) } else { 0 };
    let (oh, ow) = (out_size(padding, h, k, s, 1)?, out_size(padding, w, k, s, 1)?);
    let (code, what) = r.pick(&[(1, "avg"), (17, "max")]);
    let out = b.tensor(name, &[1, oh, ow, c], ty, x.q.clone());
    let options = vec![
        (0, Scalar::I8(padding)),
        (1, Scalar::I32(s as i32)),
        (2, Scalar::I32(s as i32)),
        (3, Scalar::I32(k as i32)),
        (4, Scalar::I32(k as i32)),
    ];
    b.op(code, &[x.t], &[out], Some((5, options)));
    Some((Node { t: out, shape: [1, oh, ow, c], q: x.q.clone() }, format!("{what}pool {k}x{k}/{s}")))
}

fn unary(b: &mut Builder, r: &mut Rng, ty: Ty, x: &Node, name: &str) -> Option<(Node, String)> {
    let (code, what) = r.pick(&[(19, "relu"), (21, "relu6"), (14, "logistic"), (28, "tanh")]);
    let q = match (ty, code) {
        (Ty::I8, 14) => per_tensor(1.0 / 256.0, -128),
        (Ty::I8, 28) => per_tensor(1.0 / 128.0, 0),
        (Ty::I8, _) => x.q.clone(),
        _ => None,
    };
    let out = b.tensor(name, &x.shape, ty, q.clone());
    b.op(code, &[x.t], &[out], None);
    Some((Node { t: out, shape: x.shape, q }, what.to_string()))
}

fn residual(b: &mut Builder, r: &mut Rng, ty: Ty, x: &Node, seen: &[Node], name: &str) -> Option<(Node, String)> {
    let earlier: Vec<&Node> = seen[..seen.len() - 1].iter().filter(|n| n.shape == x.shape).collect();
    let other = *earlier.get(r.size(0, earlier.len().max(1) - 1))?;
    let q = output_quant(r, ty, 74.0 * scale_of(&x.q).max(scale_of(&other.q)) * 1.4);
    let out = b.tensor(name, &x.shape, ty, q.clone());
    b.op(0, &[x.t, other.t], &[out], Some((11, vec![(0, Scalar::I8(activation(r)))])));
    Some((Node { t: out, shape: x.shape, q }, "add (residual)".into()))
}

fn concat(b: &mut Builder, r: &mut Rng, ty: Ty, x: &Node, seen: &[Node], name: &str) -> Option<(Node, String)> {
    let earlier: Vec<&Node> =
        seen[..seen.len() - 1].iter().filter(|n| n.shape[..3] == x.shape[..3] && same_quant(&n.q, &x.q)).collect();
    let other = *earlier.get(r.size(0, earlier.len().max(1) - 1))?;
    let shape = [1, x.shape[1], x.shape[2], x.shape[3] + other.shape[3]];
    let out = b.tensor(name, &shape, ty, x.q.clone());
    b.op(2, &[x.t, other.t], &[out], Some((10, vec![(0, Scalar::I32(3))])));
    Some((Node { t: out, shape, q: x.q.clone() }, "concat (channels)".into()))
}

fn global_mean(b: &mut Builder, r: &mut Rng, ty: Ty, x: &Node, name: &str) -> Option<(Node, String)> {
    let axes = b.ints(&format!("{name}_axes"), &[2], &[1, 2]);
    let q = if r.chance(0.5) { x.q.clone() } else { activation_quant(r, ty, 1e-2, 0.1) };
    let shape = [1, 1, 1, x.shape[3]];
    let out = b.tensor(name, &shape, ty, q.clone());
    b.op(40, &[x.t, axes], &[out], Some((27, vec![(0, Scalar::Bool(true))])));
    Some((Node { t: out, shape, q }, "mean (global)".into()))
}

/// RESHAPE to `[1, n]`, FULLY_CONNECTED, SOFTMAX: the classifier head.
fn classifier(b: &mut Builder, r: &mut Rng, ty: Ty, x: &Node) -> (i32, String) {
    let depth: usize = x.shape.iter().product();
    let shape_t = b.ints("flat_shape", &[2], &[1, depth as i32]);
    let flat = b.tensor("flat", &[1, depth], ty, x.q.clone());
    b.op(22, &[x.t, shape_t], &[flat], None);
    let units = r.size(2, 8);
    let (fc_weights, w_scales) = weights(b, r, ty, "fc_w", &[units, depth], (units, 0), false, 0.5);
    let bias_t = bias(b, r, ty, units, scale_of(&x.q), &w_scales);
    let lq = output_quant(r, ty, dot_magnitude(ty, scale_of(&x.q), w_scales[0], depth));
    let logits = b.tensor("logits", &[1, units], ty, lq);
    b.op(9, &[flat, fc_weights, bias_t], &[logits], Some((8, vec![(0, Scalar::I8(0))])));
    let pq = if ty == Ty::I8 { per_tensor(1.0 / 256.0, -128) } else { None };
    let probs = b.tensor("probs", &[1, units], ty, pq);
    b.op(25, &[logits], &[probs], Some((9, vec![(0, Scalar::F32(1.0))])));
    (probs, format!(", reshape, fc -> {units}, softmax"))
}

/// `where(x > other, x, other)` with an earlier tensor of x's shape: a
/// GREATER into a bool tensor, then SELECT_V2 (raw values, x's scale).
fn gate(b: &mut Builder, ty: Ty, x: &Node, seen: &[Node], name: &str) -> Option<(Node, String)> {
    let other = seen[..seen.len() - 1].iter().rev().find(|n| n.shape == x.shape && same_quant(&n.q, &x.q))?;
    let mask = b.tensor(&format!("{name}_mask"), &x.shape, Ty::Bool, None);
    b.op(61, &[x.t, other.t], &[mask], None);
    let out = b.tensor(name, &x.shape, ty, x.q.clone());
    b.op(123, &[mask, x.t, other.t], &[out], None);
    Some((Node { t: out, shape: x.shape, q: x.q.clone() }, "greater, select_v2".into()))
}

/// L2_NORMALIZATION or LOG_SOFTMAX over channels (TFLite's fixed output
/// quantization for int8).
fn normalize(b: &mut Builder, r: &mut Rng, ty: Ty, x: &Node, name: &str) -> Option<(Node, String)> {
    let (code, what, q) = if r.chance(0.5) {
        (11, "l2_normalization", if ty == Ty::I8 { per_tensor(1.0 / 128.0, 0) } else { None })
    } else {
        (50, "log_softmax", if ty == Ty::I8 { per_tensor(16.0 / 256.0, 127) } else { None })
    };
    let out = b.tensor(name, &x.shape, ty, q.clone());
    b.op(code, &[x.t], &[out], None);
    Some((Node { t: out, shape: x.shape, q }, what.into()))
}

/// CUMSUM along height, width or channels, exclusive and/or reverse.
fn cumsum(b: &mut Builder, r: &mut Rng, ty: Ty, x: &Node, name: &str) -> Option<(Node, String)> {
    let axis = r.size(1, 3);
    let (exclusive, reverse) = (r.chance(0.5), r.chance(0.5));
    let axis_t = b.ints(&format!("{name}_axis"), &[], &[axis as i32]);
    let q = output_quant(r, ty, 74.0 * scale_of(&x.q) * (x.shape[axis] as f64).sqrt());
    let out = b.tensor(name, &x.shape, ty, q.clone());
    b.op(128, &[x.t, axis_t], &[out], Some((102, vec![(0, Scalar::Bool(exclusive)), (1, Scalar::Bool(reverse))])));
    Some((Node { t: out, shape: x.shape, q }, format!("cumsum axis {axis}")))
}

fn same_quant(a: &Option<QuantDef>, b: &Option<QuantDef>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.scale == b.scale && a.zero_point == b.zero_point,
        (None, None) => true,
        _ => false,
    }
}

/// A chain of 2 to 6 window ops (conv, depthwise, pooling; strides, SAME
/// and VALID, dilation, channel growth) and residual ADDs over a taller
/// image, as the high-resolution stages of an image model are: the runner
/// also compiles each such case at the smallest arena a tiled plan
/// reaches, where the chain runs band by band, and compares that too.
pub fn window_chain(r: &mut Rng) -> (Model, String) {
    chain_of_windows(r, false)
}

/// [`window_chain`] behind an NCHW input and the TRANSPOSE to NHWC that
/// PyTorch exports start with (a tiled stage may take the TRANSPOSE in).
pub fn window_chain_nchw(r: &mut Rng) -> (Model, String) {
    chain_of_windows(r, true)
}

fn chain_of_windows(r: &mut Rng, nchw: bool) -> (Model, String) {
    let ty = r.pick(&[Ty::I8, Ty::I8, Ty::F32]);
    let mut b = Builder::default();
    let shape = [1, r.size(8, 33), r.size(2, 12), r.size(1, 3)];
    let q = activation_quant(r, ty, 1e-2, 0.1);
    let input = if nchw {
        let [n, h, w, c] = shape;
        let input = b.input("input", &[n, c, h, w], ty, q.clone());
        let perm = b.ints("perm", &[4], &[0, 2, 3, 1]);
        let nhwc = b.tensor("nhwc", &shape, ty, q.clone());
        b.op(39, &[input, perm], &[nhwc], None);
        nhwc
    } else {
        b.input("input", &shape, ty, q.clone())
    };
    let mut x = Node { t: input, shape, q };
    let mut seen = vec![x.clone()];
    let mut steps = Vec::new();
    let count = r.size(2, 6);
    let mut n = 0;
    while steps.len() < count && n < 40 {
        n += 1;
        let name = format!("t{n}");
        let step = match r.size(0, 5) {
            0 | 1 => dilated_conv(&mut b, r, ty, &x, &name, false),
            2 | 3 => dilated_conv(&mut b, r, ty, &x, &name, true),
            4 => pool(&mut b, r, ty, &x, &name),
            _ => residual(&mut b, r, ty, &x, &seen, &name),
        };
        if let Some((node, label)) = step {
            x = node;
            seen.push(x.clone());
            steps.push(label);
        }
    }
    b.mark_output(x.t, ty);
    let front = if nchw { "NCHW, TRANSPOSE, " } else { "" };
    let label = format!("{} {shape:?}: {front}{} -> {:?}", ty.name(), steps.join(", "), x.shape);
    (b.finish_graph(), label)
}

/// CONV_2D or DEPTHWISE_CONV_2D with any kernel up to 5, stride up to 2 (or
/// dilation up to 3 at stride 1), SAME or VALID.
fn dilated_conv(b: &mut Builder, r: &mut Rng, ty: Ty, x: &Node, name: &str, depthwise: bool) -> Option<(Node, String)> {
    let [_, h, w, c] = x.shape;
    let (kh, kw) = (r.size(1, 5), r.size(1, 3));
    let s = r.size(1, 2);
    let d = if s == 1 { r.size(1, 3) } else { 1 };
    let padding = r.pick(&[0i8, 0, 1]);
    let (oh, ow) = (out_size(padding, h, kh, s, d)?, out_size(padding, w, kw, s, d)?);
    let act = activation(r);
    let per_channel = ty != Ty::F32 && r.chance(0.7);
    let (oc, taps_depth) = if depthwise { (c, kh * kw) } else { (r.size(1, 8), kh * kw * c) };
    let (filter_shape, axis) = if depthwise { ([1, kh, kw, c], (c, 3)) } else { ([oc, kh, kw, c], (oc, 0)) };
    let (filter, w_scales) = weights(b, r, ty, &format!("{name}_w"), &filter_shape, axis, per_channel, 0.7);
    let bias_t = bias(b, r, ty, oc, scale_of(&x.q), &w_scales);
    let q = output_quant(r, ty, dot_magnitude(ty, scale_of(&x.q), w_scales[0], taps_depth));
    let out = b.tensor(name, &[1, oh, ow, oc], ty, q.clone());
    let (s, d) = (s as i32, d as i32);
    let (code, options) = if depthwise {
        let options = vec![
            (0, Scalar::I8(padding)),
            (1, Scalar::I32(s)),
            (2, Scalar::I32(s)),
            (3, Scalar::I32(1)),
            (4, Scalar::I8(act)),
            (5, Scalar::I32(d)),
            (6, Scalar::I32(d)),
        ];
        (4, (2, options))
    } else {
        let options = vec![
            (0, Scalar::I8(padding)),
            (1, Scalar::I32(s)),
            (2, Scalar::I32(s)),
            (3, Scalar::I8(act)),
            (4, Scalar::I32(d)),
            (5, Scalar::I32(d)),
        ];
        (3, (1, options))
    };
    b.op(code, &[x.t, filter, bias_t], &[out], Some(options));
    let what = if depthwise { "depthwise" } else { "conv" };
    let pad = if padding == 0 { "same" } else { "valid" };
    Some((Node { t: out, shape: [1, oh, ow, oc], q }, format!("{what} {kh}x{kw}/{s} d{d} {pad} -> {oc}")))
}
