//! SVDF (singular value decomposition filter): a feature projection of
//! each input frame pushed into a per-filter memory of the last `MEMORY`
//! frames (the state, kept between invocations), then a time-weighted
//! sum of that memory per filter, `RANK` filters per output unit. As
//! TFLM's reference kernels: the state shifts by one element, the new
//! frame's projections go into each filter's last slot.

use super::{Narrow, clamp_f32, clamp_i32};
use crate::fixedpoint::multiply_by_quantized_multiplier;

/// The constants of an int8 SVDF (int8 or int16 state).
#[derive(Clone, Copy, Debug)]
pub struct SvdfQuant {
    /// Input zero point.
    pub input_zero_point: i32,
    /// State zero point.
    pub state_zero_point: i32,
    /// Output zero point.
    pub output_zero_point: i32,
    /// `input * weights_feature / state` scale, Q0.31 ...
    pub multiplier_1: i32,
    /// ... and its exponent.
    pub shift_1: i32,
    /// `state * weights_time / output` scale ...
    pub multiplier_2: i32,
    /// ... and its exponent.
    pub shift_2: i32,
}

/// int8 SVDF with `T` (int8 or int16) state and time weights (TFLM
/// `EvalIntegerSvdfReference`).
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn svdf_s8<
    T: Narrow,
    const BATCH: usize,
    const INPUT: usize,
    const FILTERS: usize,
    const RANK: usize,
    const MEMORY: usize,
>(
    input: &[i8],
    weights_feature: &[i8],
    weights_time: &[T],
    bias: Option<&[i32]>,
    state: &mut [T],
    output: &mut [i8],
    q: &SvdfQuant,
) {
    let input = &input[..BATCH * INPUT];
    let weights_feature = &weights_feature[..FILTERS * INPUT];
    let weights_time = &weights_time[..FILTERS * MEMORY];
    let state = &mut state[..BATCH * FILTERS * MEMORY];
    let output = &mut output[..BATCH * (FILTERS / RANK)];
    let (lo, hi) = (T::MIN.to_i32(), T::MAX.to_i32());
    state.copy_within(1.., 0);
    for b in 0..BATCH {
        let frame = &input[b * INPUT..(b + 1) * INPUT];
        for f in 0..FILTERS {
            let row = &weights_feature[f * INPUT..(f + 1) * INPUT];
            let dot = row
                .iter()
                .zip(frame)
                .fold(0i32, |acc, (&w, &x)| acc.wrapping_add((w as i32).wrapping_mul(x as i32 - q.input_zero_point)));
            let v = clamp_i32(multiply_by_quantized_multiplier(dot, q.multiplier_1, q.shift_1), lo, hi);
            state[(b * FILTERS + f) * MEMORY + MEMORY - 1] = T::narrow(q.state_zero_point.wrapping_add(v));
        }
    }
    for b in 0..BATCH {
        for u in 0..FILTERS / RANK {
            let mut acc = bias.map_or(0, |bias| bias[u]);
            for f in u * RANK..(u + 1) * RANK {
                let memory = &state[(b * FILTERS + f) * MEMORY..(b * FILTERS + f + 1) * MEMORY];
                let weights = &weights_time[f * MEMORY..(f + 1) * MEMORY];
                for (&w, &s) in weights.iter().zip(memory) {
                    acc = acc.wrapping_add(w.to_i32().wrapping_mul(s.to_i32() - q.state_zero_point));
                }
            }
            let v = multiply_by_quantized_multiplier(acc, q.multiplier_2, q.shift_2).wrapping_add(q.output_zero_point);
            output[b * (FILTERS / RANK) + u] = clamp_i32(v, -128, 127) as i8;
        }
    }
}

/// float32 SVDF (TFLM `EvalFloatSvdfReference`, same summation order),
/// with the fused activation's clamp.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn svdf_f32<
    const BATCH: usize,
    const INPUT: usize,
    const FILTERS: usize,
    const RANK: usize,
    const MEMORY: usize,
>(
    input: &[f32],
    weights_feature: &[f32],
    weights_time: &[f32],
    bias: Option<&[f32]>,
    state: &mut [f32],
    output: &mut [f32],
    act_min: f32,
    act_max: f32,
) {
    let input = &input[..BATCH * INPUT];
    let weights_feature = &weights_feature[..FILTERS * INPUT];
    let weights_time = &weights_time[..FILTERS * MEMORY];
    let state = &mut state[..BATCH * FILTERS * MEMORY];
    let output = &mut output[..BATCH * (FILTERS / RANK)];
    state.copy_within(1.., 0);
    for b in 0..BATCH {
        let frame = &input[b * INPUT..(b + 1) * INPUT];
        for f in 0..FILTERS {
            let row = &weights_feature[f * INPUT..(f + 1) * INPUT];
            let mut dot = 0.0f32;
            for (&w, &x) in row.iter().zip(frame) {
                dot += w * x;
            }
            state[(b * FILTERS + f) * MEMORY + MEMORY - 1] = dot;
        }
    }
    for b in 0..BATCH {
        for u in 0..FILTERS / RANK {
            let mut acc = bias.map_or(0.0, |bias| bias[u]);
            for f in u * RANK..(u + 1) * RANK {
                let memory = &state[(b * FILTERS + f) * MEMORY..(b * FILTERS + f + 1) * MEMORY];
                let weights = &weights_time[f * MEMORY..(f + 1) * MEMORY];
                let mut sum = 0.0f32;
                for (&w, &s) in weights.iter().zip(memory) {
                    sum += w * s;
                }
                acc += sum;
            }
            output[b * (FILTERS / RANK) + u] = clamp_f32(acc, act_min, act_max);
        }
    }
}

/// Hybrid SVDF, float32 input, state and output with int8 feature weights
/// (LiteRT's `EvalHybridSVDF`; TFLM does not run it): each batch's frame
/// quantized to int8 on the fly into `q` (`INPUT` bytes of scratch,
/// symmetric or with a zero point when `ASYMMETRIC`, less `row_sums[f]`
/// times it), int32 dot products scaled back by the frame's scale times
/// `feature_scale` into each filter's last memory slot (zeros for an input
/// of zeros only, as there); then, in LiteRT's order, each filter's
/// time-weighted memory sum (`weights_time` dequantized at compile time),
/// the `RANK` sums of a unit added from zero, the bias, the clamp.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn svdf_hybrid<
    const BATCH: usize,
    const INPUT: usize,
    const FILTERS: usize,
    const RANK: usize,
    const MEMORY: usize,
    const ASYMMETRIC: bool,
>(
    input: &[f32],
    weights_feature: &[i8],
    feature_scale: f32,
    row_sums: &[i32],
    weights_time: &[f32],
    bias: Option<&[f32]>,
    state: &mut [f32],
    output: &mut [f32],
    (act_min, act_max): (f32, f32),
    q: &mut [i8],
) {
    let input = &input[..BATCH * INPUT];
    let weights_feature = &weights_feature[..FILTERS * INPUT];
    let weights_time = &weights_time[..FILTERS * MEMORY];
    let state = &mut state[..BATCH * FILTERS * MEMORY];
    let output = &mut output[..BATCH * (FILTERS / RANK)];
    let q = &mut q[..INPUT];
    state.copy_within(1.., 0);
    let zeros = input.iter().all(|&v| v == 0.0);
    for b in 0..BATCH {
        let (scale, offset) = if zeros {
            (0.0, 0)
        } else {
            super::hybrid::quantize_row(&input[b * INPUT..(b + 1) * INPUT], ASYMMETRIC, q)
        };
        let scale = scale * feature_scale;
        for f in 0..FILTERS {
            let mut value = 0.0f32;
            if !zeros {
                let mut dot = super::hybrid::dot_i8(&weights_feature[f * INPUT..(f + 1) * INPUT], q);
                if ASYMMETRIC {
                    dot = dot.wrapping_sub(row_sums[f].wrapping_mul(offset));
                }
                value += dot as f32 * scale;
            }
            state[(b * FILTERS + f) * MEMORY + MEMORY - 1] = value;
        }
    }
    for b in 0..BATCH {
        for u in 0..FILTERS / RANK {
            let mut acc = 0.0f32;
            for f in u * RANK..(u + 1) * RANK {
                let memory = &state[(b * FILTERS + f) * MEMORY..(b * FILTERS + f + 1) * MEMORY];
                let mut sum = 0.0f32;
                for (&w, &s) in weights_time[f * MEMORY..(f + 1) * MEMORY].iter().zip(memory) {
                    sum += w * s;
                }
                acc += sum;
            }
            if let Some(bias) = bias {
                acc += bias[u];
            }
            output[b * (FILTERS / RANK) + u] = clamp_f32(acc, act_min, act_max);
        }
    }
}
