//! CONV_2D, NHWC input, OHWI filter (TFLite's layouts), grouped when the
//! filter's input depth `KC` divides the input depth `IC`.

pub use super::layout::pack_rows;
use super::{Arithmetic, Filter, Io, Rescale};
use crate::arch;

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

    /// Calls `f` for every output pixel of an `N x OH x OW` output, in
    /// NHWC order, with its window over an `IH x IW` input and a `KH x KW`
    /// filter: the loop header every window kernel shares.
    #[inline(always)]
    pub fn for_each_pixel<
        const N: usize,
        const IH: usize,
        const IW: usize,
        const OH: usize,
        const OW: usize,
        const KH: usize,
        const KW: usize,
    >(
        &self,
        mut f: impl FnMut(Pixel),
    ) {
        for b in 0..N {
            for oy in 0..OH {
                let y0 = (oy * self.stride_h) as isize - self.pad_top as isize;
                let ys = Window::taps(y0, self.dilation_h, IH, KH);
                for ox in 0..OW {
                    let x0 = (ox * self.stride_w) as isize - self.pad_left as isize;
                    let xs = Window::taps(x0, self.dilation_w, IW, KW);
                    f(Pixel { b, y0, x0, ys: ys.clone(), xs, index: (b * OH + oy) * OW + ox });
                }
            }
        }
    }
}

/// One output pixel of a window kernel (see [`Window::for_each_pixel`]).
#[derive(Clone, Debug)]
pub struct Pixel {
    /// Batch.
    pub b: usize,
    /// Input row of the window's first tap (negative inside the padding).
    pub y0: isize,
    /// Input column of the window's first tap.
    pub x0: isize,
    /// The filter rows that fall inside the input.
    pub ys: core::ops::Range<usize>,
    /// The filter columns that fall inside the input.
    pub xs: core::ops::Range<usize>,
    /// Flat index of the output pixel (`(b * OH + oy) * OW + ox`).
    pub index: usize,
}

impl Pixel {
    /// The input element where the window's first tap inside the image
    /// is (its top-left tap, clipped to the image's edge), in an NHWC
    /// input of `IH x IW x IC`.
    #[inline(always)]
    pub fn first_tap<const IH: usize, const IW: usize, const IC: usize>(&self) -> usize {
        ((self.b * IH + self.y0.max(0) as usize) * IW + self.x0.max(0) as usize) * IC
    }
}

/// Convolution in any [`Arithmetic`] (int8, 16x8, float32: TFLite
/// `reference_integer_ops::ConvPerChannel` and `reference_ops::Conv`, the
/// same summation order), grouped when the filter depth `KC` divides `IC`.
/// `filter`: the model's values, or its int4 nibbles
/// (`dot_int4::Int4Filter`).
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn conv2d<
    Acc: Copy,
    Q: Arithmetic<Acc>,
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
    IO: Io<Q::Input, Q::Output>,
>(
    mut io: IO,
    filter: impl Filter<Q::Weight>,
    bias: Option<&[Acc]>,
    win: &Window,
    q: &Q,
) {
    let filters_per_group = OC / (IC / KC);
    win.for_each_pixel::<N, IH, IW, OH, OW, KH, KW>(|Pixel { b, y0, x0, ys, xs, index, .. }| {
        let out_base = index * OC;
        for oc in 0..OC {
            let group = oc / filters_per_group;
            let mut acc = Q::ZERO;
            for ky in ys.clone() {
                let iy = (y0 + (ky * win.dilation_h) as isize) as usize;
                for kx in xs.clone() {
                    let ix = (x0 + (kx * win.dilation_w) as isize) as usize;
                    let in_base = ((b * IH + iy) * IW + ix) * IC + group * KC;
                    let f_base = ((oc * KH + ky) * KW + kx) * KC;
                    let fs = filter.run(f_base, KC);
                    if core::mem::size_of::<Acc>() > 4 {
                        // 64-bit sums: a loop the compiler keeps rolled
                        // (a run of them unrolls into 1-2 KB of flash).
                        for (c, f) in fs.enumerate() {
                            acc = q.mac(acc, f, io.get(in_base + c));
                        }
                    } else {
                        for (&i, f) in io.run(in_base, KC).iter().zip(fs) {
                            acc = q.mac(acc, f, i);
                        }
                    }
                }
            }
            io.put(out_base + oc, q.output(acc, bias, oc));
        }
    });
}

/// 16x8 convolution (int16 activations, int8 filter, no zero points), ungrouped:
/// per output pixel its window gathered into `patch` (zero outside the
/// input; a 1x1 window without top or left padding is read in place),
/// then one pass over the filter's rows as the model stores them (OHWI: a
/// row of `KH * KW * IC` bytes per output channel), four rows per input
/// load (`int16::dots16_down`: 32-bit runs of products added into the
/// accumulator `A`, so TFLite's int64 or int32 sums exactly). Same bits as
/// [`conv2d`] with [`super::int16::Requant16`].
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn conv2d_im2col_16x8<
    A: super::int16::Acc16,
    const N: usize,
    const IH: usize,
    const IW: usize,
    const IC: usize,
    const OH: usize,
    const OW: usize,
    const OC: usize,
    const KH: usize,
    const KW: usize,
    IO: Io<i16>,
>(
    mut io: IO,
    filter: &[i8],
    bias: Option<&[A]>,
    win: &Window,
    q: &super::int16::Requant16<'_>,
    patch: &mut [i16],
) {
    let depth = const { KH * KW * IC };
    let filter = &filter[..OC * depth];
    let in_place = tinyaot_common::scratch::im2col_in_place(KH, KW, win.pad_top != 0 || win.pad_left != 0);
    win.for_each_pixel::<N, IH, IW, OH, OW, KH, KW>(|px| {
        let pixel = px.first_tap::<IH, IW, IC>();
        let out = px.index * OC..(px.index + 1) * OC;
        if in_place {
            let (x, out) = io.split(pixel..pixel + IC, out);
            super::int16::dots16_down(x, filter, depth, bias, q, out);
        } else {
            let patch = &mut patch[..depth];
            gather_window::<_, IH, IW, IC, KH, KW>(&io, &px, win, patch);
            super::int16::dots16_down(patch, filter, depth, bias, q, io.out_run(out.start, OC));
        }
    });
}

/// The `KH * KW * IC` values of one output pixel's window into `patch`, in
/// the filter's order, zero where the window reaches outside the input:
/// whole window rows as one copy where they are inside.
#[inline(always)]
fn gather_window<
    T: Copy + Default,
    const IH: usize,
    const IW: usize,
    const IC: usize,
    const KH: usize,
    const KW: usize,
>(
    io: &impl Io<T>,
    px: &Pixel,
    win: &Window,
    patch: &mut [T],
) {
    for (ky, dst) in patch.chunks_exact_mut(KW * IC).enumerate() {
        if !px.ys.contains(&ky) {
            dst.fill(T::default());
            continue;
        }
        let iy = (px.y0 + (ky * win.dilation_h) as isize) as usize;
        let row = (px.b * IH + iy) * IW;
        if win.dilation_w == 1 && px.xs.len() == KW {
            dst.copy_from_slice(io.run((row + px.x0 as usize) * IC, KW * IC));
            continue;
        }
        for (kx, tap) in dst.chunks_exact_mut(IC).enumerate() {
            if px.xs.contains(&kx) {
                let ix = (px.x0 + (kx * win.dilation_w) as isize) as usize;
                tap.copy_from_slice(io.run((row + ix) * IC, IC));
            } else {
                tap.fill(T::default());
            }
        }
    }
}

/// float32 convolution over a filter transposed at compile time
/// (`layout::pack_f32_oc`): every output sums its products in TFLite's order
/// (row, column, input channel, then the bias), but 8 (or 4) outputs run
/// side by side, so the sums are independent chains a compiler vectorizes
/// instead of one serial chain per output. Same bits as [`conv2d`].
/// Ungrouped filters only.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn conv2d_f32_oc<
    const N: usize,
    const IH: usize,
    const IW: usize,
    const IC: usize,
    const OH: usize,
    const OW: usize,
    const OC: usize,
    const KH: usize,
    const KW: usize,
    IO: Io<f32>,
>(
    mut io: IO,
    packed: &[f32],
    bias: Option<&[f32]>,
    win: &Window,
    act_min: f32,
    act_max: f32,
) {
    let padded = OC.div_ceil(4) * 4;
    let packed = &packed[..padded * KH * KW * IC];
    if arch::F32_WINDOW_LOOPS
        && KH == 1
        && KW == 1
        && IH == OH
        && IW == OW
        && IC >= 2
        && OC.is_multiple_of(8)
        && win.pad_top == 0
        && win.pad_left == 0
    {
        // Pointwise (unit strides, as the equal sizes imply): output
        // pixel i is input pixel i times the filter, with no window setup.
        for pixel in 0..N * OH * OW {
            for c0 in (0..OC).step_by(8) {
                let mut sums = [0.0f32; 8];
                arch::mac_window8::<1, IC>(
                    io.run(pixel * IC, IC),
                    &packed[c0 * IC..(c0 + 8) * IC],
                    0,
                    (1, 1),
                    &mut sums,
                );
                super::finish_f32(
                    io.out_run(pixel * OC + c0, 8),
                    &sums,
                    bias.map(|b| &b[c0..c0 + 8]),
                    act_min,
                    act_max,
                );
            }
        }
        return;
    }
    win.for_each_pixel::<N, IH, IW, OH, OW, KH, KW>(|Pixel { b, y0, x0, ys, xs, index, .. }| {
        let out_base = index * OC;
        let mut c0 = 0;
        while c0 < OC {
            let lanes = super::layout::f32_block(OC, c0);
            let w = &packed[c0 * KH * KW * IC..(c0 + lanes) * KH * KW * IC];
            let at = |ky: usize, kx: usize| {
                let iy = (y0 + (ky * win.dilation_h) as isize) as usize;
                let ix = (x0 + (kx * win.dilation_w) as isize) as usize;
                ((b * IH + iy) * IW + ix) * IC
            };
            let mut sums = [0.0f32; 8];
            let block = IC >= 2 && win.dilation_w == 1 && !ys.is_empty() && !xs.is_empty();
            if arch::F32_WINDOW_LOOPS && lanes == 8 && block {
                // The window's taps inside the image (all of them away
                // from the edges): one assembly loop (`arch::mac_window8`).
                let first = at(ys.start, xs.start);
                let window = io.run(first, at(ys.end - 1, xs.end - 1) + IC - first);
                let taps = &w[(ys.start * KW + xs.start) * IC * 8..];
                let row_step = 4 * win.dilation_h * IW * IC;
                arch::mac_window8::<KW, IC>(window, taps, row_step, (ys.len(), xs.len()), &mut sums);
            } else if lanes == 8 {
                f32_block::<8, KW, IC, _>(&io, w, ys.clone(), xs.clone(), at, &mut sums);
            } else {
                let mut four = [0.0f32; 4];
                f32_block::<4, KW, IC, _>(&io, w, ys.clone(), xs.clone(), at, &mut four);
                sums[..4].copy_from_slice(&four);
            }
            let n = lanes.min(OC - c0);
            super::finish_f32(io.out_run(out_base + c0, n), &sums, bias.map(|b| &b[c0..c0 + n]), act_min, act_max);
            c0 += lanes;
        }
    });
}

/// One block of `L` output channels of [`conv2d_f32_oc`]: the sums over
/// the valid taps (rows `ys`, columns `xs`; `at` gives a tap's input
/// offset) and input channels, in TFLite's order.
#[inline(always)]
fn f32_block<const L: usize, const KW: usize, const IC: usize, IO: Io<f32>>(
    io: &IO,
    w: &[f32],
    ys: core::ops::Range<usize>,
    xs: core::ops::Range<usize>,
    at: impl Fn(usize, usize) -> usize,
    sums: &mut [f32; L],
) {
    for ky in ys {
        for kx in xs.clone() {
            let x = io.run(at(ky, kx), IC);
            let wt = &w[(ky * KW + kx) * IC * L..][..IC * L];
            if L == 8 && IC >= 4 {
                let lanes: &mut [f32; 8] = (&mut sums[..]).try_into().unwrap_or_else(|_| unreachable!());
                arch::mac_lanes8(x, wt, lanes);
                continue;
            }
            for (&xv, wl) in x.iter().zip(wt.chunks_exact(L)) {
                for (s, &wv) in sums.iter_mut().zip(wl) {
                    *s += xv * wv;
                }
            }
        }
    }
}

/// int8 convolution through an im2col patch, one output pixel at a time:
/// the clipped input window is gathered once into `patch` (`KH * KW * IC`
/// bytes rounded up to a multiple of 4, of scratch; none for a 1x1 window
/// without padding, which reads the input pixel directly; positions
/// outside the image hold the input zero point, so they contribute exactly
/// zero), then the output channels are dot products of the patch with the
/// filter rows, four at a time ([`super::dot`]). `packed` is the filter
/// repacked at compile time in the layout the target family reads
/// (`layout::pack_rows`, widened, int4 or vector rows); `bias` already
/// holds `bias + input_offset * sum(filter row)`, so the arithmetic equals
/// [`conv2d`]'s to the bit. Ungrouped filters only. `FUSE`: the compiler's
/// choice of the fused requantization. The compiler calls this where its
/// plan has no pixel-pair form ([`conv2d_pairs_s8`],
/// [`conv2d_pointwise_pairs_s8`]) for the target family.
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
    const D4: usize,
    const FUSE: bool,
    IO: Io<i8>,
>(
    mut io: IO,
    packed: impl super::PackedRows,
    bias: &[i32],
    win: &Window,
    q: &Rescale<'_>,
    patch: &mut [i8],
) {
    // Opaque, so the biases are loaded (two to four per instruction)
    // rather than rebuilt from the constant array as immediates (two
    // instructions each).
    let bias = &core::hint::black_box(bias)[..OC];
    let pad = (-q.input_offset) as i8;
    let (pointwise, patch) = im2col_patch::<IC, KH, KW, D4>(win, patch);
    let mut acc = [0i32; super::dot::CHUNK];
    let mut pending = Pending::default();
    let batch = const { Pending::batch(OC) };
    // Fused requantization, chosen by the compiler (a constant, so only
    // one of the two paths is compiled into the kernel).
    let fused = if FUSE { fused_or_bug(q) } else { None };
    // Output pixels before this one are done (by a row of windows).
    let mut done = 0;
    win.for_each_pixel::<N, IH, IW, OH, OW, KH, KW>(|px| {
        if px.index < done {
            return;
        }
        let pixel = px.first_tap::<IH, IW, IC>();
        let Pixel { b, y0, x0, ys, xs, index, .. } = px;
        // The windows inside the image from this pixel to its row's last
        // such, read straight from the image rows where the rows' layout
        // has such a kernel (Helium's vector rows: rows of whole runs of
        // 16 values; the other layouts say no), no patch copied.
        if let (true, false, Some(scales)) = (FUSE, pointwise, fused)
            && win.dilation_w == 1
            && ys.len() == KH
            && xs.len() == KW
            && KH * KW * IC == D4
        {
            // The last column whose window ends inside: x0 + KW <= IW.
            let last = ((IW + win.pad_left - KW) / win.stride_w).min(OW - 1);
            let pixels = last + 1 - index % OW;
            let step = win.dilation_h * IW * IC;
            let out = index * OC..(index + 1) * OC;
            let stride = win.stride_w * IC;
            if packed.window_dots_down::<D4>(&mut io, pixel, pixels, stride, KH, step, out, bias, scales) {
                done = index + pixels;
                return;
            }
        }
        if !pointwise {
            fill_patch::<IH, IW, IC, KH, KW>(&io, pixel, (b, y0, x0), (ys, xs), win, pad, patch);
        }
        if let (true, Some(scales)) = (FUSE, fused) {
            // The common requantization: fused into the dot products, each
            // block of sums written out as soon as it is done (a pixel's
            // output never covers input it reads, in place too).
            if pointwise {
                let (x, out) = io.split(pixel..pixel + IC, index * OC..(index + 1) * OC);
                packed.dots_down::<IC>(x, 0, bias, scales, out);
            } else {
                packed.dots_down::<D4>(patch, 0, bias, scales, io.out_run(index * OC, OC));
            }
            return;
        }
        if batch > 1 {
            // Few channels: this pixel's sums join the pending ones and
            // are requantized `batch` pixels at a time.
            let at = pending.slot::<OC>(index, &acc, q, &mut io);
            let sums = &mut acc[at..at + OC];
            if pointwise {
                packed.dots::<IC>(io.run(pixel, IC), 0, bias, sums);
            } else {
                packed.dots::<D4>(patch, 0, bias, sums);
            }
            pending.push::<OC>(batch, &acc, q, &mut io);
            return;
        }
        let out_base = index * OC;
        for c0 in (0..OC).step_by(super::dot::CHUNK) {
            let n = (OC - c0).min(super::dot::CHUNK);
            let acc = &mut acc[..n];
            if pointwise {
                packed.dots::<IC>(io.run(pixel, IC), c0, &bias[c0..c0 + n], acc);
            } else {
                packed.dots::<D4>(patch, c0, &bias[c0..c0 + n], acc);
            }
            super::dot::requantize(acc, q, c0, io.out_run(out_base + c0, n));
        }
    });
    pending.flush::<OC>(&acc, q, &mut io);
}

/// [`conv2d_im2col_s8`] two output pixels at a time, on the targets with
/// pixel-pair dot products (`arch::DOT_PAIRS`; the compiler calls it only
/// for them): each pixel's row (the input pixel itself for a 1x1 window
/// without padding, else its window) is widened into its lane of the pair
/// buffer, then one pass over the weight rows gives both pixels' sums.
/// `LANES`: `rows` in the pair-row layout (`layout::pack_pair_rows`, the
/// requantization fused: `FUSE` then holds), else plain byte rows
/// (`layout::pack_rows`). `NUDGE` false: the compiler's word that the
/// output zero point is -128, so the fused pair kernels may skip the
/// rounding nudge of negative sums (`fixedpoint::rescale_down_unnudged`).
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn conv2d_pairs_s8<
    const N: usize,
    const IH: usize,
    const IW: usize,
    const IC: usize,
    const OH: usize,
    const OW: usize,
    const OC: usize,
    const KH: usize,
    const KW: usize,
    const D4: usize,
    const FUSE: bool,
    const LANES: bool,
    const NUDGE: bool,
    IO: Io<i8>,
>(
    io: IO,
    rows: &[i8],
    bias: &[i32],
    win: &Window,
    q: &Rescale<'_>,
    patch: &mut [i8],
) {
    const { assert!(FUSE || !LANES, "the pair-row layout's kernel requantizes fused") };
    // Opaque, as in `conv2d_im2col_s8`.
    let bias = &core::hint::black_box(bias)[..OC];
    let fused = if FUSE { fused_or_bug(q) } else { None };
    let pad = (-q.input_offset) as i8;
    let (pointwise, patch) = im2col_patch::<IC, KH, KW, D4>(win, patch);
    if pointwise {
        return by_pairs::<N, IH, IW, OH, OW, 1, 1, IC, OC, LANES, NUDGE, _>(
            io,
            rows,
            bias,
            win,
            q,
            fused,
            |io, px, lane, pair| {
                super::dot::widen_pair_lane::<LANES>(io.run(px.first_tap::<IH, IW, IC>(), IC), lane, pair)
            },
        );
    }
    let window_patch = |io: &IO, px: Pixel, patch: &mut [i8]| {
        let pixel = px.first_tap::<IH, IW, IC>();
        let Pixel { b, y0, x0, ys, xs, .. } = px;
        fill_patch::<IH, IW, IC, KH, KW>(io, pixel, (b, y0, x0), (ys, xs), win, pad, patch);
    };
    // A window inside the image whose rows are whole groups of 4 values
    // is widened into the pair-row layout straight from its rows of the
    // input (no patch copied first; rows of at least 16 values, as shorter
    // ones copy faster than their calls); others through the patch.
    let row_step = win.dilation_h * IW * IC;
    let by_rows = LANES && win.dilation_w == 1 && (KW * IC) & 3 == 0 && KW * IC >= 16;
    by_pairs::<N, IH, IW, OH, OW, KH, KW, D4, OC, LANES, NUDGE, _>(
        io,
        rows,
        bias,
        win,
        q,
        fused,
        |io, px, lane, pair| {
            if by_rows && px.ys.len() == KH && px.xs.len() == KW {
                let span = io.run(px.first_tap::<IH, IW, IC>(), (KH - 1) * row_step + KW * IC);
                super::dot::widen_pair_lane_rows::<true>(span, KH, KW * IC, row_step, lane, pair)
            } else {
                window_patch(io, px, patch);
                super::dot::widen_pair_lane::<LANES>(&patch[..D4], lane, pair)
            }
        },
    );
}

/// A dense pointwise layer (1x1, stride 1, no padding: input pixel `k` is
/// output pixel `k`, `PIXELS` of them) over rows in the pair-row layout
/// with the requantization fused, on the targets with pixel-pair dot
/// products: [`conv2d_pairs_s8`] without the windows' walk (one pair
/// loop instance per depth, `pointwise_pairs`).
#[inline(never)]
pub fn conv2d_pointwise_pairs_s8<
    const PIXELS: usize,
    const IC: usize,
    const OC: usize,
    const NUDGE: bool,
    IO: Io<i8>,
>(
    io: IO,
    rows: &[i8],
    bias: &[i32],
    q: &Rescale<'_>,
) {
    let Some(scales) = fused_or_bug(q) else { unreachable!() };
    // Opaque, as in `conv2d_im2col_s8`.
    let bias = &core::hint::black_box(bias)[..OC];
    // A last 2 or 1 rows after the blocks of 4.
    let tail = const { OC & 3 != 0 };
    let run = if tail { pointwise_pairs::<IC, NUDGE, true, _> } else { pointwise_pairs::<IC, NUDGE, false, _> };
    run(io, PIXELS, OC, rows, (bias, scales));
}

/// [`conv2d_im2col_s8`] two output pixels at a time over plain byte rows
/// (`layout::pack_rows`), on Thumb-2 cores without the DSP extension (the
/// byte-pairs family; the compiler calls it there, for fused
/// requantization): each pixel's row of `D4` values (its input pixel for a
/// 1x1 window without padding, else its window, gathered as the patch
/// is) copied into a buffer of its own on the stack, then one pass over
/// the weight rows gives both pixels' outputs ([`super::dot::dots_two_down`]).
/// Both rows are copies, so neither pixel's output can cover input still
/// to be read, in place too. An odd last pixel alone. Same bits as
/// [`conv2d_im2col_s8`].
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn conv2d_two_s8<
    const N: usize,
    const IH: usize,
    const IW: usize,
    const IC: usize,
    const OH: usize,
    const OW: usize,
    const OC: usize,
    const KH: usize,
    const KW: usize,
    const D4: usize,
    IO: Io<i8>,
>(
    mut io: IO,
    packed: &[i8],
    bias: &[i32],
    win: &Window,
    q: &Rescale<'_>,
) {
    let Some(scales) = fused_or_bug(q) else { unreachable!() };
    // Opaque, as in `conv2d_im2col_s8`.
    let bias = &core::hint::black_box(bias)[..OC];
    let pad = (-q.input_offset) as i8;
    let pointwise = reads_in_place::<IC, KH, KW, D4>(win);
    // The two pixels' rows, zero past `KH * KW * IC` (never written there).
    let mut rows = [[0i8; D4]; 2];
    let mut held: Option<usize> = None;
    win.for_each_pixel::<N, IH, IW, OH, OW, KH, KW>(|px| {
        let pixel = px.first_tap::<IH, IW, IC>();
        let row = &mut rows[held.is_some() as usize];
        if pointwise {
            row[..IC].copy_from_slice(io.run(pixel, IC));
        } else {
            let Pixel { b, y0, x0, ys, xs, .. } = px;
            fill_patch::<IH, IW, IC, KH, KW>(&io, pixel, (b, y0, x0), (ys, xs), win, pad, row);
        }
        let index = px.index;
        match held.take() {
            None => held = Some(index),
            Some(first) => {
                // Consecutive pixels: their outputs are one run.
                let (out_a, out_b) = io.out_run(first * OC, (index + 1 - first) * OC).split_at_mut(OC);
                let out_b = &mut out_b[(index - first - 1) * OC..];
                super::dot::dots_two_down::<D4>(&rows[0], &rows[1], packed, bias, scales, out_a, out_b);
            }
        }
    });
    if let Some(last) = held {
        super::dot::dots_down::<D4>(&rows[0], packed, bias, scales, io.out_run(last * OC, OC));
    }
}

/// The im2col kernels' patch: whether the window reads one input pixel in
/// place (a 1x1 window without padding: no patch, as
/// `scratch::conv_im2col` sized what the compiler gave), and the patch,
/// its tail past `KH * KW * IC` zeroed (the patch is padded to whole groups
/// of 4, the packed rows are zero there, so the dot products need no
/// partial last group). `D4`, the padded depth, is a constant of the
/// caller (one shared dot product instance per depth).
#[inline(always)]
fn im2col_patch<'p, const IC: usize, const KH: usize, const KW: usize, const D4: usize>(
    win: &Window,
    patch: &'p mut [i8],
) -> (bool, &'p mut [i8]) {
    let pointwise = reads_in_place::<IC, KH, KW, D4>(win);
    let padded = win.pad_top != 0 || win.pad_left != 0;
    let patch = &mut patch[..tinyaot_common::scratch::conv_im2col(KH, KW, IC, padded)];
    let used = (KH * KW * IC).min(patch.len());
    patch[used..].fill(0);
    (pointwise, patch)
}

/// Whether an im2col kernel reads each window in place (a 1x1 window
/// without top or left padding: `scratch::im2col_in_place`); checks that
/// `D4`, the caller's padded depth, is `depth4(KH * KW * IC)`.
#[inline(always)]
fn reads_in_place<const IC: usize, const KH: usize, const KW: usize, const D4: usize>(win: &Window) -> bool {
    assert!(D4 == super::layout::depth4(KH * KW * IC), "D4 must be depth4(KH * KW * IC)");
    tinyaot_common::scratch::im2col_in_place(KH, KW, win.pad_top != 0 || win.pad_left != 0)
}

/// [`conv2d_im2col_s8`] for a filter with a zero point (a uint8 model's,
/// the `WeightOffset` arithmetic of [`conv2d`]): over a window,
/// `sum (w + wo)(x + xo) = sum w (x + xo) + wo * sum (x + xo)`, so each
/// pixel's sums are the plain filter's (the packed int8 rows, the input
/// offset folded into `bias` as there) plus `wo` times its window's sum of
/// `x + xo` (padding, filled with the zero point, adds nothing): the
/// pixel's biases, a chunk of channels at a time. One pixel at a time;
/// `FUSE` (the compiler's choice, as for [`conv2d_im2col_s8`]) requantizes
/// each block of sums from registers. Same bits as [`conv2d`] with
/// `WeightOffset`.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn conv2d_im2col_offset_s8<
    const N: usize,
    const IH: usize,
    const IW: usize,
    const IC: usize,
    const OH: usize,
    const OW: usize,
    const OC: usize,
    const KH: usize,
    const KW: usize,
    const D4: usize,
    const FUSE: bool,
    IO: Io<i8>,
>(
    mut io: IO,
    packed: impl super::PackedRows,
    bias: &[i32],
    win: &Window,
    q: &Rescale<'_>,
    weight_offset: i32,
    patch: &mut [i8],
) {
    let depth = KH * KW * IC;
    let bias = &bias[..OC];
    let pad = (-q.input_offset) as i8;
    let (pointwise, patch) = im2col_patch::<IC, KH, KW, D4>(win, patch);
    let mut acc = [0i32; super::dot::CHUNK];
    let mut pixel_bias = [0i32; super::dot::CHUNK];
    let fused = if FUSE { fused_or_bug(q) } else { None };
    let window_sum = |x: &[i8]| {
        let raw = x.iter().fold(0i32, |s, &v| s.wrapping_add(v as i32));
        raw.wrapping_add((depth as i32).wrapping_mul(q.input_offset))
    };
    win.for_each_pixel::<N, IH, IW, OH, OW, KH, KW>(|px| {
        let pixel = px.first_tap::<IH, IW, IC>();
        let Pixel { b, y0, x0, ys, xs, index, .. } = px;
        if !pointwise {
            fill_patch::<IH, IW, IC, KH, KW>(&io, pixel, (b, y0, x0), (ys, xs), win, pad, patch);
        }
        let offset = weight_offset.wrapping_mul(if pointwise {
            window_sum(io.run(pixel, IC))
        } else {
            window_sum(&patch[..depth])
        });
        for c0 in (0..OC).step_by(super::dot::CHUNK) {
            let n = (OC - c0).min(super::dot::CHUNK);
            let pixel_bias = &mut pixel_bias[..n];
            for (b, &c) in pixel_bias.iter_mut().zip(&bias[c0..c0 + n]) {
                *b = c.wrapping_add(offset);
            }
            let out = index * OC + c0..index * OC + c0 + n;
            match fused {
                Some(scales) if pointwise => {
                    let (x, out) = io.split(pixel..pixel + IC, out);
                    packed.dots_down::<IC>(x, c0, pixel_bias, &scales[c0..], out);
                }
                Some(scales) => packed.dots_down::<D4>(patch, c0, pixel_bias, &scales[c0..], io.out_run(out.start, n)),
                None => {
                    let acc = &mut acc[..n];
                    if pointwise {
                        packed.dots::<IC>(io.run(pixel, IC), c0, pixel_bias, acc);
                    } else {
                        packed.dots::<D4>(patch, c0, pixel_bias, acc);
                    }
                    super::dot::requantize(acc, q, c0, io.out_run(out.start, n));
                }
            }
        }
    });
}

/// The pair loop of [`conv2d_pairs_s8`] (`arch::DOT_PAIRS`): `widen`
/// copies each pixel's row (the input pixel itself for a 1x1 window without
/// padding, its patch otherwise, `DEPTH` values) into its lane of the pair
/// buffer as the pixel comes, the first held until the second is there.
/// Every output is written after its pixel's row was copied, so in place is
/// safe.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn by_pairs<
    const N: usize,
    const IH: usize,
    const IW: usize,
    const OH: usize,
    const OW: usize,
    const KH: usize,
    const KW: usize,
    const DEPTH: usize,
    const OC: usize,
    const LANES: bool,
    const NUDGE: bool,
    IO: Io<i8>,
>(
    mut io: IO,
    rows: &[i8],
    bias: &[i32],
    win: &Window,
    q: &Rescale<'_>,
    fused: Option<&[super::DownScale]>,
    mut widen: impl FnMut(&IO, Pixel, usize, &mut [u32]),
) {
    let mut storage = core::mem::MaybeUninit::uninit();
    let pair = pair_buffer::<DEPTH, LANES>(&mut storage);
    // The pairs' sums: one buffer for the whole layer (zeroed once, not
    // per pair: 512 bytes, 4% of a DS-CNN's instructions when it was).
    let mut acc = [0i32; 2 * super::dot::CHUNK];
    let mut held: Option<usize> = None;
    win.for_each_pixel::<N, IH, IW, OH, OW, KH, KW>(|px| {
        let index = px.index;
        widen(&io, px, held.is_some() as usize, pair);
        match held.take() {
            None => held = Some(index),
            Some(first) => {
                pair_outputs::<DEPTH, OC, LANES, NUDGE>(pair, rows, bias, q, fused, [first, index], &mut acc, &mut io)
            }
        }
    });
    if let Some(last) = held {
        // An odd pixel count: the last pixel in both lanes, written once.
        let d4 = super::layout::depth4(DEPTH).min(super::dot::PAIR_WORDS);
        for g in pair[..d4].chunks_exact_mut(4) {
            (g[2], g[3]) = (g[0], g[1]);
        }
        if LANES {
            pair[d4 + 1] = pair[d4];
        }
        pair_outputs::<DEPTH, OC, LANES, NUDGE>(pair, rows, bias, q, fused, [last, last], &mut acc, &mut io);
    }
}

/// The pair buffer of [`by_pairs`] for rows of `DEPTH` values (with
/// `LANES`, the pixels' input sums after the groups) in `storage` (up to
/// 2.3 KB of stack on DSP cores): only the words used are initialized
/// (zeroing all of it cost ~0.2% on models with short rows).
#[inline(always)]
fn pair_buffer<const DEPTH: usize, const LANES: bool>(
    storage: &mut core::mem::MaybeUninit<[u32; super::dot::PAIR_WORDS + 2]>,
) -> &mut [u32] {
    let words = super::layout::depth4(DEPTH).min(super::dot::PAIR_WORDS) + 2 * LANES as usize;
    // SAFETY: `words` u32s fit in `storage` (at most `PAIR_WORDS + 2`);
    // they are zeroed before the slice over them exists, and the slice
    // borrows `storage` for its whole use.
    unsafe {
        let first = storage.as_mut_ptr().cast::<u32>();
        core::ptr::write_bytes(first, 0, words);
        core::slice::from_raw_parts_mut(first, words)
    }
}

/// A dense pointwise layer (1x1, stride 1, no padding: input pixel `k` is
/// output pixel `k`, `pixels` of them) over rows in the pair-row layout
/// with the requantization fused: [`by_pairs`] without the windows' walk
/// and with the pair kernel inlined, one instance per depth (`oc` is not
/// a constant; `TAIL`: whether it has a last 2 or 1 rows after its blocks
/// of 4): the walk and the call cost more than an 8-value row's
/// multiplies. Each pair's outputs are written after both its pixels were
/// widened, so in place is safe as there.
#[inline(never)]
fn pointwise_pairs<const IC: usize, const NUDGE: bool, const TAIL: bool, IO: Io<i8>>(
    mut io: IO,
    pixels: usize,
    oc: usize,
    rows: &[i8],
    (bias, scales): (&[i32], &[super::DownScale]),
) {
    // Opaque, so that a layer of few pixels does not get the loop (and
    // the pair kernel's code in it) unrolled.
    let pixels = core::hint::black_box(pixels);
    let mut storage = core::mem::MaybeUninit::uninit();
    let pair = pair_buffer::<IC, true>(&mut storage);
    let rows = &rows[..oc * super::layout::depth4(IC)];
    for k in (0..pixels.div_ceil(2)).map(|p| 2 * p) {
        // The odd last pixel in both lanes, its outputs written twice.
        let (next, second) = if k + 1 < pixels { (IC, oc) } else { (0, 0) };
        let x = io.run(k * IC, IC + next);
        super::dot::widen_pair_lane::<true>(&x[..IC], 0, pair);
        super::dot::widen_pair_lane::<true>(&x[next..next + IC], 1, pair);
        let out = io.out_run(k * oc, second + oc);
        super::dot::pair_lanes_down::<IC, NUDGE, TAIL>(pair, rows, (bias, scales), out, second, oc);
    }
}

/// Fills the first `KH * KW * IC` bytes of `patch` with the window of one
/// output pixel (`b`, `y0`, `x0`, `ys`, `xs` as in [`Pixel`]; `pixel` the
/// input offset of its first tap inside the image), the zero point `pad`
/// where it reaches outside the input.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn fill_patch<const IH: usize, const IW: usize, const IC: usize, const KH: usize, const KW: usize>(
    io: &impl Io<i8>,
    pixel: usize,
    (b, y0, x0): (usize, isize, isize),
    (ys, xs): (core::ops::Range<usize>, core::ops::Range<usize>),
    win: &Window,
    pad: i8,
    patch: &mut [i8],
) {
    let inside = ys.len() == KH && xs.len() == KW && win.dilation_w == 1;
    if inside {
        // The whole window inside the image: its rows from one run of
        // the input, fixed steps apart (one bounds check for all).
        let row_step = win.dilation_h * IW * IC;
        let span = io.run(pixel, (KH - 1) * row_step + KW * IC);
        for (ky, dst) in patch[..KH * KW * IC].chunks_exact_mut(KW * IC).enumerate() {
            copy_row(dst, &span[ky * row_step..ky * row_step + KW * IC]);
        }
    }
    for ky in 0..KH {
        if inside {
            break;
        }
        let iy = y0 + (ky * win.dilation_h) as isize;
        let row_in = iy >= 0 && (iy as usize) < IH;
        let dst = &mut patch[ky * KW * IC..(ky + 1) * KW * IC];
        if row_in && win.dilation_w == 1 && xs.len() == KW {
            // The whole window row is inside: one contiguous run.
            let src = ((b * IH + iy as usize) * IW + x0 as usize) * IC;
            copy_row(dst, io.run(src, KW * IC));
            continue;
        }
        if row_in && win.dilation_w == 1 && KW * IC <= 4 && KW <= IW && !xs.is_empty() {
            // A row of at most 4 bytes clipped on one side (a window
            // no wider than the image never is on both): the 4 bytes
            // at that edge of the input row in one word, shifted by the
            // clipped bytes, zero points shifted in. (Rows of 5 to 8
            // bytes in a 64-bit word were slower on Cortex-M4 than the
            // copies below: its variable 64-bit shifts take several
            // instructions each.)
            let row = (b * IH + iy as usize) * IW * IC;
            clipped_row(&mut dst[..KW * IC], io.run(row, IW * IC), x0 * IC as isize, pad);
            continue;
        }
        if row_in && win.dilation_w == 1 && KW * IC <= 16 {
            // A short row clipped by an edge: the zero point, then the
            // inside run by a copy of constant length (one per length:
            // no library call, no per-tap branches).
            dst[..KW * IC].fill(pad);
            if !xs.is_empty() {
                let (first, end) = (xs.start * IC, xs.end * IC);
                let src = ((b * IH + iy as usize) * IW + (x0 + xs.start as isize) as usize) * IC;
                copy_upto16(&mut dst[first..end], io.run(src, end - first));
            }
            continue;
        }
        for kx in 0..KW {
            let ix = x0 + (kx * win.dilation_w) as isize;
            let dst = &mut dst[kx * IC..(kx + 1) * IC];
            if row_in && ix >= 0 && (ix as usize) < IW {
                let src = ((b * IH + iy as usize) * IW + ix as usize) * IC;
                dst.copy_from_slice(io.run(src, IC));
            } else {
                dst.fill(pad);
            }
        }
    }
}

/// The outputs of the two pixels in `pair` (output pixels `index`; the
/// same one twice for a lone last pixel), `CHUNK` channels at a time.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn pair_outputs<const DEPTH: usize, const OC: usize, const LANES: bool, const NUDGE: bool>(
    pair: &[u32],
    rows: &[i8],
    bias: &[i32],
    q: &Rescale<'_>,
    fused: Option<&[super::DownScale]>,
    index: [usize; 2],
    acc: &mut [i32; 2 * super::dot::CHUNK],
    io: &mut impl Io<i8>,
) {
    let d4 = super::layout::depth4(DEPTH);
    if let Some(scales) = fused {
        // The common requantization: straight from the sums' registers.
        let rows = &rows[..OC * d4];
        if LANES {
            // Pairs are neighbours, or the odd last pixel in both lanes.
            let second = (index[1] - index[0]) * OC;
            let out = io.out_run(index[0] * OC, second + OC);
            return super::dot::dots_pair_lanes_down::<DEPTH, NUDGE>(pair, rows, bias, scales, out, second, OC);
        }
        if index[1] == index[0] + 1 {
            let (a, b) = io.out_run(index[0] * OC, 2 * OC).split_at_mut(OC);
            super::dot::dots_pair_down::<DEPTH, NUDGE>(pair, rows, bias, scales, a, b);
        } else {
            // The odd last pixel in both lanes (pairs are neighbours
            // otherwise): its second copy goes to a spare row, so no
            // other instance of the pair loops is needed.
            debug_assert_eq!(index[0], index[1]);
            let mut spare = [0i8; OC];
            super::dot::dots_pair_down::<DEPTH, NUDGE>(
                pair,
                rows,
                bias,
                scales,
                io.out_run(index[0] * OC, OC),
                &mut spare,
            );
        }
        return;
    }
    for c0 in (0..OC).step_by(super::dot::CHUNK) {
        let n = (OC - c0).min(super::dot::CHUNK);
        let (a, b) = acc[..2 * n].split_at_mut(n);
        super::dot::dots_pair::<DEPTH>(pair, &rows[c0 * d4..(c0 + n) * d4], &bias[c0..c0 + n], a, b);
        if n == OC && index[1] == index[0] + 1 {
            // Neighbouring pixels, all channels: one requantization call.
            super::dot::requantize_pixels(&acc[..2 * n], q, 0, OC, io.out_run(index[0] * OC, 2 * OC));
        } else {
            super::dot::requantize(a, q, c0, io.out_run(index[0] * OC + c0, n));
            if index[1] != index[0] {
                super::dot::requantize(b, q, c0, io.out_run(index[1] * OC + c0, n));
            }
        }
    }
}

/// The fused scales of a kernel the compiler told to fuse (`FUSE`): it
/// does so only for the short form over the whole int8 range, so the
/// other case is a compiler bug.
#[inline(always)]
pub(crate) fn fused_or_bug<'a>(q: &Rescale<'a>) -> Option<&'a [super::DownScale]> {
    match super::dot::fused_scales(q) {
        Some(s) => Some(s),
        None => unreachable!("fused requantization needs short-form scales and the whole int8 range"),
    }
}

/// Fills `dst` (at most 4 bytes) with bytes `start..start + dst.len()`
/// of `row` (which is at least as long) where they exist, `pad` where
/// `start` reaches before or past it (on one side only): one word load of
/// the bytes at that edge of the row, shifted, zero points or'ed in.
#[inline(always)]
fn clipped_row(dst: &mut [i8], row: &[i8], start: isize, pad: i8) {
    let n = dst.len();
    assert!(n <= 4 && n <= row.len());
    let fill = u32::from_le_bytes([pad as u8; 4]);
    // The low `bytes` bytes of a word (`bytes < 4`).
    let low = |bytes: usize| (1u32 << (8 * bytes)) - 1;
    let mut word = [0u8; 4];
    let (at, left) = if start < 0 { (0, true) } else { (row.len() - n, false) };
    for (w, &b) in word.iter_mut().zip(&row[at..at + n]) {
        *w = b as u8;
    }
    let v = u32::from_le_bytes(word);
    let v = if left {
        let k = start.unsigned_abs();
        (v << (8 * k)) | (fill & low(k))
    } else {
        let k = start as usize + n - row.len();
        let n_mask = if n == 4 { u32::MAX } else { low(n) };
        (v >> (8 * k)) | (fill & n_mask & !low(n - k))
    };
    for (d, b) in dst.iter_mut().zip(v.to_le_bytes()) {
        *d = b as i8;
    }
}

/// Output pixels whose sums wait in a kernel's accumulator buffer for one
/// requantization call: `len` consecutive pixels from `first`, all
/// channels of each, in order. Writing an output later than its pixel
/// never breaks the in-place order, which only bounds how early outputs
/// may be written.
#[derive(Default)]
pub(crate) struct Pending {
    pub first: usize,
    pub len: usize,
}

impl Pending {
    /// Pixels per requantization call for `channels` channels: as many as
    /// the buffer holds (1 when a pixel needs the buffer alone).
    pub const fn batch(channels: usize) -> usize {
        tinyaot_common::scratch::pending_pixels(channels)
    }

    /// Where pixel `index`'s sums go in the buffer: after the pending
    /// ones, which are written out first if `index` does not continue them.
    #[inline(always)]
    pub fn slot<const C: usize>(&mut self, index: usize, acc: &[i32], q: &Rescale<'_>, io: &mut impl Io<i8>) -> usize {
        if self.len > 0 && index != self.first + self.len {
            self.flush::<C>(acc, q, io);
        }
        if self.len == 0 {
            self.first = index;
        }
        self.len * C
    }

    /// Counts the pixel whose sums were just put in its [`Pending::slot`];
    /// writes the pending pixels out once there are `batch` of them.
    #[inline(always)]
    pub fn push<const C: usize>(&mut self, batch: usize, acc: &[i32], q: &Rescale<'_>, io: &mut impl Io<i8>) {
        self.len += 1;
        if self.len == batch {
            self.flush::<C>(acc, q, io);
        }
    }

    /// Requantizes and writes the pending pixels (`C` channels each).
    #[inline(always)]
    pub fn flush<const C: usize>(&mut self, acc: &[i32], q: &Rescale<'_>, io: &mut impl Io<i8>) {
        if self.len > 0 {
            let n = self.len * C;
            super::dot::requantize_pixels(&acc[..n], q, 0, C, io.out_run(self.first * C, n));
            self.len = 0;
        }
    }
}

/// `dst[..src.len()].copy_from_slice(src)` for a patch row, whose length
/// is a constant after inlining: up to 32 bytes as one or two copies of
/// constant length the compiler does inline, longer rows by words (a
/// library `memcpy` call costs more than these few bytes).
#[inline(always)]
fn copy_row(dst: &mut [i8], src: &[i8]) {
    let dst = &mut dst[..src.len()];
    if src.len() <= 16 {
        copy_upto16(dst, src);
    } else if src.len() <= 32 {
        let (d0, d1) = dst.split_at_mut(16);
        d0.copy_from_slice(&src[..16]);
        copy_upto16(d1, &src[16..]);
    } else {
        copy_small(dst, src);
    }
}

/// `dst.copy_from_slice(src)` for runs of at most 16 bytes: one arm per
/// length, each a copy of constant length the compiler does inline.
#[inline(always)]
fn copy_upto16(dst: &mut [i8], src: &[i8]) {
    macro_rules! by_length {
        ($($n:literal)*) => {
            match src.len() {
                $($n => dst[..$n].copy_from_slice(&src[..$n]),)*
                _ => dst.copy_from_slice(src),
            }
        };
    }
    by_length!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
}

/// `dst.copy_from_slice(src)` for the short runs of a patch gather, by
/// words: a library `memcpy` call costs more than these few bytes.
#[inline(always)]
fn copy_small(dst: &mut [i8], src: &[i8]) {
    let (dst, src) = (&mut dst[..src.len()], src);
    let mut d = dst.chunks_exact_mut(4);
    let mut s = src.chunks_exact(4);
    for (d, s) in (&mut d).zip(&mut s) {
        let w = u32::from_ne_bytes([s[0] as u8, s[1] as u8, s[2] as u8, s[3] as u8]);
        for (o, b) in d.iter_mut().zip(core::hint::black_box(w).to_ne_bytes()) {
            *o = b as i8;
        }
    }
    for (o, &v) in d.into_remainder().iter_mut().zip(s.remainder()) {
        *o = v;
    }
}
