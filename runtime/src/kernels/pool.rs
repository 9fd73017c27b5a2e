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

/// Visits every output pixel with its output offset, its batch's input
/// offset and the clipped window's input rows and columns; shared by all
/// pooling kernels.
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
                f(((b * OH + oy) * OW + ox) * C, b * IH * IW * C, ys.clone(), xs);
            }
        }
    }
}

/// Channels reduced together: each window pixel's run of them is read
/// contiguously into a stack row of accumulators.
const CHUNK: usize = 32;

/// Every output pixel's window reduced channel-wise: `acc[c] =
/// step(acc[c], x)` over the window's pixels in row-major order (TFLite's
/// order, per channel), starting from `init`, then `finish(acc[c],
/// taps)` written out. Outputs are written after their window is read.
#[inline(always)]
fn pool_channels<
    T: Copy,
    A: Copy,
    const N: usize,
    const IH: usize,
    const IW: usize,
    const C: usize,
    const OH: usize,
    const OW: usize,
    IO: Io<T>,
>(
    io: IO,
    p: &Pool,
    init: A,
    step: impl Fn(A, T) -> A,
    finish: impl Fn(A, usize) -> T,
) {
    // Few channels: a shorter row of accumulators (no stack row to fill
    // beyond the channels used).
    if C <= CHUNK / 2 {
        pool_runs::<T, A, N, IH, IW, C, OH, OW, IO, { CHUNK / 2 }>(io, p, init, step, finish);
    } else {
        pool_runs::<T, A, N, IH, IW, C, OH, OW, IO, CHUNK>(io, p, init, step, finish);
    }
}

/// [`pool_channels`] with runs of up to `K` channels.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn pool_runs<
    T: Copy,
    A: Copy,
    const N: usize,
    const IH: usize,
    const IW: usize,
    const C: usize,
    const OH: usize,
    const OW: usize,
    IO: Io<T>,
    const K: usize,
>(
    mut io: IO,
    p: &Pool,
    init: A,
    step: impl Fn(A, T) -> A,
    finish: impl Fn(A, usize) -> T,
) {
    for_each_window::<N, IH, IW, C, OH, OW>(p, |out_base, in_batch, ys, xs| {
        let taps = ys.len() * xs.len();
        for c0 in (0..C).step_by(K) {
            let n = (C - c0).min(K);
            let mut acc = [init; K];
            let acc = &mut acc[..n];
            for y in ys.clone() {
                for x in xs.clone() {
                    let row = io.run(in_batch + (y * IW + x) * C + c0, n);
                    for (a, &v) in acc.iter_mut().zip(row) {
                        *a = step(*a, v);
                    }
                }
            }
            for (k, &a) in acc.iter().enumerate() {
                io.put(out_base + c0 + k, finish(a, taps));
            }
        }
    });
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
    io: IO,
    p: &Pool,
    act_min: i32,
    act_max: i32,
) {
    pool_channels::<T, i32, N, IH, IW, C, OH, OW, IO>(
        io,
        p,
        T::MIN.widen(),
        |max, v| max.max(v.widen()),
        |max, _| T::narrow(clamp_i32(max, act_min, act_max)),
    );
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
    io: IO,
    p: &Pool,
    act_min: f32,
    act_max: f32,
) {
    // std::max(max, v): keeps `max` unless it compares less.
    pool_channels::<f32, f32, N, IH, IW, C, OH, OW, IO>(
        io,
        p,
        f32::MIN,
        |max, v| if max < v { v } else { max },
        |max, _| clamp_f32(max, act_min, act_max),
    );
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
    io: IO,
    p: &Pool,
    act_min: i32,
    act_max: i32,
) {
    pool_channels::<T, i32, N, IH, IW, C, OH, OW, IO>(
        io,
        p,
        0,
        |acc, v| acc + v.widen(),
        |acc, taps| {
            // TFLite: (acc +- taps / 2) / taps, truncating: the rounded
            // magnitude with the sum's sign, by an unsigned division (the
            // compiler rejects empty windows, so taps > 0: no checks).
            let count = core::num::NonZeroU32::new(taps as u32).unwrap_or(core::num::NonZeroU32::MIN);
            let magnitude = ((acc.unsigned_abs() + count.get() / 2) / count) as i32;
            let avg = if acc > 0 { magnitude } else { -magnitude };
            T::narrow(clamp_i32(avg, act_min, act_max))
        },
    );
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
    io: IO,
    p: &Pool,
    act_min: f32,
    act_max: f32,
) {
    pool_channels::<f32, f32, N, IH, IW, C, OH, OW, IO>(
        io,
        p,
        0.0,
        |total, v| total + v,
        |total, taps| clamp_f32(total / taps as f32, act_min, act_max),
    );
}
