//! MAX_POOL_2D and AVERAGE_POOL_2D over NHWC, windows clipped to the input
//! (padding never counts, as in TFLite).

use super::conv::Window;
use super::{Io, Narrow, clamp_f32, clamp_i32};

/// Geometry of a pooling window: filter size plus strides and padding
/// (dilation is always 1).
#[derive(Clone, Copy, Debug)]
pub struct Pool {
    /// Filter height.
    pub filter_h: usize,
    /// Filter width.
    pub filter_w: usize,
    /// Strides and padding.
    pub win: Window,
}

/// Visits every output position and channel with the clipped window's row
/// and column ranges; shared by all pooling kernels.
#[inline(always)]
fn for_each_window<
    const N: usize,
    const IH: usize,
    const IW: usize,
    const C: usize,
    const OH: usize,
    const OW: usize,
>(
    p: &Pool,
    mut f: impl FnMut(usize, usize, core::ops::Range<usize>, core::ops::Range<usize>),
) {
    for b in 0..N {
        for oy in 0..OH {
            let y0 = (oy * p.win.stride_h) as isize - p.win.pad_top as isize;
            let ys = Window::taps(y0, 1, IH, p.filter_h);
            let ys = (y0 + ys.start as isize) as usize..(y0 + ys.end as isize) as usize;
            for ox in 0..OW {
                let x0 = (ox * p.win.stride_w) as isize - p.win.pad_left as isize;
                let xs = Window::taps(x0, 1, IW, p.filter_w);
                let xs = (x0 + xs.start as isize) as usize..(x0 + xs.end as isize) as usize;
                let out_base = ((b * OH + oy) * OW + ox) * C;
                let in_batch = b * IH * IW * C;
                for c in 0..C {
                    f(out_base + c, in_batch + c, ys.clone(), xs.clone());
                }
            }
        }
    }
}

/// int8/int16 max pooling (TFLite `reference_integer_ops::MaxPool`).
#[inline(never)]
pub fn max_pool_q<
    T: Narrow,
    const N: usize,
    const IH: usize,
    const IW: usize,
    const C: usize,
    const OH: usize,
    const OW: usize,
    IO: Io<T>,
>(
    mut io: IO,
    p: &Pool,
    act_min: i32,
    act_max: i32,
) {
    for_each_window::<N, IH, IW, C, OH, OW>(p, |o, base, ys, xs| {
        let mut max = T::MIN.widen();
        for y in ys {
            for x in xs.clone() {
                max = max.max(io.get(base + (y * IW + x) * C).widen());
            }
        }
        io.put(o, T::narrow(clamp_i32(max, act_min, act_max)));
    });
}

/// float32 max pooling (TFLite `reference_ops::MaxPool`).
#[inline(never)]
pub fn max_pool_f32<
    const N: usize,
    const IH: usize,
    const IW: usize,
    const C: usize,
    const OH: usize,
    const OW: usize,
    IO: Io<f32>,
>(
    mut io: IO,
    p: &Pool,
    act_min: f32,
    act_max: f32,
) {
    for_each_window::<N, IH, IW, C, OH, OW>(p, |o, base, ys, xs| {
        let mut max = f32::MIN;
        for y in ys {
            for x in xs.clone() {
                let v = io.get(base + (y * IW + x) * C);
                // std::max(max, v): keeps `max` unless it compares less.
                if max < v {
                    max = v;
                }
            }
        }
        io.put(o, clamp_f32(max, act_min, act_max));
    });
}

/// int8/int16 average pooling with TFLite's rounding (half away from zero)
/// of the sum divided by the number of in-bounds taps.
#[inline(never)]
pub fn avg_pool_q<
    T: Narrow,
    const N: usize,
    const IH: usize,
    const IW: usize,
    const C: usize,
    const OH: usize,
    const OW: usize,
    IO: Io<T>,
>(
    mut io: IO,
    p: &Pool,
    act_min: i32,
    act_max: i32,
) {
    for_each_window::<N, IH, IW, C, OH, OW>(p, |o, base, ys, xs| {
        let count = (ys.len() * xs.len()) as i32;
        let mut acc: i32 = 0;
        for y in ys {
            for x in xs.clone() {
                acc += io.get(base + (y * IW + x) * C).widen();
            }
        }
        // The compiler rejects geometries with an empty window, so count > 0.
        let avg = if acc > 0 { (acc + count / 2) / count } else { (acc - count / 2) / count };
        io.put(o, T::narrow(clamp_i32(avg, act_min, act_max)));
    });
}

/// float32 average pooling (TFLite `reference_ops::AveragePool`).
#[inline(never)]
pub fn avg_pool_f32<
    const N: usize,
    const IH: usize,
    const IW: usize,
    const C: usize,
    const OH: usize,
    const OW: usize,
    IO: Io<f32>,
>(
    mut io: IO,
    p: &Pool,
    act_min: f32,
    act_max: f32,
) {
    for_each_window::<N, IH, IW, C, OH, OW>(p, |o, base, ys, xs| {
        let count = (ys.len() * xs.len()) as f32;
        let mut total = 0.0f32;
        for y in ys {
            for x in xs.clone() {
                total += io.get(base + (y * IW + x) * C);
            }
        }
        io.put(o, clamp_f32(total / count, act_min, act_max));
    });
}
