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

/// 16x8 fully connected (int16 inputs, int8 weights, no zero points):
/// [`fully_connected`]'s bits, each row of inputs against four weight rows
/// per input load (`int16::dots16_down`).
#[inline(never)]
pub fn fully_connected_16x8<A: super::int16::Acc16, const B: usize, const D: usize, const O: usize>(
    input: &[i16],
    weights: &[i8],
    bias: Option<&[A]>,
    q: &super::int16::Requant16<'_>,
    output: &mut [i16],
) {
    let weights = &weights[..O * D];
    for (row, out) in input[..B * D].chunks_exact(D).zip(output[..B * O].chunks_exact_mut(O)) {
        super::int16::dots16_down(row, weights, D, bias, q, out);
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

/// LiteRT's uint8 FULLY_CONNECTED arithmetic (its reference kernel with
/// float scales) on the int8 values `q - 128` the compiler's uint8 pass
/// gives: `(w + weight_offset) * (x + input_offset)` summed with the bias,
/// times `scale` (input x weight / output, in double precision), rounded
/// half away from zero, plus the output zero point, clamped.
#[derive(Clone, Copy, Debug)]
pub struct ScaledInDouble {
    /// The negated input zero point.
    pub input_offset: i32,
    /// The negated weight zero point.
    pub weight_offset: i32,
    /// The output zero point.
    pub output_offset: i32,
    /// The effective scale.
    pub scale: f64,
    /// Quantized activation range.
    pub act_min: i32,
    /// Upper end.
    pub act_max: i32,
}

impl Arithmetic<i32> for ScaledInDouble {
    type Input = i8;
    type Weight = i8;
    type Output = i8;
    const ZERO: i32 = 0;
    #[inline(always)]
    fn mac(&self, acc: i32, weight: i8, input: i8) -> i32 {
        acc.wrapping_add((weight as i32 + self.weight_offset).wrapping_mul(input as i32 + self.input_offset))
    }
    #[inline(always)]
    fn output(&self, acc: i32, bias: Option<&[i32]>, channel: usize) -> i8 {
        let acc = bias.map_or(acc, |b| acc.wrapping_add(b[channel]));
        let scaled = libm::round(f64::from(acc) * self.scale) as i32;
        super::clamp_i32(scaled.wrapping_add(self.output_offset), self.act_min, self.act_max) as i8
    }
}

/// int8 fully connected with the input offset folded into `bias`
/// (`bias + input_offset * sum(weight row)`, computed at compile time) and
/// the weights repacked at compile time (`layout::pack_rows`): each input row
/// meets the weight rows four at a time ([`super::dot`]). Same bits as
/// [`fully_connected`].
///
/// `FUSE`: the compiler's choice of the fused requantization (short-form
/// scales, the whole int8 range): each block of sums is requantized from
/// registers.
#[inline(never)]
pub fn fully_connected_folded_s8<const B: usize, const D: usize, const O: usize, const FUSE: bool>(
    input: &[i8],
    packed: impl super::PackedRows,
    bias: &[i32],
    q: &Rescale<'_>,
    output: &mut [i8],
) {
    let input = &input[..B * D];
    let output = &mut output[..B * O];
    let fused = if FUSE { super::conv::fused_or_bug(q) } else { None };
    for (row, out) in input.chunks_exact(D).zip(output.chunks_exact_mut(O)) {
        match fused {
            Some(scales) => packed.dense_dots_down::<D>(row, bias, scales, out),
            None => super::dot::rescaled_dots::<D>(row, packed, bias, q, out),
        }
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
