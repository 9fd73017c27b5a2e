//! Scratch sizes: one function per kernel that needs scratch, called by
//! the compiler (to plan the bytes) and by the kernel (to take its part of
//! them), so the two cannot disagree. Products saturate: the compiler
//! calls these on a hostile file's shapes before it refuses them.

use crate::layout::depth4;

/// Whether the int8 im2col convolution reads each window in place: a 1x1
/// window without padding at the top or left is one input pixel, so no
/// patch is gathered (and none is planned).
pub const fn im2col_in_place(kh: usize, kw: usize, padded: bool) -> bool {
    kh == 1 && kw == 1 && !padded
}

/// Bytes of the int8 im2col convolution's patch (`conv2d_im2col_s8`, and
/// the depthwise layers it runs with input depth 1): one window of
/// `kh * kw * ic` values rounded up to whole groups of 4; none where the
/// window is read in place ([`im2col_in_place`]).
pub const fn conv_im2col(kh: usize, kw: usize, ic: usize, padded: bool) -> usize {
    if im2col_in_place(kh, kw, padded) { 0 } else { depth4(kh.saturating_mul(kw).saturating_mul(ic)) }
}

/// Bytes of the 16x8 im2col convolution's patch (`conv2d_im2col_16x8`):
/// one window of `kh * kw * ic` int16 values; none where the window is
/// read in place ([`im2col_in_place`]).
pub const fn conv_im2col_16x8(kh: usize, kw: usize, ic: usize, padded: bool) -> usize {
    if im2col_in_place(kh, kw, padded) { 0 } else { kh.saturating_mul(kw).saturating_mul(ic).saturating_mul(2) }
}

/// Bytes of the widened-rows depthwise kernel's ring: for each of the
/// `channels`, the last `kh` input rows, `row_width` 16-bit values each
/// (`layout::depthwise_row_width`).
pub const fn depthwise_rows(kh: usize, channels: usize, row_width: usize) -> usize {
    kh.saturating_mul(channels).saturating_mul(row_width).saturating_mul(2)
}

/// Sums the int8 dot-product kernels hold on the stack at a time
/// (`kernels::dot::CHUNK`): a block of one pixel's output channels, or
/// the channels of several pending pixels.
pub const SUM_CHUNK: usize = 64;

/// Pixels whose sums the one-pixel im2col kernel holds and requantizes
/// together, for `channels` output channels: as many as [`SUM_CHUNK`]
/// holds, 1 where a pixel needs more than half of it.
pub const fn pending_pixels(channels: usize) -> usize {
    if channels == 0 || channels > SUM_CHUNK / 2 { 1 } else { SUM_CHUNK / channels }
}
