//! Weight layouts: how the compiler arranges a layer's constant weights in
//! flash (at compile time) and how the kernels read them. One copy, used by
//! both sides.

/// `depth` rounded up to a multiple of 4: the row length of packed weights.
pub const fn depth4(depth: usize) -> usize {
    depth.div_ceil(4) * 4
}

/// Bytes of `channels` packed rows of `depth` values.
pub const fn packed_len(channels: usize, depth: usize) -> usize {
    channels * depth4(depth)
}

/// An int8 weight matrix of `channels` rows of `depth` values, repacked
/// for the blocked dot products of `kernels::dot`: rows zero-padded to a
/// multiple of 4 and grouped in blocks of 4 channels (then one block of 2
/// and one of 1 for the rest); inside a block, for each group of 4 values,
/// the block's rows one after another (`[a0 a1 a2 a3 b0 b1 b2 b3 c0 ..]`),
/// so the inner loop reads the weights of all its channels with one
/// sequential pointer. `out` holds [`packed_len`] bytes.
pub fn pack_rows(filter: &[i8], channels: usize, depth: usize, out: &mut [i8]) {
    pack_groups(filter, channels, depth, 4, out);
}

/// Values per group of the vector layout ([`pack_rows_vector`]): one
/// 128-bit vector of int8.
pub const VECTOR_GROUP: usize = 16;

/// `depth` rounded up to a multiple of [`VECTOR_GROUP`]: the row length of
/// the vector layout.
pub const fn depth16(depth: usize) -> usize {
    depth.div_ceil(VECTOR_GROUP) * VECTOR_GROUP
}

/// Bytes of `channels` rows of `depth` values in the vector layout.
pub const fn vector_packed_len(channels: usize, depth: usize) -> usize {
    channels * depth16(depth)
}

/// [`pack_rows`] with groups of [`VECTOR_GROUP`] values (rows zero-padded to
/// a multiple of 16): for each run of 16 values, the block's rows one after
/// another, so a vector dot product (Helium's `VMLADAVA`) loads each row's
/// 16 values with one load from one sequential pointer
/// (`kernels::dot_vector::VectorRows`). `out` holds [`vector_packed_len`]
/// bytes.
pub fn pack_rows_vector(filter: &[i8], channels: usize, depth: usize, out: &mut [i8]) {
    pack_groups(filter, channels, depth, VECTOR_GROUP, out);
}

/// The blocked layouts: rows padded to whole groups of `group` values, in
/// blocks of 4, 2 and 1 rows, each group's rows one after another.
fn pack_groups(filter: &[i8], channels: usize, depth: usize, group: usize, out: &mut [i8]) {
    let padded = depth.div_ceil(group) * group;
    let value = |c: usize, k: usize| if k < depth { filter[c * depth + k] } else { 0 };
    for (c, block, off) in row_blocks(channels, padded) {
        for g in 0..padded / group {
            for r in 0..block {
                for j in 0..group {
                    out[off + (g * block + r) * group + j] = value(c + r, group * g + j);
                }
            }
        }
    }
}

/// The longest rows (values) the pixel-pair kernels take: their pair
/// buffer holds 4 words per group of 4 values (both pixels), on the stack
/// (ResNet-8's 3x3x64 rows).
pub const PAIR_MAX_DEPTH: usize = 576;

/// Whether an int8 convolution whose requantization fuses runs two pixels
/// at a time (`kernels::conv::conv2d_pairs_s8`) where the target has the
/// pixel-pair kernels: rows of `d4` values (padded to 4) up to
/// [`PAIR_MAX_DEPTH`], a pointwise layer from 4 input channels (`ic`), a
/// window from 8 values. The compiler's rule, which lays such layers' rows
/// out for the pairs and calls that kernel.
pub const fn fused_pairs(d4: usize, pointwise: bool, ic: usize) -> bool {
    d4 <= PAIR_MAX_DEPTH && if pointwise { ic >= 4 } else { d4 >= 8 }
}

/// The longest rows (values) of a FULLY_CONNECTED whose input the dense
/// lane kernel (`kernels::dot::dense_lanes_down`) widens once, on the stack
/// (1280 bytes: a 32x20 spectrogram's dense layer).
pub const DENSE_LANES_MAX_DEPTH: usize = 640;

/// Whether a fused int8 FULLY_CONNECTED of `units` rows of `depth` values
/// reads its rows in the pair-row layout ([`pack_pair_rows`]) where the
/// target has the pair kernels: a whole block of 4 rows and a whole group
/// of 4 values at least, rows up to [`DENSE_LANES_MAX_DEPTH`]. One rule for
/// the kernel and for the compiler, which lays such layers' rows out.
pub const fn dense_lanes(depth: usize, units: usize) -> bool {
    depth >= 4 && depth <= DENSE_LANES_MAX_DEPTH && units >= 4
}

/// [`pack_rows`] with its whole blocks of 4 rows rearranged for the
/// pixel-pair dot products (`kernels::dot::PairRows`); the last 2 or 1
/// rows stay as `pack_rows` has them. Each group of 4 values of a block
/// is 16 bytes: rows 0 and 1, then rows 2 and 3, each pair as two words
/// of 16-bit lanes, the first for values 0 and 2, the second for 1 and 3
/// (the order of the widened input pairs). A lane holds the even row's
/// value plus 128 in its low byte and the odd row's value in its high
/// byte: one `SMLAD` of a lane word gives `even + 128 x + 256 odd` for
/// two values, and `SXTB16` of the word rotated by 8 gives the odd row's
/// values alone. So per pair of rows one sign extension serves where
/// plain bytes need two; the kernels take the even row's sum back out
/// with the sum of the input ([`pair_row_value`] reads one value).
pub fn pack_pair_rows(filter: &[i8], channels: usize, depth: usize, out: &mut [i8]) {
    pack_rows(filter, channels, depth, out);
    for group in out[..channels / 4 * 4 * depth4(depth)].chunks_exact_mut(16) {
        let plain: [i8; 16] = core::array::from_fn(|k| group[k]);
        for (k, byte) in group.iter_mut().enumerate() {
            *byte = pair_row_byte(&plain, k);
        }
    }
}

/// The lane byte `k` (0..16) of a group of [`pack_pair_rows`] from the
/// group's plain rows (`plain[4 * row + value]`).
const fn pair_row_byte(plain: &[i8; 16], k: usize) -> i8 {
    let (row, value) = pair_row_slot(k);
    let v = plain[4 * row + value];
    if row & 1 == 0 { ((v as u8) ^ 0x80) as i8 } else { v }
}

/// Which row (0..4) and value (0..4) of its group lane byte `k` of
/// [`pack_pair_rows`] holds.
const fn pair_row_slot(k: usize) -> (usize, usize) {
    let half = k / 8;
    let lane = (k % 8) / 2;
    // Lanes 0, 1: values 0 and 2; lanes 2, 3: values 1 and 3.
    let value = [0, 2, 1, 3][lane];
    (2 * half + k % 2, value)
}

/// Value `value` (0..4) of row `row` (0..4) of a group of
/// [`pack_pair_rows`] (`group`: its 16 bytes).
pub fn pair_row_value(group: &[i8], row: usize, value: usize) -> i8 {
    let lane = [0, 2, 1, 3][value];
    let byte = group[8 * (row / 2) + 2 * lane + row % 2];
    if row & 1 == 0 { ((byte as u8) ^ 0x80) as i8 } else { byte }
}

/// The row blocks of the packed layouts: `(first row, rows, offset of
/// the block in values)`, 4 rows at a time, then 2, then 1, each row
/// `d4` values long (padded).
fn row_blocks(channels: usize, d4: usize) -> impl Iterator<Item = (usize, usize, usize)> {
    let mut c = 0;
    core::iter::from_fn(move || {
        let block = match channels - c {
            0 => return None,
            1 => 1,
            2 | 3 => 2,
            _ => 4,
        };
        let item = (c, block, c * d4);
        c += block;
        Some(item)
    })
}

/// A depthwise filter (`[1, KH, KW, channels]`, multiplier 1) repacked for
/// `depthwise::depthwise_m1_s8`: channels in groups of 4 (the last group
/// zero-padded), and for each group and tap two words of 16-bit pairs,
/// channels (0, 2) and (1, 3), the halves `SMLABB`/`SMLATT` multiply.
/// Returns `channels.div_ceil(4) * taps * 2` words.
pub fn pack_depthwise(filter: &[i8], taps: usize, channels: usize) -> impl Iterator<Item = u32> + '_ {
    let groups = channels.div_ceil(4);
    let value = move |t: usize, c: usize| if c < channels { filter[t * channels + c] as i16 as u16 as u32 } else { 0 };
    (0..groups).flat_map(move |g| {
        (0..taps).flat_map(move |t| {
            let c = 4 * g;
            [value(t, c) | (value(t, c + 2) << 16), value(t, c + 1) | (value(t, c + 3) << 16)]
        })
    })
}

/// int4 weight rows (values -8..=7) for `dot_int4::Int4Rows`, half a
/// byte per weight: rows in pairs (a last odd row alone), and for each
/// group of 8 values of a row one word, whose byte `j` holds value `j` in
/// its low nibble and value `4 + j` in its high one (zeros past `depth`).
/// Masked, a word's high nibbles line up with the 16-bit lanes `SXTB16`
/// makes of the group's second input word, its low ones (shifted up)
/// with the first's: two `SMLAD`s per half.
pub fn pack_rows_int4(rows: &[i8], channels: usize, depth: usize) -> impl Iterator<Item = u32> + '_ {
    let groups = depth.div_ceil(8);
    let value = move |r: usize, k: usize| if k < depth { (rows[r * depth + k] as u8 & 0x0f) as u32 } else { 0 };
    let word = move |r: usize, g: usize| -> u32 {
        (0..4).map(|j| (value(r, 8 * g + j) | (value(r, 8 * g + 4 + j) << 4)) << (8 * j)).sum()
    };
    (0..channels.div_ceil(2)).flat_map(move |p| {
        let n = (channels - 2 * p).min(2);
        (0..groups).flat_map(move |g| (0..n).map(move |i| word(2 * p + i, g)))
    })
}

/// Value `k` (of 8) of a word of [`pack_rows_int4`], sign-extended.
#[inline(always)]
pub fn int4_row_value(word: u32, k: usize) -> i32 {
    let byte = (word >> (8 * (k % 4))) as u8;
    (if k < 4 { ((byte << 4) as i8) >> 4 } else { (byte as i8) >> 4 }) as i32
}

/// `pack_depthwise` for int4 filters (values -8..=7), a quarter of its
/// flash: per group of 4 channels, per pair of taps `(2p, 2p + 1)` one
/// word, byte `k` for channel `4g + k`, tap `2p` in its high nibble and
/// tap `2p + 1` in its low one (zero past the last tap or channel).
/// `depthwise::depthwise_m1_s8` reads it with `INT4`: a tap's four
/// weights are one mask (and one shift) away from 16-bit lanes.
pub fn pack_depthwise_int4(filter: &[i8], taps: usize, channels: usize) -> impl Iterator<Item = u32> + '_ {
    let groups = channels.div_ceil(4);
    let value = move |t: usize, c: usize| {
        if c < channels && t < taps { (filter[t * channels + c] as u8 & 0x0f) as u32 } else { 0 }
    };
    (0..groups).flat_map(move |g| {
        (0..taps.div_ceil(2)).map(move |p| {
            (0..4).map(|k| ((value(2 * p, 4 * g + k) << 4) | value(2 * p + 1, 4 * g + k)) << (8 * k)).sum()
        })
    })
}

/// The 16-bit lanes `pack_depthwise` holds for one tap, from a word of
/// [`pack_depthwise_int4`]: the first tap of its pair (`second` false,
/// the high nibbles) or the second.
#[inline(always)]
pub fn int4_tap_lanes(word: u32, second: bool) -> (u32, u32) {
    let b = word.to_le_bytes();
    let v = |k: usize| (if second { ((b[k] << 4) as i8) >> 4 } else { (b[k] as i8) >> 4 }) as i16 as u16 as u32;
    (v(0) | (v(2) << 16), v(1) | (v(3) << 16))
}

/// Halfwords per channel row of the widened input rows that
/// `depthwise::depthwise_rows_s8` reads (its scratch holds `kh * channels`
/// of them): every column an output's window reads, each window read as
/// `kw.div_ceil(2)` pairs (an odd last tap's pair reaches one column
/// past the window), rounded up to whole words.
pub const fn depthwise_row_width(out_w: usize, stride_w: usize, kw: usize) -> usize {
    // Saturating: the compiler also asks of hostile shapes.
    let read = out_w.saturating_sub(1).saturating_mul(stride_w).saturating_add(kw.div_ceil(2).saturating_mul(2));
    read.div_ceil(2).saturating_mul(2)
}

/// Whether `depthwise::depthwise_rows_s8` has its assembly loop for a
/// shape (on DSP cores, with fused requantization): at most 8 taps wide
/// and 5 rows (a copy of the loop per row phase), stride at most 4, a
/// channel's rows within reach of immediate offsets, the output step
/// between pixels a 12-bit immediate.
pub const fn rows_fast(kh: usize, kw: usize, stride_w: usize, row_width: usize, channels: usize) -> bool {
    kw >= 1
        && kw <= 8
        && kh >= 1
        && kh <= 5
        && stride_w >= 1
        && stride_w <= 4
        && row_width <= 400
        && kh * row_width * 2 <= 4000
        && channels <= 4095
}

/// Channels per group of the vector depthwise layout
/// ([`pack_depthwise_vector`]): 8 int8 values, one 16-bit vector.
pub const DEPTHWISE_VECTOR_GROUP: usize = 8;

/// Words of a group's header in [`pack_depthwise_vector`]: folded biases,
/// multipliers and negated right shifts, each as an even- and an
/// odd-channel vector of 4.
pub const DEPTHWISE_VECTOR_HEADER: usize = 24;

/// A depthwise filter (`[1, KH, KW, channels]`, multiplier 1) with its
/// folded bias and short-form scales (`fixedpoint::DownScale` per channel)
/// for `depthwise::depthwise_vector_s8`: per group of 8 channels the header
/// ([`DEPTHWISE_VECTOR_HEADER`] words: the biases of channels 0, 2, 4, 6,
/// then 1, 3, 5, 7; the multipliers in the same order; the negated right
/// shifts likewise), then per tap the group's 8 weights (2 words). The even
/// and odd order is that of the widening multiplies (`VMULLB`/`VMULLT`),
/// whose products land in those lanes. A last partial group is padded
/// with zeros to 8 channels (the kernel neither reads inputs nor stores
/// outputs there). Returns `channels.div_ceil(8) * (24 + 2 * taps)` words.
pub fn pack_depthwise_vector<'a>(
    filter: &'a [i8],
    bias: &'a [i32],
    scales: &'a [[i32; 4]],
    taps: usize,
    channels: usize,
) -> impl Iterator<Item = u32> + 'a {
    let group = DEPTHWISE_VECTOR_GROUP;
    (0..channels.div_ceil(group)).flat_map(move |g| {
        let mut header = [0u32; DEPTHWISE_VECTOR_HEADER];
        for (i, k) in [0, 2, 4, 6, 1, 3, 5, 7].into_iter().enumerate() {
            let c = g * group + k;
            if c < channels {
                // The right shift is the short form's word 1 plus one: its
                // negation is the word's complement.
                [header[i], header[8 + i], header[16 + i]] =
                    [bias[c] as u32, scales[c][0] as u32, !scales[c][1] as u32];
            }
        }
        let weights = (0..taps).flat_map(move |t| {
            let w = |k: usize| {
                let c = g * group + k;
                if c < channels { filter[t * channels + c] as u8 } else { 0 }
            };
            [u32::from_le_bytes([w(0), w(1), w(2), w(3)]), u32::from_le_bytes([w(4), w(5), w(6), w(7)])]
        });
        header.into_iter().chain(weights)
    })
}

/// Words before the tap pairs of each channel in
/// [`pack_depthwise_rows`]: the folded bias twice (one `LDRD` starts two
/// outputs' sums), then the channel's short-form scale's constant (low,
/// high word), multiplier and shift.
pub const DEPTHWISE_ROWS_HEADER: usize = 6;

/// Whether [`pack_depthwise_rows`] may pack a layer doubled: every
/// channel's scale has the form of `fixedpoint::doubled_of` (right shift 2
/// or more) and its sums stay below 2^30 in magnitude (`|bias| + 128 *
/// sum |w|`, inputs being int8), so twice a sum is an `i32` and one
/// rounding high multiply-accumulate requantizes it exactly
/// (`fixedpoint::rescale_down_doubled`).
pub fn depthwise_rows_doubled<W: Copy + Into<i32>>(
    filter: &[W],
    bias: &[i32],
    scales: &[[i32; 4]],
    channels: usize,
) -> bool {
    (0..channels).all(|c| {
        let taps: i64 = filter.iter().skip(c).step_by(channels.max(1)).map(|&w| i64::from(w.into()).abs()).sum();
        crate::fixedpoint::doubled_of(&scales[c]).is_some() && (bias[c] as i64).abs() + 128 * taps < 1 << 30
    })
}

/// A depthwise filter (`[1, KH, KW, channels]`, multiplier 1), its folded
/// bias and short-form scales (`fixedpoint::DownScale`, `[multiplier,
/// shift, k_low, k_high]` per channel) repacked for
/// `depthwise::depthwise_rows_s8`: per channel the header
/// ([`DEPTHWISE_ROWS_HEADER`] words: bias, bias, `k_low`, `k_high`,
/// multiplier, shift), then per filter row the taps as 16-bit pairs (taps
/// 0 and 1 in the low and high half, then 2 and 3, ...), the operands of
/// `SMLAD` against two adjacent widened inputs. An odd last tap is the
/// high half of its word, the tap before it the low half (a zero for a
/// single tap): a 3-tap row is the pairs (0, 1) and (1, 2), which serve
/// both of two neighbouring outputs as pairs.
///
/// The taps are int8 weights, or (a uint8 model's filter with a zero
/// point) the weights less it, in `-255..=255`: 16-bit lanes either way.
///
/// `doubled` (where [`depthwise_rows_doubled`] allows it): the bias and
/// the taps twice their values, so the sums are twice the sums, and the
/// header bias, bias, `2 * k_high` (from `fixedpoint::doubled_of`), 2^31,
/// multiplier, shift + 1: the kernels requantize with
/// `fixedpoint::rescale_down_doubled`, or take words 3, 2 as the low and
/// high word of twice K (`rescale_down_unnudged` of twice the sums with
/// one more right shift is the same floor). Returns `channels * (6 + kh *
/// kw.div_ceil(2))` words.
pub fn pack_depthwise_rows<'a, W: Copy + Into<i32>>(
    filter: &'a [W],
    bias: &'a [i32],
    scales: &'a [[i32; 4]],
    (kh, kw): (usize, usize),
    channels: usize,
    doubled: bool,
) -> impl Iterator<Item = u32> + 'a {
    let times = if doubled { 2 } else { 1 };
    let value = move |c: usize, y: usize, x: usize| {
        if x < kw { (times * filter[(y * kw + x) * channels + c].into()) as i16 as u16 as u32 } else { 0 }
    };
    (0..channels).flat_map(move |c| {
        let [m, shift, k_low, k_high] = scales[c];
        let header = if doubled {
            let Some((m, k_high2, shift1)) = crate::fixedpoint::doubled_of(&scales[c]) else {
                panic!("a doubled layer's scales have the doubled form (depthwise_rows_doubled)")
            };
            [2 * bias[c], 2 * bias[c], k_high2, i32::MIN, m, shift1]
        } else {
            [bias[c], bias[c], k_low, k_high, m, shift]
        };
        let taps = (0..kh).flat_map(move |y| {
            (0..kw.div_ceil(2)).map(move |p| {
                if 2 * p + 1 == kw {
                    // The odd last tap high, its neighbour (if any) low.
                    let low = if p > 0 { value(c, y, 2 * p - 1) } else { 0 };
                    low | (value(c, y, 2 * p) << 16)
                } else {
                    value(c, y, 2 * p) | (value(c, y, 2 * p + 1) << 16)
                }
            })
        });
        header.map(|v| v as u32).into_iter().chain(taps)
    })
}

/// Channels of a float block in `conv::conv2d_f32_oc`: 8, then 4 for the
/// rest (padded with zero weights to a multiple of 4).
pub const fn f32_block(channels: usize, start: usize) -> usize {
    if channels.div_ceil(4) * 4 - start >= 8 { 8 } else { 4 }
}

/// A float filter (`[OC, taps, IC]`) transposed for `conv::conv2d_f32_oc`:
/// output channels in blocks of 8 (then 4, zero-padded), and inside a block
/// for each tap and input channel the block's weights side by side, so one
/// input value meets 8 (or 4) independent sums. Returns
/// `OC.div_ceil(4) * 4 * taps * IC` values.
pub fn pack_f32_oc(filter: &[f32], oc: usize, taps: usize, ic: usize) -> impl Iterator<Item = f32> + '_ {
    let padded = oc.div_ceil(4) * 4;
    let mut starts = alloc_free_starts(padded);
    core::iter::from_fn(move || starts.next()).flat_map(move |c0| {
        let lanes = f32_block(oc, c0);
        (0..taps * ic).flat_map(move |k| {
            (0..lanes).map(move |l| if c0 + l < oc { filter[(c0 + l) * taps * ic + k] } else { 0.0 })
        })
    })
}

/// The first channel of every block of [`pack_f32_oc`].
fn alloc_free_starts(padded: usize) -> impl Iterator<Item = usize> {
    let mut c0 = 0;
    core::iter::from_fn(move || {
        (c0 < padded).then(|| {
            let start = c0;
            c0 += if padded - c0 >= 8 { 8 } else { 4 };
            start
        })
    })
}

/// float32 weight rows (`rows x depth`, row-major) for 8 sums side by side:
/// every whole block of 8 rows transposed (`depth` groups of 8 weights,
/// one per row), the remaining `rows % 8` rows as they are. No padding:
/// the packed weights are exactly as many as the rows'.
pub fn pack_f32_rows8(w: &[f32], rows: usize, depth: usize) -> impl Iterator<Item = f32> + '_ {
    let blocks = rows / 8;
    let transposed = (0..blocks)
        .flat_map(move |blk| (0..depth).flat_map(move |d| (0..8).map(move |l| w[(8 * blk + l) * depth + d])));
    transposed.chain(w[8 * blocks * depth..rows * depth].iter().copied())
}

/// Words of [`pack_rows_widened`] for `channels` rows of `depth` values.
pub const fn packed_widened_len(channels: usize, depth: usize) -> usize {
    channels * depth4(depth) / 2
}

/// The layout of [`pack_rows`] (blocks of 4, 2, 1 rows; per group of 4
/// values the block's rows in turn) with every row's group widened at
/// compile time to two words of 16-bit pairs, values (0, 2) and (1, 3):
/// what `SXTB16` would make of the packed bytes, so the inner loop only
/// loads them (`kernels::dot::dots_widened`). Twice the flash of
/// [`pack_rows`]; the compiler uses it for small layers. `out` holds
/// [`packed_widened_len`] words.
pub fn pack_rows_widened(filter: &[i8], channels: usize, depth: usize, out: &mut [u32]) {
    let value = |c: usize, k: usize| if k < depth { filter[c * depth + k] as i16 as u16 as u32 } else { 0 };
    for (c, block, off) in row_blocks(channels, depth4(depth)) {
        for g in 0..depth4(depth) / 4 {
            for r in 0..block {
                let at = off / 2 + (g * block + r) * 2;
                out[at] = value(c + r, 4 * g) | (value(c + r, 4 * g + 2) << 16);
                out[at + 1] = value(c + r, 4 * g + 1) | (value(c + r, 4 * g + 3) << 16);
            }
        }
    }
}

/// Values per 32-bit partial sum of the 16x8 dot products: each product
/// is at most 2^7 * 2^15 = 2^22 in magnitude, so 504 of them (a whole
/// number of Helium's 8-lane runs) stay below 2^31 and the run's sum is
/// exact; it is then added into the op's accumulator. Sums in 64 bits are
/// TFLite's bits that way; int32 accumulators wrap as TFLite's do (the
/// runs' wrapped sums add up to the same value modulo 2^32).
pub const RUN16: usize = 504;

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::{vec, vec::Vec};

    #[test]
    fn pair_rows_hold_every_value_of_the_plain_rows() {
        for (channels, depth) in [(4, 4), (9, 7), (8, 24), (13, 33)] {
            let w: Vec<i8> = (0..channels * depth).map(|i| ((i * 71 + 3) % 256) as u8 as i8).collect();
            let (mut plain, mut lanes) =
                (vec![0i8; packed_len(channels, depth)], vec![0i8; packed_len(channels, depth)]);
            pack_rows(&w, channels, depth, &mut plain);
            pack_pair_rows(&w, channels, depth, &mut lanes);
            let d4 = depth4(depth);
            let whole = channels / 4 * 4;
            // The last 2 or 1 rows are as `pack_rows` has them.
            assert_eq!(lanes[whole * d4..], plain[whole * d4..]);
            for c in 0..whole {
                for k in 0..d4 {
                    let group = &lanes[c / 4 * 4 * d4 + 16 * (k / 4)..][..16];
                    let want = if k < depth { w[c * depth + k] } else { 0 };
                    assert_eq!(pair_row_value(group, c % 4, k % 4), want, "row {c}, value {k}");
                }
            }
            // Even rows' lane bytes are offset by 128, odd rows' are not.
            let group = &lanes[..16];
            assert_eq!(group[0] as u8, (w[0] as u8) ^ 0x80);
            assert_eq!(group[1], w[depth]);
        }
    }
}
