//! int8 dot products over weights widened at compile time
//! (`layout::pack_rows_widened`: the blocks of `layout::pack_rows`, each row's
//! group of 4 values stored as two words of 16-bit pairs). The compiler
//! chooses this layout for small layers, where twice the weight bytes
//! cost little flash: on DSP cores the inner loop (`arch::dot_groups_widened`)
//! then only loads the weights, 0.94 instructions per MAC against 1.31 for
//! bytes.

use super::DownScale;
use super::layout::depth4;

/// Weight rows packed for the blocked dot products, in either layout:
/// bytes (`layout::pack_rows`) or widened words (`layout::pack_rows_widened`).
pub trait PackedRows: Copy {
    /// `acc[k] = bias[k] + row_(first + k) . x` for the `acc.len()` rows
    /// from `first` (a multiple of 4, so the blocks line up).
    fn dots<const DEPTH: usize>(self, x: &[i8], first: usize, bias: &[i32], acc: &mut [i32]);
    /// The same rows requantized straight into `out` (one per row from
    /// `first`), for the short-form scales and the whole int8 range
    /// (`dot::fused_scales`); `scales` and `bias` start at row `first`.
    fn dots_down<const DEPTH: usize>(self, x: &[i8], first: usize, bias: &[i32], scales: &[DownScale], out: &mut [i8]);
    /// [`PackedRows::dots_down`] for FULLY_CONNECTED (`dot::dense_dots_down`
    /// for byte rows: an instance apart from the convolutions').
    #[inline(always)]
    fn dense_dots_down<const DEPTH: usize>(self, x: &[i8], bias: &[i32], scales: &[DownScale], out: &mut [i8]) {
        self.dots_down::<DEPTH>(x, 0, bias, scales, out)
    }
    /// [`PackedRows::dots_down`] of `pixels` convolution windows read
    /// straight from the input image, where the layout's kernels can (no
    /// patch copied first): a window's `rows` rows of `DEPTH / rows` values
    /// each, `step` apart, the first window from input element `start` of
    /// `io` and each next one `stride` further; their outputs one after
    /// another from output element `out.start`, `out.len()` per pixel.
    /// `false`, touching nothing, where they cannot: the caller then copies
    /// the patches.
    #[allow(clippy::too_many_arguments)]
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
        let _ = (io, start, pixels, stride, rows, step, out, bias, scales);
        false
    }
}

impl PackedRows for &[i8] {
    #[inline(always)]
    fn dots<const DEPTH: usize>(self, x: &[i8], first: usize, bias: &[i32], acc: &mut [i32]) {
        let d4 = depth4(DEPTH);
        super::dot::dots::<DEPTH>(x, &self[first * d4..(first + acc.len()) * d4], bias, acc);
    }
    #[inline(always)]
    fn dots_down<const DEPTH: usize>(self, x: &[i8], first: usize, bias: &[i32], scales: &[DownScale], out: &mut [i8]) {
        let d4 = depth4(DEPTH);
        super::dot::dots_down::<DEPTH>(x, &self[first * d4..(first + out.len()) * d4], bias, scales, out);
    }
    #[inline(always)]
    fn dense_dots_down<const DEPTH: usize>(self, x: &[i8], bias: &[i32], scales: &[DownScale], out: &mut [i8]) {
        super::dot::dense_dots_down::<DEPTH>(x, &self[..out.len() * depth4(DEPTH)], bias, scales, out);
    }
}

impl PackedRows for &[u32] {
    #[inline(always)]
    fn dots<const DEPTH: usize>(self, x: &[i8], first: usize, bias: &[i32], acc: &mut [i32]) {
        let w = depth4(DEPTH) / 2;
        dots_widened::<DEPTH>(x, &self[first * w..(first + acc.len()) * w], bias, acc);
    }
    #[inline(always)]
    fn dots_down<const DEPTH: usize>(self, x: &[i8], first: usize, bias: &[i32], scales: &[DownScale], out: &mut [i8]) {
        let w = depth4(DEPTH) / 2;
        dots_widened_down::<DEPTH>(x, &self[first * w..(first + out.len()) * w], bias, scales, out);
    }
    #[inline(always)]
    fn dense_dots_down<const DEPTH: usize>(self, x: &[i8], bias: &[i32], scales: &[DownScale], out: &mut [i8]) {
        let w = depth4(DEPTH) / 2;
        dense_dots_widened_down::<DEPTH>(x, &self[..out.len() * w], bias, scales, out);
    }
}

/// `acc[c] = bias[c] + row_c . x` over widened rows (`DEPTH` values each,
/// the first `DEPTH` of `x`). One instance per depth, never inlined.
#[inline(never)]
pub fn dots_widened<const DEPTH: usize>(x: &[i8], packed: &[u32], bias: &[i32], acc: &mut [i32]) {
    widened_blocks::<DEPTH>(x, packed, bias, acc.len(), |c, a| acc[c..c + a.len()].copy_from_slice(a));
}

/// [`dots_widened`] with each block requantized straight into `out`
/// (`dot::dots_down`'s twin).
#[inline(never)]
pub fn dots_widened_down<const DEPTH: usize>(
    x: &[i8],
    packed: &[u32],
    bias: &[i32],
    scales: &[DownScale],
    out: &mut [i8],
) {
    let scales = &scales[..out.len()];
    widened_blocks::<DEPTH>(x, packed, bias, out.len(), |c, a| {
        crate::arch::requantize_block(a, &scales[c..], &mut out[c..])
    });
}

/// [`dots_widened_down`] for FULLY_CONNECTED, an instance of its own (see
/// `dot::dense_dots_down`).
#[inline(never)]
pub fn dense_dots_widened_down<const DEPTH: usize>(
    x: &[i8],
    packed: &[u32],
    bias: &[i32],
    scales: &[DownScale],
    out: &mut [i8],
) {
    let scales = &scales[..out.len()];
    widened_blocks::<DEPTH>(x, packed, bias, out.len(), |c, a| {
        crate::arch::requantize_block(a, &scales[c..], &mut out[c..])
    });
}

/// The walk of [`dots_widened`]: blocks of 4 rows, then 2, then 1, each
/// block's sums (from the bias) handed to `sink` with its first row.
#[inline(always)]
fn widened_blocks<const DEPTH: usize>(
    x: &[i8],
    packed: &[u32],
    bias: &[i32],
    channels: usize,
    mut sink: impl FnMut(usize, &[i32]),
) {
    let x = &x[..DEPTH];
    let w = depth4(DEPTH) / 2;
    let bias = &bias[..channels];
    let mut c = 0;
    while channels - c >= 4 {
        let a = [bias[c], bias[c + 1], bias[c + 2], bias[c + 3]];
        sink(c, &block::<4>(x, &packed[c * w..(c + 4) * w], a));
        c += 4;
    }
    if channels - c >= 2 {
        sink(c, &block::<2>(x, &packed[c * w..(c + 2) * w], [bias[c], bias[c + 1]]));
        c += 2;
    }
    if channels - c == 1 {
        sink(c, &block::<1>(x, &packed[c * w..(c + 1) * w], [bias[c]]));
    }
}

/// `acc[r] += row_r . x` for the `R` rows of one widened block.
#[inline(always)]
fn block<const R: usize>(x: &[i8], block: &[u32], mut acc: [i32; R]) -> [i32; R] {
    let full = x.len() / 4;
    let block = &block[..R * depth4(x.len()) / 2];
    if full > 0 {
        acc = crate::arch::dot_groups_widened::<R>(&x[..4 * full], &block[..2 * R * full], acc);
    }
    // The last partial group: value j of a group is in word j % 2, half
    // j / 2 (weights zero-padded past the row).
    for (j, &xv) in x[4 * full..].iter().enumerate() {
        for (r, a) in acc.iter_mut().enumerate() {
            let word = block[(full * R + r) * 2 + j % 2];
            *a = a.wrapping_add(xv as i32 * (word >> (16 * (j / 2))) as u16 as i16 as i32);
        }
    }
    acc
}
