//! SOFTMAX, LOG_SOFTMAX and L2_NORMALIZATION over the last dimension.

use super::Io;
use super::elementwise::lut_interp_s16;
use crate::fixedpoint::multiply_by_quantized_multiplier;
use crate::fixedpoint::{
    exp_on_negative_values, get_reciprocal, multiply_by_quantized_multiplier_greater_than_one, rounding_divide_by_pot,
    saturating_rounding_doubling_high_mul, saturating_rounding_multiply_by_pot,
};

/// Integer bits of the scaled input difference (Q5.26), as in TFLite.
const SCALED_DIFF_INTEGER_BITS: i32 = 5;
/// Integer bits of the sum of exponentials (Q12.19).
const ACCUMULATION_INTEGER_BITS: i32 = 12;

/// The compile-time constants of an int8 softmax (TFLite `SoftmaxParams`).
#[derive(Clone, Copy, Debug)]
pub struct SoftmaxQuant {
    /// beta * input_scale as a Q0.31 multiplier ...
    pub input_multiplier: i32,
    /// ... and its left shift.
    pub input_left_shift: i32,
    /// Differences below this are treated as exp(-inf) = 0.
    pub diff_min: i32,
}

/// Output element types of the int8 softmax: int8 (zero point -128, scale
/// 1/256) or int16 (zero point -32768, scale 1/65536).
pub trait SoftmaxOutput: Copy {
    /// Bits of the type.
    const BITS: i32;
    /// Smallest value.
    const MIN: i32;
    /// Largest value.
    const MAX: i32;
    /// Narrowing from an already clamped value.
    fn from_i32(v: i32) -> Self;
}

impl SoftmaxOutput for i8 {
    const BITS: i32 = 8;
    const MIN: i32 = i8::MIN as i32;
    const MAX: i32 = i8::MAX as i32;
    fn from_i32(v: i32) -> Self {
        v as i8
    }
}

impl SoftmaxOutput for i16 {
    const BITS: i32 = 16;
    const MIN: i32 = i16::MIN as i32;
    const MAX: i32 = i16::MAX as i32;
    fn from_i32(v: i32) -> Self {
        v as i16
    }
}

/// int8-input softmax (TFLite `reference_ops::Softmax<int8_t, OutputT>`),
/// `ROWS` rows of `DEPTH` classes.
#[inline(never)]
pub fn softmax_s8<O: SoftmaxOutput, const ROWS: usize, const DEPTH: usize, IO: Io<i8, O>>(
    mut io: IO,
    q: &SoftmaxQuant,
) {
    for r in 0..ROWS {
        let base = r * DEPTH;
        let mut max_in_row = i8::MIN as i32;
        for c in 0..DEPTH {
            max_in_row = max_in_row.max(io.get(base + c) as i32);
        }
        let scaled_exp = |x: i8| -> Option<i32> {
            let diff = x as i32 - max_in_row;
            if diff >= q.diff_min {
                let rescaled =
                    multiply_by_quantized_multiplier_greater_than_one(diff, q.input_multiplier, q.input_left_shift);
                Some(exp_on_negative_values(rescaled, SCALED_DIFF_INTEGER_BITS))
            } else {
                None
            }
        };
        let mut sum_of_exps: i32 = 0;
        for c in 0..DEPTH {
            if let Some(e) = scaled_exp(io.get(base + c)) {
                // Rescale<12> from Q0.31: divide by 2^12 with rounding.
                sum_of_exps =
                    sum_of_exps.wrapping_add(saturating_rounding_multiply_by_pot(e, -ACCUMULATION_INTEGER_BITS));
            }
        }
        let (shifted_scale, num_bits_over_unit) = get_reciprocal(sum_of_exps, ACCUMULATION_INTEGER_BITS);
        let exponent = num_bits_over_unit + 31 - O::BITS;
        for c in 0..DEPTH {
            let v = match scaled_exp(io.get(base + c)) {
                Some(e) => {
                    let unsat =
                        rounding_divide_by_pot(saturating_rounding_doubling_high_mul(shifted_scale, e), exponent);
                    O::from_i32(unsat.wrapping_add(O::MIN).clamp(O::MIN, O::MAX))
                }
                None => O::from_i32(O::MIN),
            };
            io.put(base + c, v);
        }
    }
}

/// int16 softmax (TFLite `reference_ops::SoftmaxInt16`): `exp` of the
/// rescaled difference to the row maximum through `exp_lut`, the
/// reciprocal of the sum through `recip_lut` (both 513-entry tables the
/// compiler computes as TFLite's `LUTPopulate` does), output scale
/// 1/32768. The exponentials are kept in the output until normalized.
#[inline(never)]
pub fn softmax_s16<const ROWS: usize, const DEPTH: usize, IO: Io<i16>>(
    mut io: IO,
    input_multiplier: i32,
    input_shift: i32,
    exp_lut: &[i16],
    recip_lut: &[i16],
) {
    for r in 0..ROWS {
        let base = r * DEPTH;
        let mut max_in_row = i16::MIN;
        for c in 0..DEPTH {
            max_in_row = max_in_row.max(io.get(base + c));
        }
        let mut sum_of_exps: i32 = 0;
        for c in 0..DEPTH {
            let diff = io.get(base + c) as i32 - max_in_row as i32;
            let scaled = multiply_by_quantized_multiplier(diff, input_multiplier, input_shift);
            let sym = scaled.wrapping_add(32767).clamp(-32768, 32767) as i16;
            let e = lut_interp_s16(sym, exp_lut);
            io.put(base + c, e);
            sum_of_exps = sum_of_exps.wrapping_add(e as i32);
        }
        let headroom_plus_one = (sum_of_exps as u32).leading_zeros() as i32;
        let shifted_sum = (((sum_of_exps as i64) << (headroom_plus_one - 1).clamp(0, 62)) + (1 << 13)) >> 14;
        let sym_sum = (shifted_sum as i32).wrapping_sub((1 << 15) + (1 << 16)).clamp(-32768, 32767) as i16;
        let reciprocal = lut_interp_s16(sym_sum, recip_lut) as i64;
        let right_shift = (31 - headroom_plus_one).clamp(1, 62);
        let round = 1i64 << (right_shift - 1);
        for c in 0..DEPTH {
            let e = io.out(base + c) as i64;
            let v = ((e * reciprocal + round) >> right_shift) as i32;
            io.put(base + c, v.clamp(0, 32767) as i16);
        }
    }
}

/// float32 softmax (TFLite `reference_ops::Softmax`): `exp((x - max) * beta)`
/// in single precision, then a division by the row sum.
#[inline(never)]
pub fn softmax_f32<const ROWS: usize, const DEPTH: usize, IO: Io<f32>>(mut io: IO, beta: f32) {
    for r in 0..ROWS {
        let base = r * DEPTH;
        let mut max = f32::MIN;
        for c in 0..DEPTH {
            let x = io.get(base + c);
            if max < x {
                max = x;
            }
        }
        // The exponentials are written to the output, then normalized there:
        // when in place, element c of the input is dead once out[c] is written.
        let mut sum = 0.0f32;
        for c in 0..DEPTH {
            let x = io.get(base + c);
            // exp in double, rounded once to float: correctly rounded for
            // practically every input, as glibc's expf (TFLM's `std::exp`) is.
            let e = libm::exp(((x - max) * beta) as f64) as f32;
            io.put(base + c, e);
            sum += e;
        }
        for c in 0..DEPTH {
            let e = io.out(base + c);
            io.put(base + c, e / sum);
        }
    }
}

/// float32 L2_NORMALIZATION of each row (TFLite `reference_ops::
/// L2Normalization`): divided by the root of its sum of squares (at least
/// `1e-6`).
#[inline(never)]
pub fn l2_normalize_f32<const ROWS: usize, const DEPTH: usize, IO: Io<f32>>(mut io: IO) {
    for r in 0..ROWS {
        let row = r * DEPTH;
        let squares = (0..DEPTH).fold(0.0f32, |total, c| {
            let v = io.get(row + c);
            total + v * v
        });
        let norm = libm::sqrtf(squares).max(1e-6);
        for c in 0..DEPTH {
            let v = io.get(row + c);
            io.put(row + c, v / norm);
        }
    }
}

/// int8 L2_NORMALIZATION (TFLite `reference_integer_ops::L2Normalization`):
/// each row's values, less the zero point, times the fixed-point inverse
/// root of their sum of squares, in units of 1/128 (the output scale TFLite
/// fixes). `UINT8`: LiteRT's uint8 rounding (`reference_ops::L2Normalization`:
/// the value times 128 before the multiplier, one rounding after), on the
/// int8 values `q - 128` the compiler's uint8 pass gives.
#[inline(never)]
pub fn l2_normalize_s8<const ROWS: usize, const DEPTH: usize, const UINT8: bool, IO: Io<i8>>(
    mut io: IO,
    zero_point: i32,
) {
    for r in 0..ROWS {
        let row = r * DEPTH;
        let squares = (0..DEPTH).fold(0i32, |total, c| {
            let v = io.get(row + c) as i32 - zero_point;
            total.wrapping_add(v * v)
        });
        let (multiplier, shift) = crate::fixedpoint::inv_sqrt_multiplier_exp(squares);
        for c in 0..DEPTH {
            let v = io.get(row + c) as i32 - zero_point;
            let scaled = if UINT8 {
                crate::fixedpoint::multiply_by_quantized_multiplier_smaller_than_one_exp(128 * v, multiplier, shift)
            } else {
                multiply_by_quantized_multiplier(v, multiplier, shift + 7)
            };
            io.put(row + c, scaled.clamp(-128, 127) as i8);
        }
    }
}

/// float32 LOG_SOFTMAX of each row (TFLite `reference_ops::LogSoftmax`):
/// `x - max - ln(sum of exp(x - max))`.
#[inline(never)]
pub fn log_softmax_f32<const ROWS: usize, const DEPTH: usize, IO: Io<f32>>(mut io: IO) {
    for r in 0..ROWS {
        let row = r * DEPTH;
        let max = (0..DEPTH).fold(f32::MIN, |m, c| m.max(io.get(row + c)));
        let sum = (0..DEPTH).fold(0.0f32, |total, c| total + libm::expf(io.get(row + c) - max));
        let log_sum = libm::logf(sum);
        for c in 0..DEPTH {
            let v = io.get(row + c);
            io.put(row + c, v - max - log_sum);
        }
    }
}

/// The compile-time constants of an int8 LOG_SOFTMAX (TFLite's
/// `SoftmaxParams` as its `LogSoftmax` reads them).
#[derive(Clone, Copy, Debug)]
pub struct LogSoftmaxQuant {
    /// The input scale as a Q5.26 multiplier (beta 1).
    pub input_multiplier: i32,
    /// Its left shift.
    pub input_left_shift: i32,
    /// The inverse of that scaling, below one.
    pub reverse_multiplier: i32,
    /// Its (left) shift.
    pub reverse_shift: i32,
    /// Differences to the row maximum below this are left out.
    pub diff_min: i32,
}

/// int8 LOG_SOFTMAX (TFLite `reference_ops::LogSoftmaxQuantized`): the sum
/// of exp of the scaled differences in Q12.19, its fixed-point log in
/// Q5.26, each output the difference less that log in units of 1/16 from
/// 127 (TFLite's fixed output scale 16/256, zero point 127).
#[inline(never)]
pub fn log_softmax_s8<const ROWS: usize, const DEPTH: usize, IO: Io<i8>>(mut io: IO, q: &LogSoftmaxQuant) {
    use crate::fixedpoint::log_x_for_x_at_least_1;
    for r in 0..ROWS {
        let row = r * DEPTH;
        let max = (0..DEPTH).fold(i8::MIN, |m, c| m.max(io.get(row + c))) as i32;
        let scaled = |v: i8| multiply_by_quantized_multiplier(v as i32 - max, q.input_multiplier, q.input_left_shift);
        let mut sum_q12 = 0i32;
        for c in 0..DEPTH {
            let v = io.get(row + c);
            if v as i32 - max >= q.diff_min {
                let exp = exp_on_negative_values(scaled(v), SCALED_DIFF_INTEGER_BITS);
                sum_q12 = sum_q12.wrapping_add(rounding_divide_by_pot(exp, ACCUMULATION_INTEGER_BITS));
            }
        }
        let log_sum_q5 = log_x_for_x_at_least_1(sum_q12, ACCUMULATION_INTEGER_BITS, SCALED_DIFF_INTEGER_BITS);
        let shifted = log_sum_q5.wrapping_add(i32::MIN);
        let adjusted_diff_min =
            (q.diff_min - 1).max(multiply_by_quantized_multiplier(shifted, q.reverse_multiplier, q.reverse_shift));
        for c in 0..DEPTH {
            let v = io.get(row + c);
            let out = if v as i32 - max > adjusted_diff_min {
                // Q5.26 to units of 1/16: a right shift by 31 - 5 - 4.
                (rounding_divide_by_pot(scaled(v).wrapping_sub(log_sum_q5), 22) + 127).clamp(-128, 127)
            } else {
                -128
            };
            io.put(row + c, out as i8);
        }
    }
}
