//! Convolutions and matrix products: CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, TRANSPOSE_CONV, BATCH_MATMUL (hybrid forms too), and the compressed, int4, float16 and dead-channel weights they take.

use super::*;

/// `wide`: many channels and long rows (int8 mostly, 1x1 half the time),
/// the shapes the DSP cores' two-pixel paths take (`DOT_PAIRS`), odd pixel
/// and channel counts included.
pub(super) fn conv_2d(r: &mut Rng, wide: bool) -> (Model, String) {
    let ty = if wide { r.pick(&[Ty::I8, Ty::I8, Ty::I8, Ty::I16]) } else { conv_like_ty(r) };
    let (h, w) = if wide { (r.size(1, 7), r.size(1, 7)) } else { (r.size(1, 11), r.size(1, 11)) };
    let groups = if wide { 1 } else { r.pick(&[1, 1, 1, 2, 3]) };
    let group_channels = if wide { r.size(4, 72) } else { r.size(1, 4) };
    let c = groups * group_channels;
    let oc = groups * if wide { r.size(1, 100) } else { r.size(1, 4) };
    let (kh, kw) = if wide && r.chance(0.5) { (1, 1) } else { (r.size(1, 4), r.size(1, 4)) };
    let (sh, sw) = (r.size(1, 3), r.size(1, 3));
    let (dh, dw) = if r.chance(0.25) { (r.size(1, 3), r.size(1, 3)) } else { (1, 1) };
    let mut padding = r.pick(&[0i8, 1]);
    let (mut oh, mut ow) = (out_size(padding, h, kh, sh, dh), out_size(padding, w, kw, sw, dw));
    if oh.is_none() || ow.is_none() {
        padding = 0;
        (oh, ow) = (out_size(0, h, kh, sh, dh), out_size(0, w, kw, sw, dw));
    }
    let (oh, ow) = (oh.unwrap(), ow.unwrap());
    let act = activation(r);
    let per_channel = ty != Ty::F32 && r.chance(0.7);
    let mut b = Builder::default();
    let in_q = activation_quant(r, ty, 1e-3, 0.5);
    let input = b.input("input", &[1, h, w, c], ty, in_q.clone());
    let depth = kh * kw * group_channels;
    let (filter, w_scales) = weights(&mut b, r, ty, "filter", &[oc, kh, kw, group_channels], (oc, 0), per_channel, 1.0);
    let with_bias = r.chance(0.8);
    let bias = if with_bias { bias(&mut b, r, ty, oc, scale_of(&in_q), &w_scales) } else { -1 };
    let out_q = output_quant(r, ty, dot_magnitude(ty, scale_of(&in_q), w_scales[0], depth));
    let output = b.output("output", &[1, oh, ow, oc], ty, out_q);
    let options = conv_options(padding, [sh, sw], act, [dh, dw]);
    let label = format!(
        "{} {h}x{w}x{c} -> {oc}, {kh}x{kw} stride {sh}x{sw} dilation {dh}x{dw} {} {} groups {groups}{}{}",
        ty.name(),
        ["SAME", "VALID"][padding as usize],
        act_name(act),
        if per_channel { " per-channel" } else { "" },
        if with_bias { "" } else { " no bias" },
    );
    (b.finish(3, &[input, filter, bias], &[output], Some((CONV_2D_OPTIONS, options))), label)
}

/// Hybrid (dynamic-range) CONV_2D: float32 input and output, constant int8
/// filter with one scale, per-channel scales or filter groups (LiteRT's two
/// paths), float32 bias. Answered by LiteRT's reference kernels.
pub(super) fn conv_2d_hybrid(r: &mut Rng) -> (Model, String) {
    let (h, w) = (r.size(1, 9), r.size(1, 9));
    let groups = r.pick(&[1, 1, 1, 2]);
    let group_channels = r.size(1, 6);
    let c = groups * group_channels;
    let oc = groups * r.size(1, 5);
    let (kh, kw) = (r.size(1, 3), r.size(1, 3));
    let (sh, sw) = (r.size(1, 2), r.size(1, 2));
    let (dh, dw) = if r.chance(0.2) { (r.size(1, 2), r.size(1, 2)) } else { (1, 1) };
    let mut padding = r.pick(&[0i8, 1]);
    if out_size(padding, h, kh, sh, dh).is_none() || out_size(padding, w, kw, sw, dw).is_none() {
        padding = 0;
    }
    let (Some(oh), Some(ow)) = (out_size(padding, h, kh, sh, dh), out_size(padding, w, kw, sw, dw)) else {
        return conv_2d_hybrid(r);
    };
    let act = activation(r);
    let per_channel = groups > 1 || r.chance(0.5);
    let batches = r.pick(&[1, 1, 2]);
    let mut b = Builder::default();
    let input = b.input("input", &[batches, h, w, c], Ty::F32, None);
    let (filter, _) = weights(&mut b, r, Ty::I8, "filter", &[oc, kh, kw, group_channels], (oc, 0), per_channel, 1.0);
    let bias = bias(&mut b, r, Ty::F32, oc, 1.0, &[]);
    let output = b.output("output", &[batches, oh, ow, oc], Ty::F32, None);
    let options = conv_options(padding, [sh, sw], act, [dh, dw]);
    let label = format!(
        "{batches}x{h}x{w}x{c} -> {oc}, {kh}x{kw} stride {sh}x{sw} dilation {dh}x{dw} {} {} groups {groups}{}",
        ["SAME", "VALID"][padding as usize],
        act_name(act),
        if per_channel { " per-channel" } else { "" },
    );
    let mut m = b.finish(3, &[input, filter, bias], &[output], Some((CONV_2D_OPTIONS, options)));
    m.litert = true;
    let label = uint8_weights(r, &mut m, filter, label);
    (m, label)
}

/// `wide`: int8 with multiplier 1 and 8 to 48 channels in whole groups
/// of 8, the vector kernel's shapes (Helium), which the general draw
/// seldom makes.
pub(super) fn depthwise_conv_2d(r: &mut Rng, wide: bool) -> (Model, String) {
    let ty = if wide { Ty::I8 } else { conv_like_ty(r) };
    let (h, w) = (r.size(1, 11), r.size(1, 11));
    // Wide: whole groups of 8 channels (Helium's vector depthwise) or a
    // partial last group.
    let c = match wide {
        true if r.chance(0.5) => 8 * r.size(1, 6),
        true => r.size(9, 47),
        false => r.size(1, 8),
    };
    let multiplier = if wide { 1 } else { r.pick(&[1, 1, 1, 2, 3]) };
    let oc = c * multiplier;
    let (kh, kw) = (r.size(1, 5), r.size(1, 5));
    let (sh, sw) = (r.size(1, 3), r.size(1, 3));
    let (dh, dw) = if r.chance(0.25) { (r.size(1, 3), r.size(1, 3)) } else { (1, 1) };
    let mut padding = r.pick(&[0i8, 1]);
    if out_size(padding, h, kh, sh, dh).is_none() || out_size(padding, w, kw, sw, dw).is_none() {
        padding = 0;
    }
    let oh = out_size(padding, h, kh, sh, dh).unwrap();
    let ow = out_size(padding, w, kw, sw, dw).unwrap();
    let act = activation(r);
    let per_channel = ty != Ty::F32 && r.chance(0.7);
    let mut b = Builder::default();
    let in_q = activation_quant(r, ty, 1e-3, 0.5);
    let input = b.input("input", &[1, h, w, c], ty, in_q.clone());
    let (filter, w_scales) = weights(&mut b, r, ty, "filter", &[1, kh, kw, oc], (oc, 3), per_channel, 1.0);
    // TFLM's depthwise kernels read the bias unconditionally: an omitted
    // one crashes the interpreter (float too), so TFLM cannot judge it.
    let bias = bias(&mut b, r, ty, oc, scale_of(&in_q), &w_scales);
    let out_q = output_quant(r, ty, dot_magnitude(ty, scale_of(&in_q), w_scales[0], kh * kw));
    let output = b.output("output", &[1, oh, ow, oc], ty, out_q);
    let options = depthwise_options(padding, [sh, sw], multiplier, act, [dh, dw]);
    let label = format!(
        "{} {h}x{w}x{c} x{multiplier}, {kh}x{kw} stride {sh}x{sw} dilation {dh}x{dw} {} {}{}",
        ty.name(),
        ["SAME", "VALID"][padding as usize],
        act_name(act),
        if per_channel { " per-channel" } else { "" },
    );
    (b.finish(4, &[input, filter, bias], &[output], Some((DEPTHWISE_OPTIONS, options))), label)
}

/// Hybrid (dynamic-range) DEPTHWISE_CONV_2D: float32 input and output,
/// constant int8 filter with a scale per output channel (what LiteRT
/// reads), float32 bias, batch 1 or 2. Answered by LiteRT's reference
/// kernels.
pub(super) fn depthwise_conv_2d_hybrid(r: &mut Rng) -> (Model, String) {
    let (h, w) = (r.size(1, 9), r.size(1, 9));
    let c = r.size(1, 6);
    let multiplier = r.pick(&[1, 1, 2, 3]);
    let oc = c * multiplier;
    let (kh, kw) = (r.size(1, 4), r.size(1, 4));
    let (sh, sw) = (r.size(1, 2), r.size(1, 2));
    let (dh, dw) = if r.chance(0.2) { (r.size(1, 2), r.size(1, 2)) } else { (1, 1) };
    let mut padding = r.pick(&[0i8, 1]);
    if out_size(padding, h, kh, sh, dh).is_none() || out_size(padding, w, kw, sw, dw).is_none() {
        padding = 0;
    }
    let (Some(oh), Some(ow)) = (out_size(padding, h, kh, sh, dh), out_size(padding, w, kw, sw, dw)) else {
        return depthwise_conv_2d_hybrid(r);
    };
    let act = activation(r);
    let batches = r.pick(&[1, 1, 2]);
    let mut b = Builder::default();
    let input = b.input("input", &[batches, h, w, c], Ty::F32, None);
    let (filter, _) = weights(&mut b, r, Ty::I8, "filter", &[1, kh, kw, oc], (oc, 3), true, 1.0);
    let bias = bias(&mut b, r, Ty::F32, oc, 1.0, &[]);
    let output = b.output("output", &[batches, oh, ow, oc], Ty::F32, None);
    let options = depthwise_options(padding, [sh, sw], multiplier, act, [dh, dw]);
    let label = format!(
        "{batches}x{h}x{w}x{c} x{multiplier}, {kh}x{kw} stride {sh}x{sw} dilation {dh}x{dw} {} {}",
        ["SAME", "VALID"][padding as usize],
        act_name(act),
    );
    let mut m = b.finish(4, &[input, filter, bias], &[output], Some((DEPTHWISE_OPTIONS, options)));
    m.litert = true;
    (m, label)
}

pub(super) fn fully_connected(r: &mut Rng) -> (Model, String) {
    let ty = conv_like_ty(r);
    // A quarter with rows too large for the widened layout (the dense lane
    // kernel's, up to its 640 values, and beyond).
    let depth = if r.chance(0.25) { r.size(41, 700) } else { r.size(1, 40) };
    let units = r.size(1, 20);
    let keep_dims = r.chance(0.3);
    let in_shape: Vec<usize> = if keep_dims { vec![1, r.size(1, 4), depth] } else { vec![r.size(1, 3), depth] };
    let rows: usize = in_shape[..in_shape.len() - 1].iter().product();
    let out_shape: Vec<usize> = if keep_dims { vec![1, in_shape[1], units] } else { vec![rows, units] };
    let act = activation(r);
    let per_channel = ty == Ty::I8 && r.chance(0.3);
    let mut b = Builder::default();
    let in_q = activation_quant(r, ty, 1e-3, 0.5);
    let input = b.input("input", &in_shape, ty, in_q.clone());
    let (weights, w_scales) = weights(&mut b, r, ty, "weights", &[units, depth], (units, 0), per_channel, 1.0);
    let with_bias = r.chance(0.8);
    let bias = if with_bias { bias(&mut b, r, ty, units, scale_of(&in_q), &w_scales) } else { -1 };
    let out_q = output_quant(r, ty, dot_magnitude(ty, scale_of(&in_q), w_scales[0], depth));
    let output = b.output("output", &out_shape, ty, out_q);
    let options = vec![(0, Scalar::I8(act)), (2, Scalar::Bool(keep_dims))];
    let label = format!(
        "{} {in_shape:?} -> {units} {}{}{}{}",
        ty.name(),
        act_name(act),
        if keep_dims { " keep_num_dims" } else { "" },
        if per_channel { " per-channel" } else { "" },
        if with_bias { "" } else { " no bias" },
    );
    (b.finish(9, &[input, weights, bias], &[output], Some((FULLY_CONNECTED_OPTIONS, options))), label)
}

/// Hybrid (dynamic-range) FULLY_CONNECTED: float32 input and output,
/// constant int8 weights with a per-tensor or per-channel scale, float32
/// bias or none, inputs quantized symmetrically or not
/// (`asymmetric_quantize_inputs`). TFLM does not run these: LiteRT's
/// reference kernels answer (float32 within 1e-5).
pub(super) fn fully_connected_hybrid(r: &mut Rng) -> (Model, String) {
    let depth = r.size(1, 48);
    let units = r.size(1, 20);
    let keep_dims = r.chance(0.3);
    let in_shape: Vec<usize> = if keep_dims { vec![1, r.size(1, 4), depth] } else { vec![r.size(1, 3), depth] };
    let rows: usize = in_shape[..in_shape.len() - 1].iter().product();
    let out_shape: Vec<usize> = if keep_dims { vec![1, in_shape[1], units] } else { vec![rows, units] };
    let act = activation(r);
    let per_channel = r.chance(0.4);
    let asymmetric = r.chance(0.5);
    let mut b = Builder::default();
    let input = b.input("input", &in_shape, Ty::F32, None);
    let (weights, _) = weights(&mut b, r, Ty::I8, "weights", &[units, depth], (units, 0), per_channel, 1.0);
    let with_bias = r.chance(0.8);
    let bias = if with_bias { bias(&mut b, r, Ty::F32, units, 1.0, &[]) } else { -1 };
    let output = b.output("output", &out_shape, Ty::F32, None);
    let options = vec![(0, Scalar::I8(act)), (2, Scalar::Bool(keep_dims)), (3, Scalar::Bool(asymmetric))];
    let label = format!(
        "{in_shape:?} -> {units} {}{}{}{}{}",
        act_name(act),
        if keep_dims { " keep_num_dims" } else { "" },
        if per_channel { " per-channel" } else { "" },
        if asymmetric { " asymmetric inputs" } else { "" },
        if with_bias { "" } else { " no bias" },
    );
    let mut m = b.finish(9, &[input, weights, bias], &[output], Some((FULLY_CONNECTED_OPTIONS, options)));
    m.litert = true;
    let label = uint8_weights(r, &mut m, weights, label);
    (m, label)
}

pub(super) fn transpose_conv(r: &mut Rng) -> (Model, String) {
    let ty = conv_like_ty(r);
    let (h, w, c) = (r.size(1, 6), r.size(1, 6), r.size(1, 4));
    let oc = r.size(1, 4);
    let (kh, kw) = (r.size(1, 4), r.size(1, 4));
    let (sh, sw) = (r.size(1, 3), r.size(1, 3));
    let padding = r.pick(&[0i8, 1]);
    // TFLite's output size for each padding.
    let size = |i: usize, k: usize, s: usize| if padding == 0 { i * s } else { (i - 1) * s + k };
    let (oh, ow) = (size(h, kh, sh), size(w, kw, sw));
    let per_channel = ty != Ty::F32 && r.chance(0.7);
    let mut b = Builder::default();
    // TFLM ignores the output shape input: streaming models feed it from a
    // graph input.
    let fed = r.chance(0.2);
    let shape_t = if fed {
        b.input("output_shape", &[4], Ty::I32, None)
    } else {
        b.ints("output_shape", &[4], &[1, oh as i32, ow as i32, oc as i32])
    };
    let in_q = activation_quant(r, ty, 1e-3, 0.5);
    let (filter, w_scales) = weights(&mut b, r, ty, "filter", &[oc, kh, kw, c], (oc, 0), per_channel, 1.0);
    let input = b.input("input", &[1, h, w, c], ty, in_q.clone());
    let with_bias = r.chance(0.7);
    let bias = if with_bias { bias(&mut b, r, ty, oc, scale_of(&in_q), &w_scales) } else { -1 };
    let out_q = output_quant(r, ty, dot_magnitude(ty, scale_of(&in_q), w_scales[0], kh * kw * c));
    let output = b.output("output", &[1, oh, ow, oc], ty, out_q);
    let options = vec![(0, Scalar::I8(padding)), (1, Scalar::I32(sw as i32)), (2, Scalar::I32(sh as i32))];
    let label = format!(
        "{} {h}x{w}x{c} -> {oh}x{ow}x{oc}, {kh}x{kw} stride {sh}x{sw} {}{}{}{}",
        ty.name(),
        ["SAME", "VALID"][padding as usize],
        if per_channel { " per-channel" } else { "" },
        if with_bias { "" } else { " no bias" },
        if fed { " output shape fed" } else { "" },
    );
    (b.finish(67, &[shape_t, filter, input, bias], &[output], Some((49, options))), label)
}

pub(super) fn batch_matmul(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::I8, Ty::I8, Ty::F32, Ty::I16]);
    let (ls, rs, os, adj_x, adj_y) = batch_matmul_shapes(r);
    let k = if adj_x { ls[ls.len() - 2] } else { ls[ls.len() - 1] };
    let mut b = Builder::default();
    let ql = activation_quant(r, ty, 1e-3, 0.5);
    let qr = activation_quant(r, ty, 1e-3, 0.5);
    let magnitude = match ty {
        Ty::F32 => 2.0 * (k as f64).sqrt(),
        Ty::I16 => 19000.0 * scale_of(&ql) * 19000.0 * scale_of(&qr) * (k as f64).sqrt(),
        _ => 74.0 * scale_of(&ql) * 74.0 * scale_of(&qr) * (k as f64).sqrt(),
    };
    let qo = output_quant(r, ty, magnitude);
    let lhs = b.input("lhs", &ls, ty, ql);
    let constant = r.chance(0.3);
    let rhs = if constant {
        let count: usize = rs.iter().product();
        let bytes = crate::random_values(r, ty, count);
        b.constant("rhs", &rs, ty, bytes, qr)
    } else {
        b.input("rhs", &rs, ty, qr)
    };
    let out = b.output("output", &os, ty, qo);
    let options = vec![(0, Scalar::Bool(adj_x)), (1, Scalar::Bool(adj_y))];
    let label = format!(
        "{} {ls:?} x {rs:?}{} -> {os:?}{}{}",
        ty.name(),
        if constant { " (constant)" } else { "" },
        if adj_x { " adj_x" } else { "" },
        if adj_y { " adj_y" } else { "" }
    );
    (b.finish(126, &[lhs, rhs], &[out], Some((BATCH_MATMUL_OPTIONS, options))), label)
}

/// Hybrid BATCH_MATMUL (float32 lhs and output, a constant int8 rhs,
/// which TFLM does not run), answered by LiteRT's reference kernel: the
/// shapes of `batch_matmul`, one scale or one per column, symmetric or
/// asymmetric input rows.
pub(super) fn batch_matmul_hybrid(r: &mut Rng) -> (Model, String) {
    let (ls, mut rs, mut os, adj_x, adj_y) = batch_matmul_shapes(r);
    let n = os[os.len() - 1];
    let per_channel = r.chance(0.4);
    let mut asymmetric = r.chance(0.5);
    // LiteRT sums the weight rows of batch dimensions 1 and 2 of five only:
    // with a leading fifth dimension it reads sums it never wrote.
    if rs.len() == 5 && rs[0] > 1 {
        if r.chance(0.5) {
            asymmetric = false;
        } else {
            rs[0] = 1;
            os[0] = if ls.len() == 5 { ls[0] } else { 1 };
        }
    }
    let mut b = Builder::default();
    let lhs = b.input("lhs", &ls, Ty::F32, None);
    let axis = if adj_y { rs.len() - 2 } else { rs.len() - 1 };
    let (rhs, _) = weights(&mut b, r, Ty::I8, "rhs", &rs, (n, axis as i32), per_channel, 1.0);
    let out = b.output("output", &os, Ty::F32, None);
    let options = vec![(0, Scalar::Bool(adj_x)), (1, Scalar::Bool(adj_y)), (2, Scalar::Bool(asymmetric))];
    let label = format!(
        "{ls:?} x int8 {rs:?} -> {os:?}{}{}{}{}",
        if adj_x { " adj_x" } else { "" },
        if adj_y { " adj_y" } else { "" },
        if per_channel { " per-channel" } else { "" },
        if asymmetric { " asymmetric inputs" } else { "" },
    );
    let mut m = b.finish(126, &[lhs, rhs], &[out], Some((BATCH_MATMUL_OPTIONS, options)));
    m.litert = true;
    (m, label)
}

/// float16 weights as the converter writes them (a constant behind a
/// DEQUANTIZE) into a float32 FULLY_CONNECTED or CONV_2D. TFLM has no
/// float16 DEQUANTIZE: it runs the float32 twin, the same weights widened.
pub(super) fn float16_weights(r: &mut Rng) -> (Model, String) {
    let conv = r.chance(0.5);
    let (batch, depth, units) = (r.size(1, 3), r.size(1, 12), r.size(1, 8));
    let (h, w, k) = (r.size(2, 6), r.size(2, 6), r.size(1, 2));
    let (in_shape, w_shape, out_shape) = if conv {
        let (oh, ow) = (h - k + 1, w - k + 1);
        (vec![1, h, w, depth], vec![units, k, k, depth], vec![1, oh, ow, units])
    } else {
        (vec![batch, depth], vec![units, depth], vec![batch, units])
    };
    let half = crate::random_values(r, Ty::F16, w_shape.iter().product());
    let wide: Vec<u8> =
        half.chunks_exact(2).flat_map(|h| half_value(u16::from_le_bytes([h[0], h[1]])).to_le_bytes()).collect();
    let build = |folded: bool| {
        let mut b = Builder::default();
        let x = b.input("x", &in_shape, Ty::F32, None);
        let weights = if folded {
            let h = b.constant("weights_f16", &w_shape, Ty::F16, half.clone(), None);
            let w = b.tensor("weights", &w_shape, Ty::F32, None);
            b.op(6, &[h], &[w], None);
            w
        } else {
            b.constant("weights", &w_shape, Ty::F32, wide.clone(), None)
        };
        let y = b.output("y", &out_shape, Ty::F32, None);
        if conv {
            let options = vec![(0, Scalar::I8(1)), (1, Scalar::I32(1)), (2, Scalar::I32(1))];
            b.op(3, &[x, weights, -1], &[y], Some((CONV_2D_OPTIONS, options)));
        } else {
            b.op(9, &[x, weights, -1], &[y], Some((FULLY_CONNECTED_OPTIONS, vec![])));
        }
        b.finish_graph()
    };
    let mut m = build(true);
    m.reference = Some(build(false).def);
    (m, format!("{} {in_shape:?} weights {w_shape:?}", if conv { "CONV_2D" } else { "FULLY_CONNECTED" }))
}

/// int4 weights (TensorType 17, two per byte, low nibble first) on int8
/// CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED, as TFLM takes them: one
/// of those generators' int8 models, its weights redrawn in -8..=7 and
/// packed.
pub(super) fn int4_weights(r: &mut Rng) -> (Model, String) {
    const INT4: i8 = 17;
    loop {
        let (op, generate) = r.pick(&[
            ("CONV_2D", (|r| conv_2d(r, false)) as Generator),
            ("DEPTHWISE_CONV_2D", (|r| depthwise_conv_2d(r, false)) as Generator),
            ("FULLY_CONNECTED", fully_connected),
        ]);
        let (mut m, label) = generate(r);
        let sg = &mut m.def.subgraphs[0];
        let Some(&w) = sg.ops[0].inputs.get(1) else { continue };
        let weights = &sg.tensors[w as usize];
        let input = &sg.tensors[sg.ops[0].inputs[0] as usize];
        if weights.dtype != Ty::I8.code() || input.dtype != Ty::I8.code() || weights.buffer == 0 {
            continue;
        }
        let buffer = weights.buffer as usize;
        let values: Vec<i8> = m.def.buffers[buffer].iter().map(|_| r.range(-8, 7) as i8).collect();
        let packed: Vec<u8> =
            values.chunks(2).map(|p| (p[0] as u8 & 0x0F) | ((*p.get(1).unwrap_or(&0) as u8 & 0x0F) << 4)).collect();
        m.def.buffers[buffer] = packed;
        m.def.subgraphs[0].tensors[w as usize].dtype = INT4;
        return (m, format!("{op} int4 weights: {label}"));
    }
}

/// Dead output channels as trained models have them (all-zero weights, a
/// bias near +/-2^30 and a weight scale so small that the requantization's
/// right shift passes 23, beyond the short form): int8 CONV_2D,
/// DEPTHWISE_CONV_2D and FULLY_CONNECTED models of those generators with
/// per-channel weights, some channels made dead. Such a channel's output
/// is one value whatever the input, which the fused kernels give
/// (`Requant::settle_constant_channels`).
pub(super) fn dead_channels(r: &mut Rng) -> (Model, String) {
    loop {
        let (op, generate) = r.pick(&[
            (
                "CONV_2D",
                (|r| {
                    let wide = r.chance(0.5);
                    conv_2d(r, wide)
                }) as Generator,
            ),
            ("DEPTHWISE_CONV_2D", (|r| depthwise_conv_2d(r, false)) as Generator),
            ("FULLY_CONNECTED", fully_connected),
        ]);
        let (mut m, label) = generate(r);
        let sg = &m.def.subgraphs[0];
        let (Some(&w), Some(&b)) = (sg.ops[0].inputs.get(1), sg.ops[0].inputs.get(2)) else { continue };
        let (input, output) = (sg.ops[0].inputs[0] as usize, sg.ops[0].outputs[0] as usize);
        if b < 0 || sg.tensors[input].dtype != Ty::I8.code() || sg.tensors[output].dtype != Ty::I8.code() {
            continue;
        }
        let (wt, bt) = (&sg.tensors[w as usize], &sg.tensors[b as usize]);
        let Some(q) = wt.quant.clone() else { continue };
        if wt.dtype != Ty::I8.code() || bt.dtype != Ty::I32.code() || wt.buffer == 0 || bt.buffer == 0 {
            continue;
        }
        let channels = q.scale.len();
        if channels < 2 {
            continue;
        }
        let scale_of = |t: usize| sg.tensors[t].quant.as_ref().map_or(1.0, |q| q.scale[0]);
        let (in_scale, out_scale) = (scale_of(input), scale_of(output));
        let (wb, bb) = (wt.buffer as usize, bt.buffer as usize);
        let (axis, shape) = (q.axis as usize, wt.shape.clone());
        let inner: usize = shape[axis + 1..].iter().map(|&d| d as usize).product();
        let mut scales = q.scale.clone();
        let mut dead = Vec::new();
        for (c, scale) in scales.iter_mut().enumerate() {
            if !(r.chance(0.5) || dead.is_empty() && c + 1 == channels) {
                continue;
            }
            dead.push(c);
            // Every weight of channel c along the quantized axis.
            for (k, v) in m.def.buffers[wb].iter_mut().enumerate() {
                if (k / inner) % channels == c {
                    *v = 0;
                }
            }
            let bias = r.pick(&[1i32, -1]) * (1 << 30) + r.range(-200, 200) as i32;
            m.def.buffers[bb][4 * c..4 * c + 4].copy_from_slice(&bias.to_le_bytes());
            // The effective scale in*w/out: 2^-31 .. 2^-24.
            *scale = (r.log_uniform(4.7e-10, 6.0e-8) as f64 * out_scale as f64 / in_scale as f64) as f32;
        }
        let sg = &mut m.def.subgraphs[0];
        if let Some(q) = sg.tensors[w as usize].quant.as_mut() {
            q.scale = scales;
        }
        return (m, format!("{op} dead channels {dead:?}: {label}"));
    }
}

/// TFLM's DECODE (`TFLM_DECODE`, what its compression tool inserts): a
/// FULLY_CONNECTED, CONV_2D or DEPTHWISE_CONV_2D case (int8, 16x8 or
/// float32) whose filter, and often its bias, are look-up-table
/// compressed: each channel's values cut down to a table of at most
/// `2^width` entries (width 1 to 7), the indices packed most significant
/// bit first, the tables `stride` entries apart (padded past their
/// entries now and then). Channels as TFLM reads them: the tensor's
/// scales along axis 0 (filters, biases), interleaved along the last axis
/// (depthwise filters), one table without quantization (float32). Or, a
/// third of the time, pruned (`DecodeStatePrune`: a bit per element, the
/// kept values listed, the rest zero points), or for int8 tensors
/// Huffman-coded (`DecodeStateHuffman`, one- and two-level tables of 16-
/// or 32-bit entries). One DECODE for all the op's compressed tensors, or
/// one each.
pub(super) fn decode(r: &mut Rng) -> (Model, String) {
    let (mut m, label) = match r.size(0, 2) {
        0 => fully_connected(r),
        1 => conv_2d(r, false),
        _ => depthwise_conv_2d(r, false),
    };
    let def = &mut m.def;
    let op = def.subgraphs[0].ops[0].clone();
    let constants: Vec<i32> = op.inputs[1..]
        .iter()
        .copied()
        .filter(|&t| t >= 0 && def.subgraphs[0].tensors[t as usize].buffer != 0)
        .collect();
    let chosen: Vec<i32> = constants.iter().copied().filter(|_| r.chance(0.7)).collect();
    let chosen = if chosen.is_empty() { constants[..1].to_vec() } else { chosen };
    let mut pairs = Vec::new();
    let mut notes = Vec::new();
    for &t in &chosen {
        let tensor = def.subgraphs[0].tensors[t as usize].clone();
        let size = match tensor.dtype {
            dtype::I8 => 1,
            dtype::I16 => 2,
            dtype::F32 | dtype::I32 => 4,
            _ => 8,
        };
        let data = def.buffers[tensor.buffer as usize].clone();
        let count = data.len() / size;
        let (bits, ancillary, note) = if tensor.dtype == dtype::I8 && r.chance(0.3) {
            huffman_encoded(r, &data, &tensor.name)
        } else if r.chance(0.3) {
            // Pruned: about `keep` of the elements listed in order, a bit
            // each, the others the zero point (0 here: the filters are
            // symmetric, the biases zero-pointed at 0 or unquantized).
            let mut bits = vec![0u8; count.div_ceil(8)];
            let mut ancillary = vec![2, 1, 0, 0, 1];
            ancillary.resize(16, 0);
            let keep = r.unit();
            for k in 0..count {
                if r.unit() < keep {
                    bits[k / 8] |= 0x80 >> (k % 8);
                    ancillary.extend_from_slice(&data[k * size..(k + 1) * size]);
                }
            }
            (bits, ancillary, format!("{} pruned (kept {:.0}%)", tensor.name, 100.0 * keep))
        } else {
            lut_encoded(r, &data, size, &tensor)
        };
        let sub = &mut def.subgraphs[0];
        let mut add = |name: String, bytes: Vec<u8>| {
            def.buffers.push(bytes);
            let len = def.buffers.last().map_or(0, Vec::len) as i32;
            let buffer = def.buffers.len() as u32 - 1;
            sub.tensors.push(TensorDef::constant(&name, &[len], dtype::U8, buffer, None));
            sub.tensors.len() as i32 - 1
        };
        let encoded = add(format!("{}_encoded", tensor.name), bits);
        let ancillary = add(format!("{}_ancillary", tensor.name), ancillary);
        sub.tensors[t as usize].buffer = 0;
        pairs.push((encoded, ancillary, t));
        notes.push(note);
    }
    def.opcodes.push((32, Some("TFLM_DECODE".into())));
    let opcode = def.opcodes.len() as u32 - 1;
    let decode_op = |pairs: &[(i32, i32, i32)]| OpDef {
        opcode,
        inputs: pairs.iter().flat_map(|&(e, a, _)| [e, a]).collect(),
        outputs: pairs.iter().map(|p| p.2).collect(),
        options: None,
        custom_options: None,
    };
    let ops = &mut def.subgraphs[0].ops;
    if r.chance(0.5) {
        ops.insert(0, decode_op(&pairs));
    } else {
        for (k, pair) in pairs.iter().enumerate() {
            ops.insert(k, decode_op(std::slice::from_ref(pair)));
        }
    }
    (m, format!("{label}; decoded: {}", notes.join(", ")))
}
