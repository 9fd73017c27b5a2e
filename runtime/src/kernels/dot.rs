//! int8 dot products of one input vector with many weight rows, packed at
//! compile time by `layout::pack_rows`: blocks of 4 rows (then 2, then 1)
//! walked with one sequential pointer, and the requantization of their
//! sums. The whole groups of 4 values are `arch::dot_groups` (on DSP cores
//! `SXTB16`/`SMLAD` assembly, 1.31 instructions per MAC; with 16 or more
//! rows the input is widened to 16-bit pairs once per call instead, 1.19);
//! integer sums do not depend on the order, so every target gives TFLite's
//! bits.

use super::layout::depth4;
use super::{DownScale, PackedRows, Rescale, Scales, clamp_i32, rescale};
use crate::arch;

/// Channels computed per pass (a stack buffer of accumulators; a multiple
/// of 4 so the packed blocks split evenly).
pub const CHUNK: usize = tinyaot_common::scratch::SUM_CHUNK;

/// `out[c] = q.apply(bias[c] + row_c . x)` for every channel: the dot
/// products a chunk of channels at a time into a stack buffer, then one
/// tight requantization loop over it.
#[inline(always)]
pub fn rescaled_dots<const DEPTH: usize>(
    x: &[i8],
    packed: impl PackedRows,
    bias: &[i32],
    q: &Rescale<'_>,
    out: &mut [i8],
) {
    let mut acc = [0i32; CHUNK];
    for (k, out) in out.chunks_mut(CHUNK).enumerate() {
        let c0 = k * CHUNK;
        let n = out.len();
        let acc = &mut acc[..n];
        packed.dots::<DEPTH>(x, c0, &bias[c0..c0 + n], acc);
        requantize(acc, q, c0, out);
    }
}

/// `out[k] = clamp(rescale(acc[k], channel c0 + k) + output_offset)` for
/// a run of channels ([`requantize_pixels`] of one pixel).
#[inline(always)]
pub fn requantize(acc: &[i32], q: &Rescale<'_>, c0: usize, out: &mut [i8]) {
    requantize_pixels(acc, q, c0, out.len(), out);
}

/// [`requantize`] of consecutive pixels at once: `acc` and `out` hold
/// whole pixels of `channels` values (channels `c0..c0 + channels` each).
/// One instance for every kernel (never inlined); the scale form and
/// whether the activation range is the whole int8 range (a saturating
/// narrow, `SSAT`) are chosen once per call, so kernels with few channels
/// per pixel gather several pixels' sums before calling.
#[inline(never)]
pub fn requantize_pixels(acc: &[i32], q: &Rescale<'_>, c0: usize, channels: usize, out: &mut [i8]) {
    if channels == 0 {
        return;
    }
    let acc = &acc[..out.len()];
    let whole = q.act_min <= i8::MIN as i32 && q.act_max >= i8::MAX as i32;
    let pixels = acc.chunks_exact(channels).zip(out.chunks_exact_mut(channels));
    match q.scales {
        Scales::Down(s) if arch::REQUANTIZE_LOOP && whole => {
            arch::requantize_pixels_down(acc, &s[c0..c0 + channels], out)
        }
        Scales::Down(s) => {
            let s = &s[c0..c0 + channels];
            pixels.for_each(|(acc, out)| requantize_with(acc, s, q, whole, out, arch::rescale_down));
        }
        Scales::Any(s) => {
            let (s, offset) = (&s[c0..c0 + channels], q.output_offset);
            pixels.for_each(|(acc, out)| {
                requantize_with(acc, s, q, whole, out, |a, s| rescale(a, s).wrapping_add(offset))
            });
        }
    }
}

#[inline(always)]
fn requantize_with(
    acc: &[i32],
    scales: &[[i32; 4]],
    q: &Rescale<'_>,
    whole: bool,
    out: &mut [i8],
    rescale: impl Fn(i32, &[i32; 4]) -> i32,
) {
    if whole {
        for ((o, &a), s) in out.iter_mut().zip(acc).zip(scales) {
            *o = arch::saturate_i8(rescale(a, s));
        }
    } else {
        let (lo, hi) = (q.act_min, q.act_max);
        for ((o, &a), s) in out.iter_mut().zip(acc).zip(scales) {
            *o = clamp_i32(rescale(a, s), lo, hi) as i8;
        }
    }
}

/// `acc[c] = bias[c] + row_c . x` for the `acc.len()` packed rows of
/// `packed` (`DEPTH` values each, the first `DEPTH` of `x`; an `x` padded
/// with zeros to the packed row length gives the same sums, faster). One
/// instance per depth, never inlined: kernels whose rows have the same
/// length share one copy of the assembly loops (flash), and the depth is
/// still a constant inside it.
#[inline(never)]
pub fn dots<const DEPTH: usize>(x: &[i8], packed: &[i8], bias: &[i32], acc: &mut [i32]) {
    dot_blocks::<DEPTH>(x, packed, bias, acc.len(), |c, a| acc[c..c + a.len()].copy_from_slice(a));
}

/// [`dots`] with each block of sums requantized as soon as it is done
/// (`arch::requantize_block`), straight into `out` (one output per row): the
/// sums never go through memory. For the short-form scales and the whole
/// int8 range ([`fused_scales`]).
#[inline(never)]
pub fn dots_down<const DEPTH: usize>(x: &[i8], packed: &[i8], bias: &[i32], scales: &[DownScale], out: &mut [i8]) {
    let scales = &scales[..out.len()];
    dot_blocks::<DEPTH>(x, packed, bias, out.len(), |c, a| arch::requantize_block(a, &scales[c..], &mut out[c..]));
}

/// [`dots_down`] for two inputs at once (two output pixels of a
/// convolution, `D4` values each: patches or pixels zero-padded to whole
/// groups of 4): each block of 4 rows' weights loaded once for both
/// (`arch::dot_two_quads`), both blocks of sums requantized as soon as
/// they are done, into `out_a` and `out_b`; the last 2 or 1 rows one input
/// at a time. For the byte-pairs family (Cortex-M3: `arch::dot_two_quads`
/// in assembly; elsewhere it is two one-input loops, and the compiler does
/// not call this).
#[inline(never)]
pub fn dots_two_down<const D4: usize>(
    xa: &[i8],
    xb: &[i8],
    packed: &[i8],
    bias: &[i32],
    scales: &[DownScale],
    out_a: &mut [i8],
    out_b: &mut [i8],
) {
    // Opaque, as in `dots_pair`: one copy of the loop for every count.
    let channels = core::hint::black_box(out_a.len());
    let (out_a, out_b) = (&mut out_a[..channels], &mut out_b[..channels]);
    let (xa, xb, bias, scales) = (&xa[..D4], &xb[..D4], &bias[..channels], &scales[..channels]);
    let whole = channels / 4 * 4;
    let blocks = packed[..whole * D4].chunks_exact(4 * D4).zip(bias.chunks_exact(4));
    for (k, (block, b)) in blocks.enumerate() {
        let sums = arch::dot_two_quads(xa, xb, block, b);
        arch::requantize_block(&sums[..4], &scales[4 * k..], &mut out_a[4 * k..]);
        arch::requantize_block(&sums[4..], &scales[4 * k..], &mut out_b[4 * k..]);
    }
    if whole < channels {
        // One pixel at a time, through the one-pixel instance (flash).
        let (packed, bias, scales) = (&packed[whole * D4..], &bias[whole..], &scales[whole..]);
        dots_down::<D4>(xa, packed, bias, scales, &mut out_a[whole..]);
        dots_down::<D4>(xb, packed, bias, scales, &mut out_b[whole..]);
    }
}

/// [`dots_down`] for FULLY_CONNECTED, an instance of its own: where every
/// call of a convolution's instance passes the same channel count, the
/// optimizer specializes the instance on it (one more caller with another
/// count, and a DS-CNN runs 1.1% more instructions on a Cortex-M3).
#[inline(never)]
pub fn dense_dots_down<const DEPTH: usize>(
    x: &[i8],
    packed: &[i8],
    bias: &[i32],
    scales: &[DownScale],
    out: &mut [i8],
) {
    let scales = &scales[..out.len()];
    dot_blocks::<DEPTH>(x, packed, bias, out.len(), |c, a| arch::requantize_block(a, &scales[c..], &mut out[c..]));
}

/// FULLY_CONNECTED's fused dot products over rows in the pair-row layout
/// ([`PairRows`], which the compiler emits for it where
/// `layout::dense_lanes` holds): the input widened once, its sum taken
/// in the same pass (`arch::widen_input_sum`), each whole block of 4 rows summed by
/// `arch::dot_lane_quads` (one sign extension per two rows' weight word)
/// and requantized from registers; a last partial group of values and the
/// last 2 or 1 rows (in the plain layout) as [`dense_dots_down`] does them.
#[inline(always)]
pub fn dense_lanes_down<const DEPTH: usize>(
    x: &[i8],
    packed: &[i8],
    bias: &[i32],
    scales: &[DownScale],
    out: &mut [i8],
) {
    let channels = out.len();
    let (x, bias, scales) = (&x[..DEPTH], &bias[..channels], &scales[..channels]);
    let (d4, full, whole) = (depth4(DEPTH), DEPTH / 4, channels / 4 * 4);
    if !tinyaot_common::layout::dense_lanes(DEPTH, channels) {
        // Not a layer the compiler lays out this way: value by value.
        return PairRows(packed).dots_down::<DEPTH>(x, 0, bias, scales, out);
    }
    let mut buf = core::mem::MaybeUninit::uninit();
    let (widened, sum) = arch::widen_input_sum(&x[..4 * full], &mut buf);
    let sum128 = sum.wrapping_mul(128);
    let blocks = packed[..whole * d4].chunks_exact(4 * d4).zip(bias.chunks_exact(4));
    for (k, ((block, b), out)) in blocks.zip(out[..whole].chunks_exact_mut(4)).enumerate() {
        let mut sums = arch::dot_lane_quads::<DEPTH>(widened, block, sum128, [b[0], b[1], b[2], b[3]]);
        if 4 * full < DEPTH {
            // The last partial group (zero-padded lanes past the row).
            let group = &block[16 * full..16 * full + 16];
            for (j, &v) in x[4 * full..].iter().enumerate() {
                for (r, s) in sums.iter_mut().enumerate() {
                    *s = s.wrapping_add(v as i32 * super::layout::pair_row_value(group, r, j) as i32);
                }
            }
        }
        arch::requantize_block(&sums, &scales[4 * k..], out);
    }
    if whole < channels {
        let (bias, scales, out) = (&bias[whole..], &scales[whole..], &mut out[whole..]);
        dot_blocks::<DEPTH>(x, &packed[whole * d4..], bias, channels - whole, |c, a| {
            arch::requantize_block(a, &scales[c..], &mut out[c..]);
        });
    }
}

/// Whether pointwise kernels take their pixels two at a time
/// ([`dots_pair`]; `arch::DOT_PAIRS`).
pub const PAIRS: bool = arch::DOT_PAIRS;

/// Words of a kernel's pixel-pair buffer ([`dots_pair`]): none where the
/// target takes pixels one at a time.
pub const PAIR_WORDS: usize = if PAIRS { arch::WIDENED_PAIR_WORDS } else { 0 };

/// The deepest rows the pair buffer holds (4 words per group of 4 values).
pub const PAIR_DEPTH: usize = arch::WIDENED_PAIR_WORDS;

/// Writes pixel `x` (`DEPTH` values) into lane `lane` (0 or 1) of a pair
/// buffer for [`dots_pair`].
/// With `SUM`, also 128 times its values' sum after the groups, which
/// the pair-row layout's kernels take ([`PairRows`]).
#[inline(always)]
pub fn widen_pair_lane<const SUM: bool>(x: &[i8], lane: usize, pair: &mut [u32]) {
    let sum = arch::widen_pair_lane::<SUM>(x, lane, pair);
    if SUM {
        pair[4 * x.len().div_ceil(4) + lane] = sum as u32;
    }
}

/// [`widen_pair_lane`] of a pixel whose values are `rows` runs of `len`
/// values (a multiple of 4), `step` apart in `x` (a window's rows straight
/// from the input image, with no patch copied first).
#[inline(always)]
pub fn widen_pair_lane_rows<const SUM: bool>(
    x: &[i8],
    rows: usize,
    len: usize,
    step: usize,
    lane: usize,
    pair: &mut [u32],
) {
    debug_assert!(len & 3 == 0);
    let mut sum = 0i32;
    for r in 0..rows {
        let at = r * len;
        sum = sum.wrapping_add(arch::widen_pair_lane::<SUM>(&x[r * step..r * step + len], lane, &mut pair[at..]));
    }
    if SUM {
        pair[rows * len + lane] = sum as u32;
    }
}

/// `acc_a[k] = bias[k] + row_k . a` and `acc_b[k] = bias[k] + row_k . b`
/// for the `acc_a.len()` packed rows of `packed` (`DEPTH` values each),
/// `a` and `b` the two pixels of `pair` ([`widen_pair_lane`]): each weight
/// word is loaded and widened once for both (`arch::DOT_PAIRS`). One
/// instance per depth, never inlined.
#[inline(never)]
pub fn dots_pair<const DEPTH: usize>(pair: &[u32], packed: &[i8], bias: &[i32], acc_a: &mut [i32], acc_b: &mut [i32]) {
    let d4 = depth4(DEPTH);
    // Opaque: with a caller's constant channel count the compiler would
    // unroll the blocks below, one copy of the assembly each (12 KB for
    // 32 channels of 144 values, for 2% fewer cycles).
    let channels = core::hint::black_box(acc_a.len());
    let (acc_a, acc_b, bias) = (&mut acc_a[..channels], &mut acc_b[..channels], &bias[..channels]);
    let (mut c, mut off) = (0, 0);
    while channels - c >= 4 {
        let block = &packed[off..off + 4 * d4];
        let (b0, b1, b2, b3) = (bias[c], bias[c + 1], bias[c + 2], bias[c + 3]);
        // Rows 0 and 1 of the block, then rows 2 and 3 (words 2 and 3 of
        // each group).
        let [a0, a1, p0, p1] = arch::dot_pair_rows::<4, DEPTH>(pair, block, [b0, b1, b0, b1]);
        let [a2, a3, p2, p3] = arch::dot_pair_rows::<4, DEPTH>(pair, &block[8..], [b2, b3, b2, b3]);
        acc_a[c..c + 4].copy_from_slice(&[a0, a1, a2, a3]);
        acc_b[c..c + 4].copy_from_slice(&[p0, p1, p2, p3]);
        c += 4;
        off += 4 * d4;
    }
    pair_tail::<DEPTH>(pair, packed, bias, c, |c, a, b| {
        acc_a[c..c + a.len()].copy_from_slice(a);
        acc_b[c..c + b.len()].copy_from_slice(b);
    });
}

/// The last 2 or 1 rows after the `whole` blocks of 4 (plain rows, from
/// byte `whole * depth4(DEPTH)` of `packed`; `bias.len()` rows in all)
/// against both pixels of `pair`: `put(c, a, b)` gets both pixels' sums
/// of the rows from `c`. The single row is plain code, once per pixel
/// pair.
#[inline(always)]
fn pair_tail<const DEPTH: usize>(
    pair: &[u32],
    packed: &[i8],
    bias: &[i32],
    whole: usize,
    mut put: impl FnMut(usize, &[i32], &[i32]),
) {
    let d4 = depth4(DEPTH);
    let channels = bias.len();
    let (mut c, mut off) = (whole, whole * d4);
    if channels - c >= 2 {
        let (b0, b1) = (bias[c], bias[c + 1]);
        let [a0, a1, p0, p1] = arch::dot_pair_rows::<2, DEPTH>(pair, &packed[off..off + 2 * d4], [b0, b1, b0, b1]);
        put(c, &[a0, a1], &[p0, p1]);
        c += 2;
        off += 2 * d4;
    }
    if channels - c == 1 {
        let (mut a, mut b) = (bias[c], bias[c]);
        for (x, w) in pair.chunks_exact(4).zip(packed[off..off + d4].chunks_exact(4)) {
            let w = u32::from_le_bytes([w[0] as u8, w[1] as u8, w[2] as u8, w[3] as u8]);
            let (w02, w13) = (arch::sxtb16(w), arch::sxtb16(w.rotate_right(8)));
            a = arch::smlad(x[1], w13, arch::smlad(x[0], w02, a));
            b = arch::smlad(x[3], w13, arch::smlad(x[2], w02, b));
        }
        put(c, &[a], &[b]);
    }
}

/// [`dots_pair`] with the requantization fused: each block's sums go
/// from registers straight to `out_a` and `out_b` (short-form scales, the
/// whole int8 range: `fused_scales`), never through memory. `scales` and
/// `bias` start at the first row. Without `NUDGE` (the compiler's word:
/// output zero point -128) the whole blocks skip the rounding nudge of
/// negative sums (`rescale_down_unnudged`). Rows in the pair-row layout:
/// [`dots_pair_lanes_down`].
#[inline(never)]
pub fn dots_pair_down<const DEPTH: usize, const NUDGE: bool>(
    pair: &[u32],
    packed: &[i8],
    bias: &[i32],
    scales: &[DownScale],
    out_a: &mut [i8],
    out_b: &mut [i8],
) {
    // Opaque, as in `dots_pair`.
    let channels = core::hint::black_box(out_a.len());
    let (out_a, out_b) = (&mut out_a[..channels], &mut out_b[..channels]);
    let (bias, scales) = (&bias[..channels], &scales[..channels]);
    let whole = channels / 4 * 4;
    arch::dot_pair_blocks_down::<DEPTH, NUDGE>(pair, packed, bias, scales, &mut out_a[..whole], &mut out_b[..whole]);
    pair_tail_down::<DEPTH>(pair, packed, bias, scales, whole, |c, a, b| {
        out_a[c..c + a.len()].copy_from_slice(a);
        out_b[c..c + b.len()].copy_from_slice(b);
    });
}

/// [`dots_pair_down`] for rows whose whole blocks of 4 are in the pair-row
/// layout ([`PairRows`], the pair buffer with its input sums; the last 2
/// or 1 rows in the plain one), the first `channels` of them, into one
/// output slice: pixel a's outputs at `out[c]`, pixel b's at `out[second
/// + c]` (`second` 0: the same pixel in both lanes).
#[inline(never)]
pub fn dots_pair_lanes_down<const DEPTH: usize, const NUDGE: bool>(
    pair: &[u32],
    packed: &[i8],
    bias: &[i32],
    scales: &[DownScale],
    out: &mut [i8],
    second: usize,
    channels: usize,
) {
    pair_lanes_down::<DEPTH, NUDGE, true>(pair, packed, (bias, scales), out, second, channels);
}

/// The body of [`dots_pair_lanes_down`], inlined where a caller walks many
/// pairs with it; without `TAIL` (the caller's word: `channels` is a
/// multiple of 4) no code for a last 2 or 1 rows.
#[inline(always)]
pub(crate) fn pair_lanes_down<const DEPTH: usize, const NUDGE: bool, const TAIL: bool>(
    pair: &[u32],
    packed: &[i8],
    (bias, scales): (&[i32], &[DownScale]),
    out: &mut [i8],
    second: usize,
    channels: usize,
) {
    assert!(TAIL || channels & 3 == 0);
    let (bias, scales) = (&bias[..channels], &scales[..channels]);
    let whole = channels / 4 * 4;
    arch::dot_pair_lane_blocks_down::<DEPTH, NUDGE>(pair, packed, bias, scales, out, second, whole);
    if TAIL && whole < channels {
        pair_tail_down::<DEPTH>(pair, packed, bias, scales, whole, |c, a, b| {
            out[second + c..second + c + b.len()].copy_from_slice(b);
            out[c..c + a.len()].copy_from_slice(a);
        });
    }
}

/// [`pair_tail`] requantized: `put(c, a, b)` gets both pixels' outputs
/// of the rows from `c`.
#[inline(always)]
fn pair_tail_down<const DEPTH: usize>(
    pair: &[u32],
    packed: &[i8],
    bias: &[i32],
    scales: &[DownScale],
    whole: usize,
    mut put: impl FnMut(usize, &[i8], &[i8]),
) {
    pair_tail::<DEPTH>(pair, packed, bias, whole, |c, a, b| {
        let (mut oa, mut ob) = ([0i8; 2], [0i8; 2]);
        let n = a.len();
        arch::requantize_block(a, &scales[c..], &mut oa[..n]);
        arch::requantize_block(b, &scales[c..], &mut ob[..n]);
        put(c, &oa[..n], &ob[..n]);
    });
}

/// The walk of [`dots`]: blocks of 4 rows, then 2, then 1, each block's
/// sums (from the bias) handed to `sink` with its first row.
#[inline(always)]
fn dot_blocks<const DEPTH: usize>(
    x: &[i8],
    packed: &[i8],
    bias: &[i32],
    channels: usize,
    mut sink: impl FnMut(usize, &[i32]),
) {
    let x = &x[..DEPTH];
    let d4 = depth4(DEPTH);
    let bias = &bias[..channels];
    let mut c = 0;
    let mut off = 0;
    if arch::WIDEN_INPUT && DEPTH >= 4 && DEPTH <= 2 * arch::WIDENED_INPUT_WORDS && channels >= 16 {
        // The input widened to 16-bit pairs once, on the stack, instead
        // of once per block of 4 rows.
        let full = DEPTH / 4;
        let mut buf = core::mem::MaybeUninit::uninit();
        let widened = arch::widen_input(&x[..4 * full], &mut buf);
        // Whole blocks by iterators: no bounds checks between them.
        let blocks = packed[..channels / 4 * 4 * d4].chunks_exact(4 * d4).zip(bias.chunks_exact(4));
        for (k, (block, b)) in blocks.enumerate() {
            let a = dot_block_with(x, block, [b[0], b[1], b[2], b[3]], |_, block, a| {
                arch::dot_quads_widened_input(widened, block, a)
            });
            sink(4 * k, &a);
        }
        (c, off) = (channels / 4 * 4, channels / 4 * 4 * d4);
    }
    if channels - c >= 4 {
        let blocks = packed[off..off + (channels - c) / 4 * 4 * d4].chunks_exact(4 * d4).zip(bias[c..].chunks_exact(4));
        for (k, (block, b)) in blocks.enumerate() {
            sink(c + 4 * k, &dot_block::<4>(x, block, [b[0], b[1], b[2], b[3]]));
        }
        (c, off) = (c + (channels - c) / 4 * 4, off + (channels - c) / 4 * 4 * d4);
    }
    if channels - c >= 2 {
        sink(c, &dot_block::<2>(x, &packed[off..off + 2 * d4], [bias[c], bias[c + 1]]));
        c += 2;
        off += 2 * d4;
    }
    if channels - c == 1 {
        sink(c, &dot_block::<1>(x, &packed[off..off + d4], [bias[c]]));
    }
}

/// The scales for fused requantization ([`dots_down`], the depthwise
/// kernel's): short-form scales and an activation range that is the whole
/// int8 range, the common case; `None` otherwise.
#[inline(always)]
pub fn fused_scales<'a>(q: &Rescale<'a>) -> Option<&'a [DownScale]> {
    match q.scales {
        Scales::Down(s) if tinyaot_common::whole_int8_range!(q.act_min, q.act_max) => Some(s),
        _ => None,
    }
}

/// `acc[r] += row_r . x` for the `R` rows of one packed block.
#[inline(always)]
fn dot_block<const R: usize>(x: &[i8], block: &[i8], acc: [i32; R]) -> [i32; R] {
    dot_block_with(x, block, acc, arch::dot_groups::<R>)
}

/// [`dot_block`] with the whole groups of 4 summed by `groups` (given the
/// whole groups of `x` and of the block): the last partial group here.
#[inline(always)]
fn dot_block_with<const R: usize>(
    x: &[i8],
    block: &[i8],
    mut acc: [i32; R],
    groups: impl FnOnce(&[i8], &[i8], [i32; R]) -> [i32; R],
) -> [i32; R] {
    let full = x.len() / 4;
    let block = &block[..R * depth4(x.len())];
    if full > 0 {
        acc = groups(&x[..4 * full], &block[..R * 4 * full], acc);
    }
    // The last partial group (weights zero-padded past the row).
    for (j, &xv) in x[4 * full..].iter().enumerate() {
        for (r, a) in acc.iter_mut().enumerate() {
            *a = a.wrapping_add(xv as i32 * block[(full * R + r) * 4 + j] as i32);
        }
    }
    acc
}

/// Weight rows in the pair-row layout (`layout::pack_pair_rows`): the
/// compiler emits them for the convolutions it runs two pixels at a time
/// with the requantization fused, on targets with pair kernels
/// ([`PAIRS`]), where [`dots_pair_down`] reads them with one sign
/// extension per two rows. Any other use (a target without pair kernels,
/// rows too deep for the pair buffer) reads them value by value: correct,
/// slow, and not what the compiler emits them for.
#[derive(Clone, Copy, Debug)]
pub struct PairRows<'a>(pub &'a [i8]);

impl PairRows<'_> {
    /// Row `c`, value `k` (`DEPTH` values per row, `self.0` all rows).
    fn value(&self, d4: usize, c: usize, k: usize) -> i32 {
        let channels = self.0.len() / d4;
        let whole = channels / 4 * 4;
        if c < whole {
            let group = &self.0[c / 4 * 4 * d4 + 16 * (k / 4)..][..16];
            return super::layout::pair_row_value(group, c % 4, k % 4) as i32;
        }
        // The last 2 or 1 rows: `pack_rows`'s blocks of 2, then 1.
        let (first, rows) = if c - whole < 2 && channels - whole >= 2 { (whole, 2) } else { (channels - 1, 1) };
        self.0[first * d4 + (k / 4 * rows + c - first) * 4 + k % 4] as i32
    }

    /// Row `c`'s sum from `bias` against `x`.
    fn dot<const DEPTH: usize>(&self, x: &[i8], c: usize, bias: i32) -> i32 {
        let d4 = depth4(DEPTH);
        x[..DEPTH].iter().enumerate().fold(bias, |a, (k, &v)| a.wrapping_add(v as i32 * self.value(d4, c, k)))
    }
}

impl PackedRows for PairRows<'_> {
    #[inline(always)]
    fn dots<const DEPTH: usize>(self, x: &[i8], first: usize, bias: &[i32], acc: &mut [i32]) {
        for (k, (a, &b)) in acc.iter_mut().zip(bias).enumerate() {
            *a = self.dot::<DEPTH>(x, first + k, b);
        }
    }
    #[inline(always)]
    fn dots_down<const DEPTH: usize>(self, x: &[i8], first: usize, bias: &[i32], scales: &[DownScale], out: &mut [i8]) {
        for (k, ((o, &b), s)) in out.iter_mut().zip(bias).zip(scales).enumerate() {
            *o = arch::saturate_i8(arch::rescale_down(self.dot::<DEPTH>(x, first + k, b), s));
        }
    }
    #[inline(always)]
    fn dense_dots_down<const DEPTH: usize>(self, x: &[i8], bias: &[i32], scales: &[DownScale], out: &mut [i8]) {
        dense_lanes_down::<DEPTH>(x, self.0, bias, scales, out);
    }
}
