//! CONV_2D, NHWC input, OHWI filter (TFLite's layouts), grouped when the
//! filter's input depth `KC` divides the input depth `IC`.

use super::{Io, Requant, clamp_f32};

/// Geometry of a 2-D window op: strides, dilations and the top/left padding.
#[derive(Clone, Copy, Debug)]
pub struct Window {
    /// Stride along height.
    pub stride_h: usize,
    /// Stride along width.
    pub stride_w: usize,
    /// Dilation along height.
    pub dilation_h: usize,
    /// Dilation along width.
    pub dilation_w: usize,
    /// Rows of implicit zero padding above the input.
    pub pad_top: usize,
    /// Columns of implicit zero padding left of the input.
    pub pad_left: usize,
}

impl Window {
    /// The filter taps `k in 0..K` whose input coordinate
    /// `origin + k * dilation` lies inside `0..size`, as a range.
    #[inline(always)]
    pub fn taps(origin: isize, dilation: usize, size: usize, k: usize) -> core::ops::Range<usize> {
        let d = dilation as isize;
        // First tap with origin + k*d >= 0.
        let start = if origin >= 0 { 0 } else { ((-origin) + d - 1) / d };
        // One past the last tap with origin + k*d < size.
        let limit = size as isize - origin;
        let end = if limit <= 0 { 0 } else { (limit + d - 1) / d };
        let end = (end as usize).min(k);
        let start = (start as usize).min(end);
        start..end
    }
}

/// int8 convolution with per-channel requantization (TFLite
/// `reference_integer_ops::ConvPerChannel`).
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn conv2d_s8<
    const N: usize,
    const IH: usize,
    const IW: usize,
    const IC: usize,
    const OH: usize,
    const OW: usize,
    const OC: usize,
    const KH: usize,
    const KW: usize,
    const KC: usize,
    IO: Io<i8>,
>(
    mut io: IO,
    filter: &[i8],
    bias: Option<&[i32]>,
    win: &Window,
    q: &Requant<'_>,
) {
    let filter = &filter[..OC * KH * KW * KC];
    let filters_per_group = OC / (IC / KC);
    for b in 0..N {
        for oy in 0..OH {
            let y0 = (oy * win.stride_h) as isize - win.pad_top as isize;
            let ys = Window::taps(y0, win.dilation_h, IH, KH);
            for ox in 0..OW {
                let x0 = (ox * win.stride_w) as isize - win.pad_left as isize;
                let xs = Window::taps(x0, win.dilation_w, IW, KW);
                let out_base = ((b * OH + oy) * OW + ox) * OC;
                for oc in 0..OC {
                    let group = oc / filters_per_group;
                    let mut acc: i32 = 0;
                    for ky in ys.clone() {
                        let iy = (y0 + (ky * win.dilation_h) as isize) as usize;
                        for kx in xs.clone() {
                            let ix = (x0 + (kx * win.dilation_w) as isize) as usize;
                            let in_base = ((b * IH + iy) * IW + ix) * IC + group * KC;
                            let f_base = ((oc * KH + ky) * KW + kx) * KC;
                            let fs = &filter[f_base..f_base + KC];
                            for (c, &f) in fs.iter().enumerate() {
                                let i = io.get(in_base + c) as i32;
                                acc = acc.wrapping_add((f as i32).wrapping_mul(i.wrapping_add(q.input_offset)));
                            }
                        }
                    }
                    if let Some(bias) = bias {
                        acc = acc.wrapping_add(bias[oc]);
                    }
                    io.put(out_base + oc, q.apply(acc, oc) as i8);
                }
            }
        }
    }
}

/// float32 convolution (TFLite `reference_ops::Conv`, same summation order).
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn conv2d_f32<
    const N: usize,
    const IH: usize,
    const IW: usize,
    const IC: usize,
    const OH: usize,
    const OW: usize,
    const OC: usize,
    const KH: usize,
    const KW: usize,
    const KC: usize,
    IO: Io<f32>,
>(
    mut io: IO,
    filter: &[f32],
    bias: Option<&[f32]>,
    win: &Window,
    act_min: f32,
    act_max: f32,
) {
    let filter = &filter[..OC * KH * KW * KC];
    let filters_per_group = OC / (IC / KC);
    for b in 0..N {
        for oy in 0..OH {
            let y0 = (oy * win.stride_h) as isize - win.pad_top as isize;
            let ys = Window::taps(y0, win.dilation_h, IH, KH);
            for ox in 0..OW {
                let x0 = (ox * win.stride_w) as isize - win.pad_left as isize;
                let xs = Window::taps(x0, win.dilation_w, IW, KW);
                let out_base = ((b * OH + oy) * OW + ox) * OC;
                for oc in 0..OC {
                    let group = oc / filters_per_group;
                    let mut total = 0.0f32;
                    for ky in ys.clone() {
                        let iy = (y0 + (ky * win.dilation_h) as isize) as usize;
                        for kx in xs.clone() {
                            let ix = (x0 + (kx * win.dilation_w) as isize) as usize;
                            let in_base = ((b * IH + iy) * IW + ix) * IC + group * KC;
                            let f_base = ((oc * KH + ky) * KW + kx) * KC;
                            let fs = &filter[f_base..f_base + KC];
                            for (c, &f) in fs.iter().enumerate() {
                                total += io.get(in_base + c) * f;
                            }
                        }
                    }
                    let bias_value = match bias {
                        Some(bias) => bias[oc],
                        None => 0.0,
                    };
                    io.put(out_base + oc, clamp_f32(total + bias_value, act_min, act_max));
                }
            }
        }
    }
}

/// int8 convolution through an im2col patch: for each output pixel the
/// (clipped, zero-padded) input window is gathered once into `patch` with
/// the input offset already added, then every output channel is one
/// contiguous dot product with its filter row. Same arithmetic as
/// [`conv2d_s8`] (padding contributes exactly zero there too), far fewer
/// instructions per MAC; needs `KH * KW * IC` i16 of scratch. Ungrouped
/// filters only.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn conv2d_im2col_s8<
    const N: usize,
    const IH: usize,
    const IW: usize,
    const IC: usize,
    const OH: usize,
    const OW: usize,
    const OC: usize,
    const KH: usize,
    const KW: usize,
    IO: Io<i8>,
>(
    mut io: IO,
    filter: &[i8],
    bias: Option<&[i32]>,
    win: &Window,
    q: &Requant<'_>,
    patch: &mut [i16],
) {
    let depth = KH * KW * IC;
    let filter = &filter[..OC * depth];
    let patch = &mut patch[..depth];
    for b in 0..N {
        for oy in 0..OH {
            let y0 = (oy * win.stride_h) as isize - win.pad_top as isize;
            for ox in 0..OW {
                let x0 = (ox * win.stride_w) as isize - win.pad_left as isize;
                // Gather the window; outside the image the reference skips
                // the tap, which a zero in the patch reproduces exactly.
                for ky in 0..KH {
                    let iy = y0 + (ky * win.dilation_h) as isize;
                    for kx in 0..KW {
                        let ix = x0 + (kx * win.dilation_w) as isize;
                        let dst = &mut patch[(ky * KW + kx) * IC..(ky * KW + kx + 1) * IC];
                        if iy >= 0 && (iy as usize) < IH && ix >= 0 && (ix as usize) < IW {
                            let src = ((b * IH + iy as usize) * IW + ix as usize) * IC;
                            for (c, d) in dst.iter_mut().enumerate() {
                                *d = (io.get(src + c) as i32 + q.input_offset) as i16;
                            }
                        } else {
                            dst.fill(0);
                        }
                    }
                }
                let out_base = ((b * OH + oy) * OW + ox) * OC;
                for (oc, row) in filter.chunks_exact(depth).enumerate() {
                    let mut acc: i32 = match bias {
                        Some(bias) => bias[oc],
                        None => 0,
                    };
                    acc = acc.wrapping_add(dot_i16_i8(patch, row));
                    io.put(out_base + oc, q.apply(acc, oc) as i8);
                }
            }
        }
    }
}

/// `sum(a[i] * b[i])` with wrapping i32 accumulation.
#[inline(always)]
pub fn dot_i16_i8(a: &[i16], b: &[i8]) -> i32 {
    let mut acc0: i32 = 0;
    let mut acc1: i32 = 0;
    let mut ca = a.chunks_exact(2);
    let mut cb = b.chunks_exact(2);
    for (x, w) in (&mut ca).zip(&mut cb) {
        acc0 = acc0.wrapping_add(x[0] as i32 * w[0] as i32);
        acc1 = acc1.wrapping_add(x[1] as i32 * w[1] as i32);
    }
    for (&x, &w) in ca.remainder().iter().zip(cb.remainder()) {
        acc0 = acc0.wrapping_add(x as i32 * w as i32);
    }
    acc0.wrapping_add(acc1)
}
