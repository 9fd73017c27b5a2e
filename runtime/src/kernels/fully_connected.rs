//! FULLY_CONNECTED: `B` rows of `D` inputs times an `[O, D]` weight matrix.

use super::{Arithmetic, Requant, Rescale, clamp_f32};

/// Fully connected in any [`Arithmetic`] (TFLite
/// `reference_integer_ops::FullyConnected` and `reference_ops::FullyConnected`;
/// a per-tensor multiplier is passed repeated per channel).
#[inline(never)]
pub fn fully_connected<Acc: Copy, Q: Arithmetic<Acc>, const B: usize, const D: usize, const O: usize>(
    input: &[Q::Input],
    weights: &[Q::Weight],
    bias: Option<&[Acc]>,
    q: &Q,
    output: &mut [Q::Output],
) {
    let input = &input[..B * D];
    let weights = &weights[..O * D];
    let output = &mut output[..B * O];
    for (row, out) in input.chunks_exact(D).zip(output.chunks_exact_mut(O)) {
        for (o, (w, out)) in weights.chunks_exact(D).zip(out).enumerate() {
            let mut acc = Q::ZERO;
            for (&x, &wv) in row.iter().zip(w) {
                acc = q.mac(acc, wv, x);
            }
            *out = q.output(acc, bias, o);
        }
    }
}

/// The int8 arithmetic of a fully connected layer whose weights have a zero
/// point (TFLite allows one per tensor there): `(w + weight_offset) * (x +
/// input_offset)`.
#[derive(Clone, Copy, Debug)]
pub struct WeightOffset<'a> {
    /// The requantization.
    pub q: &'a Requant<'a>,
    /// The negated weight zero point.
    pub weight_offset: i32,
}

impl Arithmetic<i32> for WeightOffset<'_> {
    type Input = i8;
    type Weight = i8;
    type Output = i8;
    const ZERO: i32 = 0;
    #[inline(always)]
    fn mac(&self, acc: i32, weight: i8, input: i8) -> i32 {
        acc.wrapping_add((weight as i32 + self.weight_offset).wrapping_mul(input as i32 + self.q.input_offset))
    }
    #[inline(always)]
    fn output(&self, acc: i32, bias: Option<&[i32]>, channel: usize) -> i8 {
        self.q.output(acc, bias, channel)
    }
}

/// int8 fully connected with the input offset folded into `bias`
/// (`bias + input_offset * sum(weight row)`, computed at compile time) and
/// the weights repacked at compile time (`layout::pack_rows`): each input row
/// meets the weight rows four at a time ([`super::dot`]). Same bits as
/// [`fully_connected`].
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
/// [`fully_connected`].
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

/// Where element (row, column) of one BATCH_MATMUL operand matrix lies:
/// `row * self.row + column * self.column` (a transposed operand swaps
/// the two).
#[derive(Clone, Copy, Debug)]
pub struct MatrixStrides {
    /// Elements per row step.
    pub row: usize,
    /// Elements per column step.
    pub column: usize,
}

/// BATCH_MATMUL in any [`Arithmetic`] (TFLite `reference_ops::BatchMatMul`):
/// for every output batch (`batches` walks them with the operands' batch
/// offsets, 0 along broadcast dimensions), `out[i][j] = sum over k of
/// lhs[i][k] * rhs[k][j]`, k ascending as TFLite adds. The right operand
/// plays the weights (`mac(acc, rhs, lhs)`); per-tensor constants, channel 0.
#[inline(never)]
pub fn batch_matmul<Acc: Copy, Q: Arithmetic<Acc>, const M: usize, const K: usize, const N: usize, const LEN: usize>(
    lhs: &[Q::Input],
    rhs: &[Q::Weight],
    q: &Q,
    output: &mut [Q::Output],
    batches: &super::Strided6,
    strides: [MatrixStrides; 2],
) {
    let [ls, rs] = strides;
    let output = &mut output[..LEN];
    batches.for_each(|b, lhs_base, rhs_base| {
        let out = &mut output[b * M * N..(b + 1) * M * N];
        for (i, row) in out.chunks_exact_mut(N).enumerate() {
            let lhs_row = lhs_base + i * ls.row;
            for (j, o) in row.iter_mut().enumerate() {
                let rhs_column = rhs_base + j * rs.column;
                let mut acc = Q::ZERO;
                for k in 0..K {
                    acc = q.mac(acc, rhs[rhs_column + k * rs.row], lhs[lhs_row + k * ls.column]);
                }
                *o = q.output(acc, None, 0);
            }
        }
    });
}

/// The dynamic-range quantization of one row of a hybrid op's float32
/// input into `q` (LiteRT's `SymmetricQuantizeFloats`, or
/// `AsymmetricQuantizeFloats` when `asymmetric`): the row's scale and its
/// zero point (0 when symmetric).
#[inline(always)]
fn quantize_row(x: &[f32], asymmetric: bool, q: &mut [i8]) -> (f32, i32) {
    // `std::minmax_element`: the first smallest, the last largest.
    let (mut lo, mut hi) = (x[0], x[0]);
    for &v in &x[1..] {
        if v < lo {
            lo = v;
        }
        if v >= hi {
            hi = v;
        }
    }
    if !asymmetric {
        let (a, b) = (lo.abs(), hi.abs());
        let range = if a < b { b } else { a };
        if range == 0.0 {
            q.fill(0);
            return (1.0, 0);
        }
        let inverse = 127.0 / range;
        for (q, &v) in q.iter_mut().zip(x) {
            *q = (libm::roundf(v * inverse) as i32).clamp(-127, 127) as i8;
        }
        return (range / 127.0, 0);
    }
    let rmin = if lo < 0.0 { lo } else { 0.0 } as f64;
    let rmax = if 0.0 < hi { hi } else { 0.0 } as f64;
    if rmin == rmax {
        q.fill(0);
        return (1.0, 0);
    }
    let scale = (rmax - rmin) / 255.0;
    let (from_min, from_max) = (-128.0 - rmin / scale, 127.0 - rmax / scale);
    let (error_min, error_max) = (128.0 + (rmin / scale).abs(), 127.0 + (rmax / scale).abs());
    let zero_point = if error_min < error_max { from_min } else { from_max };
    let offset = if zero_point <= -128.0 {
        -128
    } else if zero_point >= 127.0 {
        127
    } else {
        libm::round(zero_point) as i32
    };
    let scale = scale as f32;
    let inverse = 1.0 / scale;
    for (q, &v) in q.iter_mut().zip(x) {
        *q = (libm::roundf(offset as f32 + v * inverse) as i32).clamp(-128, 127) as i8;
    }
    (scale, offset)
}

/// Hybrid (dynamic-range) FULLY_CONNECTED, float32 activations with int8
/// weights, which TFLM does not run and LiteRT does (`EvalHybridDense`,
/// its reference path): each input row quantized to int8 on the fly into
/// `q` (`D` bytes of scratch), int32 dot products with the weight rows,
/// less `row_sums[o]` times the row's zero point, scaled back by the row's
/// scale times the weights' (`scales`: one, or one per unit) and added to
/// the bias; then `clamp` (`None`: no activation). An input of zeros only
/// (every row) gives the bias, as there.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn fully_connected_hybrid<const B: usize, const D: usize, const O: usize, const ASYMMETRIC: bool>(
    input: &[f32],
    weights: &[i8],
    bias: Option<&[f32]>,
    scales: &[f32],
    row_sums: &[i32],
    clamp: Option<(f32, f32)>,
    q: &mut [i8],
    output: &mut [f32],
) {
    let (input, weights, output, q) = (&input[..B * D], &weights[..O * D], &mut output[..B * O], &mut q[..D]);
    let zeros = input.iter().all(|&v| v == 0.0);
    for (x, out) in input.chunks_exact(D).zip(output.chunks_exact_mut(O)) {
        match bias {
            Some(b) => out.copy_from_slice(&b[..O]),
            None => out.fill(0.0),
        }
        if !zeros {
            let (row_scale, offset) = quantize_row(x, ASYMMETRIC, q);
            for (o, (w, out)) in weights.chunks_exact(D).zip(out.iter_mut()).enumerate() {
                let mut dot = 0i32;
                for (&w, &v) in w.iter().zip(q.iter()) {
                    dot = dot.wrapping_add(w as i32 * v as i32);
                }
                if ASYMMETRIC {
                    dot = dot.wrapping_sub(row_sums[o].wrapping_mul(offset));
                }
                let scale = row_scale * if scales.len() == 1 { scales[0] } else { scales[o] };
                *out += dot as f32 * scale;
            }
        }
        if let Some((lo, hi)) = clamp {
            for v in out.iter_mut() {
                // LiteRT's `std::max(lo, v)` then `std::min(hi, ..)`.
                if lo > *v {
                    *v = lo;
                }
                if *v > hi {
                    *v = hi;
                }
            }
        }
    }
}
