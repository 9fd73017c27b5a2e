//! The pair-row layout's dot products (dense rows against a widened
//! input, and pixel pairs) in plain Rust (`dsp/pair_lanes.rs` has their
//! DSP forms).

use super::dot::requantize_pair_block;
use super::{smlad, sxtb16};
use tinyaot_common::fixedpoint::DownScale;

/// A block of 4 rows in the pair-row layout (`layout::pack_pair_rows`: per
/// group of 4 values 16 bytes, the lane words of rows 0, 1 for values 0, 2
/// and 1, 3, then those of rows 2, 3) against one input widened by
/// [`widen_input`]: `acc[r] + row_r . x` over the `DEPTH / 4` whole groups
/// of rows of `DEPTH` values. `sum128` is
/// 128 times the sum of those input values: an even row's lane bytes carry
/// 128 more. Per lane word one `SMLAD` of the word itself (the even row,
/// plus 128 and 256 times the odd row) and one of the odd row alone
/// (`SXTB16` of the word rotated); the even row's sums are taken back out
/// at the end (wrapping: the true sums fit in 32 bits).
#[inline(always)]
pub(crate) fn dot_lane_quads<const DEPTH: usize>(
    widened: &[u32],
    block: &[i8],
    sum128: i32,
    acc: [i32; 4],
) -> [i32; 4] {
    let (widened, block) = (&widened[..DEPTH / 4 * 2], &block[..DEPTH / 4 * 16]);
    let (mut even, mut odd) = (lane_starts(acc, sum128), [0i32; 2]);
    for (pairs, group) in widened.chunks_exact(2).zip(block.chunks_exact(16)) {
        for (k, lanes) in group.chunks_exact(4).enumerate() {
            let word = u32::from_le_bytes([lanes[0] as u8, lanes[1] as u8, lanes[2] as u8, lanes[3] as u8]);
            let (x, half) = (pairs[k % 2], k / 2);
            even[half] = smlad(x, word, even[half]);
            odd[half] = smlad(x, sxtb16(word.rotate_right(8)), odd[half]);
        }
    }
    lane_sums(acc, even, odd)
}

/// Where [`dot_lane_quads`]'s two lane sums start: rows 0 and 2's
/// accumulators less 128 times the input's sum (the odd rows' start at 0).
#[inline(always)]
pub(crate) fn lane_starts(acc: [i32; 4], sum128: i32) -> [i32; 2] {
    [acc[0].wrapping_sub(sum128), acc[2].wrapping_sub(sum128)]
}

/// The four row sums from [`dot_lane_quads`]'s lane sums (`even`: rows 0
/// and 2 plus 256 times rows 1 and 3) and odd-row sums: the even rows
/// taken back out (wrapping: the true sums fit in 32 bits), the odd rows
/// added to their accumulators.
#[inline(always)]
pub(crate) fn lane_sums(acc: [i32; 4], even: [i32; 2], odd: [i32; 2]) -> [i32; 4] {
    [
        even[0].wrapping_sub(odd[0].wrapping_shl(8)),
        acc[1].wrapping_add(odd[0]),
        even[1].wrapping_sub(odd[1].wrapping_shl(8)),
        acc[3].wrapping_add(odd[1]),
    ]
}

/// [`dot_pair_blocks_down`] for rows in the pair-row layout
/// (`layout::pack_pair_rows`; `pair` holds each pixel's input sum times
/// 128 after its groups) and one output slice: the whole blocks of the
/// first `channels` rows, pixel a's outputs at `out[c]`, pixel b's at
/// `out[second + c]` (`second` 0: the same pixel in both lanes, its
/// outputs written twice).
#[inline(always)]
pub(crate) fn dot_pair_lane_blocks_down<const DEPTH: usize, const NUDGE: bool>(
    pair: &[u32],
    rows: &[i8],
    bias: &[i32],
    scales: &[DownScale],
    out: &mut [i8],
    second: usize,
    channels: usize,
) {
    let block = 4 * crate::kernels::layout::depth4(DEPTH);
    for (k, block) in rows[..channels / 4 * block].chunks_exact(block).enumerate() {
        let c = 4 * k;
        let (b0, b1, b2, b3) = (bias[c], bias[c + 1], bias[c + 2], bias[c + 3]);
        let [a0, a1, p0, p1] = pair_lane_rows::<DEPTH>(pair, block, b0, b1);
        let [a2, a3, p2, p3] = pair_lane_rows::<DEPTH>(pair, &block[8..], b2, b3);
        let mut outs = [[0i8; 4]; 2];
        let [oa, ob] = &mut outs;
        let sums = [[a0, a1, a2, a3], [p0, p1, p2, p3]];
        requantize_pair_block::<NUDGE>(sums, &scales[c..c + 4], [oa, ob]);
        out[second + c..second + c + 4].copy_from_slice(ob);
        out[c..c + 4].copy_from_slice(oa);
    }
}

/// Two rows of a block in the pair-row layout (`layout::pack_pair_rows`;
/// `rows` at their first lane word, 16 bytes per group) against both
/// pixels of `pair` (input sums times 128 after the groups), from the
/// rows' biases `b0`, `b1`: `[a.row0, a.row1, b.row0, b.row1]`. Each lane
/// word's product is row 0 plus 128 times the input plus 256 times row 1;
/// row 1's own products come from the word's odd bytes. Exact in wrapping
/// 32-bit arithmetic, as the sums themselves are.
#[inline(always)]
pub(super) fn pair_lane_rows<const DEPTH: usize>(pair: &[u32], rows: &[i8], b0: i32, b1: i32) -> [i32; 4] {
    let groups = DEPTH.div_ceil(4);
    let (sum_a, sum_b) = (pair[4 * groups] as i32, pair[4 * groups + 1] as i32);
    let lanes = b0.wrapping_add(b1.wrapping_shl(8));
    let (mut la, mut lb, mut ra, mut rb) = (lanes.wrapping_sub(sum_a), lanes.wrapping_sub(sum_b), b1, b1);
    for (x, wg) in pair[..4 * groups].chunks_exact(4).zip(rows.chunks(16)) {
        let word = |k: usize| u32::from_le_bytes([wg[k] as u8, wg[k + 1] as u8, wg[k + 2] as u8, wg[k + 3] as u8]);
        let (w02, w13) = (word(0), word(4));
        la = smlad(x[1], w13, smlad(x[0], w02, la));
        lb = smlad(x[3], w13, smlad(x[2], w02, lb));
        let (o02, o13) = (sxtb16(w02.rotate_right(8)), sxtb16(w13.rotate_right(8)));
        ra = smlad(x[1], o13, smlad(x[0], o02, ra));
        rb = smlad(x[3], o13, smlad(x[2], o02, rb));
    }
    [la.wrapping_sub(ra.wrapping_shl(8)), ra, lb.wrapping_sub(rb.wrapping_shl(8)), rb]
}
