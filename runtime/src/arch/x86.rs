//! x86-64 (the host: tests, examples, benchmarks): the int8 dot products
//! with SSE2's `pmaddwd`, and a branch-free saturation.

/// `portable::DOT_PAIRS`: on the host the pixel-pair paths run in their
/// plain-Rust form, so the host's tests (kernels, fixtures, the
/// differential suite, Miri) cover the pairing the DSP cores use.
pub(crate) const DOT_PAIRS: bool = true;

/// `v` saturated to int8 by SSE2's saturating packs, where the compiler
/// would otherwise branch, and mispredict on ReLU outputs.
#[inline(always)]
pub(crate) fn saturate_i8(v: i32) -> i8 {
    use core::arch::x86_64::*;
    // SAFETY: SSE2 is part of the x86-64 baseline; register operations only.
    unsafe {
        let x = _mm_cvtsi32_si128(v);
        let x = _mm_packs_epi32(x, x);
        _mm_cvtsi128_si32(_mm_packs_epi16(x, x)) as i8
    }
}

/// `out[r] += ` the sum of lane pair `r` of `lo` (rows 0, 1) and `hi`
/// (rows 2, 3): the per-row totals of `pmaddwd` accumulators.
#[inline(always)]
fn add_lane_pairs<const R: usize>(
    out: &mut [i32; R],
    lo: core::arch::x86_64::__m128i,
    hi: core::arch::x86_64::__m128i,
) {
    use core::arch::x86_64::_mm_storeu_si128;
    let (mut l, mut h) = ([0i32; 4], [0i32; 4]);
    // SAFETY: SSE2 (x86-64 baseline); unaligned stores into 16-byte arrays.
    unsafe {
        _mm_storeu_si128(l.as_mut_ptr().cast(), lo);
        _mm_storeu_si128(h.as_mut_ptr().cast(), hi);
    }
    let sums = [l[0].wrapping_add(l[1]), l[2].wrapping_add(l[3]), h[0].wrapping_add(h[1]), h[2].wrapping_add(h[3])];
    for (o, s) in out.iter_mut().zip(sums) {
        *o = o.wrapping_add(s);
    }
}

/// `portable::dot_groups` in SSE2 (part of the x86-64 baseline): the group's
/// 4 input values repeated across a vector, the block's 16 (or 8) weights
/// widened to 16 bits, `pmaddwd` into per-row lane pairs.
#[inline(always)]
pub(crate) fn dot_groups<const R: usize>(x: &[i8], block: &[i8], acc: [i32; R]) -> [i32; R] {
    use core::arch::x86_64::*;
    if R != 4 && R != 2 {
        return super::portable::dot_groups(x, block, acc);
    }
    let groups = x.len() / 4;
    let (x, block) = (&x[..4 * groups], &block[..4 * R * groups]);
    let mut out = acc;
    // SAFETY: SSE2 is part of the x86-64 baseline; every load reads within
    // `x` (4 bytes per group) or `block` (4R bytes per group), whose lengths
    // were sliced above; unaligned loads are used throughout.
    unsafe {
        let widen_lo = |v: __m128i| _mm_srai_epi16::<8>(_mm_unpacklo_epi8(v, v));
        let widen_hi = |v: __m128i| _mm_srai_epi16::<8>(_mm_unpackhi_epi8(v, v));
        let (mut lo, mut hi) = (_mm_setzero_si128(), _mm_setzero_si128());
        for g in 0..groups {
            let xw = i32::from_le_bytes([x[4 * g] as u8, x[4 * g + 1] as u8, x[4 * g + 2] as u8, x[4 * g + 3] as u8]);
            let xv = widen_lo(_mm_set1_epi32(xw));
            let wp = block.as_ptr().add(4 * R * g).cast::<__m128i>();
            if R == 4 {
                let w = _mm_loadu_si128(wp);
                lo = _mm_add_epi32(lo, _mm_madd_epi16(widen_lo(w), xv));
                hi = _mm_add_epi32(hi, _mm_madd_epi16(widen_hi(w), xv));
            } else {
                let w = _mm_loadl_epi64(wp);
                lo = _mm_add_epi32(lo, _mm_madd_epi16(widen_lo(w), xv));
            }
        }
        add_lane_pairs(&mut out, lo, hi);
    }
    out
}

/// `portable::dot_groups_widened` in SSE2: the group's inputs widened and ordered
/// as the weight pairs (0, 2, 1, 3), repeated for two rows; one 128-bit
/// load holds two rows' words, `pmaddwd` sums pairs per row.
#[inline(always)]
pub(crate) fn dot_groups_widened<const R: usize>(x: &[i8], block: &[u32], acc: [i32; R]) -> [i32; R] {
    use core::arch::x86_64::*;
    if R != 4 && R != 2 {
        return super::portable::dot_groups_widened(x, block, acc);
    }
    let n = x.len() / 4;
    let (x, block) = (&x[..4 * n], &block[..2 * R * n]);
    let mut out = acc;
    // SAFETY: SSE2 is part of the x86-64 baseline; every load reads within
    // `block` (2R words per group, length sliced above), unaligned loads.
    unsafe {
        let (mut lo, mut hi) = (_mm_setzero_si128(), _mm_setzero_si128());
        for g in 0..n {
            let xw = i32::from_le_bytes([x[4 * g] as u8, x[4 * g + 1] as u8, x[4 * g + 2] as u8, x[4 * g + 3] as u8]);
            let xv = _mm_srai_epi16::<8>(_mm_unpacklo_epi8(_mm_set1_epi32(xw), _mm_set1_epi32(xw)));
            // (0, 1, 2, 3) -> (0, 2, 1, 3) in both halves.
            let xv = _mm_shufflehi_epi16::<0b11_01_10_00>(_mm_shufflelo_epi16::<0b11_01_10_00>(xv));
            let wp = block.as_ptr().add(2 * R * g).cast::<__m128i>();
            lo = _mm_add_epi32(lo, _mm_madd_epi16(_mm_loadu_si128(wp), xv));
            if R == 4 {
                hi = _mm_add_epi32(hi, _mm_madd_epi16(_mm_loadu_si128(wp.add(1)), xv));
            }
        }
        add_lane_pairs(&mut out, lo, hi);
    }
    out
}
