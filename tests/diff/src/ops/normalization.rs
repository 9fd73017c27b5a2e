//! Normalizations over an axis: SOFTMAX, LOG_SOFTMAX, L2_NORMALIZATION, and GELU.

use super::*;

pub(super) fn softmax(r: &mut Rng) -> (Model, String) {
    let (ty_in, ty_out) =
        r.pick(&[(Ty::I8, Ty::I8), (Ty::I8, Ty::I8), (Ty::I8, Ty::I16), (Ty::F32, Ty::F32), (Ty::I16, Ty::I16)]);
    let rank = r.size(1, 4);
    let shape: Vec<usize> = (0..rank).map(|i| if i + 1 == rank { r.size(1, 40) } else { r.size(1, 3) }).collect();
    let beta = match r.size(0, 3) {
        0 => 1.0,
        1 => r.pick(&[0.5f32, 2.0, 0.25]),
        _ => r.log_uniform(0.05, 5.0),
    };
    let mut b = Builder::default();
    let in_q = match ty_in {
        Ty::I8 => per_tensor(r.log_uniform(1e-3, 0.3), r.zero_point(-128, 127)),
        Ty::I16 => per_tensor(r.log_uniform(1e-4, 1e-3), 0),
        _ => None,
    };
    // TFLM's fixed output quantization: int8 1/256 at -128; int16 from
    // int8 1/65536 at -32768, from int16 1/32768 at 0.
    let out_q = match (ty_in, ty_out) {
        (_, Ty::I8) => per_tensor(1.0 / 256.0, -128),
        (Ty::I8, Ty::I16) => per_tensor(1.0 / 65536.0, -32768),
        (_, Ty::I16) => per_tensor(1.0 / 32768.0, 0),
        _ => None,
    };
    let input = b.input("input", &shape, ty_in, in_q);
    let output = b.output("output", &shape, ty_out, out_q);
    let label = format!("{} -> {} {shape:?} beta {beta}", ty_in.name(), ty_out.name());
    (b.finish(25, &[input], &[output], Some((SOFTMAX_OPTIONS, vec![(0, Scalar::F32(beta))]))), label)
}

/// GELU (LiteRT's builtin; TFLM has none): int8 (LiteRT's table) and
/// float32, exact or tanh-approximate. Answered by LiteRT's reference
/// kernels (float32 within 1e-5: its Eigen erfc and tanh are not libm's).
pub(super) fn gelu(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(&[Ty::I8, Ty::I8, Ty::F32]);
    let rank = r.size(1, 4);
    let shape: Vec<usize> = (0..rank).map(|_| r.size(1, 9)).collect();
    let approximate = r.chance(0.5);
    let mut b = Builder::default();
    let in_q = activation_quant(r, ty, 1e-3, 0.2);
    let out_q = activation_quant(r, ty, 1e-3, 0.2);
    let input = b.input("input", &shape, ty, in_q);
    let output = b.output("output", &shape, ty, out_q);
    const GELU_OPTIONS: u8 = 116;
    let options = vec![(0, Scalar::Bool(approximate))];
    let label = format!("{} {shape:?}{}", ty.name(), if approximate { " approximate" } else { "" });
    let mut m = b.finish(150, &[input], &[output], Some((GELU_OPTIONS, options)));
    m.litert = true;
    (m, label)
}

/// L2_NORMALIZATION over the last axis, float32 and int8 (output scale
/// 1/128, zero point 0, as the converter writes it).
pub(super) fn l2_normalization(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(FLOAT_INT8);
    let shape: Vec<usize> = (0..r.size(1, 4)).map(|_| r.size(1, 9)).collect();
    let mut b = Builder::default();
    let q = activation_quant(r, ty, 1e-3, 0.5);
    let input = b.input("input", &shape, ty, q);
    let out_q = if ty == Ty::I8 { per_tensor(1.0 / 128.0, 0) } else { None };
    let out = b.output("output", &shape, ty, out_q);
    (b.finish(11, &[input], &[out], None), format!("{} {shape:?}", ty.name()))
}

/// LOG_SOFTMAX over the last axis, float32 and int8 (output scale 16/256,
/// zero point 127, as TFLM requires).
pub(super) fn log_softmax(r: &mut Rng) -> (Model, String) {
    let ty = r.pick(FLOAT_INT8);
    let shape: Vec<usize> = (0..r.size(1, 4)).map(|_| r.size(1, 12)).collect();
    let mut b = Builder::default();
    // Scales up to hundreds: past 2^5, the input multiplier is capped.
    let q = if ty == Ty::I8 { per_tensor(r.log_uniform(1e-3, 600.0), r.zero_point(-128, 127)) } else { None };
    let input = b.input("input", &shape, ty, q);
    let out_q = if ty == Ty::I8 { per_tensor(16.0 / 256.0, 127) } else { None };
    let out = b.output("output", &shape, ty, out_q);
    (b.finish(50, &[input], &[out], None), format!("{} {shape:?}", ty.name()))
}
