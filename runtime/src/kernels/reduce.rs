//! MEAN over any set of axes. For every output element the reduced input
//! elements are visited in row-major order, which is the order TFLite's
//! reference `Reduce` accumulates them in.

use super::Strided6;
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

/// int8 mean (TFLite `QuantizedMeanOrSum` with `compute_sum = false`):
/// `multiplier`/`shift` already include the 1/count factor and
/// `zero_point_sum` is `input_zero_point * count`.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn mean_s8<const IN: usize, const OUT: usize>(
    input: &[i8],
    r: &Reduction,
    zero_point_sum: i32,
    multiplier: i32,
    shift: i32,
    output_zero_point: i32,
    output: &mut [i8],
) {
    let input = &input[..IN];
    let output = &mut output[..OUT];
    r.outer.for_each(|o, base, _| {
        let mut sum: i32 = 0;
        r.inner.for_each(|_, off, _| sum = sum.wrapping_add(input[base + off] as i32));
        let v = multiply_by_quantized_multiplier(sum.wrapping_sub(zero_point_sum), multiplier, shift)
            .wrapping_add(output_zero_point);
        output[o] = v.clamp(i8::MIN as i32, i8::MAX as i32) as i8;
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
