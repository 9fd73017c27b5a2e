//! Compile-time quantization arithmetic: what TFLM computes in `Prepare()`,
//! done once here so the device never does it.

/// A real multiplier as a Q0.31 significand and a power-of-two exponent
/// (TFLite `QuantizeMultiplier`, double-rounding build):
/// `real ~= significand * 2^(shift - 31)`.
pub fn quantize_multiplier(real: f64) -> (i32, i32) {
    if real == 0.0 || !real.is_finite() {
        return (0, 0);
    }
    let (q, mut shift) = frexp(real);
    let mut q_fixed = (q * (1u64 << 31) as f64).round() as i64;
    if q_fixed == 1i64 << 31 {
        q_fixed /= 2;
        shift += 1;
    }
    if shift < -31 {
        shift = 0;
        q_fixed = 0;
    }
    (q_fixed as i32, shift)
}

/// TFLite `QuantizeMultiplierSmallerThanOneExp`: the same, for multipliers
/// below one (the exponent is <= 0).
pub fn quantize_multiplier_smaller_than_one(real: f64) -> Option<(i32, i32)> {
    let (m, s) = quantize_multiplier(real);
    (s <= 0).then_some((m, s))
}

/// C's `frexp`: `x = m * 2^e` with `0.5 <= |m| < 1`.
pub fn frexp(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    if exp == 0 {
        // Subnormal: scale up first.
        let (m, e) = frexp(x * 2f64.powi(64));
        return (m, e - 64);
    }
    let e = exp - 1022;
    let m = f64::from_bits((bits & !(0x7ffu64 << 52)) | (1022u64 << 52));
    (m, e)
}

/// Quantizes a real value the way TFLite's activation-range helper does:
/// `zero_point + round(x / scale)` in single precision.
pub fn quantize_f32(x: f32, scale: f32, zero_point: i32) -> i32 {
    let q = (x / scale).round();
    zero_point.saturating_add(q as i32)
}

/// TFLite `CheckedLog2`: the nearest integer log2 of `x` (computed in
/// single precision), and whether `x` is that power of two to 1e-3.
pub fn checked_log2(x: f32) -> (i32, bool) {
    let log2 = x.ln() * (1.0f32 / 2.0f32.ln());
    let rounded = log2.round();
    (rounded as i32, (log2 - rounded).abs() < 1e-3)
}

/// Indices where TFLite's int16 sigmoid table is one above the nearest
/// rounding of `65536 * sigmoid(i / 24)` (its samples are nudged up there,
/// presumably to lower the interpolation error; bit-exactness needs them).
const SIGMOID_ROUNDED_UP: [u8; 44] = [
    4, 8, 12, 14, 15, 16, 17, 19, 20, 21, 22, 25, 27, 28, 29, 30, 31, 33, 34, 35, 37, 39, 40, 41, 43, 44, 45, 46, 49,
    50, 54, 62, 63, 64, 66, 82, 86, 93, 100, 103, 112, 116, 135, 255,
];

/// `sigmoid(i / 24)` in unsigned Q0.16 for `i` in `0..256`, saturated at
/// 65535: the table TFLite's int16 LOGISTIC and TANH interpolate in.
pub fn sigmoid_q16() -> Vec<u16> {
    (0..256)
        .map(|i| {
            let nearest = (65536.0 / (1.0 + (-(i as f64) / 24.0).exp())).round().min(65535.0) as u16;
            let up = SIGMOID_ROUNDED_UP.contains(&(i as u8));
            nearest.saturating_add(up as u16)
        })
        .collect()
}

/// TFLite `LUTPopulate<int16_t>` (single precision): 512 samples of `f`
/// over the input's int16 range, each nudged by half the interpolation
/// error at its midpoint, and one last sample at the top.
pub fn lut_populate_i16(
    input_scale: f32,
    input_zero_point: i32,
    output_scale: f32,
    output_zero_point: i32,
    f: impl Fn(f32) -> f32,
) -> Vec<i16> {
    let (lo, hi) = (i16::MIN as i32, i16::MAX as i32);
    let input_min = input_scale * (lo - input_zero_point) as f32;
    let input_max = input_scale * (hi - input_zero_point) as f32;
    let output_min = output_scale * (lo - output_zero_point) as f32;
    let output_max = output_scale * (hi - output_zero_point) as f32;
    const STEPS: usize = 512;
    let step = (input_max - input_min) / STEPS as f32;
    let half_step = step / 2.0;
    let inv = (hi - lo + 1) as f32 / (output_max - output_min);
    let clamp = |v: f32| v.clamp(lo as f32, hi as f32) as i16;
    let mut lut = Vec::with_capacity(STEPS + 1);
    for i in 0..STEPS {
        let x = input_min + i as f32 * step;
        let val = f(x);
        let val_mid = f(x + half_step);
        let val_next = f(input_min + (i + 1) as f32 * step);
        let sample = (val * inv).round();
        let mid_interp = ((val_next * inv + (val * inv).round()) / 2.0).round();
        let mid = (val_mid * inv).round();
        let bias = ((mid_interp - mid) / 2.0).round();
        lut.push(clamp(sample - bias));
    }
    lut.push(clamp((f(input_max) * inv).round()));
    lut
}

/// An IEEE half-precision value as the f32 it is exactly (every f16 is an
/// f32): subnormals normalized, infinities and NaNs kept.
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h >> 15) as u32) << 31;
    let exp = ((h >> 10) & 0x1F) as u32;
    let mantissa = (h & 0x3FF) as u32;
    let bits = match (exp, mantissa) {
        (0, 0) => sign,
        (0, m) => {
            // Subnormal: m * 2^-24, renormalized.
            let shift = m.leading_zeros() - 21;
            sign | ((113 - shift) << 23) | (((m << shift) & 0x3FF) << 13)
        }
        (0x1F, m) => sign | 0x7F80_0000 | (m << 13),
        (e, m) => sign | ((e + 112) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_float16_widens_to_its_value() {
        for h in 0..=u16::MAX {
            let (sign, exp, m) = (h >> 15, i32::from((h >> 10) & 0x1F), f64::from(h & 0x3FF));
            let magnitude = match exp {
                0 => m * 2f64.powi(-24),
                0x1F if m == 0.0 => f64::INFINITY,
                0x1F => f64::NAN,
                e => (1.0 + m / 1024.0) * 2f64.powi(e - 15),
            };
            let want = if sign == 1 { -magnitude } else { magnitude } as f32;
            let got = f16_to_f32(h);
            if want.is_nan() {
                assert!(got.is_nan(), "{h:#06x}");
            } else {
                assert_eq!(got.to_bits(), want.to_bits(), "{h:#06x}");
            }
        }
    }

    #[test]
    fn frexp_matches_c() {
        assert_eq!(frexp(1.0), (0.5, 1));
        assert_eq!(frexp(0.75), (0.75, 0));
        assert_eq!(frexp(-3.0), (-0.75, 2));
        assert_eq!(frexp(f64::MIN_POSITIVE / 4.0), (0.5, -1023));
    }

    #[test]
    fn quantize_multiplier_known_values() {
        assert_eq!(quantize_multiplier(0.5), (1 << 30, 0));
        assert_eq!(quantize_multiplier(1.0), (1 << 30, 1));
        assert_eq!(quantize_multiplier(0.0), (0, 0));
        // Rounds up to 2^31 and renormalises.
        assert_eq!(quantize_multiplier(0.999_999_999_9), (1 << 30, 1));
        assert_eq!(quantize_multiplier(1e-12), (0, 0));
    }
}
