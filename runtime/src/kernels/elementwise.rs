//! One-input elementwise ops. Every int8 -> int8 op is a 256-entry table
//! computed at compile time with TFLite's exact integer arithmetic (so the
//! device does one load per element); float ops apply a function.

use super::Io;

/// `out[i] = table[in[i]]` for int8 (the table is indexed by the input's
/// bit pattern, `in as u8`).
#[inline(never)]
pub fn lut_s8<const LEN: usize, IO: Io<i8>>(mut io: IO, table: &[i8]) {
    let table = &table[..256];
    for i in 0..LEN {
        let x = io.get(i);
        io.put(i, table[x as u8 as usize]);
    }
}

/// `out[i] = table[in[i]]` from int8 to float32 (DEQUANTIZE).
#[inline(never)]
pub fn lut_s8_f32<const LEN: usize, IO: Io<i8, f32>>(mut io: IO, table: &[f32]) {
    let table = &table[..256];
    for i in 0..LEN {
        let x = io.get(i);
        io.put(i, table[x as u8 as usize]);
    }
}

/// `out[i] = f(in[i])` for float32.
#[inline(never)]
pub fn map_f32<const LEN: usize, IO: Io<f32>>(mut io: IO, f: impl Fn(f32) -> f32) {
    for i in 0..LEN {
        let x = io.get(i);
        io.put(i, f(x));
    }
}

/// `out[i] = f(in[i])` for any element types: the int16 and mixed-type
/// quantized ops, whose 65536-entry tables would not fit in flash, apply
/// their integer arithmetic per element.
#[inline(never)]
pub fn map<I: Copy, O: Copy, const LEN: usize, IO: Io<I, O>>(mut io: IO, f: impl Fn(I) -> O) {
    for i in 0..LEN {
        let x = io.get(i);
        io.put(i, f(x));
    }
}

/// QUANTIZE between uint8 and int8 at one scale, zero points 128 apart:
/// each byte's top bit flipped (`q - 128` as int8, `q + 128` as uint8).
#[inline(never)]
pub fn flip_top_bit<const LEN: usize, IO: Io<u8>>(mut io: IO) {
    for i in 0..LEN {
        let x = io.get(i);
        io.put(i, x ^ 0x80);
    }
}

/// QUANTIZE float32 -> int8 (TFLite `AffineQuantize`): round half away
/// from zero of `x / scale` in single precision, plus the zero point,
/// clamped.
#[inline(never)]
pub fn quantize_f32_s8<const LEN: usize, IO: Io<f32, i8>>(mut io: IO, scale: f32, zero_point: i32) {
    for i in 0..LEN {
        let q = libm::roundf(io.get(i) / scale) as i32 + zero_point;
        io.put(i, q.clamp(i8::MIN as i32, i8::MAX as i32) as i8);
    }
}

/// RELU: `max(x, 0)` as TFLite writes it.
#[inline(always)]
pub fn relu_f32(x: f32) -> f32 {
    if x < 0.0 { 0.0 } else { x }
}

/// RELU6.
#[inline(always)]
pub fn relu6_f32(x: f32) -> f32 {
    // `f32::clamp` compares like TFLite's `x > 6 ? 6 : x < 0 ? 0 : x`
    // (NaN and -0.0 pass through alike).
    x.clamp(0.0, 6.0)
}

/// RELU_N1_TO_1.
#[inline(always)]
pub fn relu_n1_to_1_f32(x: f32) -> f32 {
    x.clamp(-1.0, 1.0)
}

/// `exp` in double rounded once to float (as glibc's `expf` rounds).
#[inline(always)]
fn expf(x: f32) -> f32 {
    libm::exp(x as f64) as f32
}

/// LOGISTIC (TFLite's reference, with its cutoffs).
#[inline(always)]
pub fn logistic_f32(x: f32) -> f32 {
    if x > 16.619_047_f32 {
        1.0
    } else if x < -9.0 {
        expf(x)
    } else {
        1.0 / (1.0 + expf(-x))
    }
}

/// TANH.
#[inline(always)]
pub fn tanh_f32(x: f32) -> f32 {
    libm::tanh(x as f64) as f32
}

/// HARD_SWISH: `x * min(6, max(0, x + 3)) / 6`.
#[inline(always)]
pub fn hard_swish_f32(x: f32) -> f32 {
    let r = x + 3.0;
    let r = if r < 0.0 { 0.0 } else { r };
    let r = if 6.0 < r { 6.0 } else { r };
    x * r / 6.0
}

/// LEAKY_RELU.
#[inline(always)]
pub fn leaky_relu_f32(x: f32, alpha: f32) -> f32 {
    if x > 0.0 { x } else { x * alpha }
}

/// float32 SIGN as LiteRT's reference kernel: `(x > 0) - (x < 0)`, so
/// NaN and -0.0 give +0.0.
#[inline(always)]
pub fn sign_f32(x: f32) -> f32 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        0.0
    }
}

/// SELECT_V2 of same-shaped tensors: `out[i] = if cond[i] { x[i] } else {
/// y[i] }`, the condition a `bool` stored as one byte (0 or 1).
#[inline(never)]
pub fn select<T: Copy, const LEN: usize>(cond: &[u8], x: &[T], y: &[T], out: &mut [T]) {
    for (((o, &c), &a), &b) in out[..LEN].iter_mut().zip(&cond[..LEN]).zip(&x[..LEN]).zip(&y[..LEN]) {
        *o = if c != 0 { a } else { b };
    }
}

/// SELECT_V2 with broadcasting: `shape` walks the output with the strides
/// of `x` (`a`) and `y` (`b`), `cond` holds the condition's strides.
#[inline(never)]
pub fn select_broadcast<T: Copy, const LEN: usize>(
    cond: &[u8],
    x: &[T],
    y: &[T],
    out: &mut [T],
    shape: &super::Strided6,
    cond_strides: &[usize; 6],
) {
    let out = &mut out[..LEN];
    shape.for_each3(cond_strides, |i, ix, iy, ic| out[i] = if cond[ic] != 0 { x[ix] } else { y[iy] });
}

/// CAST: `out[i] = in[i] as O` (C++ `static_cast`: truncation toward zero
/// from float).
#[inline(never)]
pub fn cast<I: Copy, O: Copy, const LEN: usize>(input: &[I], output: &mut [O], f: impl Fn(I) -> O) {
    for (o, &x) in output[..LEN].iter_mut().zip(&input[..LEN]) {
        *o = f(x);
    }
}

/// EXP in double rounded to float.
#[inline(always)]
pub fn exp_f32(x: f32) -> f32 {
    expf(x)
}

/// LOG in double rounded to float.
#[inline(always)]
pub fn log_f32(x: f32) -> f32 {
    libm::log(x as f64) as f32
}

/// SQRT (exactly rounded).
#[inline(always)]
pub fn sqrt_f32(x: f32) -> f32 {
    libm::sqrtf(x)
}

/// RSQRT: `1 / sqrt(x)` as TFLite computes it.
#[inline(always)]
pub fn rsqrt_f32(x: f32) -> f32 {
    1.0 / libm::sqrtf(x)
}

/// ABS.
#[inline(always)]
pub fn abs_f32(x: f32) -> f32 {
    libm::fabsf(x)
}

/// NEG.
#[inline(always)]
pub fn neg_f32(x: f32) -> f32 {
    -x
}

/// FLOOR.
#[inline(always)]
pub fn floor_f32(x: f32) -> f32 {
    libm::floorf(x)
}

/// CEIL.
#[inline(always)]
pub fn ceil_f32(x: f32) -> f32 {
    libm::ceilf(x)
}

/// ROUND: to the nearest integer, ties to even (TFLite's `RoundToNearest`).
#[inline(always)]
pub fn round_f32(x: f32) -> f32 {
    let floor = libm::floorf(x);
    let diff = x - floor;
    if diff < 0.5 || (diff == 0.5 && libm::fmodf(floor, 2.0) == 0.0) { floor } else { floor + 1.0 }
}

/// ELU: `exp(x) - 1` below zero (expm1 in double, rounded once).
#[inline(always)]
pub fn elu_f32(x: f32) -> f32 {
    if x < 0.0 { libm::expm1(x as f64) as f32 } else { x }
}

/// GELU (LiteRT's builtin; TFLM has none), exact form
/// (`tinyaot_common::gelu::exact`).
#[inline(always)]
pub fn gelu_f32(x: f32) -> f32 {
    tinyaot_common::gelu::exact(x)
}

/// GELU, tanh approximation (`tinyaot_common::gelu::tanh_approximation`).
#[inline(always)]
pub fn gelu_tanh_f32(x: f32) -> f32 {
    tinyaot_common::gelu::tanh_approximation(x)
}

/// QUANTIZE float32 -> int16 (TFLite `AffineQuantize`).
#[inline(always)]
pub fn quantize_f32_s16(x: f32, scale: f32, zero_point: i32) -> i16 {
    let q = libm::roundf(x / scale) as i32 + zero_point;
    q.clamp(i16::MIN as i32, i16::MAX as i32) as i16
}

/// The int16 LOGISTIC of TFLite (`reference_integer_ops::Logistic`): the
/// input rescaled by `(x * multiplier) >> shift` (compile-time constants),
/// then a linear interpolation in `sigmoid`, TFLite's table of
/// `sigmoid(i / 24)` in unsigned Q0.16 (256 entries, computed by the
/// compiler).
#[inline(always)]
pub fn logistic_s16(x: i16, multiplier: i32, shift: i32, sigmoid: &[u16]) -> i16 {
    let sigmoid = &sigmoid[..256];
    let round = if shift > 0 { 1i32 << (shift - 1) } else { 0 };
    let v = (x as i32).wrapping_mul(multiplier).wrapping_add(round) >> shift;
    let abs = v.unsigned_abs();
    let uh = abs >> 9;
    let mut result = if uh >= 255 {
        0x7FFFu32 << 10
    } else {
        let ua = sigmoid[uh as usize] as u32;
        let ub = sigmoid[uh as usize + 1] as u32;
        (ua << 9).wrapping_add((abs & 0x1ff).wrapping_mul(ub.wrapping_sub(ua)))
    };
    result = if v >= 0 {
        result.wrapping_add(1 << 9)
    } else {
        (1u32 << (16 + 9)).wrapping_sub(result).wrapping_add(1 << 9).wrapping_sub(1)
    };
    (result >> 10) as i16
}

/// The int16 TANH of TFLite (`reference_integer_ops::Tanh`), through the
/// same sigmoid table: `tanh(x) = 2 * sigmoid(2x) - 1`.
#[inline(always)]
pub fn tanh_s16(x: i16, multiplier: i32, shift: i32, sigmoid: &[u16]) -> i16 {
    let sigmoid = &sigmoid[..256];
    let round = if shift > 0 { 1i32 << (shift - 1) } else { 0 };
    let v = (x as i32).wrapping_mul(multiplier).wrapping_add(round) >> shift;
    let abs = v.unsigned_abs();
    let uh = abs >> 8;
    let result: i32 = if uh >= 255 {
        0xFFFF << 8
    } else {
        let ua = sigmoid[uh as usize] as u32;
        let ub = sigmoid[uh as usize + 1] as u32;
        let ut = abs & 0xFF;
        (ua << 8).wrapping_add(ut.wrapping_mul(ub.wrapping_sub(ua))) as i32
    };
    let result =
        if v >= 0 { result - (1 << (14 + 9)) + (1 << (9 - 2)) } else { -result + (1 << (14 + 9)) + (1 << (9 - 2)) - 1 };
    (result >> (9 - 1)) as i16
}

/// TFLite's int16 table lookup with interpolation (`LUTLookup`): 512
/// samples over the int16 range plus one for the last slope.
#[inline(always)]
pub fn lut_interp_s16(x: i16, table: &[i16]) -> i16 {
    let index = (256 + (x >> 7) as i32) as usize;
    let offset = (x & 0x7f) as i32;
    let base = table[index] as i32;
    let slope = table[index + 1] as i32 - base;
    (base + ((slope * offset + 64) >> 7)) as i16
}

/// SIN (single precision, as TFLite's `std::sin` on float).
#[inline(always)]
pub fn sin_f32(x: f32) -> f32 {
    libm::sinf(x)
}

/// COS (single precision).
#[inline(always)]
pub fn cos_f32(x: f32) -> f32 {
    libm::cosf(x)
}

/// int16 RSQRT (TFLM's quantized path, zero points 0): the fixed-point
/// inverse square root, 20 extra bits through the two multiplications;
/// zero gives the maximum.
#[inline(always)]
pub fn rsqrt_s16(x: i16, multiplier: i32, shift: i32) -> i16 {
    use crate::fixedpoint::{inv_sqrt_multiplier_exp, multiply_by_quantized_multiplier};
    const SHIFT: i32 = 20;
    if x == 0 {
        return i16::MAX;
    }
    let (im, is) = inv_sqrt_multiplier_exp(x as i32);
    let data = multiply_by_quantized_multiplier(1, im, is + SHIFT);
    multiply_by_quantized_multiplier(data, multiplier, shift - SHIFT).clamp(i16::MIN as i32, i16::MAX as i32) as i16
}
