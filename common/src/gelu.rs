//! GELU as LiteRT computes it (`GeluTransform`, `GeluTransformApproximate`):
//! the runtime's float32 kernel and the compiler's int8 table use these
//! same functions. The transcendental in double, rounded once to single
//! precision (a correctly rounded `erfcf`/`tanhf`).

/// `x/2 * erfc(-x/√2)`: the exact GELU in its erfc form, which avoids the
/// cancellation of `1 + erf(x/√2)` for large negative `x`.
#[inline(always)]
pub fn exact(x: f32) -> f32 {
    let e = libm::erfc((x * -core::f32::consts::FRAC_1_SQRT_2) as f64) as f32;
    0.5 * x * e
}

/// `x/2 * (1 + tanh(√(2/π) (x + 0.044715 x³)))`.
#[inline(always)]
pub fn tanh_approximation(x: f32) -> f32 {
    // √(2/π) as LiteRT has it: the product in double, then single precision.
    const K: f32 = (core::f64::consts::FRAC_2_SQRT_PI * core::f64::consts::FRAC_1_SQRT_2) as f32;
    let t = libm::tanh((K * (x + 0.044715 * x * x * x)) as f64) as f32;
    0.5 * x * (1.0 + t)
}
