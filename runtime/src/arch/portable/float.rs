//! float32 window loops in plain Rust (`vfp.rs` has their hard-float
//! forms).

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
