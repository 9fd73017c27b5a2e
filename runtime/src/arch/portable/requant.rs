//! Requantization to int8 in plain Rust: TFLite's rounding as the short
//! form, its doubled and 16-bit-halves variants, saturation, the block
//! and pixel loops (`armv7m.rs` and `armv6m.rs` have faster forms).

use tinyaot_common::fixedpoint::DownScale;

/// `tinyaot_common::fixedpoint::rescale_down`: the short-form
/// requantization of one sum, on its 64-bit product.
#[inline(always)]
pub(crate) fn rescale_down(acc: i32, s: &DownScale) -> i32 {
    tinyaot_common::fixedpoint::rescale_down(acc, s)
}

/// `tinyaot_common::fixedpoint::rescale_down_unnudged`: [`rescale_down`]
/// without the nudge of negative sums, for layers whose output zero point
/// is -128 (the same int8 outputs).
#[inline(always)]
pub(crate) fn rescale_down_unnudged(acc: i32, s: &DownScale) -> i32 {
    tinyaot_common::fixedpoint::rescale_down_unnudged(acc, s)
}

/// Whether [`rescale_down_doubled`] is the faster form here (one
/// `SMMLAR` on DSP cores; the host, so the differential tests run it).
/// ARMv6-M and ARMv7-M without DSP keep [`rescale_down`].
pub(crate) const DOUBLED_RESCALE: bool = true;

/// The low word of twice K in a doubled depthwise-rows stream (header
/// word 3, always 2^31: `layout::pack_depthwise_rows`), read from the
/// stream; ARMv6-M takes the constant, which its halves form folds.
#[inline(always)]
pub(crate) fn doubled_k_low(word: u32) -> i32 {
    word as i32
}

/// `tinyaot_common::fixedpoint::rescale_down_doubled`: a sum below 2^30
/// in magnitude with the constants of `fixedpoint::doubled_of`.
#[inline(always)]
pub(crate) fn rescale_down_doubled(acc: i32, multiplier: i32, k_high2: i32, shift1: i32) -> i32 {
    tinyaot_common::fixedpoint::rescale_down_doubled(acc, multiplier, k_high2, shift1)
}

/// [`rescale_down`] from four 16x16-bit products, for cores whose only
/// multiply gives the low 32 bits (ARMv6-M's `MULS`): there the 64-bit
/// product is a library call (`__aeabi_lmul`, about 75 instructions on the
/// Cortex-M0); this takes about 30. The multiplier is below 2^31 (as
/// `DownScale` has it), so every partial product fits its 32 bits:
/// `acc * m = ah mh 2^32 + (ah ml + al mh) 2^16 + al ml`, `al`, `ml`
/// the unsigned low halves. The high word of the sum is gathered with
/// the carries out of the low word.
#[inline(always)]
pub(crate) fn rescale_down_halves(acc: i32, s: &DownScale) -> i32 {
    let [multiplier, shift, k_low, k_high] = *s;
    let (al, ah) = ((acc as u32) & 0xFFFF, acc >> 16);
    let (ml, mh) = ((multiplier as u32) & 0xFFFF, (multiplier as u32) >> 16);
    let (p0, p1, p2, p3) = (al * ml, ah.wrapping_mul(ml as i32), al * mh, ah.wrapping_mul(mh as i32));
    // -2^31 for a negative sum (`rescale_down`'s correction): 0 or -1 in
    // the high word, 0 or 2^31 in the low.
    let negative = acc >> 31;
    let (low, c1) = p0.overflowing_add(k_low as u32);
    let (low, c2) = low.overflowing_add((p1 as u32) << 16);
    let (low, c3) = low.overflowing_add(p2 << 16);
    let (_, c4) = low.overflowing_add((negative as u32) << 31);
    let high = k_high
        .wrapping_add(p3)
        .wrapping_add(p1 >> 16)
        .wrapping_add((p2 >> 16) as i32)
        .wrapping_add(negative)
        .wrapping_add(c1 as i32 + c2 as i32 + c3 as i32 + c4 as i32);
    high >> shift
}

/// `v` saturated to int8.
#[inline(always)]
pub(crate) fn saturate_i8(v: i32) -> i8 {
    v.clamp(i8::MIN as i32, i8::MAX as i32) as i8
}

/// `out[k] = saturate(rescale_down(sums[k], scales[k]))` for a block of
/// sums still in registers.
#[inline(always)]
pub(crate) fn requantize_block(sums: &[i32], scales: &[DownScale], out: &mut [i8]) {
    let n = sums.len();
    let (scales, out) = (&scales[..n], &mut out[..n]);
    for ((o, &a), s) in out.iter_mut().zip(sums).zip(scales) {
        *o = crate::arch::saturate_i8(crate::arch::rescale_down(a, s));
    }
}

/// Whether [`requantize_pixels_down`] is a loop of its own (ARMv7-M);
/// elsewhere the kernel's general requantization loop serves.
pub(crate) const REQUANTIZE_LOOP: bool = false;

/// Consecutive pixels of `scales.len()` channels each: `out[k] =
/// saturate(rescale_down(acc[k], scales[k % channels]))` for the whole
/// pixels `out` holds.
#[inline(always)]
pub(crate) fn requantize_pixels_down(acc: &[i32], scales: &[DownScale], out: &mut [i8]) {
    let channels = scales.len();
    if channels == 0 {
        return;
    }
    for (acc, out) in acc.chunks_exact(channels).zip(out.chunks_exact_mut(channels)) {
        for ((o, &a), s) in out.iter_mut().zip(acc).zip(scales) {
            *o = crate::arch::saturate_i8(crate::arch::rescale_down(a, s));
        }
    }
}
