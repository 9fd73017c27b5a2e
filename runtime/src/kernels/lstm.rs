//! UNIDIRECTIONAL_SEQUENCE_LSTM, as TFLM runs it: four gates (input,
//! forget, cell, output) each `activation(FC(x) + FC(h))`, then
//! `c = f * c + i * g` (clipped if asked), `h = o * tanh(c)`; time-major
//! (all batch rows per step) or batch-major (one sequence per batch row).
//! The hidden and cell states are variables: they carry over between
//! invocations. No peephole, projection or layer norm (TFLM has none).
//!
//! Every step works unit by unit: a unit's four gate values, its new cell
//! value and its new hidden value depend only on that unit and on the old
//! hidden state, so the new hidden row is written to the output and
//! copied into the state after the row is done. The arithmetic is TFLM's
//! element for element; its four gate-sized scratch buffers are not needed.

use super::elementwise::{logistic_f32, logistic_s16, tanh_f32, tanh_s16};
use super::{clamp_f32, clamp_i32};
use crate::fixedpoint::{multiply_by_quantized_multiplier, multiply_by_quantized_multiplier_i64};

/// Gate order of the weight and bias arrays: input, forget, cell, output.
pub const GATES: usize = 4;

/// The weights of the four gates.
#[derive(Clone, Copy, Debug)]
pub struct LstmWeights<'a, W, B> {
    /// Input-to-gate weights, `UNITS x INPUT` each.
    pub input: [&'a [W]; GATES],
    /// Recurrent (hidden-to-gate) weights, `UNITS x UNITS` each.
    pub recurrent: [&'a [W]; GATES],
    /// Gate biases, `UNITS` each.
    pub bias: [Option<&'a [B]>; GATES],
}

/// The compile-time constants of a quantized LSTM (int8 or int16
/// activations, int8 weights, int16 cell state).
#[derive(Clone, Copy, Debug)]
pub struct LstmQuant<'a> {
    /// Negated input zero point (int8 only).
    pub input_offset: i32,
    /// Negated hidden-state zero point (int8 only).
    pub hidden_offset: i32,
    /// Hidden-state (and output) zero point.
    pub hidden_zero_point: i32,
    /// Input FC requantization to the gates' Q3.12, per gate (multiplier, shift).
    pub input_fc: [(i32, i32); GATES],
    /// Recurrent FC requantization, per gate.
    pub recurrent_fc: [(i32, i32); GATES],
    /// forget gate x cell -> cell.
    pub forget_mul: (i32, i32),
    /// input gate x cell gate -> cell.
    pub input_mul: (i32, i32),
    /// tanh(cell) x output gate -> hidden.
    pub output_mul: (i32, i32),
    /// Quantized cell clip, when the model clips.
    pub cell_clip: Option<i32>,
    /// The input rescaling of tanh(cell) (multiplier, shift), from the
    /// cell state's power-of-two scale.
    pub cell_tanh: (i32, i32),
    /// TFLite's sigmoid table (see `elementwise::logistic_s16`).
    pub sigmoid: &'a [u16],
}

/// An activation type of the quantized LSTM: its gate FC (TFLM's integer
/// FULLY_CONNECTED to an int16 output).
pub trait LstmActivation: Copy {
    /// Bias type: int32 for int8, int64 for int16.
    type Bias: Copy;
    /// Smallest value.
    const MIN: i32;
    /// Largest value.
    const MAX: i32;
    /// `requant(sum(w * (x + offset)) + bias)`, clamped to int16.
    fn fc(x: &[Self], w: &[i8], offset: i32, bias: Option<Self::Bias>, q: (i32, i32)) -> i32;
    /// Narrowing of a clamped value.
    fn narrow(v: i32) -> Self;
}

impl LstmActivation for i8 {
    type Bias = i32;
    const MIN: i32 = i8::MIN as i32;
    const MAX: i32 = i8::MAX as i32;
    #[inline(always)]
    fn fc(x: &[i8], w: &[i8], offset: i32, bias: Option<i32>, (m, s): (i32, i32)) -> i32 {
        let acc = x.iter().zip(w).fold(0i32, |acc, (&x, &w)| acc.wrapping_add((w as i32) * (x as i32 + offset)));
        let acc = acc.wrapping_add(bias.unwrap_or(0));
        clamp_i32(multiply_by_quantized_multiplier(acc, m, s), i16::MIN as i32, i16::MAX as i32)
    }
    #[inline(always)]
    fn narrow(v: i32) -> i8 {
        v as i8
    }
}

impl LstmActivation for i16 {
    type Bias = i64;
    const MIN: i32 = i16::MIN as i32;
    const MAX: i32 = i16::MAX as i32;
    #[inline(always)]
    fn fc(x: &[i16], w: &[i8], _offset: i32, bias: Option<i64>, (m, s): (i32, i32)) -> i32 {
        let acc = x.iter().zip(w).fold(0i64, |acc, (&x, &w)| acc.wrapping_add(w as i64 * x as i64));
        let acc = acc.wrapping_add(bias.unwrap_or(0));
        clamp_i32(multiply_by_quantized_multiplier_i64(acc, m, s), i16::MIN as i32, i16::MAX as i32)
    }
    #[inline(always)]
    fn narrow(v: i32) -> i16 {
        v as i16
    }
}

/// Saturating int16 addition (TFLM's `AddElementWise`).
#[inline(always)]
fn add16(a: i32, b: i32) -> i32 {
    clamp_i32(a + b, i16::MIN as i32, i16::MAX as i32)
}

/// Symmetric int16 x int16 product requantized (TFLM's `MulElementwise`).
#[inline(always)]
fn mul16(a: i32, b: i32, (m, s): (i32, i32), offset: i32, lo: i32, hi: i32) -> i32 {
    clamp_i32(offset.wrapping_add(multiply_by_quantized_multiplier(a * b, m, s)), lo, hi)
}

/// Which rows one step processes and where they live: for step `t` of
/// sequence `s`, row `r` reads input row `in_row`, writes output row
/// `in_row` (the output has the input's layout) and uses state row `b`.
#[inline(always)]
fn rows<const BATCH: usize, const TIME: usize, const TIME_MAJOR: bool>(
    mut f: impl FnMut(usize, usize), // (state row, input/output row)
) {
    if TIME_MAJOR {
        for t in 0..TIME {
            for b in 0..BATCH {
                f(b, t * BATCH + b);
            }
        }
    } else {
        for b in 0..BATCH {
            for t in 0..TIME {
                f(b, b * TIME + t);
            }
        }
    }
}

/// Quantized LSTM: int8 (int32 bias) or int16 (int64 bias) activations,
/// int8 weights, int16 cell state.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn lstm_q<
    A: LstmActivation,
    const BATCH: usize,
    const TIME: usize,
    const INPUT: usize,
    const UNITS: usize,
    const TIME_MAJOR: bool,
>(
    input: &[A],
    w: &LstmWeights<'_, i8, A::Bias>,
    hidden: &mut [A],
    cell: &mut [i16],
    output: &mut [A],
    q: &LstmQuant<'_>,
) {
    let input = &input[..BATCH * TIME * INPUT];
    let hidden = &mut hidden[..BATCH * UNITS];
    let cell = &mut cell[..BATCH * UNITS];
    let output = &mut output[..BATCH * TIME * UNITS];
    let (i16_min, i16_max) = (i16::MIN as i32, i16::MAX as i32);
    let sigmoid = |v: i32| logistic_s16(v as i16, 3, 0, q.sigmoid) as i32;
    rows::<BATCH, TIME, TIME_MAJOR>(|b, row| {
        let x = &input[row * INPUT..(row + 1) * INPUT];
        let h = &hidden[b * UNITS..(b + 1) * UNITS];
        for u in 0..UNITS {
            let gate = |g: usize| {
                let fx = A::fc(
                    x,
                    &w.input[g][u * INPUT..(u + 1) * INPUT],
                    q.input_offset,
                    w.bias[g].map(|b| b[u]),
                    q.input_fc[g],
                );
                let fh =
                    A::fc(h, &w.recurrent[g][u * UNITS..(u + 1) * UNITS], q.hidden_offset, None, q.recurrent_fc[g]);
                add16(fx, fh)
            };
            let (ig, fg, og) = (sigmoid(gate(0)), sigmoid(gate(1)), sigmoid(gate(3)));
            let cg = tanh_s16(gate(2) as i16, 3, 0, q.sigmoid) as i32;
            let c = cell[b * UNITS + u] as i32;
            let mut c =
                add16(mul16(fg, c, q.forget_mul, 0, i16_min, i16_max), mul16(ig, cg, q.input_mul, 0, i16_min, i16_max));
            if let Some(clip) = q.cell_clip {
                c = c.min(clip).max(-clip);
            }
            cell[b * UNITS + u] = c as i16;
            let tc = tanh_s16(c as i16, q.cell_tanh.0, q.cell_tanh.1, q.sigmoid) as i32;
            output[row * UNITS + u] = A::narrow(mul16(tc, og, q.output_mul, q.hidden_zero_point, A::MIN, A::MAX));
        }
        hidden[b * UNITS..(b + 1) * UNITS].copy_from_slice(&output[row * UNITS..(row + 1) * UNITS]);
    });
}

/// float32 LSTM (TFLM's float path: FC sums in order, products and
/// sums clamped to the finite range as its activation-free kernels do).
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn lstm_f32<
    const BATCH: usize,
    const TIME: usize,
    const INPUT: usize,
    const UNITS: usize,
    const TIME_MAJOR: bool,
>(
    input: &[f32],
    w: &LstmWeights<'_, f32, f32>,
    hidden: &mut [f32],
    cell: &mut [f32],
    output: &mut [f32],
    cell_clip: f32,
) {
    let input = &input[..BATCH * TIME * INPUT];
    let hidden = &mut hidden[..BATCH * UNITS];
    let cell = &mut cell[..BATCH * UNITS];
    let output = &mut output[..BATCH * TIME * UNITS];
    let fc = |x: &[f32], w: &[f32], bias: f32| {
        let mut total = 0.0f32;
        for (&x, &w) in x.iter().zip(w) {
            total += x * w;
        }
        clamp_f32(total + bias, f32::MIN, f32::MAX)
    };
    let mul = |a: f32, b: f32| clamp_f32(a * b, f32::MIN, f32::MAX);
    rows::<BATCH, TIME, TIME_MAJOR>(|b, row| {
        let x = &input[row * INPUT..(row + 1) * INPUT];
        let h = &hidden[b * UNITS..(b + 1) * UNITS];
        for u in 0..UNITS {
            let gate = |g: usize| {
                let fx = fc(x, &w.input[g][u * INPUT..(u + 1) * INPUT], w.bias[g].map_or(0.0, |b| b[u]));
                let fh = fc(h, &w.recurrent[g][u * UNITS..(u + 1) * UNITS], 0.0);
                fx + fh
            };
            let (ig, fg, og) = (logistic_f32(gate(0)), logistic_f32(gate(1)), logistic_f32(gate(3)));
            let cg = tanh_f32(gate(2));
            let mut c = mul(fg, cell[b * UNITS + u]) + mul(ig, cg);
            if cell_clip > 0.0 {
                c = c.min(cell_clip).max(-cell_clip);
            }
            cell[b * UNITS + u] = c;
            output[row * UNITS + u] = mul(tanh_f32(c), og);
        }
        hidden[b * UNITS..(b + 1) * UNITS].copy_from_slice(&output[row * UNITS..(row + 1) * UNITS]);
    });
}

/// The constants of a hybrid (dynamic-range) LSTM: each weight tensor's
/// scale (input weights, then recurrent, in gate order) and, for an
/// asymmetric quantization of the inputs, each weight row's sum.
#[derive(Clone, Copy, Debug)]
pub struct LstmHybrid<'a> {
    /// Weight scales: the four input-to-gate tensors, then the four recurrent ones.
    pub scales: [f32; 2 * GATES],
    /// Row sums of the same eight tensors (empty when symmetric).
    pub row_sums: [&'a [i32]; 2 * GATES],
}

/// Hybrid LSTM, float32 input, states and output with int8 weights, as
/// LiteRT's `EvalHybrid` runs it (TFLM has none): per step the input row
/// and the old hidden row are quantized to int8 (`hybrid::quantize_row`,
/// a scale each, a zero point when `ASYMMETRIC`, into `q`: `INPUT + UNITS`
/// bytes of scratch); each gate is `bias + (x . w) * (sx * sw) + (h . r) *
/// (sh * sr)`, the int32 dot products less row sum times zero point; then
/// float32 gates, cell and hidden state as the float LSTM (LiteRT's order:
/// `c = f * c + g * i`, clipped; `h = o * tanh(c)`).
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn lstm_hybrid<
    const BATCH: usize,
    const TIME: usize,
    const INPUT: usize,
    const UNITS: usize,
    const TIME_MAJOR: bool,
    const ASYMMETRIC: bool,
>(
    input: &[f32],
    w: &LstmWeights<'_, i8, f32>,
    k: &LstmHybrid<'_>,
    hidden: &mut [f32],
    cell: &mut [f32],
    output: &mut [f32],
    cell_clip: f32,
    q: &mut [i8],
) {
    use super::hybrid::{dot_i8, quantize_row};
    let input = &input[..BATCH * TIME * INPUT];
    let hidden = &mut hidden[..BATCH * UNITS];
    let cell = &mut cell[..BATCH * UNITS];
    let output = &mut output[..BATCH * TIME * UNITS];
    let (qx, qh) = q[..INPUT + UNITS].split_at_mut(INPUT);
    rows::<BATCH, TIME, TIME_MAJOR>(|b, row| {
        let (sx, zx) = quantize_row(&input[row * INPUT..(row + 1) * INPUT], ASYMMETRIC, qx);
        let (sh, zh) = quantize_row(&hidden[b * UNITS..(b + 1) * UNITS], ASYMMETRIC, qh);
        // `dot * (row scale * weight scale)`, the dot less the row sum
        // times the zero point.
        let term = |weights: &[i8], sums: &[i32], u: usize, x: &[i8], sx: f32, zx: i32, sw: f32| {
            let depth = x.len();
            let mut dot = dot_i8(&weights[u * depth..(u + 1) * depth], x);
            if ASYMMETRIC {
                dot = dot.wrapping_sub(sums[u].wrapping_mul(zx));
            }
            dot as f32 * (sx * sw)
        };
        for u in 0..UNITS {
            let gate = |g: usize| {
                let mut v = w.bias[g].map_or(0.0, |b| b[u]);
                v += term(w.input[g], k.row_sums[g], u, qx, sx, zx, k.scales[g]);
                v + term(w.recurrent[g], k.row_sums[GATES + g], u, qh, sh, zh, k.scales[GATES + g])
            };
            let (ig, fg, og) = (logistic_f32(gate(0)), logistic_f32(gate(1)), logistic_f32(gate(3)));
            let cg = tanh_f32(gate(2));
            let mut c = fg * cell[b * UNITS + u] + cg * ig;
            if cell_clip > 0.0 {
                c = c.min(cell_clip).max(-cell_clip);
            }
            cell[b * UNITS + u] = c;
            output[row * UNITS + u] = og * tanh_f32(c);
        }
        hidden[b * UNITS..(b + 1) * UNITS].copy_from_slice(&output[row * UNITS..(row + 1) * UNITS]);
    });
}
