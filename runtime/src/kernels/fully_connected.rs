//! FULLY_CONNECTED: `B` rows of `D` inputs times an `[O, D]` weight matrix.

use super::{Requant, Rescale, clamp_f32};

/// int8 fully connected with per-tensor or per-channel requantization
/// (TFLite `reference_integer_ops::FullyConnected`; a per-tensor multiplier
/// is passed repeated per channel). `weight_offset` is the negated weight
/// zero point (0 for symmetric int8 weights).
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn fully_connected_s8<const B: usize, const D: usize, const O: usize>(
    input: &[i8],
    weights: &[i8],
    bias: Option<&[i32]>,
    weight_offset: i32,
    q: &Requant<'_>,
    output: &mut [i8],
) {
    let input = &input[..B * D];
    let weights = &weights[..O * D];
    let output = &mut output[..B * O];
    for b in 0..B {
        let row = &input[b * D..(b + 1) * D];
        for o in 0..O {
            let w = &weights[o * D..(o + 1) * D];
            let mut acc: i32 = 0;
            for (&x, &wv) in row.iter().zip(w) {
                acc = acc.wrapping_add((wv as i32 + weight_offset).wrapping_mul(x as i32 + q.input_offset));
            }
            if let Some(bias) = bias {
                acc = acc.wrapping_add(bias[o]);
            }
            output[b * O + o] = q.apply(acc, o) as i8;
        }
    }
}

/// int8 fully connected with the input offset folded into `bias`
/// (`bias + input_offset * sum(weight row)`, computed at compile time) and
/// the weights repacked at compile time (`layout::pack_rows`): each input row
/// meets the weight rows four at a time ([`super::dot`]). Same bits as
/// [`fully_connected_s8`].
#[inline(never)]
pub fn fully_connected_folded_s8<const B: usize, const D: usize, const O: usize>(
    input: &[i8],
    packed: impl super::PackedRows,
    bias: &[i32],
    q: &Rescale<'_>,
    output: &mut [i8],
) {
    let input = &input[..B * D];
    let output = &mut output[..B * O];
    for (row, out) in input.chunks_exact(D).zip(output.chunks_exact_mut(O)) {
        super::dot::rescaled_dots::<D>(row, packed, bias, q, out);
    }
}

/// float32 fully connected over weights packed by `layout::pack_f32_rows8`:
/// 8 outputs at a time sum side by side (each in TFLite's order, then
/// the bias), the last `O % 8` one by one. Same bits as
/// [`fully_connected_f32`].
#[inline(never)]
pub fn fully_connected_f32_rows8<const B: usize, const D: usize, const O: usize>(
    input: &[f32],
    packed: &[f32],
    bias: Option<&[f32]>,
    act_min: f32,
    act_max: f32,
    output: &mut [f32],
) {
    let input = &input[..B * D];
    let packed = &packed[..O * D];
    let output = &mut output[..B * O];
    let full = O / 8 * 8;
    for (row, out) in input.chunks_exact(D).zip(output.chunks_exact_mut(O)) {
        for (blk, w) in packed[..full * D].chunks_exact(8 * D).enumerate() {
            let mut sums = [0.0f32; 8];
            crate::arch::mac_lanes8(row, w, &mut sums);
            let c0 = 8 * blk;
            super::finish_f32(&mut out[c0..c0 + 8], &sums, bias.map(|b| &b[c0..c0 + 8]), act_min, act_max);
        }
        for (k, w) in packed[full * D..].chunks_exact(D).enumerate() {
            let mut total = 0.0f32;
            for (&x, &wv) in row.iter().zip(w) {
                total += x * wv;
            }
            out[full + k] = clamp_f32(total + bias.map_or(0.0, |b| b[full + k]), act_min, act_max);
        }
    }
}

/// float32 fully connected (TFLite `reference_ops::FullyConnected`).
#[inline(never)]
pub fn fully_connected_f32<const B: usize, const D: usize, const O: usize>(
    input: &[f32],
    weights: &[f32],
    bias: Option<&[f32]>,
    act_min: f32,
    act_max: f32,
    output: &mut [f32],
) {
    let input = &input[..B * D];
    let weights = &weights[..O * D];
    let output = &mut output[..B * O];
    for b in 0..B {
        let row = &input[b * D..(b + 1) * D];
        for o in 0..O {
            let w = &weights[o * D..(o + 1) * D];
            let mut total = 0.0f32;
            for (&x, &wv) in row.iter().zip(w) {
                total += x * wv;
            }
            let bias_value = match bias {
                Some(bias) => bias[o],
                None => 0.0,
            };
            output[b * O + o] = clamp_f32(total + bias_value, act_min, act_max);
        }
    }
}
