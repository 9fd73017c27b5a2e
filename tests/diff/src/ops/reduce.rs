//! Reductions: MEAN, SUM, REDUCE_MAX/MIN/ALL/PROD, ARG_MAX/MIN, CUMSUM.

use super::*;

pub(super) fn mean(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::I8, Ty::I8, Ty::F32, Ty::I16]);
    let rank = r.size(1, 4);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(1, 7)).collect();
    let mut axes: Vec<i32> = (0..rank as i32).filter(|_| r.chance(0.5)).collect();
    if axes.is_empty() {
        axes.push(r.range(0, rank as i64 - 1) as i32);
    }
    // Negative axes now and then, as converters write them.
    let written: Vec<i32> = axes.iter().map(|&a| if r.chance(0.3) { a - rank as i32 } else { a }).collect();
    let keep_dims = r.chance(0.5);
    let out_shape: Vec<usize> = (0..rank)
        .filter_map(|i| if axes.contains(&(i as i32)) { keep_dims.then_some(1) } else { Some(shape[i]) })
        .collect();
    let mut b = Builder::default();
    let in_q = activation_quant(r, ty, 1e-3, 0.5);
    let out_q = if r.chance(0.5) { in_q.clone() } else { activation_quant(r, ty, 1e-3, 0.5) };
    let input = b.input("input", &shape, ty, in_q);
    let axis = b.ints("axis", &[written.len()], &written);
    let output = b.output("output", &out_shape, ty, out_q);
    let label = format!("{} {shape:?} axes {written:?}{}", ty.name(), if keep_dims { " keep_dims" } else { "" });
    (b.finish(40, &[input, axis], &[output], Some((REDUCER_OPTIONS, vec![(0, Scalar::Bool(keep_dims))]))), label)
}

/// SUM, REDUCE_MAX, REDUCE_MIN: like MEAN.
pub(super) fn reduce(r: &mut Rng, code: i32, name: &str) -> (Model, String) {
    let (mut m, label) = loop {
        let (m, label) = mean(r);
        // TFLM's REDUCE_MAX/MIN take float32 and int8 only.
        if code == 74 || !label.starts_with("int16") {
            break (m, label);
        }
    };
    m.def.opcodes = vec![(code, None)];
    // REDUCE_MAX/MIN keep the input's quantization in TFLM.
    if code != 74 {
        let q = m.def.subgraphs[0].tensors[0].quant.clone();
        let out = m.def.subgraphs[0].outputs[0] as usize;
        m.def.subgraphs[0].tensors[out].quant = q;
    }
    (m, format!("{name}: {label}"))
}

/// REDUCE_PROD (LiteRT only) of float32, int32 or int64 over axes drawn as
/// MEAN's; integers small enough that most products fit, some that wrap.
/// Against LiteRT.
pub(super) fn reduce_prod(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::F32, Ty::I32, Ty::I64]);
    let (mut m, label) = mean(r);
    let def = &mut m.def;
    def.opcodes = vec![(81, None)];
    let (input, output) = (def.subgraphs[0].inputs[0] as usize, def.subgraphs[0].outputs[0] as usize);
    for t in [input, output] {
        def.subgraphs[0].tensors[t].dtype = ty.code();
        def.subgraphs[0].tensors[t].quant = None;
    }
    let n = m.inputs[0].1;
    m.inputs[0].0 = ty;
    m.outputs[0].0 = ty;
    if ty != Ty::F32 {
        m.fixed = Some((0..n).map(|_| if r.chance(0.1) { r.range(-70_000, 70_000) } else { r.range(-4, 4) }).collect());
    }
    m.litert = true;
    let label = label.split_once(' ').map_or(label.clone(), |(_, rest)| rest.to_string());
    (m, format!("{} {label}", ty.name()))
}

pub(super) fn arg_min_max(r: &mut Rng, code: i32, options_tag: u8) -> (Model, String) {
    // TFLM: float32, uint8, int8 in; int32 out (tinyaot also takes int16,
    // int32 and int64, which TFLM refuses).
    let ty = r.pick(&[Ty::I8, Ty::F32]);
    let rank = r.size(1, 4);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(1, 7)).collect();
    let axis = r.size(0, rank - 1);
    let written = if r.chance(0.3) { axis as i32 - rank as i32 } else { axis as i32 };
    let out_ty = Ty::I32;
    let out_shape: Vec<usize> = (0..rank).filter(|&i| i != axis).map(|i| shape[i]).collect();
    let mut b = Builder::default();
    let q = activation_quant(r, ty, 1e-3, 0.5);
    let input = b.input("input", &shape, ty, q);
    let axis_t = b.ints("axis", &[1], &[written]);
    let output = b.output("output", &out_shape, out_ty, None);
    let options = vec![(0, Scalar::I8(out_ty.code()))];
    let label = format!("{} {shape:?} axis {written} -> {}", ty.name(), out_ty.name());
    (b.finish(code, &[input, axis_t], &[output], Some((options_tag, options))), label)
}

/// REDUCE_ALL of bools over MEAN's draws of shapes, axes and keep_dims.
pub(super) fn reduce_all(r: &mut Rng) -> (Model, String) {
    let (mut m, label) = mean(r);
    m.def.opcodes = vec![(140, None)];
    let sub = &mut m.def.subgraphs[0];
    for t in [sub.inputs[0], sub.outputs[0]] {
        let t = &mut sub.tensors[t as usize];
        t.dtype = Ty::Bool.code();
        t.quant = None;
    }
    m.inputs[0].0 = Ty::Bool;
    m.outputs[0].0 = Ty::Bool;
    let label = label.split_once(' ').map_or(label.clone(), |(_, rest)| format!("bool {rest}"));
    (m, label)
}

/// CUMSUM along any axis (negative now and then), exclusive and reverse,
/// float32 and int8.
pub(super) fn cumsum(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(FLOAT_INT8);
    let shape: Vec<usize> = (0..r.size(1, 4)).map(|_| r.size(1, 6)).collect();
    let axis = r.size(0, shape.len() - 1) as i32;
    let written = if r.chance(0.3) { axis - shape.len() as i32 } else { axis };
    let (exclusive, reverse) = (r.chance(0.5), r.chance(0.5));
    let mut b = Builder::default();
    let q = activation_quant(r, ty, 1e-3, 0.5);
    let input = b.input("input", &shape, ty, q.clone());
    let axis_t = b.ints("axis", &[], &[written]);
    let out_q = output_quant(r, ty, 74.0 * scale_of(&q) * (shape[axis as usize] as f64).sqrt());
    let out = b.output("output", &shape, ty, out_q);
    let options = vec![(0, Scalar::Bool(exclusive)), (1, Scalar::Bool(reverse))];
    let label = format!(
        "{} {shape:?} axis {written}{}{}",
        ty.name(),
        if exclusive { " exclusive" } else { "" },
        if reverse { " reverse" } else { "" }
    );
    (b.finish(128, &[input, axis_t], &[out], Some((CUMSUM_OPTIONS, options))), label)
}
