//! MAX_POOL_2D, AVERAGE_POOL_2D and L2_POOL_2D over NHWC, windows clipped
//! to the input (padding never counts, as in TFLite).

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
    mut io: IO,
    p: &Pool,
    act_min: i32,
    act_max: i32,
) {
    // Where int8 and int16 maxima take many lanes an instruction (Helium),
    // each run of channels is reduced in its own type (`Narrow::max_into`),
    // then clamped.
    if crate::arch::BYTE_VECTORS {
        for_each_window::<N, IH, IW, C, OH, OW>(p, |out_base, in_batch, ys, xs| {
            for c0 in (0..C).step_by(CHUNK) {
                let n = (C - c0).min(CHUNK);
                let mut acc = [T::MIN; CHUNK];
                let acc = &mut acc[..n];
                for y in ys.clone() {
                    for x in xs.clone() {
                        T::max_into(acc, io.run(in_batch + (y * IW + x) * C + c0, n));
                    }
                }
                for (k, &a) in acc.iter().enumerate() {
                    io.put(out_base + c0 + k, T::narrow(clamp_i32(a.to_i32(), act_min, act_max)));
                }
            }
        });
        return;
    }
    pool_channels::<T, i32, N, IH, IW, C, OH, OW, IO>(
        io,
        p,
        T::MIN.to_i32(),
        |max, v| max.max(v.to_i32()),
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
    const HALF_UP: bool,
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
    if crate::arch::BYTE_VECTORS && T::BYTES == 1 && C >= 16 {
        // A vector unit (Helium): each run of channels summed in 16-bit
        // lanes (`Narrow::add_into`), exact for up to 256 taps. Below 16
        // channels the loop's per-tap cost outweighs the lanes (4
        // channels: 18.5 against the DSP pairs' 13.3 k M55 cycles on
        // `pool_wide_int8`).
        assert!(p.filter_h * p.filter_w <= 256, "windows of over 256 taps take avg_pool_q_i32");
        let mut io = io;
        for_each_window::<N, IH, IW, C, OH, OW>(p, |out_base, in_batch, ys, xs| {
            let taps = ys.len() * xs.len();
            for c0 in (0..C).step_by(CHUNK) {
                let n = (C - c0).min(CHUNK);
                let mut acc = [0i16; CHUNK];
                let acc = &mut acc[..n];
                for y in ys.clone() {
                    for x in xs.clone() {
                        T::add_into(acc, io.run(in_batch + (y * IW + x) * C + c0, n));
                    }
                }
                for (k, &a) in acc.iter().enumerate() {
                    io.put(out_base + c0 + k, rounded_average::<T, HALF_UP>(i32::from(a), taps, act_min, act_max));
                }
            }
        });
        return;
    }
    if crate::arch::LANES16 && T::BYTES == 1 && C.is_multiple_of(4) {
        assert!(p.filter_h * p.filter_w <= 256, "windows of over 256 taps take avg_pool_q_i32");
        return avg_pool_pairs::<T, N, IH, IW, C, OH, OW, IO>(io, p, |acc, taps| {
            rounded_average::<T, HALF_UP>(acc, taps, act_min, act_max)
        });
    }
    avg_pool_q_i32::<T, HALF_UP, N, IH, IW, C, OH, OW, IO>(io, p, act_min, act_max);
}

/// [`avg_pool_q`] for any window: int32 sums per channel. The compiler
/// calls it for int8 windows of more than 256 taps (too many for the
/// 16-bit lanes of [`avg_pool_q`] on DSP cores).
#[inline(never)]
pub fn avg_pool_q_i32<
    T: Narrow,
    const HALF_UP: bool,
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
        |acc, v| acc + v.to_i32(),
        |acc, taps| rounded_average::<T, HALF_UP>(acc, taps, act_min, act_max),
    );
}

/// TFLite's average, clamped to the activation range: `(acc +- taps / 2)
/// / taps`, truncating, i.e. the rounded magnitude with the sum's sign,
/// here by an unsigned division (the compiler rejects empty windows, so
/// taps > 0: no checks). `HALF_UP`: LiteRT's uint8 average, whose sums
/// of `0..=255` are never negative, on the int8 values `q - 128` the uint8
/// pass gives (`acc + 128 * taps` is that sum): `(sum + taps / 2) / taps`,
/// then back to int8.
#[inline(always)]
fn rounded_average<T: Narrow, const HALF_UP: bool>(acc: i32, taps: usize, act_min: i32, act_max: i32) -> T {
    let count = core::num::NonZeroU32::new(taps as u32).unwrap_or(core::num::NonZeroU32::MIN);
    let average = if HALF_UP {
        let sum = acc.wrapping_add(128 * count.get() as i32) as u32;
        ((sum + count.get() / 2) / count) as i32 - 128
    } else {
        let magnitude = ((acc.unsigned_abs() + count.get() / 2) / count) as i32;
        if acc > 0 { magnitude } else { -magnitude }
    };
    T::narrow(clamp_i32(average, act_min, act_max))
}

/// int8 average pooling with 16-bit lanes (DSP cores): 4 channels per word,
/// summed as two pairs of 16-bit lanes (`arch::add_byte_lanes`: 5
/// instructions per 4 channels and tap, against 2 per channel); at most
/// 256 taps keep every sum inside 16 bits (|sum| <= 128 * 256), so the
/// lanes hold the exact int32 sums, then `average` per channel as in the
/// plain path.
#[inline(always)]
fn avg_pool_pairs<
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
    average: impl Fn(i32, usize) -> T,
) {
    // Channels per run: 4 words, 8 lane-pair accumulators.
    const RUN: usize = 16;
    for_each_window::<N, IH, IW, C, OH, OW>(p, |out_base, in_batch, ys, xs| {
        let taps = ys.len() * xs.len();
        for c0 in (0..C).step_by(RUN) {
            let n = (C - c0).min(RUN);
            // acc[2g] holds channels 4g and 4g + 2, acc[2g + 1] 4g + 1 and 4g + 3.
            let mut acc = [0u32; RUN / 2];
            for y in ys.clone() {
                for x in xs.clone() {
                    let row = io.run(in_batch + (y * IW + x) * C + c0, n);
                    // SAFETY: T is one byte here (the caller's check) and an
                    // integer type (`Narrow`: i8 or i16), so its values are
                    // plain bytes; the view keeps the borrow and length.
                    let row = unsafe { core::slice::from_raw_parts(row.as_ptr().cast::<u8>(), row.len() * T::BYTES) };
                    for (v, pair) in row.chunks_exact(4).zip(acc.chunks_exact_mut(2)) {
                        let word = u32::from_le_bytes([v[0], v[1], v[2], v[3]]);
                        (pair[0], pair[1]) = crate::arch::add_byte_lanes(word, (pair[0], pair[1]));
                    }
                }
            }
            let out = io.out_run(out_base + c0, n);
            for (o, pair) in out.chunks_exact_mut(4).zip(acc.chunks_exact(2)) {
                let lane = |w: u32, high: bool| (if high { w >> 16 } else { w }) as u16 as i16 as i32;
                o[0] = average(lane(pair[0], false), taps);
                o[1] = average(lane(pair[1], false), taps);
                o[2] = average(lane(pair[0], true), taps);
                o[3] = average(lane(pair[1], true), taps);
            }
        }
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

/// float32 L2 pooling (TFLite `reference_ops::L2Pool`): the square root
/// of the mean of the squares.
#[inline(never)]
pub fn l2_pool_f32<
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
        |total, v| total + v * v,
        |total, taps| clamp_f32(libm::sqrtf(total / taps as f32), act_min, act_max),
    );
}
