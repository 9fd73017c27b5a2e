//! DEPTHWISE_CONV_2D, NHWC input, 1HW(IC*M) filter, depth multiplier `M`.

use super::conv::Window;
use super::{Io, Requant, clamp_f32};

/// Output channels accumulated together (a stack block of i32).
const BLOCK: usize = 32;

/// int8 depthwise convolution with per-channel requantization (TFLite
/// `reference_integer_ops::DepthwiseConvPerChannel`). Channels are
/// accumulated in blocks across each window, so the inner loop walks
/// contiguous channels of the input and filter; integer sums do not depend
/// on the order, so the bits are the reference's.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn depthwise_s8<
    const N: usize,
    const IH: usize,
    const IW: usize,
    const IC: usize,
    const OH: usize,
    const OW: usize,
    const M: usize,
    const KH: usize,
    const KW: usize,
    IO: Io<i8>,
>(
    mut io: IO,
    filter: &[i8],
    bias: Option<&[i32]>,
    win: &Window,
    q: &Requant<'_>,
) {
    let oc_total = IC * M;
    let filter = &filter[..KH * KW * oc_total];
    for b in 0..N {
        for oy in 0..OH {
            let y0 = (oy * win.stride_h) as isize - win.pad_top as isize;
            let ys = Window::taps(y0, win.dilation_h, IH, KH);
            for ox in 0..OW {
                let x0 = (ox * win.stride_w) as isize - win.pad_left as isize;
                let xs = Window::taps(x0, win.dilation_w, IW, KW);
                let out_base = ((b * OH + oy) * OW + ox) * oc_total;
                let mut c0 = 0;
                while c0 < oc_total {
                    let len = BLOCK.min(oc_total - c0);
                    let mut acc = [0i32; BLOCK];
                    for ky in ys.clone() {
                        let iy = (y0 + (ky * win.dilation_h) as isize) as usize;
                        for kx in xs.clone() {
                            let ix = (x0 + (kx * win.dilation_w) as isize) as usize;
                            let in_base = ((b * IH + iy) * IW + ix) * IC;
                            let taps = &filter[(ky * KW + kx) * oc_total + c0..][..len];
                            for (k, (a, &f)) in acc[..len].iter_mut().zip(taps).enumerate() {
                                let i = io.get(in_base + (c0 + k) / M) as i32;
                                *a = a.wrapping_add((f as i32).wrapping_mul(i.wrapping_add(q.input_offset)));
                            }
                        }
                    }
                    for (k, &a) in acc[..len].iter().enumerate() {
                        let oc = c0 + k;
                        let a = match bias {
                            Some(bias) => a.wrapping_add(bias[oc]),
                            None => a,
                        };
                        io.put(out_base + oc, q.apply(a, oc) as i8);
                    }
                    c0 += len;
                }
            }
        }
    }
}

/// float32 depthwise convolution (TFLite `reference_ops::DepthwiseConv`).
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn depthwise_f32<
    const N: usize,
    const IH: usize,
    const IW: usize,
    const IC: usize,
    const OH: usize,
    const OW: usize,
    const M: usize,
    const KH: usize,
    const KW: usize,
    IO: Io<f32>,
>(
    mut io: IO,
    filter: &[f32],
    bias: Option<&[f32]>,
    win: &Window,
    act_min: f32,
    act_max: f32,
) {
    let oc_total = IC * M;
    let filter = &filter[..KH * KW * oc_total];
    for b in 0..N {
        for oy in 0..OH {
            let y0 = (oy * win.stride_h) as isize - win.pad_top as isize;
            let ys = Window::taps(y0, win.dilation_h, IH, KH);
            for ox in 0..OW {
                let x0 = (ox * win.stride_w) as isize - win.pad_left as isize;
                let xs = Window::taps(x0, win.dilation_w, IW, KW);
                let out_base = ((b * OH + oy) * OW + ox) * oc_total;
                for ic in 0..IC {
                    for m in 0..M {
                        let oc = m + ic * M;
                        let mut total = 0.0f32;
                        for ky in ys.clone() {
                            let iy = (y0 + (ky * win.dilation_h) as isize) as usize;
                            for kx in xs.clone() {
                                let ix = (x0 + (kx * win.dilation_w) as isize) as usize;
                                let i = io.get(((b * IH + iy) * IW + ix) * IC + ic);
                                let f = filter[(ky * KW + kx) * oc_total + oc];
                                total += i * f;
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
}
