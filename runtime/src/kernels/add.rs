//! ADD, elementwise or with TFLite's broadcasting (up to 6 dimensions).

use super::{Io, Strided6, clamp_f32, clamp_i32};
use crate::fixedpoint::multiply_by_quantized_multiplier_smaller_than_one_exp as mul_lt1;

/// The rescaling constants of a quantized ADD (TFLite `ArithmeticParams`).
#[derive(Clone, Copy, Debug)]
pub struct AddQuant {
    /// Negated zero point of input 1.
    pub input1_offset: i32,
    /// Negated zero point of input 2.
    pub input2_offset: i32,
    /// Output zero point.
    pub output_offset: i32,
    /// Headroom shift applied to both inputs (20 for int8).
    pub left_shift: i32,
    /// Input 1 multiplier (Q0.31) and exponent (<= 0).
    pub input1_multiplier: i32,
    /// Exponent of input 1's multiplier.
    pub input1_shift: i32,
    /// Input 2 multiplier.
    pub input2_multiplier: i32,
    /// Exponent of input 2's multiplier.
    pub input2_shift: i32,
    /// Output multiplier.
    pub output_multiplier: i32,
    /// Exponent of the output multiplier.
    pub output_shift: i32,
    /// Fused activation range, quantized.
    pub act_min: i32,
    /// Upper end of the fused activation range.
    pub act_max: i32,
}

impl AddQuant {
    /// TFLite `AddFunc` for int8.
    #[inline(always)]
    pub fn add(&self, x: i8, y: i8) -> i8 {
        let a = (self.input1_offset + x as i32) * (1 << self.left_shift);
        let b = (self.input2_offset + y as i32) * (1 << self.left_shift);
        let a = mul_lt1(a, self.input1_multiplier, self.input1_shift);
        let b = mul_lt1(b, self.input2_multiplier, self.input2_shift);
        let raw =
            mul_lt1(a.wrapping_add(b), self.output_multiplier, self.output_shift).wrapping_add(self.output_offset);
        clamp_i32(raw, self.act_min, self.act_max) as i8
    }
}

/// int8 ADD of two same-shaped tensors. `io` carries one input and the
/// output (possibly in place); `other` is the second input; `io_first` says
/// whether `io`'s input is ADD's first operand.
#[inline(never)]
pub fn add_s8<const LEN: usize, IO: Io<i8>>(mut io: IO, other: &[i8], io_first: bool, q: &AddQuant) {
    let other = &other[..LEN];
    for (i, &y) in other.iter().enumerate() {
        let x = io.get(i);
        io.put(i, if io_first { q.add(x, y) } else { q.add(y, x) });
    }
}

/// int8 ADD with broadcasting: `shape` walks the output; its `a` strides
/// index `io`'s input, its `b` strides `other` (0 along broadcast dims).
#[inline(never)]
pub fn add_broadcast_s8<const LEN: usize, IO: Io<i8>>(
    mut io: IO,
    other: &[i8],
    shape: &Strided6,
    io_first: bool,
    q: &AddQuant,
) {
    shape.for_each(|i, ia, ib| {
        let (x, y) = (io.get(ia), other[ib]);
        io.put(i, if io_first { q.add(x, y) } else { q.add(y, x) });
    });
}

/// float32 ADD of two same-shaped tensors (operand order as for `add_s8`).
#[inline(never)]
pub fn add_f32<const LEN: usize, IO: Io<f32>>(mut io: IO, other: &[f32], act_min: f32, act_max: f32) {
    let other = &other[..LEN];
    for (i, &y) in other.iter().enumerate() {
        // Float addition commutes exactly, so the operand order is free.
        let x = io.get(i);
        io.put(i, clamp_f32(x + y, act_min, act_max));
    }
}

/// float32 ADD with broadcasting.
#[inline(never)]
pub fn add_broadcast_f32<const LEN: usize, IO: Io<f32>>(
    mut io: IO,
    other: &[f32],
    shape: &Strided6,
    act_min: f32,
    act_max: f32,
) {
    shape.for_each(|i, ia, ib| {
        let (x, y) = (io.get(ia), other[ib]);
        io.put(i, clamp_f32(x + y, act_min, act_max));
    });
}
