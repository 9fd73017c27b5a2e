//! Hybrid (dynamic-range) layers: float32 activations with int8 weights,
//! which TFLM does not run and LiteRT does. The float input is quantized
//! to int8 on the fly (one scale per row or per image, symmetric or with a
//! zero point), the products summed in int32 and scaled back to float32,
//! as LiteRT's kernels do it (FULLY_CONNECTED: `EvalHybridDense`; CONV_2D:
//! `HybridConv` per tensor, `HybridConvPerChannel` per channel;
//! DEPTHWISE_CONV_2D: `DepthwiseConvHybridPerChannel`).

use super::conv::{Pixel, Window};

/// The dynamic-range quantization of a hybrid op's float32 input (a row,
/// or a whole image) into `q` (LiteRT's `SymmetricQuantizeFloats`, or
/// `AsymmetricQuantizeFloats` when `asymmetric`): the row's scale and its
/// zero point (0 when symmetric).
#[inline(always)]
pub(crate) fn quantize_row(x: &[f32], asymmetric: bool, q: &mut [i8]) -> (f32, i32) {
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

/// `w . q` in int32, wrapping as LiteRT's int arithmetic does: one row of
/// a hybrid op's int8 products.
#[inline(always)]
pub(crate) fn dot_i8(w: &[i8], q: &[i8]) -> i32 {
    w.iter().zip(q).fold(0i32, |dot, (&w, &v)| dot.wrapping_add(w as i32 * v as i32))
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
                let mut dot = dot_i8(w, q);
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

/// Hybrid CONV_2D. Each batch's whole image is quantized at once into `q`
/// (`IH * IW * IC` bytes of scratch): symmetric with one weight scale
/// (LiteRT's `HybridConv`: `sum * (input scale * weight scale) + bias`),
/// with a zero point for per-channel weight scales or filter groups
/// (`HybridConvPerChannel`: `sum * weight scale[c] * input scale + bias`);
/// taps in the padding add nothing. `scales`: the weights' scale, or one
/// per output channel. Then clamped to `lo..=hi`.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn conv2d_hybrid<
    const N: usize,
    const IH: usize,
    const IW: usize,
    const IC: usize,
    const OH: usize,
    const OW: usize,
    const OC: usize,
    const KH: usize,
    const KW: usize,
    const KC: usize,
    const PER_CHANNEL: bool,
>(
    input: &[f32],
    filter: &[i8],
    bias: Option<&[f32]>,
    win: &Window,
    scales: &[f32],
    (lo, hi): (f32, f32),
    q: &mut [i8],
    output: &mut [f32],
) {
    let image = IH * IW * IC;
    let (input, filter, q) = (&input[..N * image], &filter[..OC * KH * KW * KC], &mut q[..image]);
    let per_group = OC / (IC / KC);
    for (x, output) in input.chunks_exact(image).zip(output.chunks_exact_mut(OH * OW * OC)) {
        let (input_scale, offset) = quantize_row(x, PER_CHANNEL, q);
        let input_scale = if PER_CHANNEL { input_scale } else { input_scale * scales[0] };
        win.for_each_pixel::<1, IH, IW, OH, OW, KH, KW>(|Pixel { y0, x0, ys, xs, index, .. }| {
            for (oc, out) in output[index * OC..(index + 1) * OC].iter_mut().enumerate() {
                let group = oc / per_group;
                let mut acc = 0i32;
                for ky in ys.clone() {
                    let iy = (y0 + (ky * win.dilation_h) as isize) as usize;
                    for kx in xs.clone() {
                        let ix = (x0 + (kx * win.dilation_w) as isize) as usize;
                        let at = (iy * IW + ix) * IC + group * KC;
                        let w = &filter[((oc * KH + ky) * KW + kx) * KC..][..KC];
                        for (&w, &v) in w.iter().zip(&q[at..at + KC]) {
                            acc = acc.wrapping_add(w as i32 * (v as i32 - offset));
                        }
                    }
                }
                let mut v = if PER_CHANNEL { acc as f32 * scales[oc] * input_scale } else { acc as f32 * input_scale };
                if let Some(bias) = bias {
                    v += bias[oc];
                }
                *out = v.max(lo).min(hi);
            }
        });
    }
}

/// Hybrid DEPTHWISE_CONV_2D (LiteRT's `DepthwiseConvHybridPerChannel`):
/// each batch's image quantized with a zero point into `q` (`IH * IW * IC`
/// bytes of scratch), per output channel `c` (input channel `c / M`) the
/// taps inside the image summed, then `sum * (weight scale[c] * input
/// scale) + bias`, clamped to `lo..=hi`. `scales`: one per output channel.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn depthwise_hybrid<
    const N: usize,
    const IH: usize,
    const IW: usize,
    const IC: usize,
    const OH: usize,
    const OW: usize,
    const OC: usize,
    const KH: usize,
    const KW: usize,
>(
    input: &[f32],
    filter: &[i8],
    bias: Option<&[f32]>,
    win: &Window,
    scales: &[f32],
    (lo, hi): (f32, f32),
    q: &mut [i8],
    output: &mut [f32],
) {
    let image = IH * IW * IC;
    let (input, filter, scales, q) = (&input[..N * image], &filter[..KH * KW * OC], &scales[..OC], &mut q[..image]);
    let multiplier = OC / IC;
    for (x, output) in input.chunks_exact(image).zip(output.chunks_exact_mut(OH * OW * OC)) {
        let (input_scale, offset) = quantize_row(x, true, q);
        win.for_each_pixel::<1, IH, IW, OH, OW, KH, KW>(|Pixel { y0, x0, ys, xs, index, .. }| {
            for (oc, out) in output[index * OC..(index + 1) * OC].iter_mut().enumerate() {
                let ic = oc / multiplier;
                let mut acc = 0i32;
                for ky in ys.clone() {
                    let iy = (y0 + (ky * win.dilation_h) as isize) as usize;
                    for kx in xs.clone() {
                        let ix = (x0 + (kx * win.dilation_w) as isize) as usize;
                        let v = q[(iy * IW + ix) * IC + ic] as i32;
                        acc = acc.wrapping_add(filter[(ky * KW + kx) * OC + oc] as i32 * (v - offset));
                    }
                }
                let mut v = acc as f32 * (scales[oc] * input_scale);
                if let Some(bias) = bias {
                    v += bias[oc];
                }
                *out = v.max(lo).min(hi);
            }
        });
    }
}

/// The batch walk of LiteRT's hybrid BATCH_MATMUL (its reference kernel,
/// on the shapes after its folding of a broadcast weight batch into the
/// input rows): three batch dimensions and, per step of each, the element
/// offsets of the input and weight matrices and the offsets into the input
/// rows' scales and the weight rows' sums. LiteRT steps the last two by
/// the matrix's row count on every dimension the operand is not broadcast
/// on (not by the dimension's stride): with several batch dimensions its
/// rows take other rows' scales, which this reproduces.
#[derive(Clone, Copy, Debug)]
pub struct HybridBatches {
    /// The output's batch dimensions.
    pub dims: [usize; 3],
    /// Input matrix offset per step (0 where broadcast).
    pub input: [usize; 3],
    /// Weight matrix offset per step (0 where broadcast).
    pub weights: [usize; 3],
    /// Input row-scale offset per step (LiteRT: `M` or 0).
    pub scale: [usize; 3],
    /// Weight row-sum offset per step (LiteRT: `N` or 0).
    pub row_sum: [usize; 3],
}

/// Hybrid BATCH_MATMUL (LiteRT's `EvalHybrid`), float32 `input` `[..., M,
/// K]` (`strides` within a matrix: a transposed input swaps them) times
/// constant int8 `weights` stored `[..., N, K]`, float32 output `[..., M,
/// N]`. Each of the input's `ROWS` rows is quantized on its own (a scale,
/// and a zero point when `ASYMMETRIC`); per output element the int32 dot
/// product, less the weight row's sum times the row's zero point (in
/// float32, truncated back to int32 as there), times the row's scale and
/// the weights' (`scales`: one, or one per `N` row when `PER_CHANNEL`).
/// `scratch`: `2 * ROWS + K` floats (the rows' scales, zero points, and a
/// gathered row).
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn batch_matmul_hybrid<
    const M: usize,
    const K: usize,
    const N: usize,
    const ROWS: usize,
    const ASYMMETRIC: bool,
    const PER_CHANNEL: bool,
>(
    input: &[f32],
    strides: super::fully_connected::MatrixStrides,
    weights: &[i8],
    scales: &[f32],
    row_sums: &[i32],
    batches: &HybridBatches,
    scratch: &mut [f32],
    output: &mut [f32],
) {
    let (row_scales, rest) = scratch[..2 * ROWS + K].split_at_mut(ROWS);
    let (zero_points, row) = rest.split_at_mut(ROWS);
    let mut q = [0i8; K];
    // Row `r` of the input (matrix `r / M`, row `r % M`), quantized.
    let quantize = |matrix_base: usize, m: usize, row: &mut [f32], q: &mut [i8; K]| {
        for (k, v) in row.iter_mut().enumerate() {
            *v = input[matrix_base + m * strides.row + k * strides.column];
        }
        quantize_row(row, ASYMMETRIC, q)
    };
    for r in 0..ROWS {
        let (scale, zero_point) = quantize((r / M) * M * K, r % M, row, &mut q);
        row_scales[r] = if PER_CHANNEL { scale } else { scale * scales[0] };
        zero_points[r] = zero_point as f32;
    }
    let [d0, d1, d2] = batches.dims;
    let at = |steps: &[usize; 3], b: [usize; 3]| b[0] * steps[0] + b[1] * steps[1] + b[2] * steps[2];
    for b0 in 0..d0 {
        for b1 in 0..d1 {
            for b2 in 0..d2 {
                let b = [b0, b1, b2];
                let (input_base, weight_base) = (at(&batches.input, b), at(&batches.weights, b));
                let (scale_base, sum_base) = (at(&batches.scale, b), at(&batches.row_sum, b));
                let out = &mut output[((b0 * d1 + b1) * d2 + b2) * M * N..][..M * N];
                for (m, out) in out.chunks_exact_mut(N).enumerate() {
                    quantize(input_base, m, row, &mut q);
                    let (row_scale, zero_point) = (row_scales[scale_base + m], zero_points[scale_base + m]);
                    for (n, o) in out.iter_mut().enumerate() {
                        let w = &weights[weight_base + n * K..][..K];
                        let total = dot_i8(w, &q);
                        // LiteRT: `total -= row_sum * offset` with a float
                        // offset: in float32, truncated back.
                        let sum = if ASYMMETRIC { row_sums[sum_base + n] as f32 * zero_point } else { 0.0 };
                        let total = (total as f32 - sum) as i32;
                        let scale = if PER_CHANNEL { row_scale * scales[n] } else { row_scale };
                        *o = 0.0 + scale * total as f32;
                    }
                }
            }
        }
    }
}
