//! The 16x8 arithmetic of the reference conv-like kernels: int16
//! activations, int8 weights, symmetric (zero point 0) as TFLite requires,
//! accumulated in 64 bits with an int64 bias (or in 32 bits with an int32
//! bias), each as TFLite's reference does.

use super::{Arithmetic, clamp_i32};
use crate::fixedpoint::{multiply_by_quantized_multiplier, rescale_reduced_i64};

/// The accumulator of a 16x8 kernel: int64 (int64 bias) or int32.
pub trait Acc16: Copy {
    /// Zero.
    const ZERO: Self;
    /// `self + w * x`.
    fn mac(self, w: i8, x: i16) -> Self;
    /// `self + bias`.
    fn add(self, bias: Self) -> Self;
    /// `self + sum`: a run's 32-bit sum of products (`RUN16`).
    fn add_sum(self, sum: i32) -> Self;
    /// Rescaled to the output's int32 value by [`Requant16`]'s constants
    /// for this accumulator.
    fn requant(self, multiplier: i32, shift: i32) -> i32;
}

impl Acc16 for i64 {
    const ZERO: i64 = 0;
    #[inline(always)]
    fn mac(self, w: i8, x: i16) -> i64 {
        self.wrapping_add(w as i64 * x as i64)
    }
    #[inline(always)]
    fn add(self, bias: i64) -> i64 {
        self.wrapping_add(bias)
    }
    #[inline(always)]
    fn add_sum(self, sum: i32) -> i64 {
        self.wrapping_add(sum as i64)
    }
    #[inline(always)]
    fn requant(self, reduced: i32, total_shift: i32) -> i32 {
        rescale_reduced_i64(self, reduced, total_shift)
    }
}

impl Acc16 for i32 {
    const ZERO: i32 = 0;
    #[inline(always)]
    fn mac(self, w: i8, x: i16) -> i32 {
        self.wrapping_add(w as i32 * x as i32)
    }
    #[inline(always)]
    fn add(self, bias: i32) -> i32 {
        self.wrapping_add(bias)
    }
    #[inline(always)]
    fn add_sum(self, sum: i32) -> i32 {
        self.wrapping_add(sum)
    }
    #[inline(always)]
    fn requant(self, multiplier: i32, shift: i32) -> i32 {
        multiply_by_quantized_multiplier(self, multiplier, shift)
    }
}

/// Per-channel requantization of a 16x8 op (no zero points). With int64
/// sums the compiler folds TFLite's 64-bit rescale's constants
/// (`fixedpoint::reduce_multiplier_i64`): `multiplier` holds the
/// multipliers rounded to 16 bits and `shift` the total right shifts; with
/// int32 sums they are the Q0.31 significands and exponents.
#[derive(Clone, Copy, Debug)]
pub struct Requant16<'a> {
    /// Q0.31 significands (int32 sums) or reduced multipliers (int64), one
    /// per output channel.
    pub multiplier: &'a [i32],
    /// Exponents (int32 sums) or total right shifts (int64).
    pub shift: &'a [i32],
    /// Fused activation range.
    pub act_min: i32,
    /// Upper end.
    pub act_max: i32,
}

impl Requant16<'_> {
    #[inline(always)]
    fn apply<A: Acc16>(&self, acc: A, c: usize) -> i16 {
        clamp_i32(acc.requant(self.multiplier[c], self.shift[c]), self.act_min, self.act_max) as i16
    }
}

/// The arithmetic of an int16 x int16 product (BATCH_MATMUL): 64-bit sums
/// of raw products (zero points are 0), requantized as a 16x8 op.
#[derive(Clone, Copy, Debug)]
pub struct Product16<'a>(pub &'a Requant16<'a>);

impl Arithmetic<i64> for Product16<'_> {
    type Input = i16;
    type Weight = i16;
    type Output = i16;
    const ZERO: i64 = 0;
    #[inline(always)]
    fn mac(&self, acc: i64, weight: i16, input: i16) -> i64 {
        acc.wrapping_add(weight as i64 * input as i64)
    }
    #[inline(always)]
    fn output(&self, acc: i64, bias: Option<&[i64]>, channel: usize) -> i16 {
        <Requant16<'_> as Arithmetic<i64>>::output(self.0, acc, bias, channel)
    }
}

impl<A: Acc16> Arithmetic<A> for Requant16<'_> {
    type Input = i16;
    type Weight = i8;
    type Output = i16;
    const ZERO: A = A::ZERO;
    #[inline(always)]
    fn mac(&self, acc: A, weight: i8, input: i16) -> A {
        acc.mac(weight, input)
    }
    #[inline(always)]
    fn output(&self, acc: A, bias: Option<&[A]>, channel: usize) -> i16 {
        let acc = match bias {
            Some(bias) => acc.add(bias[channel]),
            None => acc,
        };
        self.apply(acc, channel)
    }
}

pub use super::layout::RUN16;

/// The 16x8 arithmetic over 32-bit sums, for windows of at most [`RUN16`]
/// taps (whose sums cannot overflow): the kernels' 32-bit block loops sum
/// the raw products, and each sum goes into the accumulator `A` (TFLite's
/// int64, or its int32) with `bias` at the output. Same bits as
/// [`Requant16`] over `A`.
#[derive(Clone, Copy, Debug)]
pub struct Sums16<'a, A> {
    /// The requantization.
    pub q: &'a Requant16<'a>,
    /// The bias, in the accumulator's type.
    pub bias: Option<&'a [A]>,
}

impl<A: Acc16> Arithmetic<i32> for Sums16<'_, A> {
    type Input = i16;
    type Weight = i8;
    type Output = i16;
    const ZERO: i32 = 0;
    #[inline(always)]
    fn mac(&self, acc: i32, weight: i8, input: i16) -> i32 {
        acc.wrapping_add(weight as i32 * input as i32)
    }
    #[inline(always)]
    fn output(&self, acc: i32, _: Option<&[i32]>, channel: usize) -> i16 {
        Arithmetic::output(self.q, A::ZERO.add_sum(acc), self.bias, channel)
    }
}

/// The outputs of one 16x8 dot-product layer for input `x`: output `r` is
/// the requantized sum of `x` against weight row `r` (the `x.len()` bytes
/// from `r * stride` of `rows`) and its bias, for every `r < out.len()`;
/// blocks of 4 rows share each input load (`arch::dot16_rows`), the last
/// 1 to 3 rows one block.
#[inline(always)]
pub(crate) fn dots16_down<A: Acc16>(
    x: &[i16],
    rows: &[i8],
    stride: usize,
    bias: Option<&[A]>,
    q: &Requant16<'_>,
    out: &mut [i16],
) {
    let n = out.len();
    for first in (0..n / 4).map(|b| 4 * b) {
        rows_down::<A, 4>(x, rows, stride, bias, q, out, first);
    }
    let first = n / 4 * 4;
    match n % 4 {
        1 => rows_down::<A, 1>(x, rows, stride, bias, q, out, first),
        2 => rows_down::<A, 2>(x, rows, stride, bias, q, out, first),
        3 => rows_down::<A, 3>(x, rows, stride, bias, q, out, first),
        _ => {}
    }
}

/// Outputs `first .. first + R` of [`dots16_down`]: their sums run by run
/// (`RUN16` values each), then the bias and the requantization.
#[inline(always)]
fn rows_down<A: Acc16, const R: usize>(
    x: &[i16],
    rows: &[i8],
    stride: usize,
    bias: Option<&[A]>,
    q: &Requant16<'_>,
    out: &mut [i16],
    first: usize,
) {
    let mut acc = [A::ZERO; R];
    for start in (0..x.len()).step_by(RUN16) {
        let run = &x[start..x.len().min(start + RUN16)];
        let sums = crate::arch::dot16_rows::<R>(run, &rows[first * stride + start..], stride);
        for (a, s) in acc.iter_mut().zip(sums) {
            *a = a.add_sum(s);
        }
    }
    for (k, a) in acc.into_iter().enumerate() {
        out[first + k] = Arithmetic::output(q, a, bias, first + k);
    }
}
