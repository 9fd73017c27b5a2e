//! DEPTHWISE_CONV_2D, NHWC input, 1HW(IC*M) filter, depth multiplier `M`.

use super::conv::{Pending, Pixel, Window};
use super::{Arithmetic, Filter, Io, Rescale, finish_f32};
use crate::arch;

/// Output channels accumulated together (a stack block of i32).
const BLOCK: usize = 32;

/// Depthwise convolution in any [`Arithmetic`] (int8, 16x8, float32:
/// TFLite `reference_integer_ops::DepthwiseConvPerChannel` and
/// `reference_ops::DepthwiseConv`). Channels are accumulated in blocks
/// across each window (32-bit sums), so the inner loop walks contiguous
/// channels of the input and filter; each channel still sums its taps in
/// TFLite's order. `filter`: the model's values, or its int4 nibbles
/// (`dot_int4::Int4Filter`). 16x8 layers take the block loop too, over
/// [`super::int16::Sums16`] (32-bit sums added into the int64 accumulator).
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn depthwise<
    Acc: Copy,
    Q: Arithmetic<Acc>,
    const N: usize,
    const IH: usize,
    const IW: usize,
    const IC: usize,
    const OH: usize,
    const OW: usize,
    const M: usize,
    const KH: usize,
    const KW: usize,
    IO: Io<Q::Input, Q::Output>,
>(
    mut io: IO,
    filter: impl Filter<Q::Weight>,
    bias: Option<&[Acc]>,
    win: &Window,
    q: &Q,
) {
    let oc_total = IC * M;
    win.for_each_pixel::<N, IH, IW, OH, OW, KH, KW>(|Pixel { b, y0, x0, ys, xs, index, .. }| {
        let out_base = index * oc_total;
        if core::mem::size_of::<Acc>() > 4 {
            // 64-bit sums (16x8 with an int64 bias): one channel at a
            // time; a block of them costs 1-2 KB of flash per instance.
            for oc in 0..oc_total {
                let mut acc = Q::ZERO;
                for ky in ys.clone() {
                    let iy = (y0 + (ky * win.dilation_h) as isize) as usize;
                    for kx in xs.clone() {
                        let ix = (x0 + (kx * win.dilation_w) as isize) as usize;
                        let x = io.get(((b * IH + iy) * IW + ix) * IC + oc / M);
                        acc = q.mac(acc, filter.at((ky * KW + kx) * oc_total + oc), x);
                    }
                }
                io.put(out_base + oc, q.output(acc, bias, oc));
            }
            return;
        }
        // With a multiplier of at most `BLOCK`, blocks of whole input
        // channels (a multiple of M output channels): each input value is
        // read once for its M outputs.
        let step = if M <= BLOCK { BLOCK / M * M } else { BLOCK };
        let mut c0 = 0;
        while c0 < oc_total {
            let len = step.min(oc_total - c0);
            let mut acc = [Q::ZERO; BLOCK];
            for ky in ys.clone() {
                let iy = (y0 + (ky * win.dilation_h) as isize) as usize;
                for kx in xs.clone() {
                    let ix = (x0 + (kx * win.dilation_w) as isize) as usize;
                    let in_base = ((b * IH + iy) * IW + ix) * IC;
                    let taps = filter.run((ky * KW + kx) * oc_total + c0, len);
                    if M == 1 {
                        for ((a, f), &x) in acc[..len].iter_mut().zip(taps).zip(io.run(in_base + c0, len)) {
                            *a = q.mac(*a, f, x);
                        }
                    } else if M <= BLOCK {
                        let mut taps = taps;
                        let xs = io.run(in_base + c0 / M, len / M);
                        for (outputs, &x) in acc[..len].chunks_exact_mut(M).zip(xs) {
                            for (a, f) in outputs.iter_mut().zip(&mut taps) {
                                *a = q.mac(*a, f, x);
                            }
                        }
                    } else {
                        for (k, (a, f)) in acc[..len].iter_mut().zip(taps).enumerate() {
                            *a = q.mac(*a, f, io.get(in_base + (c0 + k) / M));
                        }
                    }
                }
            }
            for (k, &a) in acc[..len].iter().enumerate() {
                io.put(out_base + c0 + k, q.output(a, bias, c0 + k));
            }
            c0 += len;
        }
    });
}

/// int8 depthwise convolution with depth multiplier 1, the fast path.
/// `packed` is the filter repacked at compile time
/// (`layout::pack_depthwise`: groups of 4 channels, per tap two words of
/// 16-bit pairs) and `bias` holds `bias + input_offset * sum(all taps)`
/// per channel: a tap outside the image then contributes `zero_point *
/// w`, which that folded term cancels, so every tap is handled alike and
/// the sums equal TFLite's (which skips outside taps) exactly. Per group
/// of 4 channels and tap: one input word, two `SXTB16` and four 16-bit
/// multiply-accumulates (`SMLABB`/`SMLATT` on DSP cores). With `INT4`,
/// `packed` is `layout::pack_depthwise_int4` (int4 filters kept at half
/// a byte per weight, a word per group and pair of taps), same sums.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn depthwise_m1_s8<
    const N: usize,
    const IH: usize,
    const IW: usize,
    const C: usize,
    const OH: usize,
    const OW: usize,
    const KH: usize,
    const KW: usize,
    const FUSE: bool,
    const INT4: bool,
    IO: Io<i8>,
>(
    mut io: IO,
    packed: &[u32],
    bias: &[i32],
    win: &Window,
    q: &Rescale<'_>,
) {
    let taps = KH * KW;
    // Words per group of 4 channels.
    let group = if INT4 { taps.div_ceil(2) } else { 2 * taps };
    let packed = &packed[..C.div_ceil(4) * group];
    // Opaque, so the biases are loaded (two to four per instruction)
    // rather than rebuilt from the constant array as immediates (two
    // instructions each).
    let bias = &core::hint::black_box(bias)[..C];
    let zp = (-q.input_offset) as i8;
    // The taps outside the image read this row of zero points: their
    // products `zero_point * w` are what the folded bias cancels.
    let zp_row = [zp; C];
    let mut acc_buf = [0i32; super::dot::CHUNK];
    // Few channels: several pixels' sums per requantization call.
    let mut pending = Pending::default();
    let batch = const { Pending::batch(C) };
    // Fused requantization, chosen by the compiler (a constant, so only
    // one of the two paths is compiled into the kernel).
    let fused = if FUSE { super::conv::fused_or_bug(q) } else { None };
    let (row_step, tap_step) = (win.dilation_h * IW * C, win.dilation_w * C);
    // Whole groups of 4 channels, then a partial one.
    let full = C / 4 * 4;
    let (whole, part) = packed.split_at(C / 4 * group);
    // Beyond 4 groups their count is made opaque to the optimizer: known,
    // it unrolls the group loop, a copy of the unrolled taps per group (6
    // KB of flash for 64 channels, for 4 instructions per group).
    let whole = if C > 16 { core::hint::black_box(whole) } else { whole };
    // The partial group's sums (channels `full..C`), its inputs padded
    // with the zero point.
    let partial = |rows: &[[&[i8; C]; KW]; KH]| {
        let mut acc = [0i32; 4];
        acc[..C - full].copy_from_slice(&bias[full..]);
        for (t, row) in rows.iter().flatten().enumerate() {
            let mut v = [zp as u8; 4];
            for (k, &x) in row[full..].iter().enumerate() {
                v[k] = x as u8;
            }
            let (w02, w13) = if INT4 {
                super::layout::int4_tap_lanes(part[t / 2], t % 2 == 1)
            } else {
                (part[2 * t], part[2 * t + 1])
            };
            acc = arch::mac4(acc, u32::from_le_bytes(v), w02, w13);
        }
        acc
    };
    // A group's sums over every tap.
    let taps4 = |rows: &[[&[i8; C]; KW]; KH], c0: usize, weights: &[u32], bias: &[i32]| {
        let bias = [bias[0], bias[1], bias[2], bias[3]];
        if INT4 { arch::taps4_int4(rows, c0, weights, bias) } else { arch::taps4(rows, c0, weights, bias) }
    };
    win.for_each_pixel::<N, IH, IW, OH, OW, KH, KW>(|pixel| {
        let span = tap_span::<IH, IW, C>(&pixel, win);
        let Pixel { ys, xs, index, .. } = pixel;
        let steps = (row_step, tap_step);
        if let (true, Some(scales)) = (FUSE, fused) {
            // The common requantization: each group's sums written out as
            // soon as they are done (a pixel's output never covers input
            // it reads, in place too).
            let (input, out) = io.split(span, index * C..(index + 1) * C);
            let rows = tap_table::<_, C, KW, KH>(input, &zp_row, (&ys, &xs), steps);
            let groups = whole.chunks_exact(group).zip(bias[..full].chunks_exact(4));
            for (g, ((weights, b4), out)) in groups.zip(out[..full].chunks_exact_mut(4)).enumerate() {
                let sums = taps4(&rows, 4 * g, weights, b4);
                arch::requantize_block(&sums, &scales[4 * g..], out);
            }
            if full < C {
                arch::requantize_block(&partial(&rows)[..C - full], &scales[full..], &mut out[full..]);
            }
            return;
        }
        // Where this pixel's sums go in `acc_buf`.
        let at = if batch > 1 { pending.slot::<C>(index, &acc_buf, q, &mut io) } else { 0 };
        // A chunk of channels' sums, then one requantization call for them.
        for c_chunk in (0..C).step_by(super::dot::CHUNK) {
            let n = (C - c_chunk).min(super::dot::CHUNK);
            {
                let rows = tap_table::<_, C, KW, KH>(io.run(span.start, span.len()), &zp_row, (&ys, &xs), steps);
                let (g0, groups) = (c_chunk / 4, n.div_ceil(4).min((full - c_chunk.min(full)) / 4));
                let sums = acc_buf[at..at + 4 * groups].chunks_exact_mut(4);
                let chunk = whole[g0 * group..(g0 + groups) * group].chunks_exact(group);
                for (g, ((weights, b4), out)) in chunk.zip(bias[c_chunk..].chunks_exact(4)).zip(sums).enumerate() {
                    // A fixed-length copy: registers, not a `memcpy` call.
                    out.copy_from_slice(&taps4(&rows, c_chunk + 4 * g, weights, b4));
                }
                if full < c_chunk + n {
                    acc_buf[at + full - c_chunk..at + n].copy_from_slice(&partial(&rows)[..C - full]);
                }
            }
            if batch == 1 {
                super::dot::requantize(&acc_buf[..n], q, c_chunk, io.out_run(index * C + c_chunk, n));
            }
        }
        if batch > 1 {
            pending.push::<C>(batch, &acc_buf, q, &mut io);
        }
    });
    pending.flush::<C>(&acc_buf, q, &mut io);
}

/// int8 depthwise convolution with depth multiplier 1 and dilation 1 over
/// widened input rows, the fastest int8 kernel where its scratch fits:
/// each input row is widened once to 16-bit values, channel by channel
/// (`ring`: for each channel the last `KH` input rows, `RW` halfwords
/// each, zero points in the padding columns and in rows outside the
/// image), so two horizontally adjacent taps of a channel are one word
/// and one `SMLAD`; two outputs per pass share the loads (with stride 1,
/// `KW` words and `KW + 1` multiplies per filter row). `stream` is
/// `layout::pack_depthwise_rows` (per channel the folded bias of
/// [`depthwise_m1_s8`] and the short-form scale of its fused
/// requantization, then the tap pairs: all the per-channel constants),
/// `input_offset` the negated input zero point, `RW`
/// `layout::depthwise_row_width(OW, SW, KW)`. The compiler takes this
/// kernel only where the requantization fuses (short-form scales, the
/// whole int8 range); `NUDGE` false is its word that the output zero
/// point is -128, where negative sums need no rounding nudge
/// (`fixedpoint::rescale_down_unnudged`); `DOUBLED` that the stream is
/// packed doubled (`layout::depthwise_rows_doubled`: twice the sums, one
/// rounding high multiply per output where the target has it).
///
/// In place it keeps the pixel-order kernels' rule: each input row is
/// read once, before any output of the first output row whose window
/// covers it is written, so no later than they first read it.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn depthwise_rows_s8<
    const N: usize,
    const IH: usize,
    const IW: usize,
    const C: usize,
    const OH: usize,
    const OW: usize,
    const KH: usize,
    const KW: usize,
    const SW: usize,
    const RW: usize,
    const NUDGE: bool,
    const DOUBLED: bool,
    IO: Io<i8>,
>(
    mut io: IO,
    stream: &[u32],
    win: &Window,
    input_offset: i32,
    ring: &mut [i16],
) {
    const { assert!(RW >= crate::kernels::layout::depthwise_row_width(OW, SW, KW) && KH > 0 && KW > 0) };
    assert!(win.stride_w == SW && win.dilation_h == 1 && win.dilation_w == 1);
    let per_channel = super::layout::DEPTHWISE_ROWS_HEADER + KH * KW.div_ceil(2);
    let stream = &stream[..C * per_channel];
    let zp = input_offset.wrapping_neg() as i16;
    // Sized by `scratch::depthwise_rows`, as the compiler planned it.
    let ring = &mut ring[..tinyaot_common::scratch::depthwise_rows(KH, C, RW) / 2];
    // Columns left and right of the widened input (or a right padding no
    // window reaches): zero points, for the whole call.
    let left = win.pad_left.min(RW);
    let cols = IW.min(RW - left);
    for row in ring.as_chunks_mut::<RW>().0 {
        row[..left].fill(zp);
        row[left + cols..].fill(zp);
    }
    for b in 0..N {
        // Rows (padding rows above the image counted, from -pad_top) up to
        // `next` are in the ring or never read.
        let mut next = -(win.pad_top as isize);
        for oy in 0..OH {
            let y0 = (oy * win.stride_h) as isize - win.pad_top as isize;
            for iy in y0.max(next)..y0 + KH as isize {
                let slot = iy.rem_euclid(KH as isize) as usize;
                let rows = ring.as_chunks_mut::<RW>().0.iter_mut().skip(slot).step_by(KH);
                if (0..IH as isize).contains(&iy) {
                    let src = io.run((b * IH + iy as usize) * IW * C, IW * C);
                    let pixels = &src.as_chunks::<C>().0[..cols];
                    for (c, row) in rows.enumerate() {
                        for (x, pixel) in row[left..left + cols].iter_mut().zip(pixels) {
                            *x = pixel[c] as i16;
                        }
                    }
                } else {
                    for row in rows {
                        row[left..left + cols].fill(zp);
                    }
                }
            }
            next = next.max(y0 + KH as isize);
            let phase = y0.rem_euclid(KH as isize) as usize;
            let out = &mut io.out_run((b * OH + oy) * OW * C, OW * C).as_chunks_mut::<C>().0[..OW];
            if super::layout::rows_fast(KH, KW, SW, RW, C)
                && arch::depthwise_rows_fused::<KH, KW, C, OW, SW, RW, NUDGE, DOUBLED>(phase, ring, stream, out)
            {
                continue;
            }
            for (c, (rows, stream)) in
                ring.as_chunks::<RW>().0.chunks_exact(KH).zip(stream.chunks_exact(per_channel)).enumerate()
            {
                let rows: [&[i16; RW]; KH] = core::array::from_fn(|ky| &rows[(phase + ky) % KH]);
                // The header's short-form scale, as `DownScale` orders it.
                // Doubled: without the nudge, the scale of twice the sums
                // (twice K, its low word 2^31 in word 3, its high word in
                // word 2; one more right shift: the same floor, exactly);
                // with it (whose 2^31 would need doubling too), the sums
                // halved back (they are even) and the plain scale (K low
                // word 2^30, high word half the header's).
                let [m, shift] = [stream[4] as i32, stream[5] as i32];
                let scale = match (DOUBLED, NUDGE) {
                    (true, false) => [m, shift, arch::doubled_k_low(stream[3]), stream[2] as i32],
                    (true, true) => [m, shift - 1, 1 << 30, stream[2] as i32 >> 1],
                    _ => [m, shift, stream[2] as i32, stream[3] as i32],
                };
                channel_row::<OW, KH, KW, SW, RW>(&rows, stream, |ox, acc| {
                    let v = if NUDGE {
                        arch::rescale_down(if DOUBLED { acc >> 1 } else { acc }, &scale)
                    } else {
                        arch::rescale_down_unnudged(acc, &scale)
                    };
                    out[ox][c] = arch::saturate_i8(v)
                });
            }
        }
    }
}

/// One channel's outputs along an output row (the portable loop):
/// `rows` are its `KH` widened input rows (the window of output `ox`
/// starts at column `ox * SW`), `stream` its folded bias and `KH *
/// KW.div_ceil(2)` tap pairs; `put(ox, sum)` gets each output's sum.
#[inline(always)]
fn channel_row<const OW: usize, const KH: usize, const KW: usize, const SW: usize, const RW: usize>(
    rows: &[&[i16; RW]; KH],
    stream: &[u32],
    mut put: impl FnMut(usize, i32),
) {
    let kp = KW.div_ceil(2);
    let header = super::layout::DEPTHWISE_ROWS_HEADER;
    let (bias, weights) = (stream[0] as i32, &stream[header..header + KH * kp]);
    if !arch::LANES16 && KH * KW <= 9 {
        // No 16-bit lanes: the taps' weights unpacked once per channel row,
        // then one multiply-accumulate per tap (a pair's halves unpacked
        // again per output would cost more than the products). An odd last
        // tap is its word's high half.
        let mut taps = [0i32; 9];
        for (ky, w) in weights.chunks_exact(kp).enumerate() {
            for kx in 0..KW {
                let word = w[kx / 2];
                let high = kx % 2 == 1 || kx + 1 == KW;
                taps[ky * KW + kx] = (if high { word >> 16 } else { word }) as u16 as i16 as i32;
            }
        }
        for ox in 0..OW {
            let mut a = bias;
            for (ky, row) in rows.iter().enumerate() {
                let x = &row[ox * SW..ox * SW + KW];
                for (kx, &v) in x.iter().enumerate() {
                    a = a.wrapping_add(v as i32 * taps[ky * KW + kx]);
                }
            }
            put(ox, a);
        }
        return;
    }
    for ox in 0..OW {
        let mut a = bias;
        for (row, w) in rows.iter().zip(weights.chunks_exact(kp)) {
            for (p, &w) in w.iter().enumerate() {
                let i = ox * SW + 2 * p;
                if 2 * p + 1 == KW {
                    // An odd last tap (its pair's high half): one product.
                    a = arch::smlabb(row[i] as u16 as u32, w >> 16, a);
                } else {
                    a = arch::smlad(pair(row, i), w, a);
                }
            }
        }
        put(ox, a);
    }
}

/// Widened inputs `i` and `i + 1` of a row as one word (low half: `i`).
#[inline(always)]
fn pair<const RW: usize>(row: &[i16; RW], i: usize) -> u32 {
    let v = &row[i..i + 2];
    (v[0] as u16 as u32) | ((v[1] as u16 as u32) << 16)
}

/// The run of the input that a pixel's taps inside the image span, from
/// the first to the last: every tap's input pixel (all `C` channels) is
/// looked up in it once per pixel ([`tap_table`]), so the channel loops
/// have no per-tap checks, border pixels included.
#[inline(always)]
fn tap_span<const IH: usize, const IW: usize, const C: usize>(p: &Pixel, win: &Window) -> core::ops::Range<usize> {
    let Pixel { b, y0, x0, ys, xs, .. } = p;
    if ys.is_empty() || xs.is_empty() {
        return 0..0;
    }
    let iy = (y0 + (ys.start * win.dilation_h) as isize) as usize;
    let ix = (x0 + (xs.start * win.dilation_w) as isize) as usize;
    let first = ((b * IH + iy) * IW + ix) * C;
    first..first + (ys.len() - 1) * win.dilation_h * IW * C + (xs.len() - 1) * win.dilation_w * C + C
}

/// int8 depthwise convolution with depth multiplier 1 on targets with
/// vector lanes (Helium, chosen by `__private::helium_or!`): per pixel
/// and group of 8 channels, each tap's 8 inputs and weights as 16-bit
/// lanes, their products by the widening multiplies into the even and
/// odd channels' 32-bit sums, requantized as vectors and stored as 8
/// bytes (`arch::depthwise_vector_groups`). `stream` is
/// `layout::pack_depthwise_vector` (biases folded as for
/// [`depthwise_m1_s8`], so taps outside the image read the zero point and
/// cancel; short-form scales, the whole int8 range; any `C`, a last partial group
/// under a predicate);
/// `output_offset` the output zero point. The same bits as
/// [`depthwise_m1_s8`], whose compile-time choice of layout and
/// requantization this replaces on those targets.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn depthwise_vector_s8<
    const N: usize,
    const IH: usize,
    const IW: usize,
    const C: usize,
    const OH: usize,
    const OW: usize,
    const KH: usize,
    const KW: usize,
    IO: Io<i8>,
>(
    mut io: IO,
    stream: &[u32],
    win: &Window,
    input_offset: i32,
    output_offset: i32,
) {
    let group_words = super::layout::DEPTHWISE_VECTOR_HEADER + 2 * KH * KW;
    let stream = &stream[..C.div_ceil(super::layout::DEPTHWISE_VECTOR_GROUP) * group_words];
    let zp_row = [(-input_offset) as i8; C];
    for_each_tap_table::<_, N, IH, IW, C, OH, OW, KH, KW, 1, _>(&mut io, win, &zp_row, |rows, out| {
        arch::depthwise_vector_groups::<C, KW, KH>(rows, stream, output_offset, out);
    });
}

/// 16x8 depthwise convolution with depth multiplier 1 (int16 activations,
/// int8 filter, no zero points), for windows of at most `int16::RUN16`
/// taps: per pixel a table of its taps' input pixels (a row of zeros for
/// taps outside the image: they add nothing), then per group of 8
/// channels their 32-bit sums over all taps (`arch::depthwise16_group`:
/// vectors on Helium), each added into the accumulator `A` with the bias
/// and requantized. Same bits as [`depthwise`] with
/// [`super::int16::Requant16`].
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn depthwise_m1_16x8<
    A: super::int16::Acc16,
    const N: usize,
    const IH: usize,
    const IW: usize,
    const C: usize,
    const OH: usize,
    const OW: usize,
    const KH: usize,
    const KW: usize,
    IO: Io<i16>,
>(
    mut io: IO,
    filter: &[i8],
    bias: Option<&[A]>,
    win: &Window,
    q: &super::int16::Requant16<'_>,
) {
    const { assert!(KH * KW <= super::int16::RUN16) };
    let zero_row = [0i16; C];
    for_each_tap_table::<_, N, IH, IW, C, OH, OW, KH, KW, 1, _>(&mut io, win, &zero_row, |rows, out| {
        for g in (0..C).step_by(8) {
            let sums = arch::depthwise16_group::<C, KW, KH>(rows, filter, g);
            for (k, (o, s)) in out[g..].iter_mut().zip(sums).enumerate() {
                *o = Arithmetic::output(q, A::ZERO.add_sum(s), bias, g + k);
            }
        }
    });
}

/// Integer depthwise convolution with a depth multiplier `M` above 1
/// (int8 with [`super::Requant`], 16x8 with [`super::int16::Sums16`]):
/// per pixel a table of its taps' input pixels (taps outside the image
/// read `zero_point`, whose offset value adds nothing), then per input
/// channel its `M` sums side by side, each tap's input value read (and
/// offset) once for all `M`, each sum over the taps in TFLite's order.
/// Same bits as [`depthwise`], without its per-output input lookups.
/// 16x8 windows are at most `int16::RUN16` taps (32-bit sums).
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn depthwise_multiplier<
    T: Copy,
    Q: Arithmetic<i32, Input = T, Output = T>,
    const N: usize,
    const IH: usize,
    const IW: usize,
    const C: usize,
    const OH: usize,
    const OW: usize,
    const M: usize,
    const KH: usize,
    const KW: usize,
    IO: Io<T>,
>(
    mut io: IO,
    filter: &[Q::Weight],
    bias: Option<&[i32]>,
    win: &Window,
    q: &Q,
    zero_point: T,
) {
    let oc = C * M;
    let filter = &filter[..KH * KW * oc];
    let outside = [zero_point; C];
    for_each_tap_table::<_, N, IH, IW, C, OH, OW, KH, KW, M, _>(&mut io, win, &outside, |rows, out| {
        for (c, outputs) in out.chunks_exact_mut(M).enumerate() {
            let mut acc = [Q::ZERO; M];
            for (t, tap) in rows.as_flattened().iter().enumerate() {
                let x = tap[c];
                let Some(weights) = filter[t * oc + c * M..].first_chunk::<M>() else {
                    unreachable!("the filter holds every tap's outputs")
                };
                for (a, &w) in acc.iter_mut().zip(weights) {
                    *a = q.mac(*a, w, x);
                }
            }
            for (m, (o, a)) in outputs.iter_mut().zip(acc).enumerate() {
                *o = q.output(a, bias, c * M + m);
            }
        }
    });
}

/// Calls `f` for every output pixel of a depthwise layer of multiplier
/// `M` with its taps' input pixels ([`tap_table`]: `outside` for taps
/// outside the image) and its `C * M` outputs (a pixel's output never
/// covers input it reads, in place too).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn for_each_tap_table<
    T: Copy,
    const N: usize,
    const IH: usize,
    const IW: usize,
    const C: usize,
    const OH: usize,
    const OW: usize,
    const KH: usize,
    const KW: usize,
    const M: usize,
    IO: Io<T>,
>(
    io: &mut IO,
    win: &Window,
    outside: &[T; C],
    mut f: impl FnMut(&[[&[T; C]; KW]; KH], &mut [T]),
) {
    let steps = (win.dilation_h * IW * C, win.dilation_w * C);
    let oc = C * M;
    win.for_each_pixel::<N, IH, IW, OH, OW, KH, KW>(|pixel| {
        let span = tap_span::<IH, IW, C>(&pixel, win);
        let (input, out) = io.split(span, pixel.index * oc..(pixel.index + 1) * oc);
        let rows = tap_table::<_, C, KW, KH>(input, outside, (&pixel.ys, &pixel.xs), steps);
        f(&rows, out);
    });
}

/// Every tap's input pixel (all `C` channels): taps in rows `ys` and
/// columns `xs` from `input` (which starts at the first of them, `steps`
/// apart), the others the row of zero points.
#[inline(always)]
fn tap_table<'a, T, const C: usize, const KW: usize, const KH: usize>(
    input: &'a [T],
    zp_row: &'a [T; C],
    (ys, xs): (&core::ops::Range<usize>, &core::ops::Range<usize>),
    (row_step, tap_step): (usize, usize),
) -> [[&'a [T; C]; KW]; KH] {
    let mut rows = [[zp_row; KW]; KH];
    if ys.len() == KH && xs.len() == KW {
        // A window inside the image: fixed steps, constant trip counts.
        for (ky, rows) in rows.iter_mut().enumerate() {
            for (kx, row) in rows.iter_mut().enumerate() {
                let Some(tap) = input[ky * row_step + kx * tap_step..].first_chunk::<C>() else {
                    unreachable!("the span covers the window")
                };
                *row = tap;
            }
        }
        return rows;
    }
    for ky in ys.clone() {
        for kx in xs.clone() {
            let at = (ky - ys.start) * row_step + (kx - xs.start) * tap_step;
            let Some(tap) = input[at..].first_chunk::<C>() else { unreachable!("the span covers the taps") };
            rows[ky][kx] = tap;
        }
    }
    rows
}

/// float32 depthwise convolution with depth multiplier 1: 8 channels side
/// by side, each summing its taps in TFLite's order, from contiguous runs
/// of input and filter (where the window is inside the image and the
/// target has them, `arch::depthwise_window8`). Same bits as
/// [`depthwise`].
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn depthwise_m1_f32<
    const N: usize,
    const IH: usize,
    const IW: usize,
    const IC: usize,
    const OH: usize,
    const OW: usize,
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
    let filter = &filter[..KH * KW * IC];
    win.for_each_pixel::<N, IH, IW, OH, OW, KH, KW>(|Pixel { b, y0, x0, ys, xs, index, .. }| {
        let out_base = index * IC;
        for c0 in (0..IC).step_by(8) {
            let n = (IC - c0).min(8);
            let mut sums = [0.0f32; 8];
            let bias = bias.map(|b| &b[c0..c0 + n]);
            if arch::F32_WINDOW_LOOPS && n == 8 && !ys.is_empty() && !xs.is_empty() {
                // The window's taps inside the image (all of them
                // away from the edges): one assembly loop.
                let (kh, kw) = (ys.len(), xs.len());
                let iy = (y0 + (ys.start * win.dilation_h) as isize) as usize;
                let ix = (x0 + (xs.start * win.dilation_w) as isize) as usize;
                let first = ((b * IH + iy) * IW + ix) * IC + c0;
                let last = ((kh - 1) * win.dilation_h * IW + (kw - 1) * win.dilation_w) * IC;
                let window = io.run(first, last + 8);
                let steps = (4 * win.dilation_h * IW * IC, 4 * win.dilation_w * IC);
                let taps = &filter[(ys.start * KW + xs.start) * IC + c0..];
                arch::depthwise_window8::<KW, IC>(window, taps, steps, (kh, kw), &mut sums);
                finish_f32(io.out_run(out_base + c0, 8), &sums, bias, act_min, act_max);
                continue;
            }
            for ky in ys.clone() {
                let iy = (y0 + (ky * win.dilation_h) as isize) as usize;
                for kx in xs.clone() {
                    let ix = (x0 + (kx * win.dilation_w) as isize) as usize;
                    let x = io.run(((b * IH + iy) * IW + ix) * IC + c0, n);
                    let f = &filter[(ky * KW + kx) * IC + c0..][..n];
                    if n == 8 {
                        for l in 0..8 {
                            sums[l] += x[l] * f[l];
                        }
                    } else {
                        for ((s, &x), &f) in sums.iter_mut().zip(x).zip(f) {
                            *s += x * f;
                        }
                    }
                }
            }
            finish_f32(io.out_run(out_base + c0, n), &sums, bias, act_min, act_max);
        }
    });
}
