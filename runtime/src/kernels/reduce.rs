//! MEAN over any set of axes. For every output element the reduced input
//! elements are visited in row-major order, which is the order TFLite's
//! reference `Reduce` accumulates them in.

use super::{Narrow, Strided6};

/// The largest value of an integer element type, widened.
pub trait Bounded {
    /// `Self::MAX as i32`.
    const MAX_I32: i32;
}

impl Bounded for i8 {
    const MAX_I32: i32 = i8::MAX as i32;
}

impl Bounded for i16 {
    const MAX_I32: i32 = i16::MAX as i32;
}
use crate::fixedpoint::multiply_by_quantized_multiplier;

/// Describes a reduction: `outer` walks the output elements (stride `a` into
/// the input), `inner` walks the reduced elements of one output (stride `a`
/// into the input). `b` strides are unused.
#[derive(Clone, Copy, Debug)]
pub struct Reduction {
    /// Kept axes: output extents and their input strides.
    pub outer: Strided6,
    /// Reduced axes: extents and input strides.
    pub inner: Strided6,
}

/// int8/int16 mean or sum (TFLite `QuantizedMeanOrSum`): for a mean
/// `multiplier`/`shift` already include the 1/count factor;
/// `zero_point_sum` is `input_zero_point * count`.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn mean_q<T: Narrow + Bounded, const IN: usize, const OUT: usize>(
    input: &[T],
    r: &Reduction,
    zero_point_sum: i32,
    multiplier: i32,
    shift: i32,
    output_zero_point: i32,
    output: &mut [T],
) {
    let input = &input[..IN];
    let output = &mut output[..OUT];
    r.outer.for_each(|o, base, _| {
        let mut sum: i32 = 0;
        r.inner.for_each(|_, off, _| sum = sum.wrapping_add(input[base + off].to_i32()));
        let v = multiply_by_quantized_multiplier(sum.wrapping_sub(zero_point_sum), multiplier, shift)
            .wrapping_add(output_zero_point);
        output[o] = T::narrow(v.clamp(T::MIN.to_i32(), T::MAX_I32));
    });
}

/// float32 mean (TFLite `reference_ops::Mean`): a float sum divided by the
/// element count.
#[inline(never)]
pub fn mean_f32<const IN: usize, const OUT: usize>(input: &[f32], r: &Reduction, count: f32, output: &mut [f32]) {
    let input = &input[..IN];
    let output = &mut output[..OUT];
    r.outer.for_each(|o, base, _| {
        let mut sum = 0.0f32;
        r.inner.for_each(|_, off, _| sum += input[base + off]);
        output[o] = sum / count;
    });
}

/// Each reduced block folded by `f` from `init`, in the input's order (as
/// LiteRT's reference `ReduceGeneric` visits it).
#[inline(always)]
pub fn reduce_fold<T: Copy, const IN: usize, const OUT: usize>(
    input: &[T],
    r: &Reduction,
    init: T,
    output: &mut [T],
    f: impl Fn(T, T) -> T,
) {
    let input = &input[..IN];
    let output = &mut output[..OUT];
    r.outer.for_each(|o, base, _| {
        let mut acc = init;
        r.inner.for_each(|_, off, _| acc = f(acc, input[base + off]));
        output[o] = acc;
    });
}

/// REDUCE_PROD (LiteRT's; TFLM has none): each reduced block's product by
/// `times` from `one`, in the input's order.
#[inline(never)]
pub fn reduce_prod<T: Copy, const IN: usize, const OUT: usize>(
    input: &[T],
    r: &Reduction,
    one: T,
    output: &mut [T],
    times: impl Fn(T, T) -> T,
) {
    reduce_fold::<T, IN, OUT>(input, r, one, output, times)
}

/// REDUCE_MAX: the largest value of each reduced block (`lowest` is the
/// type's minimum, TFLite's initial value).
#[inline(never)]
pub fn reduce_max<T: Copy + PartialOrd, const IN: usize, const OUT: usize>(
    input: &[T],
    r: &Reduction,
    lowest: T,
    output: &mut [T],
) {
    reduce_fold::<T, IN, OUT>(input, r, lowest, output, |m, v| if v > m { v } else { m })
}

/// REDUCE_MIN: the smallest value of each reduced block (`highest` is the
/// type's maximum, TFLite's initial value).
#[inline(never)]
pub fn reduce_min<T: Copy + PartialOrd, const IN: usize, const OUT: usize>(
    input: &[T],
    r: &Reduction,
    highest: T,
    output: &mut [T],
) {
    reduce_fold::<T, IN, OUT>(input, r, highest, output, |m, v| if v < m { v } else { m })
}

/// ARG_MAX / ARG_MIN over one axis: `outer` blocks of `axis` values with
/// stride `inner`; ties keep the first index (a strict comparison, as
/// TFLite). Indices are written as `O` (int32 or int64).
#[inline(never)]
pub fn arg_reduce<T: Copy + PartialOrd, O: Copy, const OUTER: usize, const AXIS: usize, const INNER: usize>(
    input: &[T],
    output: &mut [O],
    is_max: bool,
    index: impl Fn(usize) -> O,
) {
    let input = &input[..OUTER * AXIS * INNER];
    let output = &mut output[..OUTER * INNER];
    for o in 0..OUTER {
        for i in 0..INNER {
            let at = |k: usize| input[(o * AXIS + k) * INNER + i];
            let mut best = 0;
            for k in 1..AXIS {
                let better = if is_max { at(k) > at(best) } else { at(k) < at(best) };
                if better {
                    best = k;
                }
            }
            output[o * INNER + i] = index(best);
        }
    }
}
