//! Every building block in plain Rust: the interface each target family
//! implements (in part), and the code of every target that has no faster
//! form of a block. Results are bit for bit those of the target forms
//! (integer sums wrap, as the instructions do; the kernels' sums never reach
//! the limits; float sums keep TFLite's order).
#![allow(dead_code)] // a target family replaces some of these (`arch/mod.rs`)

use tinyaot_common::fixedpoint::DownScale;

// ---- 16-bit lanes ----------------------------------------------------------

/// Whether the 16-bit lane instructions below are single instructions
/// (`SMLAD`, `SXTB16`, `SADD16`): kernels whose fast form is built from
/// them take it only where they are.
pub(crate) const LANES16: bool = false;

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

/// `SADD16`: the two 16-bit halves added separately (wrapping).
#[inline(always)]
fn sadd16(a: u32, b: u32) -> u32 {
    let low = (a as u16).wrapping_add(b as u16) as u32;
    let high = ((a >> 16) as u16).wrapping_add((b >> 16) as u16) as u32;
    low | (high << 16)
}

/// The four bytes of `word` added to two words of 16-bit lanes: bytes 0
/// and 2 to `even`, 1 and 3 to `odd` (the average pool's sums).
#[inline(always)]
pub(crate) fn add_byte_lanes(word: u32, (even, odd): (u32, u32)) -> (u32, u32) {
    (sadd16(even, sxtb16(word)), sadd16(odd, sxtb16(word.rotate_right(8))))
}

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

// ---- int8 dot products -----------------------------------------------------

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

/// `R` (1, 2 or 4) rows of a block in the vector layout
/// (`layout::pack_rows_vector`: per run of 16 values the block's rows one
/// after another, zero-padded to whole runs) against `x` (the rows'
/// `x.len()` values): `acc` plus the sums.
#[inline(always)]
pub(crate) fn dot_vector_rows<const R: usize>(x: &[i8], block: &[i8], mut acc: [i32; R]) -> [i32; R] {
    let g = crate::kernels::layout::VECTOR_GROUP;
    for (xr, wr) in x.chunks(g).zip(block.chunks_exact(g * R)) {
        for (a, w) in acc.iter_mut().zip(wr.chunks_exact(g)) {
            let s: i32 = xr.iter().zip(w).map(|(&v, &w)| v as i32 * w as i32).sum();
            *a = a.wrapping_add(s);
        }
    }
    acc
}

/// All the whole blocks of 4 rows of a vector-layout matrix (`rows`, as
/// many rows as `out` has bytes, a multiple of 4) against a convolution
/// window read straight from the image: `segments` window rows of `len`
/// values (whole runs of 16), `step` apart in `x`, each block's runs in
/// the same order; each block's sums from its biases, requantized into
/// `out` as [`requantize_vector4`] does.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn dot_vector_window_blocks_down(
    x: &[i8],
    segments: usize,
    len: usize,
    step: usize,
    rows: &[i8],
    bias: &[i32],
    scales: &[DownScale],
    offset: i32,
    out: &mut [i8],
) {
    let block_len = 4 * segments * len;
    for (k, out) in out.chunks_exact_mut(4).enumerate() {
        let block = &rows[k * block_len..(k + 1) * block_len];
        let mut acc = [bias[4 * k], bias[4 * k + 1], bias[4 * k + 2], bias[4 * k + 3]];
        for s in 0..segments {
            acc = crate::arch::dot_vector_rows::<4>(&x[s * step..s * step + len], &block[4 * s * len..], acc);
        }
        crate::arch::requantize_vector4(acc, &scales[4 * k..], offset, out);
    }
}

/// `out[k] = saturate(rescale_down(sums[k], scales[k]))` for a whole
/// block's 4 sums (short-form scales, the whole int8 range; `offset`: their
/// output offset, `fixedpoint::down_offset`, for targets that add it apart
/// and requantize the 4 as one vector).
#[inline(always)]
pub(crate) fn requantize_vector4(sums: [i32; 4], scales: &[DownScale], offset: i32, out: &mut [i8]) {
    let _ = offset;
    crate::arch::requantize_block(&sums, scales, out);
}

/// All the whole blocks of 4 rows of a vector-layout matrix (`rows`, as
/// many rows as `out` has bytes, a multiple of 4) against `x`, requantized
/// into `out` (as [`requantize_vector4`] block by block), in one pass
/// where the target keeps `x` in registers: `false` where it does not
/// (here), and the caller goes block by block.
#[inline(always)]
pub(crate) fn dot_vector_blocks_down(
    x: &[i8],
    rows: &[i8],
    bias: &[i32],
    scales: &[DownScale],
    offset: i32,
    out: &mut [i8],
) -> bool {
    let _ = (x, rows, bias, scales, offset, out);
    false
}

/// [`dot_groups`] over rows widened at compile time
/// (`layout::pack_rows_widened`: per group, two words of 16-bit pairs, values
/// 0, 2 then 1, 3), the halves read with one halfword load each: a u32
/// slice is its 16-bit halves, low half first (tinyaot builds for
/// little-endian targets only: `lib.rs` refuses the others).
#[inline(always)]
pub(crate) fn dot_groups_widened<const R: usize>(x: &[i8], block: &[u32], mut acc: [i32; R]) -> [i32; R] {
    // SAFETY: a u32 slice is 4-aligned and holds exactly twice as many
    // i16, any bit pattern of which is valid; the borrow is kept.
    let halves = unsafe { core::slice::from_raw_parts(block.as_ptr().cast::<i16>(), 2 * block.len()) };
    for (xg, wg) in x.chunks_exact(4).zip(halves.chunks_exact(4 * R)) {
        for (r, a) in acc.iter_mut().enumerate() {
            let w = &wg[4 * r..4 * r + 4];
            let s = xg[0] as i32 * w[0] as i32
                + xg[2] as i32 * w[1] as i32
                + xg[1] as i32 * w[2] as i32
                + xg[3] as i32 * w[3] as i32;
            *a = a.wrapping_add(s);
        }
    }
    acc
}

/// `R` (1 or 2) int4 rows (`layout::pack_rows_int4`, the words of one
/// pair or single row, interleaved) against the first `8 * groups` values
/// of `x`: the sums.
#[inline(always)]
pub(crate) fn dot_int4_rows<const R: usize>(x: &[i8], words: &[u32], groups: usize) -> [i32; R] {
    let mut acc = [0i32; R];
    for (xg, wg) in x[..8 * groups].chunks_exact(8).zip(words[..R * groups].chunks_exact(R)) {
        for (a, &word) in acc.iter_mut().zip(wg) {
            for (k, &xv) in xg.iter().enumerate() {
                *a = a.wrapping_add(xv as i32 * crate::kernels::layout::int4_row_value(word, k));
            }
        }
    }
    acc
}

/// Whether [`max_s8`] and [`add_widened_s8`] take many lanes per
/// instruction (a vector unit), so the pools reduce a window's channels
/// in int8 maxima and 16-bit sums instead of 32-bit accumulators.
pub(crate) const BYTE_VECTORS: bool = false;

/// Whether [`add_sub_s8`] and [`mul_s8`] are vector loops, which
/// `binary::lanes_s8` takes for int8 ops whose
/// constants have the lanes form (elsewhere the compiler's scalar closure,
/// with its rescaling tables).
pub(crate) const VECTOR_LANES: bool = false;

/// int8 ADD or SUB of `n` elements, `out[i] = lanes.apply(first[i],
/// second[i])`, each element's inputs read before its output is written.
///
/// # Safety
/// `first` and `second` point to `n` readable values and `out` to `n`
/// writable ones; an output may overlap an input only at or before the
/// input's own element.
#[inline(always)]
pub(crate) unsafe fn add_sub_s8(
    first: *const i8,
    second: *const i8,
    out: *mut i8,
    n: usize,
    lanes: &crate::kernels::binary::AddLanes,
) {
    // SAFETY: the caller's runs.
    unsafe { elementwise_s8(first, second, out, n, |x, y| lanes.apply(x, y)) }
}

/// int8 MUL of `n` elements, `out[i] = lanes.apply(first[i], second[i])`,
/// as [`add_sub_s8`].
///
/// # Safety
/// As [`add_sub_s8`].
#[inline(always)]
pub(crate) unsafe fn mul_s8(
    first: *const i8,
    second: *const i8,
    out: *mut i8,
    n: usize,
    lanes: &crate::kernels::binary::MulLanes,
) {
    // SAFETY: the caller's runs.
    unsafe { elementwise_s8(first, second, out, n, |x, y| lanes.apply(x, y)) }
}

/// `out[i] = f(first[i], second[i])` for `i < n`, each element's inputs
/// read before its output is written.
///
/// # Safety
/// As [`add_sub_s8`].
#[inline(always)]
unsafe fn elementwise_s8(first: *const i8, second: *const i8, out: *mut i8, n: usize, f: impl Fn(i8, i8) -> i8) {
    for i in 0..n {
        // SAFETY: `i < n`, within the runs the caller vouches for; the
        // inputs are read before the output is written.
        unsafe {
            let v = f(*first.add(i), *second.add(i));
            *out.add(i) = v;
        }
    }
}

/// `acc[i] += x[i]` (wrapping in 16 bits) over the shorter of the two.
#[inline(always)]
pub(crate) fn add_widened_s8(acc: &mut [i16], x: &[i8]) {
    for (a, &v) in acc.iter_mut().zip(x) {
        *a = a.wrapping_add(i16::from(v));
    }
}

/// `acc[i] = max(acc[i], x[i])` over the shorter of the two.
#[inline(always)]
pub(crate) fn max_s8(acc: &mut [i8], x: &[i8]) {
    for (a, &v) in acc.iter_mut().zip(x) {
        *a = (*a).max(v);
    }
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

/// Both pixels' sums of one block of 4 rows requantized into `outs`.
#[inline(always)]
fn requantize_pair_block<const NUDGE: bool>(sums: [[i32; 4]; 2], scales: &[DownScale], outs: [&mut [i8]; 2]) {
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

/// Two rows of a block in the pair-row layout (`layout::pack_pair_rows`;
/// `rows` at their first lane word, 16 bytes per group) against both
/// pixels of `pair` (input sums times 128 after the groups), from the
/// rows' biases `b0`, `b1`: `[a.row0, a.row1, b.row0, b.row1]`. Each lane
/// word's product is row 0 plus 128 times the input plus 256 times row 1;
/// row 1's own products come from the word's odd bytes. Exact in wrapping
/// 32-bit arithmetic, as the sums themselves are.
#[inline(always)]
fn pair_lane_rows<const DEPTH: usize>(pair: &[u32], rows: &[i8], b0: i32, b1: i32) -> [i32; 4] {
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

// ---- requantization to int8 --------------------------------------------

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

/// Elements per run of the same-shape elementwise kernels
/// (`kernels::binary::binary`: one bounds check per run, the run's inputs
/// read before its outputs are written).
pub(crate) const ELEMENTWISE_RUN: usize = 8;

/// Whether a run's outputs are gathered before they are stored (one
/// copy of the run) rather than stored as each is made: faster on
/// ARMv6-M, slower where registers are many (an int8 ADD on the M4: 15
/// cycles per element against 20).
pub(crate) const ELEMENTWISE_GATHER: bool = false;

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

// ---- float32 -----------------------------------------------------------

/// Whether the float window loops below are one assembly block each (hard
/// float): kernels take them for whole 8-channel blocks only there.
pub(crate) const F32_WINDOW_LOOPS: bool = false;

/// `sums[l] += x[i] * w[8 i + l]` for every input `i` in order.
#[inline(always)]
pub(crate) fn mac_lanes8(x: &[f32], w: &[f32], sums: &mut [f32; 8]) {
    let w = &w[..8 * x.len()];
    for (&xv, wl) in x.iter().zip(w.chunks_exact(8)) {
        for (s, &wv) in sums.iter_mut().zip(wl) {
            *s += xv * wv;
        }
    }
}

/// [`mac_lanes8`] over a `kh x kw` block of a convolution window's taps
/// (all of them, or the part inside the image). The taps of a window row
/// are adjacent (dilation 1 across), so a row is one run of `kw * IC`
/// inputs: `window` starts at the block's first tap, `row_step` is the
/// bytes from one window row to the next. `w` starts at the first tap's
/// weights (`IC x 8` per tap, in order, `KW` taps per filter row; a row's
/// clipped taps are skipped).
#[inline(always)]
pub(crate) fn mac_window8<const KW: usize, const IC: usize>(
    window: &[f32],
    w: &[f32],
    row_step: usize,
    (kh, kw): (usize, usize),
    sums: &mut [f32; 8],
) {
    for r in 0..kh {
        let x = &window[r * row_step / 4..][..kw * IC];
        crate::arch::mac_lanes8(x, &w[r * KW * IC * 8..], sums);
    }
}

/// float32 depthwise (multiplier 1) of 8 channels over a `kh x kw` block
/// of a `KH x KW` window, taps in TFLite's order. `window` starts at the
/// block's first tap, channel `c0`; `steps` are the bytes from one window
/// row to the next and from one tap to the next; `filter` starts at the
/// first tap's weight for channel `c0` (a tap's weights are `C` floats
/// apart; a row's clipped taps are skipped).
#[inline(always)]
pub(crate) fn depthwise_window8<const KW: usize, const C: usize>(
    window: &[f32],
    filter: &[f32],
    (row_step, tap_step): (usize, usize),
    (kh, kw): (usize, usize),
    sums: &mut [f32; 8],
) {
    for r in 0..kh {
        for t in 0..kw {
            let x = &window[(r * row_step + t * tap_step) / 4..][..8];
            let f = &filter[(r * KW + t) * C..][..8];
            for l in 0..8 {
                sums[l] += x[l] * f[l];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    /// `n` pseudo-random bytes, the extremes first.
    fn bytes(n: usize, mut seed: u32) -> Vec<i8> {
        let mut v: Vec<i8> = (0..n)
            .map(|_| {
                seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (seed >> 24) as i8
            })
            .collect();
        v[0] = i8::MIN;
        v[1] = i8::MAX;
        v
    }

    #[test]
    fn widened_input_gives_the_same_sums() {
        let (x, block) = (bytes(40, 1), bytes(160, 2));
        let mut buf = core::mem::MaybeUninit::uninit();
        let widened = widen_input(&x, &mut buf);
        let acc = [1, -2, 3, i32::MAX - 70_000];
        assert_eq!(dot_quads_widened_input(widened, &block, acc), dot_groups::<4>(&x, &block, acc));
    }

    #[test]
    fn byte_lanes_hold_the_sums() {
        let (mut even, mut odd) = (0u32, 0u32);
        let mut expect = [0i32; 4];
        for word in [0x80_7f_01_ffu32, 0x80_80_80_80, 0x7f_7f_7f_7f, 0x12_34_56_78] {
            (even, odd) = add_byte_lanes(word, (even, odd));
            for (k, e) in expect.iter_mut().enumerate() {
                *e += (word >> (8 * k)) as u8 as i8 as i32;
            }
        }
        assert_eq!([half(even, false), half(odd, false), half(even, true), half(odd, true)], expect);
    }

    #[test]
    fn halves_requantize_as_the_64_bit_product() {
        use tinyaot_common::fixedpoint::down_scale_of;
        let mut seed = 7u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            seed
        };
        let edges = [i32::MIN, i32::MIN + 1, -65_536, -65_535, -1, 0, 1, 65_535, 65_536, i32::MAX];
        for case in 0..20_000 {
            let multiplier = match case % 4 {
                0 => i32::MAX,
                1 => 1 << 30,
                _ => (next() >> 1) as i32,
            };
            let shift = -1 - (next() % 23) as i32;
            let offset = (next() % 257) as i32 - 128;
            let s = down_scale_of(multiplier, shift, offset).expect("in the short form's range");
            let acc = if case < edges.len() { edges[case] } else { next() as i32 >> (next() % 24) };
            assert_eq!(rescale_down_halves(acc, &s), rescale_down(acc, &s), "acc {acc} scale {s:?}");
        }
    }
}
