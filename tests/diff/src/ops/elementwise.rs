//! Elementwise ops: the binary arithmetic and comparisons, the unary math and activations, casts and (de)quantization, uint8 models.

use super::*;

/// ADD (0), SUB (41), MUL (18), DIV (42), MAXIMUM (55), MINIMUM (57),
/// SQUARED_DIFFERENCE (99), with broadcasting.
pub(super) fn binary(r: &mut Rng, code: i32, options_tag: u8) -> (Model, String) {
    // DIV: TFLM's int8 kernel takes no int16 (and divides by zero on a
    // divisor at its zero point: such inputs are not drawn).
    let ty = if code == 42 { r.pick(&[Ty::I8, Ty::F32]) } else { r.pick(&[Ty::I8, Ty::I8, Ty::F32, Ty::I16]) };
    let shapes = broadcast_shapes(r);
    binary_of(r, code, options_tag, ty, shapes)
}

/// int8 or int16 ADD (`code` 0), SUB (41) or MUL (18) of two same-shaped tensors
/// of up to about 700 values, or of a tensor and one of its trailing
/// shapes (a channel vector, a row), either operand first: the vector
/// loops of targets with lanes (`binary::binary_lanes`),
/// over the whole tensor or each broadcast run, tail runs included, which
/// the broadcasting shapes of [`binary`] seldom reach.
pub(super) fn add_sub_mul_runs(r: &mut Rng) -> (Model, String) {
    let (code, tag) = r.pick(&[(0, 11), (41, 28), (18, 21)]);
    let ty = r.pick(&[Ty::I8, Ty::I8, Ty::I16]);
    let rank = r.size(1, 4);
    let mut shape: Vec<usize> = (0..rank).map(|_| r.size(1, 9)).collect();
    if r.chance(0.5) {
        // Broadcast: the other operand a trailing part of the shape (a
        // run of at least 8 values in most draws).
        shape.push(r.size(6, 24));
        let keep = r.size(1, shape.len());
        let tail = shape[shape.len() - keep..].to_vec();
        let (a, b) = if r.chance(0.5) { (shape.clone(), tail) } else { (tail, shape.clone()) };
        return binary_of(r, code, tag, ty, (a, b, shape));
    }
    binary_of(r, code, tag, ty, (shape.clone(), shape.clone(), shape))
}

fn binary_of(
    r: &mut Rng,
    code: i32,
    options_tag: u8,
    ty: Ty,
    (sa, sb, so): (Vec<usize>, Vec<usize>, Vec<usize>),
) -> (Model, String) {
    let fused = matches!(code, 0 | 41 | 18 | 42);
    let act = if !fused {
        0
    } else if ty == Ty::I16 {
        r.pick(&[0, 1])
    } else {
        activation(r)
    };
    let mut b = Builder::default();
    let qa = activation_quant(r, ty, 1e-3, 0.5);
    // MAXIMUM/MINIMUM compare raw values: one quantization for all three.
    let same = matches!(code, 55 | 57);
    let qb = if same || r.chance(0.2) { qa.clone() } else { activation_quant(r, ty, 1e-3, 0.5) };
    let magnitude = match (ty, code) {
        (Ty::F32, 18) => 1.5,
        (Ty::F32, _) => 2.0,
        (Ty::I16, 18) => 19000.0 * scale_of(&qa) * 19000.0 * scale_of(&qb),
        (Ty::I16, 99) => (19000.0 * scale_of(&qa).max(scale_of(&qb))).powi(2),
        (Ty::I16, _) => 19000.0 * scale_of(&qa).max(scale_of(&qb)),
        (_, 18) => 74.0 * scale_of(&qa) * 74.0 * scale_of(&qb),
        (_, 99) => (74.0 * scale_of(&qa).max(scale_of(&qb))).powi(2),
        _ => 74.0 * scale_of(&qa).max(scale_of(&qb)),
    };
    let out_q = if same {
        qa.clone()
    } else if code == 42 && ty == Ty::I8 {
        // TFLM's int8 DIV rounds by a shift of `headroom + reciprocal
        // exponent - output exponent`, past 31 (undefined in C++, and
        // different on x86 and Arm) unless `s1 / (s2 * so)` is at least
        // 2^9: only that regime has one answer to compare with.
        let ratio = f64::from(1u32 << r.size(9, 12));
        per_tensor((scale_of(&qa) / (scale_of(&qb) * ratio)) as f32, r.zero_point(-128, 127))
    } else {
        output_quant(r, ty, magnitude)
    };
    let qb_zero = qb.as_ref().map_or(0, |q| q.zero_point[0] as i8);
    let a = b.input("a", &sa, ty, qa);
    let c = b.input("b", &sb, ty, qb);
    let out = b.output("output", &so, ty, out_q);
    let mut options = if fused { vec![(0, Scalar::I8(act))] } else { vec![] };
    // ADD and SUB: int16 with power-of-two scales or the general rescale.
    let pot = matches!(code, 0 | 41) && ty == Ty::I16 && r.chance(0.5);
    if matches!(code, 0 | 41) {
        options.push((1, Scalar::Bool(pot)));
    }
    let label =
        format!("{} {sa:?} {sb:?} -> {so:?} {}{}", ty.name(), act_name(act), if pot { " pot_scale_int16" } else { "" });
    let options = (options_tag != 0).then_some((options_tag, options));
    let divisor_zero = qb_zero;
    let mut m = b.finish(code, &[a, c], &[out], options);
    if code == 42 && ty == Ty::I8 {
        m.nonzero = Some((1, divisor_zero));
    }
    (m, label)
}

pub(super) fn unary(r: &mut Rng, op: Unary) -> (Model, String) {
    let types: &[Ty] = match op {
        Unary::HardSwish | Unary::Elu => &[Ty::I8, Ty::F32],
        Unary::Neg => &[Ty::F32],
        _ => &[Ty::I8, Ty::I8, Ty::F32, Ty::I16],
    };
    let ty = r.pick(types);
    let rank = r.size(1, 4);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(1, 9)).collect();
    let mut b = Builder::default();
    let in_q = activation_quant(r, ty, 1e-3, 0.2);
    let out_q = match (op, ty) {
        (Unary::Logistic, Ty::I8) => per_tensor(1.0 / 256.0, -128),
        (Unary::Tanh, Ty::I8) => per_tensor(1.0 / 128.0, 0),
        (Unary::Logistic | Unary::Tanh, Ty::I16) => per_tensor(1.0 / 32768.0, 0),
        (_, Ty::F32) => None,
        _ => {
            if r.chance(0.3) {
                in_q.clone()
            } else {
                activation_quant(r, ty, 1e-3, 0.2)
            }
        }
    };
    // RSQRT of a negative value is undefined: keep float inputs positive by
    // a positive zero point shift is not possible, so int8/int16 inputs of
    // RSQRT use a zero point at the bottom of the range.
    let (in_q, out_q) = match (op, ty) {
        (Unary::Rsqrt, Ty::I8) => (per_tensor(r.log_uniform(1e-3, 0.2), -128), out_q),
        _ => (in_q, out_q),
    };
    let input = b.input("input", &shape, ty, in_q);
    let output = b.output("output", &shape, ty, out_q);
    let (code, options, extra) = match op {
        Unary::Abs => (101, None, String::new()),
        Unary::Neg => (59, None, String::new()),
        Unary::Rsqrt => (76, None, String::new()),
        Unary::Elu => (111, None, String::new()),
        Unary::Logistic => (14, None, String::new()),
        Unary::Tanh => (28, None, String::new()),
        Unary::Relu => (19, None, String::new()),
        Unary::Relu6 => (21, None, String::new()),
        Unary::HardSwish => (117, None, String::new()),
        Unary::LeakyRelu => {
            let alpha = r.pick(&[0.2f32, 0.01, 0.3, -0.5, 1.5, 0.0]);
            (98, Some((LEAKY_RELU_OPTIONS, vec![(0, Scalar::F32(alpha))])), format!(" alpha {alpha}"))
        }
    };
    let label = format!("{} {shape:?}{extra}", ty.name());
    let mut m = b.finish(code, &[input], &[output], options);
    m.non_negative = matches!(op, Unary::Rsqrt);
    (m, label)
}

pub(super) fn quantize(r: &mut Rng) -> (Model, String) {
    let (from, to) = r.pick(&[
        (Ty::F32, Ty::I8),
        (Ty::I8, Ty::I8),
        (Ty::F32, Ty::I16),
        (Ty::I16, Ty::I8),
        (Ty::I8, Ty::I16),
        (Ty::I16, Ty::I16),
    ]);
    let shape: Vec<usize> = (0..r.size(1, 4)).map(|_| r.size(1, 9)).collect();
    let mut b = Builder::default();
    let in_q = activation_quant(r, from, 1e-3, 0.3);
    let magnitude = match from {
        Ty::F32 => 2.0,
        Ty::I16 => 19000.0 * scale_of(&in_q),
        _ => 74.0 * scale_of(&in_q),
    };
    let input = b.input("input", &shape, from, in_q);
    let output = b.output("output", &shape, to, output_quant(r, to, magnitude));
    let label = format!("{} -> {} {shape:?}", from.name(), to.name());
    (b.finish(114, &[input], &[output], None), label)
}

pub(super) fn dequantize(r: &mut Rng) -> (Model, String) {
    let from = r.pick(&[Ty::I8, Ty::I16]);
    let shape: Vec<usize> = (0..r.size(1, 4)).map(|_| r.size(1, 9)).collect();
    let mut b = Builder::default();
    let q = activation_quant(r, from, 1e-3, 0.5);
    let input = b.input("input", &shape, from, q);
    let output = b.output("output", &shape, Ty::F32, None);
    let label = format!("{} {shape:?}", from.name());
    (b.finish(6, &[input], &[output], None), label)
}

/// Float-only elementwise math: SQRT, EXP, LOG, SIN, COS, SQUARE (inputs
/// positive where the function needs it).
pub(super) fn float_math(r: &mut Rng) -> (Model, String) {
    let (code, name) = r.pick(&[
        (75, "SQRT"),
        (47, "EXP"),
        (73, "LOG"),
        (66, "SIN"),
        (108, "COS"),
        (92, "SQUARE"),
        (8, "FLOOR"),
        (104, "CEIL"),
        (116, "ROUND"),
    ]);
    // ROUND's ties, and values on integers, now and then.
    let halves = matches!(name, "ROUND" | "FLOOR" | "CEIL") && r.chance(0.5);
    let shape: Vec<usize> = (0..r.size(1, 4)).map(|_| r.size(1, 9)).collect();
    let mut b = Builder::default();
    let input = b.input("input", &shape, Ty::F32, None);
    let output = b.output("output", &shape, Ty::F32, None);
    let mut m = b.finish(code, &[input], &[output], None);
    // SQRT and LOG of negative inputs are NaN on both sides: allowed.
    m.inputs = vec![(Ty::F32, shape.iter().product())];
    m.halves = halves;
    (m, format!("{name} float32 {shape:?}{}", if halves { " on halves" } else { "" }))
}

pub(super) fn prelu(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(FLOAT_INT8);
    let rank = r.size(1, 4);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(1, 6)).collect();
    // alpha broadcasts against the input: often per channel (last dim).
    let alpha_shape: Vec<usize> = if r.chance(0.5) {
        vec![shape[rank - 1]]
    } else {
        shape.iter().map(|&d| if r.chance(0.5) { 1 } else { d }).collect()
    };
    let n: usize = alpha_shape.iter().product();
    let mut b = Builder::default();
    let in_q = activation_quant(r, ty, 1e-3, 0.5);
    let input = b.input("input", &shape, ty, in_q.clone());
    let alpha = if ty == Ty::F32 {
        b.constant("alpha", &alpha_shape, Ty::F32, floats(r, n, 1.0), None)
    } else {
        let q = per_tensor(r.log_uniform(1e-3, 0.05), r.zero_point(-128, 127));
        let bytes = (0..n).map(|_| r.bits() as u8).collect();
        b.constant("alpha", &alpha_shape, Ty::I8, bytes, q)
    };
    let out_q = output_quant(r, ty, 74.0 * scale_of(&in_q));
    let output = b.output("output", &shape, ty, out_q);
    let label = format!("{} {shape:?} alpha {alpha_shape:?}", ty.name());
    (b.finish(54, &[input, alpha], &[output], None), label)
}

pub(super) fn cast(r: &mut Rng) -> (Model, String) {
    let from = r.pick(&[Ty::F32, Ty::I8, Ty::I16, Ty::I32, Ty::Bool]);
    let to = r.pick(&[Ty::F32, Ty::I8, Ty::I16, Ty::I32]);
    let shape: Vec<usize> = (0..r.size(1, 3)).map(|_| r.size(1, 8)).collect();
    let mut b = Builder::default();
    let input = b.input("input", &shape, from, None);
    let output = b.output("output", &shape, to, None);
    let label = format!("{} -> {} {shape:?}", from.name(), to.name());
    (b.finish(53, &[input], &[output], None), label)
}

/// EQUAL (71), NOT_EQUAL (72), GREATER (61), GREATER_EQUAL (62), LESS
/// (58), LESS_EQUAL (63), with broadcasting, giving bool. Inputs often
/// meet (halves, small integers, int8 inputs of one quantization).
pub(super) fn comparison(r: &mut Rng, code: i32) -> (Model, String) {
    let equality = matches!(code, 71 | 72);
    let types: &[Ty] =
        if equality { &[Ty::I8, Ty::F32, Ty::I32, Ty::I64, Ty::Bool] } else { &[Ty::I8, Ty::F32, Ty::I32, Ty::I64] };
    let ty = r.pick(types);
    let (sa, sb, so) = broadcast_shapes(r);
    let mut b = Builder::default();
    // TFLM's int8 rescaling needs scales below 1.
    let qa = activation_quant(r, ty, 1e-3, 0.9);
    let qb = if r.chance(0.4) { qa.clone() } else { activation_quant(r, ty, 1e-3, 0.9) };
    let a = b.input("a", &sa, ty, qa);
    let c = b.input("b", &sb, ty, qb);
    let out = b.output("output", &so, Ty::Bool, None);
    let label = format!("{} {sa:?} {sb:?} -> {so:?}", ty.name());
    let mut m = b.finish(code, &[a, c], &[out], None);
    m.halves = r.chance(0.7);
    m.narrow = r.chance(0.7);
    (m, label)
}

/// LOGICAL_AND (86), LOGICAL_OR (84) of bools, with broadcasting.
pub(super) fn logical(r: &mut Rng, code: i32) -> (Model, String) {
    let (sa, sb, so) = broadcast_shapes(r);
    let mut b = Builder::default();
    let a = b.input("a", &sa, Ty::Bool, None);
    let c = b.input("b", &sb, Ty::Bool, None);
    let out = b.output("output", &so, Ty::Bool, None);
    (b.finish(code, &[a, c], &[out], None), format!("bool {sa:?} {sb:?} -> {so:?}"))
}

/// LOGICAL_NOT of bools.
pub(super) fn logical_not(r: &mut Rng) -> (Model, String) {
    let shape: Vec<usize> = (0..r.size(1, 4)).map(|_| r.size(1, 7)).collect();
    let mut b = Builder::default();
    let input = b.input("input", &shape, Ty::Bool, None);
    let output = b.output("output", &shape, Ty::Bool, None);
    (b.finish(87, &[input], &[output], None), format!("bool {shape:?}"))
}

/// SELECT_V2: condition, x and y broadcast against each other; the
/// condition a graph input, or computed by a comparison of two inputs in
/// the graph (a bool tensor inside the arena).
pub(super) fn select_v2(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::I8, Ty::F32, Ty::I16]);
    select_v2_of(r, ty)
}

/// SELECT_V2 of the types only LiteRT runs (int32, int64, uint8, bool),
/// and SELECT (TF1's `tf.where`, which TFLM does not register) of any type:
/// the same shapes, a scalar condition, or one value per row of x.
/// Against LiteRT's reference kernels.
pub(super) fn select_litert(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::I32, Ty::I64, Ty::U8, Ty::Bool, Ty::I8, Ty::F32, Ty::I16]);
    let v2 = r.chance(0.4) && matches!(ty, Ty::I32 | Ty::I64 | Ty::U8 | Ty::Bool);
    let (mut m, label) = if v2 { select_v2_of(r, ty) } else { select_v1(r, ty) };
    m.litert = true;
    (m, label)
}

fn select_v1(r: &mut Rng, ty: Ty) -> (Model, String) {
    let rank = r.size(1, 4);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(1, 5)).collect();
    let sc: Vec<usize> = match r.size(0, 2) {
        0 => shape.clone(),
        1 => vec![],
        _ => vec![shape[0]],
    };
    let q = if ty == Ty::U8 && r.chance(0.5) { per_tensor(0.05, r.range(0, 255)) } else { None };
    let mut b = Builder::default();
    let condition = b.input("condition", &sc, Ty::Bool, None);
    let x = b.input("x", &shape, ty, q.clone());
    let y = b.input("y", &shape, ty, q.clone());
    let out = b.output("output", &shape, ty, q.clone());
    b.op(64, &[condition, x, y], &[out], None);
    let label =
        format!("SELECT {}{} condition {sc:?} x {shape:?}", ty.name(), if q.is_some() { " quantized" } else { "" });
    (b.finish_graph(), label)
}

fn select_v2_of(r: &mut Rng, ty: Ty) -> (Model, String) {
    let rank = r.size(1, 5);
    let full: Vec<usize> = (0..rank).map(|_| r.pick(&[1, 2, 3, 4, 5])).collect();
    let mut side = || -> Vec<usize> {
        let keep = if r.chance(0.3) { r.size(0, rank) } else { rank };
        let mut s: Vec<usize> = full[rank - keep..].to_vec();
        for d in s.iter_mut() {
            if r.chance(0.3) {
                *d = 1;
            }
        }
        s
    };
    let (sc, sx, sy) = (side(), side(), side());
    let so: Vec<usize> = (0..rank)
        .map(|i| {
            let at = |s: &[usize]| if i + s.len() >= rank { s[i + s.len() - rank] } else { 1 };
            at(&sc).max(at(&sx)).max(at(&sy))
        })
        .collect();
    let mut b = Builder::default();
    let q = activation_quant(r, ty, 1e-3, 0.5);
    let computed = r.chance(0.4);
    let condition = if computed {
        let p = b.input("p", &sc, Ty::F32, None);
        let t = b.input("q", &sc, Ty::F32, None);
        let c = b.tensor("condition", &sc, Ty::Bool, None);
        b.op(61, &[p, t], &[c], None);
        c
    } else {
        b.input("condition", &sc, Ty::Bool, None)
    };
    let x = b.input("x", &sx, ty, q.clone());
    let y = b.input("y", &sy, ty, q.clone());
    let out = b.output("output", &so, ty, q);
    b.op(123, &[condition, x, y], &[out], None);
    let label = format!(
        "{} condition {sc:?}{} x {sx:?} y {sy:?} -> {so:?}",
        ty.name(),
        if computed { " (GREATER)" } else { "" }
    );
    (b.finish_graph(), label)
}

/// FLOOR_DIV (90), FLOOR_MOD (95): float32 with broadcasting (TFLM fails
/// on a zero divisor; random floats are never exactly zero).
pub(super) fn floor_binary(r: &mut Rng, code: i32) -> (Model, String) {
    let (sa, sb, so) = broadcast_shapes(r);
    // int32 is LiteRT's (TFLM has float32 only): answered by its reference
    // kernels, the divisors nonzero (LiteRT's invoke fails on a zero), the
    // extremes now and then (FLOOR_DIV's i32::MIN over -1 wraps).
    let int32 = r.chance(0.5);
    let ty = if int32 { Ty::I32 } else { Ty::F32 };
    let mut b = Builder::default();
    let a = b.input("a", &sa, ty, None);
    let c = b.input("b", &sb, ty, None);
    let out = b.output("output", &so, ty, None);
    let mut m = b.finish(code, &[a, c], &[out], None);
    if int32 {
        // C's `i32::MIN % -1` traps (LiteRT's FloorMod dies on it): FLOOR_MOD
        // takes the next value up.
        let low = if code == 95 { i32::MIN as i64 + 1 } else { i32::MIN as i64 };
        let extreme = |r: &mut Rng, v: i64| if r.chance(0.05) { r.pick(&[low, i32::MAX as i64]) } else { v };
        let mut values: Vec<i64> = Vec::new();
        for _ in 0..sa.iter().product::<usize>() {
            let v = r.range(-1000, 1000);
            values.push(extreme(r, v));
        }
        for _ in 0..sb.iter().product::<usize>() {
            let v = r.pick(&[-1, 1]) * r.range(1, 40);
            values.push(if r.chance(0.05) { r.pick(&[-1, i32::MIN as i64, i32::MAX as i64]) } else { v });
        }
        m.fixed = Some(values);
        m.litert = true;
    }
    (m, format!("{} {sa:?} {sb:?} -> {so:?}", ty.name()))
}

/// POW (LiteRT only), broadcast: float32 (any sign: a negative base to a
/// fractional power is NaN on both sides; now and then a constant exponent
/// of 2, 3, 0.5 or -1, as models write `x ** 2`) or int32 (bases -9..9,
/// exponents 0..12: a power past int32 is `i32::MIN`). Against LiteRT.
pub(super) fn pow(r: &mut Rng) -> (Model, String) {
    let (sa, sb, so) = broadcast_shapes(r);
    let int32 = r.chance(0.4);
    let ty = if int32 { Ty::I32 } else { Ty::F32 };
    let mut b = Builder::default();
    let a = b.input("a", &sa, ty, None);
    let fixed_exponent = (!int32 && r.chance(0.3)).then(|| r.pick(&[2.0f32, 3.0, 0.5, -1.0]));
    let e = match fixed_exponent {
        Some(v) => b.constant("exponent", &sb, Ty::F32, v.to_le_bytes().repeat(sb.iter().product()), None),
        None => b.input("exponent", &sb, ty, None),
    };
    let out = b.output("output", &so, ty, None);
    let mut m = b.finish(78, &[a, e], &[out], None);
    if int32 {
        let bases: Vec<i64> = (0..sa.iter().product::<usize>()).map(|_| r.range(-9, 9)).collect();
        let exponents: Vec<i64> = (0..sb.iter().product::<usize>()).map(|_| r.range(0, 12)).collect();
        m.fixed = Some([bases, exponents].concat());
    }
    m.litert = true;
    let exponent = fixed_exponent.map_or(String::new(), |v| format!(" (constant {v})"));
    (m, format!("{} {sa:?} ** {sb:?}{exponent} -> {so:?}", ty.name()))
}

/// SIGN (LiteRT only): float32 (zeros among the values now and then) or
/// int32 (values around zero and the extremes). Against LiteRT.
pub(super) fn sign(r: &mut Rng) -> (Model, String) {
    let shape: Vec<usize> = (0..r.size(1, 4)).map(|_| r.size(1, 6)).collect();
    let n: usize = shape.iter().product();
    let int32 = r.chance(0.5);
    let ty = if int32 { Ty::I32 } else { Ty::F32 };
    let mut b = Builder::default();
    let x = b.input("x", &shape, ty, None);
    let out = b.output("output", &shape, ty, None);
    let mut m = b.finish(158, &[x], &[out], None);
    if int32 {
        let extremes = [i32::MIN as i64, -1, 0, 1, i32::MAX as i64];
        m.fixed = Some((0..n).map(|_| if r.chance(0.3) { r.pick(&extremes) } else { r.range(-5, 5) }).collect());
    }
    m.litert = true;
    (m, format!("{} {shape:?}", ty.name()))
}

/// ADD_N of 2 to 4 inputs (one of them now and then given twice), float32
/// or int8 (one quantization for every input, as TFLM requires).
pub(super) fn add_n(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(FLOAT_INT8);
    let shape: Vec<usize> = (0..r.size(1, 4)).map(|_| r.size(1, 6)).collect();
    let count = r.size(2, 4);
    let mut b = Builder::default();
    let q = activation_quant(r, ty, 1e-3, 0.5);
    let mut inputs: Vec<i32> = (0..count).map(|i| b.input(&format!("x{i}"), &shape, ty, q.clone())).collect();
    if r.chance(0.2) {
        inputs.push(inputs[0]);
    }
    let out_q = output_quant(r, ty, 74.0 * scale_of(&q) * (inputs.len() as f64).sqrt());
    let out = b.output("output", &shape, ty, out_q);
    let label = format!("{} {shape:?} x{}", ty.name(), inputs.len());
    (b.finish(106, &inputs, &[out], None), label)
}

/// uint8 where TFLM takes it: QUANTIZE uint8 -> int8 and int8 -> uint8
/// (the wrappers of older quantized models), DEQUANTIZE uint8 -> float32,
/// and a uint8 RESHAPE (TFLM's CONCATENATION takes no uint8; it takes
/// bool, drawn here too).
pub(super) fn uint8(r: &mut Rng) -> (Model, String) {
    let shape: Vec<usize> = (0..r.size(1, 4)).map(|_| r.size(1, 7)).collect();
    let u8_quant = |r: &mut Rng| per_tensor(r.log_uniform(1e-3, 0.5), r.zero_point(0, 255));
    let mut b = Builder::default();
    let (case, label) = r.pick(&[
        (0, "quantize uint8 -> int8"),
        (1, "quantize int8 -> uint8"),
        (2, "dequantize uint8"),
        (3, "uint8 reshape"),
        (4, "bool concatenation"),
    ]);
    match case {
        0 => {
            let q = u8_quant(r);
            let x = b.input("x", &shape, Ty::U8, q.clone());
            let out_q = if r.chance(0.5) {
                per_tensor(q.as_ref().map_or(1.0, |q| q.scale[0]), r.zero_point(-128, 127))
            } else {
                activation_quant(r, Ty::I8, 1e-3, 0.5)
            };
            let y = b.output("y", &shape, Ty::I8, out_q);
            b.op(114, &[x], &[y], None);
        }
        1 => {
            let q = activation_quant(r, Ty::I8, 1e-3, 0.5);
            let x = b.input("x", &shape, Ty::I8, q.clone());
            let out_q = if r.chance(0.5) {
                per_tensor(q.as_ref().map_or(1.0, |q| q.scale[0]), r.zero_point(0, 255))
            } else {
                u8_quant(r)
            };
            let y = b.output("y", &shape, Ty::U8, out_q);
            b.op(114, &[x], &[y], None);
        }
        2 => {
            let x = b.input("x", &shape, Ty::U8, u8_quant(r));
            let y = b.output("y", &shape, Ty::F32, None);
            b.op(6, &[x], &[y], None);
        }
        3 => {
            let q = u8_quant(r);
            let x = b.input("x", &shape, Ty::U8, q.clone());
            let flat: usize = shape.iter().product();
            let new_shape = b.ints("shape", &[2], &[1, flat as i32]);
            let y = b.output("y", &[1, flat], Ty::U8, q);
            b.op(22, &[x, new_shape], &[y], None);
        }
        _ => {
            let x = b.input("x", &shape, Ty::Bool, None);
            let z = b.input("z", &shape, Ty::Bool, None);
            let mut joined = shape.clone();
            joined[0] *= 2;
            let y = b.output("y", &joined, Ty::Bool, None);
            b.op(2, &[x, z], &[y], Some((CONCATENATION_OPTIONS, vec![(0, Scalar::I32(0))])));
        }
    }
    (b.finish_graph(), format!("{label} {shape:?}"))
}

/// int32 ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM (and int64 MAXIMUM, MINIMUM)
/// with broadcasting and fused activations (which TFLM's int32 ADD
/// ignores); divisors never 0 (TFLM crashes on them).
pub(super) fn integer_binary(r: &mut Rng) -> (Model, String) {
    let (code, tag, name) = r.pick(&[
        (0, 11, "ADD"),
        (41, 28, "SUB"),
        (18, 21, "MUL"),
        (42, 29, "DIV"),
        (55, 0, "MAXIMUM"),
        (57, 0, "MINIMUM"),
    ]);
    let ty = if tag == 0 && r.chance(0.3) { Ty::I64 } else { Ty::I32 };
    let (sa, sb, so) = broadcast_shapes(r);
    let act = if tag == 0 { 0 } else { activation(r) };
    let mut b = Builder::default();
    let x = b.input("a", &sa, ty, None);
    let y = b.input("b", &sb, ty, None);
    let out = b.output("output", &so, ty, None);
    let options = (tag != 0).then(|| (tag as u8, vec![(0, Scalar::I8(act))]));
    let mut m = b.finish(code, &[x, y], &[out], options);
    let count = |s: &[usize]| s.iter().product::<usize>();
    let mut values: Vec<i64> = (0..count(&sa)).map(|_| r.range(-1000, 1000)).collect();
    values.extend((0..count(&sb)).map(|_| {
        let v = r.range(1, 60);
        if r.chance(0.5) { -v } else { v }
    }));
    m.fixed = Some(values);
    (m, format!("{name} {} {sa:?} {sb:?} -> {so:?} {}", ty.name(), act_name(act)))
}
