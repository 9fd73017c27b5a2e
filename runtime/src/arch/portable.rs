//! The DSP extension's lane instructions in plain Rust, bit for bit
//! (wrapping, as the instructions; the kernels' sums never reach the
//! limits).
#![allow(dead_code)] // the same set of names as `dsp`; kernels use what they need here

/// The low (`false`) or high (`true`) signed half of a word.
#[inline(always)]
fn half(x: u32, high: bool) -> i32 {
    (if high { x >> 16 } else { x }) as u16 as i16 as i32
}

/// `SMLAD`: `acc + low(a) * low(b) + high(a) * high(b)`.
#[inline(always)]
pub(crate) fn smlad(a: u32, b: u32, acc: i32) -> i32 {
    acc.wrapping_add((half(a, false) * half(b, false)).wrapping_add(half(a, true) * half(b, true)))
}

/// `SMLABB`: `acc + low(a) * low(b)`.
#[inline(always)]
pub(crate) fn smlabb(a: u32, b: u32, acc: i32) -> i32 {
    acc.wrapping_add(half(a, false) * half(b, false))
}

/// `SMLATT`: `acc + high(a) * high(b)`.
#[inline(always)]
pub(crate) fn smlatt(a: u32, b: u32, acc: i32) -> i32 {
    acc.wrapping_add(half(a, true) * half(b, true))
}

/// `SXTB16`: bytes 0 and 2 sign-extended into two 16-bit halves.
#[inline(always)]
pub(crate) fn sxtb16(x: u32) -> u32 {
    (x as u8 as i8 as i16 as u16 as u32) | (((x >> 16) as u8 as i8 as i16 as u16 as u32) << 16)
}
