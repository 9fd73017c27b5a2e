//! Pooling: AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D.

use super::*;

pub(super) fn pool_2d(r: &mut Rng, code: i32, name: &str) -> (Model, String) {
    // L2_POOL_2D: float32 only in TFLM.
    let ty = if code == 12 { Ty::F32 } else { r.pick(&[Ty::I8, Ty::I8, Ty::F32, Ty::I16]) };
    let (h, w, c) = (r.size(1, 12), r.size(1, 12), r.size(1, 8));
    let (fh, fw) = (r.size(1, 4), r.size(1, 4));
    let (sh, sw) = (r.size(1, 3), r.size(1, 3));
    let mut padding = r.pick(&[0i8, 1]);
    if out_size(padding, h, fh, sh, 1).is_none() || out_size(padding, w, fw, sw, 1).is_none() {
        padding = 0;
    }
    let (oh, ow) = (out_size(padding, h, fh, sh, 1).unwrap(), out_size(padding, w, fw, sw, 1).unwrap());
    let act = activation(r);
    let mut b = Builder::default();
    // Pooling keeps its input's quantization (TFLM does not rescale).
    let q = activation_quant(r, ty, 1e-3, 0.5);
    let input = b.input("input", &[1, h, w, c], ty, q.clone());
    let output = b.output("output", &[1, oh, ow, c], ty, q);
    let options = vec![
        (0, Scalar::I8(padding)),
        (1, Scalar::I32(sw as i32)),
        (2, Scalar::I32(sh as i32)),
        (3, Scalar::I32(fw as i32)),
        (4, Scalar::I32(fh as i32)),
        (5, Scalar::I8(act)),
    ];
    let label = format!(
        "{} {h}x{w}x{c}, {fh}x{fw} stride {sh}x{sw} {} {} ({name})",
        ty.name(),
        ["SAME", "VALID"][padding as usize],
        act_name(act)
    );
    (b.finish(code, &[input], &[output], Some((POOL_2D_OPTIONS, options))), label)
}
