//! Depthwise inner loops in plain Rust (`dsp/depthwise.rs` has their
//! DSP forms, `helium.rs` the vector groups').

use super::{smlabb, smlatt, sxtb16};

/// Four channels' products of one depthwise tap: the input word widened
/// to 16-bit pairs (channels 0, 2 and 1, 3) against the packed weights.
#[inline(always)]
pub(crate) fn mac4(acc: [i32; 4], x: u32, w02: u32, w13: u32) -> [i32; 4] {
    let (x02, x13) = (sxtb16(x), sxtb16(x.rotate_right(8)));
    [smlabb(x02, w02, acc[0]), smlabb(x13, w13, acc[1]), smlatt(x02, w02, acc[2]), smlatt(x13, w13, acc[3])]
}

/// Four channels' depthwise sums over all taps: channels `c0..c0 + 4` of
/// every row in `rows` (one per tap, in the packed weights' order) against
/// the group's packed weights (two words per tap).
#[inline(always)]
pub(crate) fn taps4<const C: usize, const KW: usize, const KH: usize>(
    rows: &[[&[i8; C]; KW]; KH],
    c0: usize,
    weights: &[u32],
    mut acc: [i32; 4],
) -> [i32; 4] {
    let weights = &weights[..2 * KH * KW];
    assert!(c0 + 4 <= C);
    for (row, w) in rows.iter().flatten().zip(weights.chunks_exact(2)) {
        let x = &row[c0..c0 + 4];
        let x = u32::from_le_bytes([x[0] as u8, x[1] as u8, x[2] as u8, x[3] as u8]);
        acc = crate::arch::mac4(acc, x, w[0], w[1]);
    }
    acc
}

/// `taps4` over int4 weights (`layout::pack_depthwise_int4`: one word
/// per pair of taps).
#[inline(always)]
pub(crate) fn taps4_int4<const C: usize, const KW: usize, const KH: usize>(
    rows: &[[&[i8; C]; KW]; KH],
    c0: usize,
    weights: &[u32],
    mut acc: [i32; 4],
) -> [i32; 4] {
    let weights = &weights[..(KH * KW).div_ceil(2)];
    assert!(c0 + 4 <= C);
    for (t, row) in rows.iter().flatten().enumerate() {
        let x = &row[c0..c0 + 4];
        let x = u32::from_le_bytes([x[0] as u8, x[1] as u8, x[2] as u8, x[3] as u8]);
        let (w02, w13) = crate::kernels::layout::int4_tap_lanes(weights[t / 2], t % 2 == 1);
        acc = crate::arch::mac4(acc, x, w02, w13);
    }
    acc
}

/// One pixel of `depthwise::depthwise_vector_s8`, every group of 8
/// channels: `rows` are the taps' input pixels, `stream` the groups in
/// `layout::pack_depthwise_vector` (header, then 8 weights a tap); each
/// sum requantized as [`requantize_vector4`] does (its multiplier, its
/// negated right shift, `offset`), into `out`.
#[inline(always)]
pub(crate) fn depthwise_vector_groups<const C: usize, const KW: usize, const KH: usize>(
    rows: &[[&[i8; C]; KW]; KH],
    stream: &[u32],
    offset: i32,
    out: &mut [i8],
) {
    use crate::kernels::layout::{DEPTHWISE_VECTOR_GROUP as G, DEPTHWISE_VECTOR_HEADER as H};
    let words = H + 2 * KH * KW;
    // The last group may be partial (its header and weights padded).
    for (g, (group, out)) in stream.chunks_exact(words).zip(out[..C].chunks_mut(G)).enumerate() {
        for (k, o) in out.iter_mut().enumerate() {
            // Header lane of channel k: evens first, then odds.
            let lane = k / 2 + 4 * (k % 2);
            let mut acc = group[lane] as i32;
            for (t, row) in rows.iter().flatten().enumerate() {
                let w = group[H + 2 * t + k / 4].to_le_bytes()[k % 4] as i8;
                acc = acc.wrapping_add(row[G * g + k] as i32 * w as i32);
            }
            let (m, negated_right) = (group[8 + lane] as i32, group[16 + lane] as i32);
            let v = crate::kernels::binary::AddLanes::rescale(acc, m, -negated_right, offset << -negated_right);
            *o = crate::arch::saturate_i8(v);
        }
    }
}

/// One output row of the row-streaming depthwise kernel, every channel,
/// requantized, in one loop where a target has one (see `dsp`), for the
/// shapes of `layout::rows_fast` (the caller checks); `false`: not done,
/// the kernel's own loop runs.
#[inline(always)]
pub(crate) fn depthwise_rows_fused<
    const KH: usize,
    const KW: usize,
    const C: usize,
    const OW: usize,
    const SW: usize,
    const RW: usize,
    const NUDGE: bool,
    const DOUBLED: bool,
>(
    _phase: usize,
    _ring: &[i16],
    _stream: &[u32],
    _out: &mut [[i8; C]],
) -> bool {
    false
}
