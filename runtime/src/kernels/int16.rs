//! The 16x8 arithmetic of the reference conv-like kernels: int16
//! activations, int8 weights, symmetric (zero point 0) as TFLite requires,
//! accumulated in 64 bits with an int64 bias (or in 32 bits with an int32
//! bias), each as TFLite's reference does.

use super::{Arithmetic, clamp_i32};
use crate::fixedpoint::{multiply_by_quantized_multiplier, multiply_by_quantized_multiplier_i64};

/// The accumulator of a 16x8 kernel: int64 (int64 bias) or int32.
pub trait Acc16: Copy {
    /// Zero.
    const ZERO: Self;
    /// `self + w * x`.
    fn mac(self, w: i8, x: i16) -> Self;
    /// `self + bias`.
    fn add(self, bias: Self) -> Self;
    /// Rescaled to the output's int32 value.
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
    fn requant(self, multiplier: i32, shift: i32) -> i32 {
        multiply_by_quantized_multiplier_i64(self, multiplier, shift)
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
    fn requant(self, multiplier: i32, shift: i32) -> i32 {
        multiply_by_quantized_multiplier(self, multiplier, shift)
    }
}

/// Per-channel requantization of a 16x8 op (no zero points).
#[derive(Clone, Copy, Debug)]
pub struct Requant16<'a> {
    /// Q0.31 significands, one per output channel.
    pub multiplier: &'a [i32],
    /// Exponents.
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
