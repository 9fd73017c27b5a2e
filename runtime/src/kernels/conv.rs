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
