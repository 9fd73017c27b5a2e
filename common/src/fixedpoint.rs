//! Fixed-point arithmetic exactly as TFLite's reference kernels do it.
//!
//! These are the only copies of the rounding rules in tinyaot: every integer
//! kernel rescales through [`multiply_by_quantized_multiplier`], and the
//! softmax uses the gemmlowp-style `exp` and reciprocal below. Each function
//! matches TFLite's double-rounding build (the default) bit for bit, including
//! the saturating corner cases.

/// `(a * b * 2) >> 32` rounded to nearest, saturating the one overflowing
/// case (`i32::MIN * i32::MIN`). TFLite: `SaturatingRoundingDoublingHighMul`.
#[inline(always)]
pub const fn saturating_rounding_doubling_high_mul(a: i32, b: i32) -> i32 {
    if a == i32::MIN && b == i32::MIN {
        return i32::MAX;
    }
    let ab = a as i64 * b as i64;
    let nudge: i64 = if ab >= 0 { 1 << 30 } else { 1 - (1 << 30) };
    // Division (not a shift) truncates toward zero, as in the reference.
    ((ab + nudge) / (1i64 << 31)) as i32
}

/// `x / 2^exponent` rounded to nearest, ties away from zero.
/// TFLite: `RoundingDivideByPOT`. `exponent` must be in `0..=31`.
#[inline(always)]
pub const fn rounding_divide_by_pot(x: i32, exponent: i32) -> i32 {
    // Valid exponents are 0..=31; others (only from hostile constants) are
    // clamped rather than allowed to overflow a shift.
    let exponent = if exponent < 0 {
        0
    } else if exponent > 31 {
        31
    } else {
        exponent
    };
    let mask = ((1i64 << exponent) - 1) as i32;
    let remainder = x & mask;
    let threshold = (mask >> 1) + (x < 0) as i32;
    (x >> exponent) + (remainder > threshold) as i32
}

/// `2^shift` for a left shift, wrapping (never overflowing) outside 0..=31.
#[inline(always)]
const fn pow2(shift: i32) -> i32 {
    1i32.wrapping_shl(shift as u32)
}

/// Rescale an accumulator by a quantized multiplier (Q0.31 significand and a
/// power-of-two `shift`, positive = left). TFLite:
/// `MultiplyByQuantizedMultiplier(int32_t, int32_t, int)`.
#[inline(always)]
pub const fn multiply_by_quantized_multiplier(x: i32, multiplier: i32, shift: i32) -> i32 {
    let left_shift = if shift > 0 { shift } else { 0 };
    let right_shift = if shift > 0 { 0 } else { -shift };
    rounding_divide_by_pot(
        saturating_rounding_doubling_high_mul(x.wrapping_mul(pow2(left_shift)), multiplier),
        right_shift,
    )
}

/// Rescale a 64-bit accumulator (16x8 kernels): TFLite's
/// `MultiplyByQuantizedMultiplier(int64_t, int32_t, int)`, which rounds the
/// multiplier to 16 bits first ([`reduce_multiplier_i64`], then
/// [`rescale_reduced_i64`]).
#[inline(always)]
pub const fn multiply_by_quantized_multiplier_i64(x: i64, multiplier: i32, shift: i32) -> i32 {
    let (reduced, total_shift) = reduce_multiplier_i64(multiplier, shift);
    rescale_reduced_i64(x, reduced, total_shift)
}

/// The constants of TFLite's 64-bit rescale, which depend on the
/// multiplier and shift only (so the compiler folds them): the multiplier
/// rounded to 16 bits (at most `0x7FFF`) and the total right shift
/// `15 - shift`, clamped to `1..=62` (valid shifts give 8..=46).
pub const fn reduce_multiplier_i64(multiplier: i32, shift: i32) -> (i32, i32) {
    let reduced = if multiplier < 0x7FFF_0000 { (multiplier + (1 << 15)) >> 16 } else { 0x7FFF };
    let total_shift = 15 - shift;
    let total_shift = if total_shift < 1 {
        1
    } else if total_shift > 62 {
        62
    } else {
        total_shift
    };
    (reduced, total_shift)
}

/// TFLite's 64-bit rescale with its constants reduced
/// ([`reduce_multiplier_i64`]): `(x * reduced + 2^(total_shift - 1)) >>
/// total_shift`, truncated to 32 bits. A sum that fits in 32 bits takes a
/// 32 x 32 -> 64-bit product (`SMULL`), the same value.
#[inline(always)]
pub const fn rescale_reduced_i64(x: i64, reduced: i32, total_shift: i32) -> i32 {
    let product =
        if x == x as i32 as i64 { (x as i32 as i64) * reduced as i64 } else { x.wrapping_mul(reduced as i64) };
    let x = product.wrapping_add(1i64 << ((total_shift - 1) & 63));
    (x >> (total_shift & 63)) as i32
}

/// TFLite: `MultiplyByQuantizedMultiplierGreaterThanOne` (shift >= 0).
#[inline(always)]
pub const fn multiply_by_quantized_multiplier_greater_than_one(x: i32, multiplier: i32, left_shift: i32) -> i32 {
    saturating_rounding_doubling_high_mul(x.wrapping_mul(pow2(left_shift)), multiplier)
}

/// TFLite: `MultiplyByQuantizedMultiplierSmallerThanOneExp` (shift <= 0).
#[inline(always)]
pub const fn multiply_by_quantized_multiplier_smaller_than_one_exp(x: i32, multiplier: i32, left_shift: i32) -> i32 {
    rounding_divide_by_pot(saturating_rounding_doubling_high_mul(x, multiplier), -left_shift)
}

/// `x * 2^exponent` with saturation (exponent > 0) or rounding (< 0), for raw
/// 32-bit fixed-point values. gemmlowp: `SaturatingRoundingMultiplyByPOT`.
#[inline(always)]
pub const fn saturating_rounding_multiply_by_pot(x: i32, exponent: i32) -> i32 {
    if exponent == 0 {
        x
    } else if exponent > 0 {
        let threshold = (1i32 << (31 - exponent)) - 1;
        if x > threshold {
            i32::MAX
        } else if x < -threshold {
            i32::MIN
        } else {
            x << exponent
        }
    } else {
        rounding_divide_by_pot(x, -exponent)
    }
}

/// Q0.31 raw value of 1.0 (saturated to `i32::MAX`, as gemmlowp's `One()`).
const Q0_ONE: i32 = i32::MAX;

/// gemmlowp `RoundingHalfSum` for 32-bit raws.
#[inline(always)]
const fn rounding_half_sum(a: i32, b: i32) -> i32 {
    let sum = a as i64 + b as i64;
    let sign = if sum >= 0 { 1 } else { -1 };
    ((sum + sign) / 2) as i32
}

/// exp(a) for `a` in Q0.31 on [-1/4, 0). gemmlowp:
/// `exp_on_interval_between_negative_one_quarter_and_0_excl`.
#[inline(always)]
const fn exp_on_interval_between_negative_one_quarter_and_0_excl(a: i32) -> i32 {
    const CONSTANT_TERM: i32 = 1_895_147_668; // exp(-1/8)
    const CONSTANT_1_OVER_3: i32 = 715_827_883;
    let x = a.wrapping_add(1 << 28); // + 1/8 in Q0.31
    let x2 = saturating_rounding_doubling_high_mul(x, x);
    let x3 = saturating_rounding_doubling_high_mul(x2, x);
    let x4 = saturating_rounding_doubling_high_mul(x2, x2);
    let x4_over_4 = saturating_rounding_multiply_by_pot(x4, -2);
    let inner = saturating_rounding_doubling_high_mul(x4_over_4.wrapping_add(x3), CONSTANT_1_OVER_3).wrapping_add(x2);
    let x4_over_24_plus_x3_over_6_plus_x2_over_2 = saturating_rounding_multiply_by_pot(inner, -1);
    CONSTANT_TERM.wrapping_add(saturating_rounding_doubling_high_mul(
        CONSTANT_TERM,
        x.wrapping_add(x4_over_24_plus_x3_over_6_plus_x2_over_2),
    ))
}

/// exp(a) for `a <= 0` given as a raw fixed-point number with
/// `integer_bits` integer bits; the result is Q0.31. gemmlowp:
/// `exp_on_negative_values`.
#[inline]
pub const fn exp_on_negative_values(a: i32, integer_bits: i32) -> i32 {
    let fractional_bits = 31 - integer_bits;
    let one_quarter = 1i32 << (fractional_bits - 2);
    let mask = one_quarter - 1;
    let a_mod_quarter_minus_one_quarter = (a & mask).wrapping_sub(one_quarter);
    // Rescale<0> from `integer_bits` to 0 integer bits.
    let mut result = exp_on_interval_between_negative_one_quarter_and_0_excl(saturating_rounding_multiply_by_pot(
        a_mod_quarter_minus_one_quarter,
        integer_bits,
    ));
    let remainder = a_mod_quarter_minus_one_quarter.wrapping_sub(a);

    // Barrel shifter: multiply by exp(-2^k) for each set bit of the remainder.
    const MULTIPLIERS: [(i32, i32); 7] = [
        (-2, 1_672_461_947),
        (-1, 1_302_514_674),
        (0, 790_015_084),
        (1, 290_630_308),
        (2, 39_332_535),
        (3, 720_401),
        (4, 242),
    ];
    let mut i = 0;
    while i < MULTIPLIERS.len() {
        let (exponent, multiplier) = MULTIPLIERS[i];
        if integer_bits > exponent {
            let shift = fractional_bits + exponent;
            if remainder & (1 << shift) != 0 {
                result = saturating_rounding_doubling_high_mul(result, multiplier);
            }
        }
        i += 1;
    }
    if integer_bits > 5 {
        let clamp = -(1i32 << (36 - integer_bits)); // -32.0
        if a < clamp {
            result = 0;
        }
    }
    if a == 0 { Q0_ONE } else { result }
}

/// Three Newton-Raphson steps for 1 / (1 + a) on [0, 1): returns the Q2.29
/// estimate of 2 / (1 + a), as gemmlowp's two reciprocal helpers share it.
#[inline]
const fn reciprocal_newton_q2(a: i32) -> i32 {
    const CONSTANT_48_OVER_17: i32 = 1_515_870_810;
    const CONSTANT_NEG_32_OVER_17: i32 = -1_010_580_540;
    let half_denominator = rounding_half_sum(a, Q0_ONE);
    let mut x = CONSTANT_48_OVER_17
        .wrapping_add(saturating_rounding_doubling_high_mul(half_denominator, CONSTANT_NEG_32_OVER_17));
    let mut i = 0;
    while i < 3 {
        let half_denominator_times_x = saturating_rounding_doubling_high_mul(half_denominator, x);
        let one_minus = F2_ONE.wrapping_sub(half_denominator_times_x);
        // x * one_minus is Q4.27; Rescale<2> multiplies by 2^2 with saturation.
        let product = saturating_rounding_doubling_high_mul(x, one_minus);
        x = x.wrapping_add(saturating_rounding_multiply_by_pot(product, 2));
        i += 1;
    }
    x
}

/// Q2.29 raw value of 1.0.
const F2_ONE: i32 = 1 << 29;

/// 1 / (1 + x) for `x` in Q0.31 on [0, 1), result Q0.31. gemmlowp:
/// `one_over_one_plus_x_for_x_in_0_1`.
#[inline]
pub const fn one_over_one_plus_x_for_x_in_0_1(a: i32) -> i32 {
    // ExactMulByPot<-1> turns Q2 into Q1, Rescale<0> multiplies by 2^1.
    saturating_rounding_multiply_by_pot(reciprocal_newton_q2(a), 1)
}

/// `ln(x)` for a raw `x >= 1` with `input_integer_bits` integer bits, as
/// a raw value with `output_integer_bits` (TFLite:
/// `log_x_for_x_greater_than_or_equal_to_1_impl`): the power of two from
/// the headroom (of `x` and of `x / sqrt 2`, whichever is nearer), the
/// rest by a rational approximation around `sqrt(sqrt(1/2))`, summed with
/// one extra integer bit.
#[inline]
pub const fn log_x_for_x_at_least_1(x: i32, input_integer_bits: i32, output_integer_bits: i32) -> i32 {
    use saturating_rounding_doubling_high_mul as mul;
    use saturating_rounding_multiply_by_pot as pot;
    const LOG_2: i32 = 1_488_522_236;
    const SQRT_SQRT_HALF: i32 = 1_805_811_301;
    const SQRT_HALF: i32 = 1_518_500_250;
    const ONE_QUARTER: i32 = 536_870_912;
    const ALPHA_N: i32 = 117_049_297;
    const ALPHA_D: i32 = 127_690_142;
    const ALPHA_I: i32 = 1_057_819_769;
    const ALPHA_F: i32 = 638_450_708;
    let accum_bits = output_integer_bits + 1;
    // Rescale<accum_bits> of a Q0.31 value.
    let shifted_quarter = pot(ONE_QUARTER, -accum_bits);
    let z_a_headroom_plus_1 = (x as u32).leading_zeros() as i32;
    let r_a = pot(mul(pot(x, z_a_headroom_plus_1 - 1), SQRT_HALF), 1);
    let z_a_pow_2_adj = saturating_add(pot(input_integer_bits - z_a_headroom_plus_1, 31 - accum_bits), shifted_quarter);
    let z_b = mul(x, SQRT_HALF);
    let z_b_headroom = (z_b as u32).leading_zeros() as i32 - 1;
    let r_b = pot(x, z_b_headroom);
    let z_b_pow_2_adj = saturating_sub(pot(input_integer_bits - z_b_headroom, 31 - accum_bits), shifted_quarter);
    let r = if r_a < r_b { r_a } else { r_b };
    let z_pow_2_adj = if z_a_pow_2_adj > z_b_pow_2_adj { z_a_pow_2_adj } else { z_b_pow_2_adj };
    let p = rounding_half_sum(r, SQRT_SQRT_HALF);
    let q = r.wrapping_sub(SQRT_SQRT_HALF);
    let q = q.wrapping_add(q);
    let common_sq = mul(q, q);
    let num = mul(q, r).wrapping_add(mul(mul(q, common_sq), ALPHA_N));
    let denom_minus_one =
        mul(p, ALPHA_I.wrapping_add(q).wrapping_add(mul(ALPHA_D, common_sq))).wrapping_add(mul(ALPHA_F, q));
    let recip_denom = one_over_one_plus_x_for_x_in_0_1(denom_minus_one);
    let num_scaled = pot(num, -accum_bits);
    let sum = mul(z_pow_2_adj, LOG_2).wrapping_add(mul(num_scaled, recip_denom));
    pot(sum, accum_bits - output_integer_bits)
}

/// `a + b` saturated to the i32 range (TFLite `SaturatingAddNonGemmlowp`).
#[inline(always)]
pub const fn saturating_add(a: i32, b: i32) -> i32 {
    a.saturating_add(b)
}

/// `a - b` saturated to the i32 range (TFLite `SaturatingSub`).
#[inline(always)]
pub const fn saturating_sub(a: i32, b: i32) -> i32 {
    a.saturating_sub(b)
}

/// (1 - x) / (1 + x) for `x` in Q0.31 on [0, 1), result Q0.31. gemmlowp:
/// `one_minus_x_over_one_plus_x_for_x_in_0_1`.
#[inline]
pub const fn one_minus_x_over_one_plus_x_for_x_in_0_1(a: i32) -> i32 {
    // Rescale<0> of (x - 1) from Q2.29: multiply by 2^2 with saturation.
    saturating_rounding_multiply_by_pot(reciprocal_newton_q2(a).wrapping_sub(F2_ONE), 2)
}

/// The logistic function of a raw fixed-point value with `integer_bits`
/// integer bits; the result is Q0.31. gemmlowp: `logistic`.
#[inline]
pub const fn logistic(a: i32, integer_bits: i32) -> i32 {
    if a == 0 {
        return 1 << 30; // one half
    }
    let abs = if a > 0 { a } else { a.wrapping_neg() };
    let positive = one_over_one_plus_x_for_x_in_0_1(exp_on_negative_values(abs.wrapping_neg(), integer_bits));
    if a > 0 { positive } else { Q0_ONE.wrapping_sub(positive) }
}

/// tanh of a raw fixed-point value with `integer_bits` integer bits; the
/// result is Q0.31. gemmlowp: `tanh`.
#[inline]
pub const fn tanh(a: i32, integer_bits: i32) -> i32 {
    if a == 0 {
        return 0;
    }
    let n = if a < 0 { a } else { a.wrapping_neg() };
    // neg_tanh_on_negative_values: exp of 2n (ExactMulByPot<1>: one more
    // integer bit, same raw value).
    let t = one_minus_x_over_one_plus_x_for_x_in_0_1(exp_on_negative_values(n, integer_bits + 1));
    if a < 0 { t.wrapping_neg() } else { t }
}

/// Reciprocal of a positive fixed-point sum with `x_integer_digits` integer
/// bits: returns the Q0.31 scale and the number of bits above one.
/// TFLite: `GetReciprocal`.
#[inline]
pub const fn get_reciprocal(x: i32, x_integer_digits: i32) -> (i32, i32) {
    let headroom_plus_one = (x as u32).leading_zeros() as i32;
    let num_bits_over_unit = x_integer_digits - headroom_plus_one;
    let shifted_sum_minus_one = ((x as u32).wrapping_shl(headroom_plus_one as u32)).wrapping_sub(1u32 << 31) as i32;
    (one_over_one_plus_x_for_x_in_0_1(shifted_sum_minus_one), num_bits_over_unit)
}

/// TFLite `GetInvSqrtQuantizedMultiplierExp` (with a reversed shift):
/// `1 / sqrt(x)` as a Q0.31 multiplier and left shift, by five
/// Newton-Raphson steps in Q3.28.
#[inline]
pub const fn inv_sqrt_multiplier_exp(mut x: i32) -> (i32, i32) {
    use saturating_rounding_doubling_high_mul as mul;
    use saturating_rounding_multiply_by_pot as pot;
    if x <= 1 {
        return (i32::MAX, 0);
    }
    let mut shift = 11;
    while x >= 1 << 29 {
        x /= 4;
        shift += 1;
    }
    let max_left_shift_bits = (x as u32).leading_zeros() as i32 - 1;
    let left_shift_bit_pairs = max_left_shift_bits / 2 - 1;
    shift -= left_shift_bit_pairs;
    x <<= 2 * left_shift_bit_pairs;
    let input = x >> 1; // Q3.28
    let half_input = pot(input, -1);
    let half_three = (1 << 28) + (1 << 27);
    let mut v = 1 << 28; // one in Q3.28
    let mut step = 0;
    while step < 5 {
        step += 1;
        // x^3 is Q9.22; back to Q3.28.
        let v3 = pot(mul(mul(v, v), v), 6);
        // Both products are Q6.25; back to Q3.28.
        v = pot(mul(half_three, v).wrapping_sub(mul(half_input, v3)), 3);
    }
    let half_sqrt_2 = 1518500250; // sqrt(2) / 2 in Q0.31
    let mut m = mul(v, half_sqrt_2);
    if shift < 0 {
        m <<= -shift;
        shift = 0;
    }
    (m, -shift)
}

/// One channel's requantization precomputed at compile time for the fast
/// kernels: `[multiplier, left shift, right shift, right-shift mask]`,
/// from TFLite's (multiplier, shift) with `0 <= multiplier < 2^31`, the
/// left shift in `0..=30` and the right shift in `0..=31` (see
/// [`scale_of`]).
pub type Scale = [i32; 4];

/// The [`Scale`] of a (multiplier, shift) pair, or `None` outside the
/// range TFLite's requantization handles (the compiler rejects those).
pub const fn scale_of(multiplier: i32, shift: i32) -> Option<Scale> {
    if multiplier < 0 || shift > 30 || shift < -31 {
        return None;
    }
    let (left, right) = if shift > 0 { (shift, 0) } else { (0, -shift) };
    Some([multiplier, left, right, ((1u32 << right) - 1) as i32])
}

/// `MultiplyByQuantizedMultiplier` in fewer steps, exactly: with a
/// multiplier below 2^31 the doubling high multiply cannot saturate, and
/// its truncating division with a sign-dependent nudge equals one floor
/// shift of `p + 2^30`; the rounding right shift uses the precomputed mask.
#[inline(always)]
pub const fn rescale(acc: i32, s: &Scale) -> i32 {
    let [multiplier, left, right, mask] = *s;
    let p = (acc.wrapping_shl(left as u32)) as i64 * multiplier as i64;
    let q = ((p + (1 << 30)) >> 31) as i32;
    let threshold = (mask >> 1) + (q < 0) as i32;
    (q >> right) + ((q & mask) > threshold) as i32
}

/// One channel's requantization, output zero point included, when its
/// multiplier is below 1/2 (TFLite shift in `-23..=-1`: every conv-like
/// layer whose output scale exceeds twice its input x weight scale, which
/// is nearly all of them): `[multiplier, right shift - 1, K low word, K
/// high word]` with `K = 2^30 + 2^(30 + r) + offset * 2^(31 + r)` (see
/// [`down_scale_of`] and [`rescale_down`]).
pub type DownScale = [i32; 4];

/// Largest right shift of the [`DownScale`] form: with `|offset| <= 2^7`
/// the 64-bit sum then cannot overflow (`2^62 + 2^61 + 2^54 < 2^63`).
pub const DOWN_MAX_RIGHT: i32 = 23;

/// The [`DownScale`] of a (multiplier, shift) pair and an output offset
/// (zero point), or `None` outside its range (use [`scale_of`]).
pub const fn down_scale_of(multiplier: i32, shift: i32, offset: i32) -> Option<DownScale> {
    // A zero multiplier (TFLite's for a scale below 2^-31, whatever the
    // shift) gives the offset alone: right shift 1 does.
    if multiplier == 0 && offset >= -128 && offset <= 128 {
        return down_scale_of_unchecked(0, 1, offset);
    }
    if multiplier < 0 || shift > -1 || shift < -DOWN_MAX_RIGHT || offset < -128 || offset > 128 {
        return None;
    }
    down_scale_of_unchecked(multiplier, -shift, offset)
}

/// [`down_scale_of`] for a right shift `right` in `1..=DOWN_MAX_RIGHT`.
const fn down_scale_of_unchecked(multiplier: i32, right: i32, offset: i32) -> Option<DownScale> {
    let k = (1i64 << 30) + (1i64 << (30 + right)) + offset as i64 * (1i64 << (31 + right));
    Some([multiplier, right - 1, k as i32, (k >> 32) as i32])
}

/// The output offset (zero point) a [`DownScale`] holds: its `K` less the
/// rounding terms, for kernels that add it apart (Helium's rounding
/// multiply and shift, `VQRDMULH` then `VRSHL`).
pub const fn down_offset(s: &DownScale) -> i32 {
    let [_, shift, k_low, k_high] = *s;
    let right = shift + 1;
    let k = ((k_high as i64) << 32) | (k_low as u32 as i64);
    ((k - (1i64 << 30) - (1i64 << (30 + right))) >> (31 + right)) as i32
}

/// `MultiplyByQuantizedMultiplier(acc, m, shift) + offset` for a right
/// shift `r = -shift >= 1`, as two 64-bit multiply-accumulates and a shift
/// of the high word, exactly.
///
/// TFLite computes `q = floor((p + 2^30) / 2^31)` (`p = acc * m`, which
/// cannot saturate for `m < 2^31`) and then rounds `q / 2^r` half away
/// from zero: `floor((q + 2^(r-1) - [q < 0]) / 2^r)`. `[q < 0]` may be
/// replaced by `[acc < 0]`: they differ only when `q = 0`, where both
/// give 0 for `r >= 1`. Nested floors of divisions by positive integers
/// are one floor of the product, and adding the offset before the floor
/// is exact, so the result is `floor((p + K - [acc < 0] * 2^31) /
/// 2^(31 + r))`: the high word of the 64-bit sum shifted right by `r - 1`
/// (`SMLAL`, `LSR`, `SMLAL`, `ASR` on Arm: the runtime's `arch` has that
/// form, and one for cores without a 64-bit product).
#[inline(always)]
pub const fn rescale_down(acc: i32, s: &DownScale) -> i32 {
    let [multiplier, shift, k_low, k_high] = *s;
    let k = ((k_high as i64) << 32) | (k_low as u32 as i64);
    let negative = ((acc as u32) >> 31) as i64;
    let p = acc as i64 * multiplier as i64 + k + negative * i32::MIN as i64;
    ((p >> 32) as i32) >> shift
}

/// [`rescale_down`] without the nudge of negative sums, for layers whose
/// output zero point is -128 with the whole int8 range: there a negative
/// sum's output is -128 either way (`p < 0` puts the sum below `K +
/// 2^31 r`'s offset part, so both forms give at most the offset, and
/// TFLite's rounding of a negative product is at most 0 too), and the
/// kernels save the nudge's instructions. Other layers need
/// [`rescale_down`].
#[inline(always)]
pub const fn rescale_down_unnudged(acc: i32, s: &DownScale) -> i32 {
    let [multiplier, shift, k_low, k_high] = *s;
    let k = ((k_high as i64) << 32) | (k_low as u32 as i64);
    let p = acc as i64 * multiplier as i64 + k;
    ((p >> 32) as i32) >> shift
}

/// The constants of [`rescale_down_doubled`] for a [`DownScale`]: the
/// multiplier, twice K's high word and the right shift plus one, where K's
/// low word is 2^30 (every right shift of 2 or more, see
/// [`down_scale_of`]); `None` otherwise.
pub const fn doubled_of(s: &DownScale) -> Option<(i32, i32, i32)> {
    let [multiplier, shift, k_low, k_high] = *s;
    if k_low == 1 << 30 { Some((multiplier, 2 * k_high, shift + 1)) } else { None }
}

/// [`rescale_down`] for a sum below 2^30 in magnitude, with the constants
/// of [`doubled_of`]: `floor(2p / 2^32) >> (shift + 1)` with `2p = 2 acc
/// m + 2^31 + (2 K_high - [acc < 0]) 2^32`, which is what one `SMMLAR`
/// (rounding high multiply-accumulate) of `2 acc`, `m` and `2 K_high -
/// [acc < 0]` gives, then one shift. Exactly [`rescale_down`]: `p` is
/// `rescale_down`'s 64-bit sum (its K low word 2^30 doubled is the 2^31),
/// and nested floors of divisions by powers of two are one floor.
#[inline(always)]
pub const fn rescale_down_doubled(acc: i32, multiplier: i32, k_high2: i32, shift1: i32) -> i32 {
    let ra = (k_high2 as i64 + (acc >> 31) as i64) << 32;
    (((2 * acc as i64 * multiplier as i64 + (1i64 << 31) + ra) >> 32) as i32) >> shift1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn down_offset_gives_back_the_offset() {
        for offset in -128..=128 {
            for shift in -DOWN_MAX_RIGHT..=-1 {
                for multiplier in [0, 1, 1 << 30, i32::MAX] {
                    let s = down_scale_of(multiplier, shift, offset).unwrap();
                    assert_eq!(down_offset(&s), offset, "{multiplier} {shift} {offset}");
                }
            }
        }
    }

    #[test]
    fn doubled_rescale_is_rescale_down_for_sums_below_2_30() {
        let mut seed = 0x9e37_79b9u32;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        };
        let mut checked = 0;
        for _ in 0..300_000 {
            let multiplier = (next() >> 1) as i32;
            let shift = -1 - (next() % 23) as i32;
            let offset = (next() % 257) as i32 - 128;
            let acc = ((next() as i32) >> 2) >> (next() % 24);
            let s = down_scale_of(multiplier, shift, offset).unwrap();
            match doubled_of(&s) {
                Some((m, k2, s1)) => {
                    let v = rescale_down_doubled(acc, m, k2, s1);
                    assert_eq!(v, rescale_down(acc, &s), "{acc} {multiplier} {shift} {offset}");
                    checked += 1;
                }
                None => assert_eq!(shift, -1, "K low word 2^30 for right shifts of 2 or more"),
            }
        }
        assert!(checked > 250_000);
        // Ties at both signs: sums that are exact multiples of the step.
        for r in 2..=23 {
            let s = down_scale_of(1 << 30, -r, -5).unwrap();
            let (m, k2, s1) = doubled_of(&s).unwrap();
            for acc in [-(3 << r), -(1 << r), -(1 << (r - 1)), 1 << (r - 1), 3 << r, (1 << 30) - 1, -(1 << 30)] {
                assert_eq!(rescale_down_doubled(acc, m, k2, s1), rescale_down(acc, &s), "{acc} {r}");
            }
        }
    }

    #[test]
    fn unnudged_rescale_saturates_alike_at_offset_minus_128() {
        let sat = |v: i32| v.clamp(-128, 127);
        let mut seed = 0x1234_5678u32;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        };
        for _ in 0..200_000 {
            let multiplier = (next() >> 1) as i32;
            let shift = -1 - (next() % 23) as i32;
            let acc = match next() % 3 {
                0 => next() as i32,
                1 => (next() as i32) >> 12,
                _ => (next() as i32) >> 24,
            };
            let s = down_scale_of(multiplier, shift, -128).unwrap();
            assert_eq!(sat(rescale_down_unnudged(acc, &s)), sat(rescale_down(acc, &s)), "{acc} {multiplier} {shift}");
            // Elsewhere only non-negative sums agree.
            let t = down_scale_of(multiplier, shift, 5).unwrap();
            if acc >= 0 {
                assert_eq!(rescale_down_unnudged(acc, &t), rescale_down(acc, &t));
            }
        }
    }

    #[test]
    fn srdhm_matches_definition() {
        assert_eq!(saturating_rounding_doubling_high_mul(i32::MIN, i32::MIN), i32::MAX);
        assert_eq!(saturating_rounding_doubling_high_mul(1 << 30, 1 << 30), 1 << 29);
        // -0.5 * 2^-31 rounds away from zero on the negative side only past half.
        assert_eq!(saturating_rounding_doubling_high_mul(-1, 1 << 30), 0);
        assert_eq!(saturating_rounding_doubling_high_mul(1, 1 << 30), 1);
    }

    #[test]
    fn rounding_divide_rounds_half_away_from_zero() {
        assert_eq!(rounding_divide_by_pot(5, 1), 3);
        assert_eq!(rounding_divide_by_pot(-5, 1), -3);
        assert_eq!(rounding_divide_by_pot(4, 1), 2);
        assert_eq!(rounding_divide_by_pot(-7, 2), -2);
        assert_eq!(rounding_divide_by_pot(i32::MIN, 31), -1);
    }

    #[test]
    fn exp_is_close_to_real_exp() {
        // Q5.26 input.
        for k in 0..200 {
            let real = -(k as f64) * 0.1;
            let raw = (real * (1u64 << 26) as f64) as i32;
            let got = exp_on_negative_values(raw, 5) as f64 / 2f64.powi(31);
            assert!((got - real.exp()).abs() < 1e-6, "exp({real}) = {got}");
        }
    }

    #[test]
    fn reciprocal_is_close() {
        for k in 1..100 {
            let v = 1.0 + k as f64 * 0.37; // Q12.19
            let raw = (v * (1u64 << 19) as f64) as i32;
            let (scale, bits) = get_reciprocal(raw, 12);
            let got = scale as f64 / 2f64.powi(31) / 2f64.powi(bits);
            assert!((got - 1.0 / v).abs() < 1e-6 / v, "1/{v} = {got}");
        }
    }
}
