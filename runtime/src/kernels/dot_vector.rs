//! int8 dot products over rows in the vector layout
//! (`layout::pack_rows_vector`: blocks of 4, 2 and 1 rows, each run of 16
//! values of a block's rows one after another): the layout the compiler
//! emits beside the others for every int8 convolution and dense layer, and
//! which the generated code takes where the target has vector dot
//! products (Helium, through `__private::vector_rows!`; elsewhere the
//! linker drops it). Per row and run one 16-byte load and one `VMLADAVA`;
//! the input is read as it is, its last partial run under a predicate.

use super::layout::depth16;
use super::{DownScale, PackedRows};
use crate::arch;

/// Rows in the vector layout (`layout::pack_rows_vector`).
#[derive(Clone, Copy, Debug)]
pub struct VectorRows<'a>(pub &'a [i8]);

impl PackedRows for VectorRows<'_> {
    #[inline(always)]
    fn dots<const DEPTH: usize>(self, x: &[i8], first: usize, bias: &[i32], acc: &mut [i32]) {
        let d16 = depth16(DEPTH);
        vector_dots::<DEPTH>(x, &self.0[first * d16..(first + acc.len()) * d16], bias, acc);
    }
    #[inline(always)]
    fn dots_down<const DEPTH: usize>(self, x: &[i8], first: usize, bias: &[i32], scales: &[DownScale], out: &mut [i8]) {
        let d16 = depth16(DEPTH);
        vector_dots_down::<DEPTH>(x, &self.0[first * d16..(first + out.len()) * d16], bias, scales, out);
    }
    #[inline(always)]
    fn dense_dots_down<const DEPTH: usize>(self, x: &[i8], bias: &[i32], scales: &[DownScale], out: &mut [i8]) {
        dense_vector_dots_down::<DEPTH>(x, &self.0[..out.len() * depth16(DEPTH)], bias, scales, out);
    }
    /// Windows whose rows are whole runs of 16 values.
    #[inline(always)]
    fn window_dots_down<const DEPTH: usize>(
        self,
        io: &mut impl super::Io<i8>,
        start: usize,
        pixels: usize,
        stride: usize,
        rows: usize,
        step: usize,
        out: core::ops::Range<usize>,
        bias: &[i32],
        scales: &[DownScale],
    ) -> bool {
        let len = DEPTH / rows.max(1);
        if rows == 0 || len * rows != DEPTH || depth16(len) != len {
            return false;
        }
        let window = WindowRow { start, pixels, stride, rows, step, out };
        vector_window_dots_down::<DEPTH>(io, &window, &self.0[..window.out.len() * DEPTH], bias, scales);
        true
    }
}

/// Consecutive convolution windows read straight from the input image
/// (see [`PackedRows::window_dots_down`]).
#[derive(Clone, Debug)]
pub struct WindowRow {
    /// Input element where the first window starts.
    pub start: usize,
    /// Windows (output pixels).
    pub pixels: usize,
    /// Input elements from one window's start to the next one's.
    pub stride: usize,
    /// Rows of a window.
    pub rows: usize,
    /// Input elements from one window row's start to the next one's.
    pub step: usize,
    /// The first pixel's output elements; the next pixels' follow.
    pub out: core::ops::Range<usize>,
}

/// [`vector_dots_down`] of consecutive convolution windows (`window`) whose
/// rows are whole runs of 16 values (`DEPTH` values in all): per pixel its
/// whole blocks of 4 rows summed over the window's rows and requantized
/// (`arch::dot_vector_window_blocks_down`), then its last 2 or 1 rows
/// (`arch::dot_vector_rows` per window row).
#[inline(never)]
pub fn vector_window_dots_down<const DEPTH: usize>(
    io: &mut impl super::Io<i8>,
    window: &WindowRow,
    rows: &[i8],
    bias: &[i32],
    scales: &[DownScale],
) {
    let WindowRow { start, pixels, stride, rows: segments, step, ref out } = *window;
    let channels = out.len();
    let (len, d16) = (DEPTH / segments, depth16(DEPTH));
    let (bias, scales, whole) = (&bias[..channels], &scales[..channels], channels / 4 * 4);
    let offset = scales.first().map_or(0, tinyaot_common::fixedpoint::down_offset);
    // The sums of `R` rows (a block at `block`) over the window's rows.
    fn sums<const R: usize>(
        x: &[i8],
        segments: usize,
        len: usize,
        step: usize,
        block: &[i8],
        mut acc: [i32; R],
    ) -> [i32; R] {
        for s in 0..segments {
            acc = arch::dot_vector_rows::<R>(&x[s * step..s * step + len], &block[R * s * len..], acc);
        }
        acc
    }
    for p in 0..pixels {
        let from = start + p * stride;
        let (x, out) =
            io.split(from..from + (segments - 1) * step + len, out.start + p * channels..out.end + p * channels);
        let (rows_whole, bias_whole, scales_whole) = (&rows[..whole * d16], &bias[..whole], &scales[..whole]);
        arch::dot_vector_window_blocks_down(
            x,
            segments,
            len,
            step,
            rows_whole,
            bias_whole,
            scales_whole,
            offset,
            &mut out[..whole],
        );
        let (mut c, mut off) = (whole, whole * d16);
        if channels - c >= 2 {
            let acc = sums::<2>(x, segments, len, step, &rows[off..off + 2 * d16], [bias[c], bias[c + 1]]);
            arch::requantize_block(&acc, &scales[c..], &mut out[c..]);
            c += 2;
            off += 2 * d16;
        }
        if channels - c == 1 {
            let acc = sums::<1>(x, segments, len, step, &rows[off..off + d16], [bias[c]]);
            arch::requantize_block(&acc, &scales[c..], &mut out[c..]);
        }
    }
}

/// `acc[c] = bias[c] + row_c . x` for the `acc.len()` rows of `rows`
/// (`DEPTH` values each, the first `DEPTH` of `x`). One instance per depth,
/// never inlined, as `dot::dots`.
#[inline(never)]
pub fn vector_dots<const DEPTH: usize>(x: &[i8], rows: &[i8], bias: &[i32], acc: &mut [i32]) {
    vector_blocks::<DEPTH>(x, rows, bias, acc.len(), |c, a| acc[c..c + a.len()].copy_from_slice(a));
}

/// [`vector_dots`] with each block's sums requantized as soon as they are
/// done (`arch::requantize_block`), straight into `out` (one output per
/// row): the short-form scales and the whole int8 range.
#[inline(never)]
pub fn vector_dots_down<const DEPTH: usize>(x: &[i8], rows: &[i8], bias: &[i32], scales: &[DownScale], out: &mut [i8]) {
    vector_blocks_down::<DEPTH>(x, rows, bias, scales, out);
}

/// [`vector_dots_down`] for FULLY_CONNECTED, an instance of its own (as
/// `dot::dense_dots_down`).
#[inline(never)]
pub fn dense_vector_dots_down<const DEPTH: usize>(
    x: &[i8],
    rows: &[i8],
    bias: &[i32],
    scales: &[DownScale],
    out: &mut [i8],
) {
    vector_blocks_down::<DEPTH>(x, rows, bias, scales, out);
}

/// The fused form of [`vector_blocks`]: the whole blocks of 4 rows summed
/// and requantized in one pass with the input held in registers where the
/// target can (`arch::dot_vector_blocks_down`: Helium, rows of up to 64
/// values), else block by block (on Helium each block's 4 sums
/// requantized as one vector: `arch::requantize_vector4`); the last 2 or 1
/// rows as [`vector_blocks`] does them.
#[inline(always)]
fn vector_blocks_down<const DEPTH: usize>(x: &[i8], rows: &[i8], bias: &[i32], scales: &[DownScale], out: &mut [i8]) {
    let (x, d16, channels) = (&x[..DEPTH], depth16(DEPTH), out.len());
    let (bias, scales, whole) = (&bias[..channels], &scales[..channels], channels / 4 * 4);
    let offset = scales.first().map_or(0, tinyaot_common::fixedpoint::down_offset);
    let (rows_whole, bias_whole, scales_whole) = (&rows[..whole * d16], &bias[..whole], &scales[..whole]);
    if whole == 0 || !arch::dot_vector_blocks_down(x, rows_whole, bias_whole, scales_whole, offset, &mut out[..whole]) {
        let blocks = rows_whole.chunks_exact(4 * d16).zip(bias_whole.chunks_exact(4));
        for (k, ((block, b), out)) in blocks.zip(out.chunks_exact_mut(4)).enumerate() {
            let sums = arch::dot_vector_rows::<4>(x, block, [b[0], b[1], b[2], b[3]]);
            arch::requantize_vector4(sums, &scales[4 * k..], offset, out);
        }
    }
    let (bias, scales, out) = (&bias[whole..], &scales[whole..], &mut out[whole..]);
    vector_blocks::<DEPTH>(x, &rows[whole * d16..], bias, channels - whole, |c, a| {
        arch::requantize_block(a, &scales[c..], &mut out[c..])
    });
}

/// The blocks of `channels` rows: whole blocks of 4 rows, then one of 2,
/// then one of 1 (`layout::pack_rows_vector`'s order), each block's sums
/// from its biases handed to `sink(first row, sums)`.
#[inline(always)]
fn vector_blocks<const DEPTH: usize>(
    x: &[i8],
    rows: &[i8],
    bias: &[i32],
    channels: usize,
    mut sink: impl FnMut(usize, &[i32]),
) {
    let (x, d16) = (&x[..DEPTH], depth16(DEPTH));
    let (bias, whole) = (&bias[..channels], channels / 4 * 4);
    let blocks = rows[..whole * d16].chunks_exact(4 * d16).zip(bias.chunks_exact(4));
    for (k, (block, b)) in blocks.enumerate() {
        sink(4 * k, &arch::dot_vector_rows::<4>(x, block, [b[0], b[1], b[2], b[3]]));
    }
    let (mut c, mut off) = (whole, whole * d16);
    if channels - c >= 2 {
        sink(c, &arch::dot_vector_rows::<2>(x, &rows[off..off + 2 * d16], [bias[c], bias[c + 1]]));
        c += 2;
        off += 2 * d16;
    }
    if channels - c == 1 {
        sink(c, &arch::dot_vector_rows::<1>(x, &rows[off..off + d16], [bias[c]]));
    }
}
