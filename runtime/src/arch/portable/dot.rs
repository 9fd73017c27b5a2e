//! int8 dot products over byte rows, the input widened once, and the
//! pixel pairs over byte rows, in plain Rust (`dsp/dot.rs` has their DSP
//! forms).

use super::requant::saturate_i8;
use super::{smlad, sxtb16};
use tinyaot_common::fixedpoint::DownScale;

/// Whole groups of 4 values of `x` against a block of `R` packed rows
/// (`layout::pack_rows`: per group, 4 bytes of each row): `acc[r] +=
/// row_r . x`, wrapping, so the total is the same in any order.
#[inline(always)]
pub(crate) fn dot_groups<const R: usize>(x: &[i8], block: &[i8], mut acc: [i32; R]) -> [i32; R] {
    for (xg, wg) in x.chunks_exact(4).zip(block.chunks_exact(4 * R)) {
        for (r, a) in acc.iter_mut().enumerate() {
            let s: i32 = (0..4).map(|j| xg[j] as i32 * wg[4 * r + j] as i32).sum();
            *a = a.wrapping_add(s);
        }
    }
    acc
}

/// [`dot_groups`] of a block of 4 rows against two inputs, each row's sum
/// starting at its `bias`: `xa`'s 4 sums, then `xb`'s. Here one input after
/// the other: on RV32 the compiler's two-input loop ran 15% more
/// instructions than two one-input loops (ARMv7-M without DSP has an
/// assembly loop that reads each weight once for both).
#[inline(always)]
pub(crate) fn dot_two_quads(xa: &[i8], xb: &[i8], block: &[i8], bias: &[i32]) -> [i32; 8] {
    let b = [bias[0], bias[1], bias[2], bias[3]];
    let (a, c) = (crate::arch::dot_groups(xa, block, b), crate::arch::dot_groups(xb, block, b));
    [a[0], a[1], a[2], a[3], c[0], c[1], c[2], c[3]]
}

/// Whether the dot products widen their input to 16-bit pairs once per
/// call ([`widen_input`], [`dot_quads_widened_input`]) when there are
/// many rows: where that saves the per-block widening (`SXTB16`).
pub(crate) const WIDEN_INPUT: bool = false;

/// Words in the stack buffer of [`widen_input`]: inputs of up to twice as
/// many values (`layout::DENSE_LANES_MAX_DEPTH`; the pair kernels already
/// take 2.3 KB).
pub(crate) const WIDENED_INPUT_WORDS: usize = tinyaot_common::layout::DENSE_LANES_MAX_DEPTH / 2;

/// The 16-bit pairs of `x` (values 0, 2 and 1, 3 of each group of 4),
/// written into `buf` (not zeroed first: every word returned is written).
pub(crate) fn widen_input<'b>(x: &[i8], buf: &'b mut core::mem::MaybeUninit<[u32; WIDENED_INPUT_WORDS]>) -> &'b [u32] {
    let groups = x.len() / 4;
    assert!(2 * groups <= WIDENED_INPUT_WORDS);
    let buf = buf.write([0; WIDENED_INPUT_WORDS]);
    for (g, words) in x.chunks_exact(4).zip(buf.chunks_exact_mut(2)) {
        let word = u32::from_le_bytes([g[0] as u8, g[1] as u8, g[2] as u8, g[3] as u8]);
        words[0] = sxtb16(word);
        words[1] = sxtb16(word.rotate_right(8));
    }
    &buf[..2 * groups]
}

/// [`widen_input`] and the sum of the values widened.
pub(crate) fn widen_input_sum<'b>(
    x: &[i8],
    buf: &'b mut core::mem::MaybeUninit<[u32; WIDENED_INPUT_WORDS]>,
) -> (&'b [u32], i32) {
    let sum = x[..x.len() / 4 * 4].iter().fold(0i32, |s, &v| s.wrapping_add(v as i32));
    (widen_input(x, buf), sum)
}

/// [`dot_groups`] of a block of 4 rows with the input already widened
/// ([`widen_input`]).
#[inline(always)]
pub(crate) fn dot_quads_widened_input(widened: &[u32], block: &[i8], mut acc: [i32; 4]) -> [i32; 4] {
    for (pairs, wg) in widened.chunks_exact(2).zip(block.chunks_exact(16)) {
        for (r, a) in acc.iter_mut().enumerate() {
            let w =
                u32::from_le_bytes([wg[4 * r] as u8, wg[4 * r + 1] as u8, wg[4 * r + 2] as u8, wg[4 * r + 3] as u8]);
            *a = smlad(pairs[1], sxtb16(w.rotate_right(8)), smlad(pairs[0], sxtb16(w), *a));
        }
    }
    acc
}

/// Whether pointwise kernels take their output pixels two at a time
/// ([`widen_pair_lane`], [`dot_pair_rows`]): each weight word loaded and
/// widened once feeds both pixels' sums. Where loads and widening are
/// cheap next to the multiplies (no DSP lanes), one pixel at a time is as
/// fast and the kernels keep it.
pub(crate) const DOT_PAIRS: bool = false;

/// Words in the stack buffer of the pixel pairs (4 words per group of 4
/// values of both pixels): rows of up to `layout::PAIR_MAX_DEPTH` values.
pub(crate) const WIDENED_PAIR_WORDS: usize = tinyaot_common::layout::PAIR_MAX_DEPTH;

/// Writes `x`'s 16-bit pairs into lane `lane` (0 or 1) of the pair buffer:
/// per group of 4 values the words `[a02, a13, b02, b13]` (pixel a in lane
/// 0, pixel b in lane 1; values 0, 2 then 1, 3, as [`widen_input`]). A last
/// partial group is padded with zeros (the packed rows are zero there too).
/// Returns 128 times the values' sum with `SUM` (the pair-row layout's
/// correction, `dot_pair_blocks_down`), else 0.
#[inline(always)]
pub(crate) fn widen_pair_lane<const SUM: bool>(x: &[i8], lane: usize, buf: &mut [u32]) -> i32 {
    let groups = x.len().div_ceil(4);
    assert!(lane < 2 && 4 * groups <= buf.len().min(WIDENED_PAIR_WORDS));
    for (g, words) in x.chunks(4).zip(buf.chunks_exact_mut(4)) {
        let mut b = [0u8; 4];
        for (d, &v) in b.iter_mut().zip(g) {
            *d = v as u8;
        }
        let word = u32::from_le_bytes(b);
        words[2 * lane] = sxtb16(word);
        words[2 * lane + 1] = sxtb16(word.rotate_right(8));
    }
    if SUM { x.iter().fold(0i32, |s, &v| s.wrapping_add(v as i32)).wrapping_mul(128) } else { 0 }
}

/// Two neighbouring packed rows against both pixels of a pair buffer
/// (`pair`: 4 words per group, [`widen_pair_lane`]): `rows` starts at the
/// first row's word of the first group and holds `STRIDE` words per group
/// (4 in a block of 4 rows, 2 in a block of 2); the two rows are the
/// group's first two words; rows of `DEPTH` values. `acc` is `[a.row0, a.row1,
/// b.row0, b.row1]`.
#[inline(always)]
pub(crate) fn dot_pair_rows<const STRIDE: usize, const DEPTH: usize>(
    pair: &[u32],
    rows: &[i8],
    mut acc: [i32; 4],
) -> [i32; 4] {
    for (x, wg) in pair[..4 * DEPTH.div_ceil(4)].chunks_exact(4).zip(rows.chunks(4 * STRIDE)) {
        for r in 0..2 {
            let w =
                u32::from_le_bytes([wg[4 * r] as u8, wg[4 * r + 1] as u8, wg[4 * r + 2] as u8, wg[4 * r + 3] as u8]);
            let (w02, w13) = (sxtb16(w), sxtb16(w.rotate_right(8)));
            acc[r] = smlad(x[1], w13, smlad(x[0], w02, acc[r]));
            acc[2 + r] = smlad(x[3], w13, smlad(x[2], w02, acc[2 + r]));
        }
    }
    acc
}

/// The whole blocks of 4 packed rows (`rows` at the first block, in
/// `layout::pack_rows`'s layout) against both pixels of a pair buffer,
/// each sum requantized (short form, whole int8 range) as soon as it is
/// done: `out_a[c]` and `out_b[c]` for every channel `c` of `out_a.len()`,
/// a multiple of 4; `bias` and `scales` start at the first row. Without
/// `NUDGE` (output zero point -128) negative sums skip the rounding nudge
/// (`fixedpoint::rescale_down_unnudged`).
#[inline(always)]
pub(crate) fn dot_pair_blocks_down<const DEPTH: usize, const NUDGE: bool>(
    pair: &[u32],
    rows: &[i8],
    bias: &[i32],
    scales: &[DownScale],
    out_a: &mut [i8],
    out_b: &mut [i8],
) {
    let block = 4 * crate::kernels::layout::depth4(DEPTH);
    let channels = out_a.len();
    for (k, block) in rows[..channels / 4 * block].chunks_exact(block).enumerate() {
        let c = 4 * k;
        let (b0, b1, b2, b3) = (bias[c], bias[c + 1], bias[c + 2], bias[c + 3]);
        let [a0, a1, p0, p1] = crate::arch::dot_pair_rows::<4, DEPTH>(pair, block, [b0, b1, b0, b1]);
        let [a2, a3, p2, p3] = crate::arch::dot_pair_rows::<4, DEPTH>(pair, &block[8..], [b2, b3, b2, b3]);
        let sums = [[a0, a1, a2, a3], [p0, p1, p2, p3]];
        requantize_pair_block::<NUDGE>(sums, &scales[c..c + 4], [&mut out_a[c..c + 4], &mut out_b[c..c + 4]]);
    }
}

/// Both pixels' sums of one block of 4 rows requantized into `outs`.
#[inline(always)]
pub(super) fn requantize_pair_block<const NUDGE: bool>(
    sums: [[i32; 4]; 2],
    scales: &[DownScale],
    outs: [&mut [i8]; 2],
) {
    for (sums, out) in sums.iter().zip(outs) {
        if NUDGE {
            crate::arch::requantize_block(sums, scales, out);
        } else {
            for ((o, &a), s) in out.iter_mut().zip(sums).zip(scales) {
                *o = saturate_i8(crate::arch::rescale_down_unnudged(a, s));
            }
        }
    }
}
