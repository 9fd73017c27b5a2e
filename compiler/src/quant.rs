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

#[cfg(test)]
mod tests {
    use super::*;

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
