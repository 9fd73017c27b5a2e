//! Data movement and shapes: concatenation, padding, transposes, reshapes, slices, splits, gathers, resizes, broadcasts, fills.

use super::*;

pub(super) fn concatenation(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::I8, Ty::F32, Ty::I16, Ty::I32]);
    let rank = r.size(1, 4);
    let base: Vec<usize> = (0..rank).map(|_| r.size(1, 5)).collect();
    let axis = r.size(0, rank - 1);
    let n = r.size(1, 4);
    let q = activation_quant(r, ty, 1e-3, 0.5);
    let mut b = Builder::default();
    let mut inputs = Vec::new();
    let mut total = 0;
    for k in 0..n {
        let mut s = base.clone();
        s[axis] = r.size(1, 4);
        total += s[axis];
        inputs.push(b.input(&format!("in{k}"), &s, ty, q.clone()));
    }
    let mut out_shape = base;
    out_shape[axis] = total;
    let output = b.output("output", &out_shape, ty, q);
    let written = if r.chance(0.3) { axis as i32 - rank as i32 } else { axis as i32 };
    let label = format!("{} {n} inputs -> {out_shape:?} axis {written}", ty.name());
    (b.finish(2, &inputs, &[output], Some((CONCATENATION_OPTIONS, vec![(0, Scalar::I32(written))]))), label)
}

pub(super) fn pad(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::I8, Ty::F32, Ty::I16, Ty::I32]);
    let rank = r.size(1, 4);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(1, 6)).collect();
    let pads: Vec<i32> = (0..2 * rank).map(|_| r.pick(&[0, 0, 1, 2, 3])).collect();
    let out: Vec<usize> = (0..rank).map(|i| shape[i] + (pads[2 * i] + pads[2 * i + 1]) as usize).collect();
    let q = activation_quant(r, ty, 1e-3, 0.5);
    let mut b = Builder::default();
    let input = b.input("input", &shape, ty, q.clone());
    let paddings = b.ints("paddings", &[rank, 2], &pads);
    let output = b.output("output", &out, ty, q);
    let label = format!("{} {shape:?} pads {pads:?}", ty.name());
    (b.finish(34, &[input, paddings], &[output], None), label)
}

/// REVERSE_V2: a contiguous run of axes (TFLM's rule), any of its dtypes.
pub(super) fn reverse_v2(r: &mut Rng) -> (Model, String) {
    let (ty, q) = movement_ty(r, ALL);
    let rank = r.size(1, 5);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(1, 5)).collect();
    let first = r.size(0, rank - 1);
    let count = r.size(1, rank - first);
    let axes: Vec<i32> =
        (first..first + count).map(|a| if r.chance(0.3) { a as i32 - rank as i32 } else { a as i32 }).collect();
    let mut b = Builder::default();
    let input = b.input("input", &shape, ty, q.clone());
    let axis_t = b.ints("axis", &[axes.len()], &axes);
    let output = b.output("output", &shape, ty, q);
    let label = format!("{} {shape:?} axes {axes:?}", ty.name());
    (b.finish(105, &[input, axis_t], &[output], None), label)
}

/// MIRROR_PAD, REFLECT or SYMMETRIC, pads up to what the mode allows.
pub(super) fn mirror_pad(r: &mut Rng) -> (Model, String) {
    let (ty, q) = movement_ty(r, FLOAT_INT8);
    let rank = r.size(1, 4);
    let symmetric = r.chance(0.5);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(if symmetric { 1 } else { 2 }, 6)).collect();
    let limit = |n: usize| if symmetric { n } else { n - 1 };
    let pads: Vec<i32> = (0..2 * rank).map(|i| r.size(0, limit(shape[i / 2]).min(3)) as i32).collect();
    let out: Vec<usize> = (0..rank).map(|i| shape[i] + (pads[2 * i] + pads[2 * i + 1]) as usize).collect();
    let mut b = Builder::default();
    let input = b.input("input", &shape, ty, q.clone());
    let paddings = b.ints("paddings", &[rank, 2], &pads);
    let output = b.output("output", &out, ty, q);
    let label = format!("{} {shape:?} pads {pads:?} {}", ty.name(), if symmetric { "SYMMETRIC" } else { "REFLECT" });
    let options = vec![(0, Scalar::I8(symmetric as i8))];
    (b.finish(100, &[input, paddings], &[output], Some((77, options))), label)
}

/// SPACE_TO_BATCH_ND (paddings) and BATCH_TO_SPACE_ND (crops), NHWC or NHC.
/// SPACE_TO_BATCH_ND without padding: TFLM pads with an uninitialized
/// value (see the compiler's `space_batch.rs`), so padded cases cannot be
/// compared.
pub(super) fn space_batch(r: &mut Rng, to_batch: bool) -> (Model, String) {
    let (ty, q) = movement_ty(r, FLOAT_INT8);
    let unpadded = to_batch;
    let rank4 = r.chance(0.75);
    let spatial = if rank4 { 2 } else { 1 };
    let block: Vec<usize> = (0..spatial).map(|_| r.size(1, 3)).collect();
    let (n, c) = (r.size(1, 2), r.size(1, 4));
    let mut pads = Vec::new();
    let mut space = Vec::new();
    let mut blocked = Vec::new();
    for &k in &block {
        let out = r.size(1, 4);
        // The padded (or uncropped) size is out * k; split its excess.
        let full = out * k;
        let excess = if unpadded { 0 } else { r.size(0, (full - 1).min(3)) };
        let before = r.size(0, excess);
        pads.extend([before as i32, (excess - before) as i32]);
        space.push(full - excess);
        blocked.push(out);
    }
    let prod: usize = block.iter().product();
    let mut space_shape = vec![n];
    space_shape.extend(&space);
    space_shape.push(c);
    let mut batch_shape = vec![n * prod];
    batch_shape.extend(&blocked);
    batch_shape.push(c);
    let (in_shape, out_shape) = if to_batch { (space_shape, batch_shape) } else { (batch_shape, space_shape) };
    let mut b = Builder::default();
    let input = b.input("input", &in_shape, ty, q.clone());
    let block_i32: Vec<i32> = block.iter().map(|&k| k as i32).collect();
    let block_t = b.ints("block_shape", &[spatial], &block_i32);
    let pads_t = b.ints(if to_batch { "paddings" } else { "crops" }, &[spatial, 2], &pads);
    let output = b.output("output", &out_shape, ty, q);
    let label = format!("{} {in_shape:?} -> {out_shape:?} block {block:?} pads {pads:?}", ty.name());
    (b.finish(if to_batch { 38 } else { 37 }, &[input, block_t, pads_t], &[output], None), label)
}

/// BROADCAST_TO: an input of up to the output's rank with some dimensions 1.
pub(super) fn broadcast_to(r: &mut Rng) -> (Model, String) {
    let (ty, q) = movement_ty(r, ALL);
    let rank = r.size(1, 5);
    let out: Vec<usize> = (0..rank).map(|_| r.size(1, 4)).collect();
    let in_rank = r.size(0, rank);
    let shape: Vec<usize> = out[rank - in_rank..].iter().map(|&n| if r.chance(0.5) { 1 } else { n }).collect();
    let mut b = Builder::default();
    let input = b.input("input", &shape, ty, q.clone());
    let out_i32: Vec<i32> = out.iter().map(|&n| n as i32).collect();
    let shape_t = b.ints("shape", &[rank], &out_i32);
    let output = b.output("output", &out, ty, q);
    let label = format!("{} {shape:?} -> {out:?}", ty.name());
    (b.finish(130, &[input, shape_t], &[output], None), label)
}

/// TILE (LiteRT's builtin; TFLM has none): rank 1 to 5, multiples 1 to 3
/// as an int32 or int64 constant. Answered by LiteRT's reference kernels.
pub(super) fn tile(r: &mut Rng) -> (Model, String) {
    let (ty, q) = movement_ty(r, ALL);
    let rank = r.size(1, 5);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(1, 4)).collect();
    let multiples: Vec<usize> = (0..rank).map(|_| r.size(1, 3)).collect();
    let out: Vec<usize> = shape.iter().zip(&multiples).map(|(&d, &m)| d * m).collect();
    let mut b = Builder::default();
    let input = b.input("input", &shape, ty, q.clone());
    let wide = r.chance(0.3);
    let m = if wide {
        let bytes = multiples.iter().flat_map(|&m| (m as i64).to_le_bytes()).collect();
        b.constant("multiples", &[rank], Ty::I64, bytes, None)
    } else {
        let m32: Vec<i32> = multiples.iter().map(|&m| m as i32).collect();
        b.ints("multiples", &[rank], &m32)
    };
    let output = b.output("output", &out, ty, q);
    let label = format!("{} {shape:?} x {multiples:?}{}", ty.name(), if wide { " (int64)" } else { "" });
    let mut model = b.finish(69, &[input, m], &[output], None);
    model.litert = true;
    (model, label)
}

/// FILL: an input scalar into a constant shape (a constant scalar would
/// leave the model without inputs, which neither side runs).
pub(super) fn fill(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::F32, Ty::I32, Ty::I8]);
    let q = activation_quant(r, ty, 1e-3, 0.5);
    let rank = r.size(1, 4);
    let out: Vec<usize> = (0..rank).map(|_| r.size(1, 5)).collect();
    let mut b = Builder::default();
    let out_i32: Vec<i32> = out.iter().map(|&n| n as i32).collect();
    let dims = b.ints("dims", &[rank], &out_i32);
    let value = b.input("value", &[], ty, q.clone());
    let output = b.output("output", &out, ty, q);
    let label = format!("{} {out:?}", ty.name());
    (b.finish(94, &[dims, value], &[output], None), label)
}

/// ZEROS_LIKE.
pub(super) fn zeros_like(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::F32, Ty::I32, Ty::I64, Ty::I8]);
    let q = activation_quant(r, ty, 1e-3, 0.5);
    let shape: Vec<usize> = (0..r.size(1, 4)).map(|_| r.size(1, 5)).collect();
    let mut b = Builder::default();
    let input = b.input("input", &shape, ty, q.clone());
    let output = b.output("output", &shape, ty, q);
    (b.finish(93, &[input], &[output], None), format!("{} {shape:?}", ty.name()))
}

pub(super) fn transpose(r: &mut Rng) -> (Model, String) {
    let (ty, q) = movement_ty(r, NO_INT32);
    let rank = r.size(1, 5);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(1, 5)).collect();
    let mut perm: Vec<usize> = (0..rank).collect();
    for i in (1..rank).rev() {
        perm.swap(i, r.size(0, i));
    }
    let out: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
    let mut b = Builder::default();
    let input = b.input("input", &shape, ty, q.clone());
    let perm_i32: Vec<i32> = perm.iter().map(|&p| p as i32).collect();
    let perm_t = b.ints("perm", &[rank], &perm_i32);
    let output = b.output("output", &out, ty, q);
    let label = format!("{} {shape:?} perm {perm:?}", ty.name());
    (b.finish(39, &[input, perm_t], &[output], None), label)
}

pub(super) fn reshape(r: &mut Rng) -> (Model, String) {
    let (ty, q) = movement_ty(r, NO_INT32);
    let shape: Vec<usize> = (0..r.size(1, 4)).map(|_| r.size(1, 6)).collect();
    let n: usize = shape.iter().product();
    let out: Vec<usize> = if r.chance(0.5) { vec![n] } else { vec![1, n] };
    let mut b = Builder::default();
    let input = b.input("input", &shape, ty, q.clone());
    // Reshape then a unary op, so the view feeds a kernel.
    let mid = b.tensor("reshaped", &out, ty, q.clone());
    let shape_i32: Vec<i32> = out.iter().map(|&d| d as i32).collect();
    let new_shape = b.ints("shape", &[out.len()], &shape_i32);
    let output = b.output("output", &out, ty, q);
    let label = format!("{} {shape:?} -> {out:?}", ty.name());
    let mut m = b.finish(22, &[input, new_shape], &[mid], None);
    m.def.opcodes.push((39, None)); // TRANSPOSE with the identity permutation
    let perm: Vec<i32> = (0..out.len() as i32).collect();
    let sub = &mut m.def.subgraphs[0];
    m.def.buffers.push(perm.iter().flat_map(|v| v.to_le_bytes()).collect());
    sub.tensors.push(tinyaot_tests::writer::TensorDef::constant(
        "perm",
        &[out.len() as i32],
        Ty::I32.code(),
        m.def.buffers.len() as u32 - 1,
        None,
    ));
    let perm_t = sub.tensors.len() as i32 - 1;
    sub.ops.push(tinyaot_tests::writer::OpDef {
        opcode: 1,
        inputs: vec![mid, perm_t],
        outputs: vec![output],
        options: None,
        custom_options: None,
    });
    (m, label)
}

pub(super) fn space_depth(r: &mut Rng, code: i32, options_tag: u8) -> (Model, String) {
    let (ty, q) = movement_ty(r, FLOAT_INT8);
    let block = r.size(1, 3);
    let (shape, out) = if code == 26 {
        let (h, w, c) = (block * r.size(1, 4), block * r.size(1, 4), r.size(1, 4));
        (vec![1, h, w, c], vec![1, h / block, w / block, c * block * block])
    } else {
        let (h, w, c) = (r.size(1, 4), r.size(1, 4), block * block * r.size(1, 3));
        (vec![1, h, w, c], vec![1, h * block, w * block, c / (block * block)])
    };
    let mut b = Builder::default();
    let input = b.input("input", &shape, ty, q.clone());
    let output = b.output("output", &out, ty, q);
    let label = format!("{} {shape:?} block {block}", ty.name());
    (b.finish(code, &[input], &[output], Some((options_tag, vec![(0, Scalar::I32(block as i32))]))), label)
}

pub(super) fn resize(r: &mut Rng, code: i32, options_tag: u8) -> (Model, String) {
    let ty = if code == 23 { r.pick(FLOAT_INT8) } else { movement_ty(r, NO_INT32).0 };
    let q = activation_quant(r, ty, 1e-3, 0.5);
    let (h, w, c) = (r.size(1, 6), r.size(1, 6), r.size(1, 4));
    let (oh, ow) = (r.size(1, 12), r.size(1, 12));
    let align = r.chance(0.3);
    let half = !align && r.chance(0.5);
    let mut b = Builder::default();
    let input = b.input("input", &[1, h, w, c], ty, q.clone());
    let size = b.ints("size", &[2], &[oh as i32, ow as i32]);
    let output = b.output("output", &[1, oh, ow, c], ty, q);
    let (fa, fh) = if code == 23 { (2, 3) } else { (0, 1) };
    let options = vec![(fa, Scalar::Bool(align)), (fh, Scalar::Bool(half))];
    let label = format!(
        "{} {h}x{w}x{c} -> {oh}x{ow}{}{}",
        ty.name(),
        if align { " align_corners" } else { "" },
        if half { " half_pixel_centers" } else { "" }
    );
    (b.finish(code, &[input, size], &[output], Some((options_tag, options))), label)
}

pub(super) fn gather(r: &mut Rng) -> (Model, String) {
    let (ty, q) = movement_ty(r, FLOAT_INT8);
    let rank = r.size(1, 4);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(1, 6)).collect();
    let axis = r.size(0, rank - 1);
    let n = r.size(1, 5);
    let indices: Vec<i32> = (0..n).map(|_| r.range(0, shape[axis] as i64 - 1) as i32).collect();
    let mut out: Vec<usize> = shape[..axis].to_vec();
    out.push(n);
    out.extend_from_slice(&shape[axis + 1..]);
    let written = if r.chance(0.3) { axis as i32 - rank as i32 } else { axis as i32 };
    let mut b = Builder::default();
    let input = b.input("params", &shape, ty, q.clone());
    let idx = b.ints("indices", &[n], &indices);
    let output = b.output("output", &out, ty, q);
    let label = format!("{} {shape:?} axis {written} indices {indices:?}", ty.name());
    (b.finish(36, &[input, idx], &[output], Some((23, vec![(0, Scalar::I32(written))]))), label)
}

pub(super) fn strided_slice(r: &mut Rng) -> (Model, String) {
    let (ty, q) = movement_ty(r, ALL);
    let rank = r.size(1, 4);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(1, 7)).collect();
    let (mut begin, mut end, mut strides, mut out) = (vec![], vec![], vec![], vec![]);
    let (mut begin_mask, mut end_mask, mut shrink) = (0i32, 0i32, 0i32);
    for (i, &d) in shape.iter().enumerate() {
        let d = d as i64;
        if r.chance(0.15) {
            // Shrink: one index, the dimension disappears.
            let at = r.range(0, d - 1);
            begin.push(if r.chance(0.3) { (at - d) as i32 } else { at as i32 });
            end.push(at as i32 + 1);
            strides.push(1);
            shrink |= 1 << i;
            continue;
        }
        let stride = r.pick(&[1i64, 1, 2, 3, -1, -2]);
        let (mut b0, mut e0) = (r.range(0, d - 1), r.range(0, d));
        if stride < 0 {
            (b0, e0) = (r.range(0, d - 1), r.range(-1, d - 1));
        }
        if r.chance(0.2) {
            begin_mask |= 1 << i;
            b0 = if stride > 0 { 0 } else { d - 1 };
        }
        if r.chance(0.2) {
            end_mask |= 1 << i;
            e0 = if stride > 0 { d } else { -1 };
        }
        // Elements from b0 towards e0 (exclusive) in steps of |stride|.
        let span = |b0: i64, e0: i64| {
            let d = if stride > 0 { e0 - b0 } else { b0 - e0 };
            (d.max(0) as u64).div_ceil(stride.unsigned_abs()) as i64
        };
        if span(b0, e0) == 0 {
            // An empty slice: take the whole dimension instead.
            (b0, e0) = if stride > 0 { (0, d) } else { (d - 1, -1) };
        }
        out.push(span(b0, e0) as usize);
        begin.push(b0 as i32);
        // A negative end other than the "before 0" sentinel counts from the back.
        end.push(if e0 == -1 && stride < 0 && end_mask & (1 << i) == 0 { -(d as i32) - 1 } else { e0 as i32 });
        strides.push(stride as i32);
    }
    let mut b = Builder::default();
    let input = b.input("input", &shape, ty, q.clone());
    let bt = b.ints("begin", &[rank], &begin);
    let et = b.ints("end", &[rank], &end);
    let st = b.ints("strides", &[rank], &strides);
    let output = b.output("output", &out, ty, q);
    let mut options = vec![(0, Scalar::I32(begin_mask)), (1, Scalar::I32(end_mask)), (4, Scalar::I32(shrink))];
    // Fields TFLM ignores (ellipsis and new-axis masks, offset): set now
    // and then, the output shaped as if they were not.
    let ignored = if r.chance(0.15) { r.size(1, 7) } else { 0 };
    if ignored & 1 != 0 {
        options.push((2, Scalar::I32(1 << r.size(0, rank - 1))));
    }
    if ignored & 2 != 0 {
        options.push((3, Scalar::I32(1 << r.size(0, rank - 1))));
    }
    if ignored & 4 != 0 {
        options.push((5, Scalar::Bool(true)));
    }
    let label = format!(
        "{} {shape:?} begin {begin:?} end {end:?} strides {strides:?} masks b{begin_mask} e{end_mask} s{shrink}{}",
        ty.name(),
        if ignored != 0 { format!(" ignored fields {ignored}") } else { String::new() }
    );
    (b.finish(45, &[input, bt, et, st], &[output], Some((32, options))), label)
}

pub(super) fn slice(r: &mut Rng) -> (Model, String) {
    let (ty, q) = movement_ty(r, ALL);
    let rank = r.size(1, 4);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(1, 7)).collect();
    let begin: Vec<i32> = shape.iter().map(|&d| r.range(0, d as i64 - 1) as i32).collect();
    let size: Vec<i32> = shape
        .iter()
        .zip(&begin)
        .map(|(&d, &b0)| if r.chance(0.2) { -1 } else { r.range(1, d as i64 - b0 as i64) as i32 })
        .collect();
    let out: Vec<usize> = shape
        .iter()
        .zip(&begin)
        .zip(&size)
        .map(|((&d, &b0), &s)| if s < 0 { d - b0 as usize } else { s as usize })
        .collect();
    let mut b = Builder::default();
    let input = b.input("input", &shape, ty, q.clone());
    let bt = b.ints("begin", &[rank], &begin);
    let st = b.ints("size", &[rank], &size);
    let output = b.output("output", &out, ty, q);
    let label = format!("{} {shape:?} begin {begin:?} size {size:?}", ty.name());
    (b.finish(65, &[input, bt, st], &[output], None), label)
}

pub(super) fn split(r: &mut Rng) -> (Model, String) {
    let (ty, q) = movement_ty(r, ALL);
    let rank = r.size(1, 4);
    let axis = r.size(0, rank - 1);
    let parts = r.size(1, 3);
    let mut shape: Vec<usize> = (0..rank).map(|_| r.size(1, 5)).collect();
    shape[axis] = parts * r.size(1, 3);
    let mut out = shape.clone();
    out[axis] /= parts;
    let written = if r.chance(0.3) { axis as i32 - rank as i32 } else { axis as i32 };
    let mut b = Builder::default();
    let axis_t = b.ints("axis", &[], &[written]);
    let input = b.input("input", &shape, ty, q.clone());
    let outputs: Vec<i32> = (0..parts).map(|k| b.output(&format!("out{k}"), &out, ty, q.clone())).collect();
    let label = format!("{} {shape:?} axis {written} into {parts}", ty.name());
    (b.finish(49, &[axis_t, input], &outputs, Some((35, vec![(0, Scalar::I32(parts as i32))]))), label)
}

pub(super) fn pack(r: &mut Rng) -> (Model, String) {
    let (ty, q) = movement_ty(r, ALL);
    let rank = r.size(1, 3);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(1, 5)).collect();
    let n = r.size(1, 4);
    let axis = r.size(0, rank);
    let mut out = shape.clone();
    out.insert(axis, n);
    let mut b = Builder::default();
    let inputs: Vec<i32> = (0..n).map(|k| b.input(&format!("in{k}"), &shape, ty, q.clone())).collect();
    let output = b.output("output", &out, ty, q);
    let label = format!("{} {n} x {shape:?} axis {axis}", ty.name());
    let options = vec![(0, Scalar::I32(n as i32)), (1, Scalar::I32(axis as i32))];
    (b.finish(83, &inputs, &[output], Some((59, options))), label)
}

pub(super) fn split_v(r: &mut Rng) -> (Model, String) {
    let (ty, q) = movement_ty(r, ALL);
    let rank = r.size(1, 4);
    let axis = r.size(0, rank - 1);
    let parts = r.size(1, 4);
    let sizes: Vec<usize> = (0..parts).map(|_| r.size(1, 4)).collect();
    let mut shape: Vec<usize> = (0..rank).map(|_| r.size(1, 5)).collect();
    shape[axis] = sizes.iter().sum();
    // One size may be -1: the rest of the dimension.
    let mut written: Vec<i32> = sizes.iter().map(|&s| s as i32).collect();
    if r.chance(0.3) {
        let k = r.size(0, parts - 1);
        written[k] = -1;
    }
    let mut b = Builder::default();
    let input = b.input("input", &shape, ty, q.clone());
    let sizes_t = b.ints("size_splits", &[parts], &written);
    let axis_t = b.ints("axis", &[], &[axis as i32]);
    let outputs: Vec<i32> = sizes
        .iter()
        .enumerate()
        .map(|(k, &n)| {
            let mut s = shape.clone();
            s[axis] = n;
            b.output(&format!("out{k}"), &s, ty, q.clone())
        })
        .collect();
    let label = format!("{} {shape:?} axis {axis} sizes {written:?}", ty.name());
    (b.finish(102, &[input, sizes_t, axis_t], &outputs, Some((79, vec![(0, Scalar::I32(parts as i32))]))), label)
}

pub(super) fn unpack(r: &mut Rng) -> (Model, String) {
    let (ty, q) = movement_ty(r, ALL);
    let rank = r.size(2, 4);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(1, 4)).collect();
    let axis = r.size(0, rank - 1);
    let mut out = shape.clone();
    let n = out.remove(axis);
    let mut b = Builder::default();
    let input = b.input("input", &shape, ty, q.clone());
    let outputs: Vec<i32> = (0..n).map(|k| b.output(&format!("out{k}"), &out, ty, q.clone())).collect();
    let label = format!("{} {shape:?} axis {axis}", ty.name());
    let options = vec![(0, Scalar::I32(n as i32)), (1, Scalar::I32(axis as i32))];
    (b.finish(88, &[input], &outputs, Some((64, options))), label)
}

pub(super) fn padv2(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::I8, Ty::F32, Ty::I16]);
    let rank = r.size(1, 4);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(1, 6)).collect();
    let pads: Vec<i32> = (0..2 * rank).map(|_| r.pick(&[0, 0, 1, 2, 3])).collect();
    let out: Vec<usize> = (0..rank).map(|i| shape[i] + (pads[2 * i] + pads[2 * i + 1]) as usize).collect();
    let q = activation_quant(r, ty, 1e-3, 0.5);
    let mut b = Builder::default();
    let input = b.input("input", &shape, ty, q.clone());
    let paddings = b.ints("paddings", &[rank, 2], &pads);
    let value = crate::random_values(r, ty, 1);
    let value_t = b.constant("constant_values", &[], ty, value, q.clone());
    let output = b.output("output", &out, ty, q);
    let label = format!("{} {shape:?} pads {pads:?}", ty.name());
    (b.finish(60, &[input, paddings, value_t], &[output], None), label)
}

pub(super) fn squeeze(r: &mut Rng) -> (Model, String) {
    let (ty, q) = movement_ty(r, ALL);
    let rank = r.size(1, 5);
    let shape: Vec<usize> = (0..rank).map(|_| if r.chance(0.4) { 1 } else { r.size(2, 5) }).collect();
    let out: Vec<usize> = shape.iter().copied().filter(|&d| d != 1).collect();
    let mut b = Builder::default();
    let input = b.input("input", &shape, ty, q.clone());
    let output = b.output("output", &out, ty, q);
    let label = format!("{} {shape:?} -> {out:?}", ty.name());
    (b.finish(43, &[input], &[output], None), label)
}

pub(super) fn expand_dims(r: &mut Rng) -> (Model, String) {
    let (ty, q) = movement_ty(r, NO_INT32);
    let rank = r.size(1, 4);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(1, 5)).collect();
    let axis = r.size(0, rank);
    let written = if r.chance(0.3) { axis as i32 - rank as i32 - 1 } else { axis as i32 };
    let mut out = shape.clone();
    out.insert(axis, 1);
    let mut b = Builder::default();
    let input = b.input("input", &shape, ty, q.clone());
    let axis_t = b.ints("axis", &[1], &[written]);
    let output = b.output("output", &out, ty, q);
    let label = format!("{} {shape:?} axis {written}", ty.name());
    (b.finish(70, &[input, axis_t], &[output], None), label)
}

/// SHAPE of an input of any rank and dtype, as int32.
pub(super) fn shape(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::I8, Ty::F32, Ty::I16, Ty::I32, Ty::Bool]);
    let dims: Vec<usize> = (0..r.size(1, 5)).map(|_| r.size(1, 6)).collect();
    let mut b = Builder::default();
    let q = activation_quant(r, ty, 1e-3, 0.5);
    let input = b.input("input", &dims, ty, q);
    let output = b.output("output", &[dims.len()], Ty::I32, None);
    (b.finish(77, &[input], &[output], None), format!("{} {dims:?}", ty.name()))
}

/// GATHER_ND: constant index tuples over params of rank 1 to 4, now and
/// then one running past its dimension into the next (TFLM checks only
/// the flat position).
pub(super) fn gather_nd(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(FLOAT_INT8);
    let dims: Vec<usize> = (0..r.size(1, 4)).map(|_| r.size(1, 5)).collect();
    let nd = r.size(1, dims.len());
    let mut shape: Vec<usize> = (0..r.size(0, 2)).map(|_| r.size(1, 4)).collect();
    let tuples: usize = shape.iter().product();
    shape.push(nd);
    let mut values = Vec::new();
    for _ in 0..tuples {
        for &d in &dims[..nd] {
            values.push(r.range(0, d as i64 - 1) as i32);
        }
        if nd > 1 && dims[nd - 2] > 1 && r.chance(0.1) {
            // One past the last dimension's end: the next row's start.
            let end = values.len();
            values[end - 1] = dims[nd - 1] as i32;
            values[end - 2] = 0;
        }
    }
    let mut out: Vec<usize> = shape[..shape.len() - 1].to_vec();
    out.extend(&dims[nd..]);
    let mut b = Builder::default();
    let q = activation_quant(r, ty, 1e-3, 0.5);
    let params = b.input("params", &dims, ty, q.clone());
    let indices = b.ints("indices", &shape, &values);
    let output = b.output("output", &out, ty, q);
    (b.finish(107, &[params, indices], &[output], None), format!("{} {dims:?} indices {shape:?}", ty.name()))
}

/// DYNAMIC_UPDATE_SLICE: the start a graph input (int32 or int64, small
/// values that TFLM clamps into the operand), or a constant.
pub(super) fn dynamic_update_slice(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(ALL);
    let dims: Vec<usize> = (0..r.size(1, 4)).map(|_| r.size(1, 5)).collect();
    let update: Vec<usize> = dims.iter().map(|&d| r.size(1, d)).collect();
    let index_ty = r.pick(&[Ty::I32, Ty::I64]);
    let mut b = Builder::default();
    let q = activation_quant(r, ty, 1e-3, 0.5);
    let operand = b.input("operand", &dims, ty, q.clone());
    let upd = b.input("update", &update, ty, q.clone());
    let starts = if r.chance(0.3) {
        let values: Vec<i32> = dims.iter().map(|_| r.range(-2, 4) as i32).collect();
        b.ints("starts", &[dims.len()], &values)
    } else {
        b.input("starts", &[dims.len()], index_ty, None)
    };
    let out = b.output("output", &dims, ty, q);
    let mut m = b.finish(151, &[operand, upd, starts], &[out], None);
    m.narrow = true;
    (m, format!("{} {dims:?} update {update:?} {} starts", ty.name(), index_ty.name()))
}

/// EMBEDDING_LOOKUP: a constant table (or an input), float32, int8, or
/// int8 read as float32; ids constant or a graph input.
pub(super) fn embedding_lookup(r: &mut Rng) -> (Model, String) {
    let (table_ty, out_ty) = r.pick(&[(Ty::F32, Ty::F32), (Ty::I8, Ty::I8), (Ty::I8, Ty::F32)]);
    let rows = r.size(1, 9);
    let mut dims = vec![rows];
    dims.extend((0..r.size(1, 3)).map(|_| r.size(1, 5)));
    let n = r.size(1, 6);
    let mut b = Builder::default();
    let q = match (table_ty, out_ty) {
        (Ty::I8, Ty::F32) => per_tensor(r.log_uniform(1e-3, 0.5), 0),
        _ => activation_quant(r, table_ty, 1e-3, 0.5),
    };
    let computed_ids = r.chance(0.5);
    let ids = if computed_ids {
        b.input("ids", &[n], Ty::I32, None)
    } else {
        let values: Vec<i32> = (0..n).map(|_| r.range(0, rows as i64 - 1) as i32).collect();
        b.ints("ids", &[n], &values)
    };
    // A graph needs an input: constant ids read a computed table.
    let constant_table = computed_ids && r.chance(0.7);
    let table = if constant_table {
        let bytes = crate::random_values(r, table_ty, dims.iter().product());
        b.constant("table", &dims, table_ty, bytes, q.clone())
    } else {
        b.input("table", &dims, table_ty, q.clone())
    };
    let mut out_shape = vec![n];
    out_shape.extend(&dims[1..]);
    let out_q = if out_ty == Ty::F32 { None } else { q };
    let out = b.output("output", &out_shape, out_ty, out_q);
    let mut m = b.finish(7, &[ids, table], &[out], None);
    if computed_ids {
        m.ids_below = Some((0, rows as i32));
    }
    let label = format!(
        "{} -> {} table {dims:?}{} ids [{n}]{}",
        table_ty.name(),
        out_ty.name(),
        if constant_table { " (constant)" } else { "" },
        if computed_ids { " (computed)" } else { "" }
    );
    (m, label)
}

/// BROADCAST_ARGS of two computed shapes (int32 or int64) that broadcast:
/// each dimension equal, or 1 on one side.
pub(super) fn broadcast_args(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::I32, Ty::I64]);
    let (a, c, out) = broadcast_shapes(r);
    let mut b = Builder::default();
    let x = b.input("a", &[a.len()], ty, None);
    let y = b.input("b", &[c.len()], ty, None);
    let o = b.output("output", &[out.len()], ty, None);
    let mut m = b.finish(145, &[x, y], &[o], None);
    m.fixed = Some([a.clone(), c.clone()].concat().iter().map(|&d| d as i64).collect());
    (m, format!("{} {a:?} {c:?} -> {out:?}", ty.name()))
}
