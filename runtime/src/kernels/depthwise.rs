//! DEPTHWISE_CONV_2D, NHWC input, 1HW(IC*M) filter, depth multiplier `M`.

use super::conv::{Pending, Pixel, Window};
use super::{Io, Requant, Rescale, clamp_f32, finish_f32};

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
    win.for_each_pixel::<N, IH, IW, OH, OW, KH, KW>(|Pixel { b, y0, x0, ys, xs, index, .. }| {
        let out_base = index * oc_total;
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
/// multiply-accumulates (`SMLABB`/`SMLATT` on DSP cores).
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
    IO: Io<i8>,
>(
    mut io: IO,
    packed: &[u32],
    bias: &[i32],
    win: &Window,
    q: &Rescale<'_>,
) {
    let taps = KH * KW;
    let packed = &packed[..C.div_ceil(4) * taps * 2];
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
    let (whole, part) = packed.split_at(C / 4 * taps * 2);
    // Beyond 4 groups their count is made opaque to the optimizer: known,
    // it unrolls the group loop, a copy of the unrolled taps per group (6
    // KB of flash for 64 channels, for 4 instructions per group).
    let whole = if C > 16 { core::hint::black_box(whole) } else { whole };
    // The partial group's sums (channels `full..C`), its inputs padded
    // with the zero point.
    let partial = |rows: &[[&[i8; C]; KW]; KH]| {
        let mut acc = [0i32; 4];
        acc[..C - full].copy_from_slice(&bias[full..]);
        for (row, w) in rows.iter().flatten().zip(part.chunks_exact(2)) {
            let mut v = [zp as u8; 4];
            for (k, &x) in row[full..].iter().enumerate() {
                v[k] = x as u8;
            }
            acc = mac4(acc, u32::from_le_bytes(v), w[0], w[1]);
        }
        acc
    };
    win.for_each_pixel::<N, IH, IW, OH, OW, KH, KW>(|Pixel { b, y0, x0, ys, xs, index, .. }| {
        // The taps inside the image span one run of the input, from the
        // first to the last; every tap's input pixel (all C channels) is
        // looked up in it once per pixel, so the group loop has no
        // per-tap checks, border pixels included.
        let span = if ys.is_empty() || xs.is_empty() {
            0..0
        } else {
            let iy = (y0 + (ys.start * win.dilation_h) as isize) as usize;
            let ix = (x0 + (xs.start * win.dilation_w) as isize) as usize;
            let first = ((b * IH + iy) * IW + ix) * C;
            first..first + (ys.len() - 1) * row_step + (xs.len() - 1) * tap_step + C
        };
        let steps = (row_step, tap_step);
        if let (true, Some(scales)) = (FUSE, fused) {
            // The common requantization: each group's sums written out as
            // soon as they are done (a pixel's output never covers input
            // it reads, in place too).
            let (input, out) = io.split(span, index * C..(index + 1) * C);
            let rows = tap_table::<C, KW, KH>(input, &zp_row, (&ys, &xs), steps);
            let groups = whole.chunks_exact(taps * 2).zip(bias[..full].chunks_exact(4));
            for (g, ((weights, b4), out)) in groups.zip(out[..full].chunks_exact_mut(4)).enumerate() {
                let sums = taps4(&rows, 4 * g, weights, [b4[0], b4[1], b4[2], b4[3]]);
                super::dot::requantize_block(&sums, &scales[4 * g..], out);
            }
            if full < C {
                super::dot::requantize_block(&partial(&rows)[..C - full], &scales[full..], &mut out[full..]);
            }
            return;
        }
        // Where this pixel's sums go in `acc_buf`.
        let at = if batch > 1 { pending.slot::<C>(index, &acc_buf, q, &mut io) } else { 0 };
        // A chunk of channels' sums, then one requantization call for them.
        for c_chunk in (0..C).step_by(super::dot::CHUNK) {
            let n = (C - c_chunk).min(super::dot::CHUNK);
            {
                let rows = tap_table::<C, KW, KH>(io.run(span.start, span.len()), &zp_row, (&ys, &xs), steps);
                let (g0, groups) = (c_chunk / 4, n.div_ceil(4).min((full - c_chunk.min(full)) / 4));
                let sums = acc_buf[at..at + 4 * groups].chunks_exact_mut(4);
                let chunk = whole[g0 * taps * 2..(g0 + groups) * taps * 2].chunks_exact(taps * 2);
                for (g, ((weights, b4), out)) in chunk.zip(bias[c_chunk..].chunks_exact(4)).zip(sums).enumerate() {
                    // A fixed-length copy: registers, not a `memcpy` call.
                    out.copy_from_slice(&taps4(&rows, c_chunk + 4 * g, weights, [b4[0], b4[1], b4[2], b4[3]]));
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
/// whole int8 range).
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
    let ring = &mut ring[..C * KH * RW];
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
            #[cfg(all(target_arch = "arm", target_feature = "dsp"))]
            if super::layout::rows_fast(KH, KW, SW, RW, C) {
                rows_fused_asm::<KH, KW, C, OW, SW, RW>(phase, ring, stream, out);
                continue;
            }
            for (c, (rows, stream)) in
                ring.as_chunks::<RW>().0.chunks_exact(KH).zip(stream.chunks_exact(per_channel)).enumerate()
            {
                let rows: [&[i16; RW]; KH] = core::array::from_fn(|ky| &rows[(phase + ky) % KH]);
                // The header's short-form scale, as `DownScale` orders it.
                let scale = [stream[4], stream[5], stream[2], stream[3]].map(|v| v as i32);
                channel_row::<OW, KH, KW, SW, RW>(&rows, stream, |ox, acc| {
                    out[ox][c] = super::dot::saturate_i8(super::rescale_down(acc, &scale))
                });
            }
        }
    }
}

/// One output row, every channel, in one assembly loop (DSP cores, fused
/// requantization, the shapes of `layout::rows_fast`): per channel, pairs
/// of outputs, then an odd last one; each output's sum requantized in
/// registers (`SMLAL`, the sign nudge as a 64-bit add, `ASR`, `SSAT`) and
/// stored `C` bytes after the previous one. `phase` is which ring slot
/// holds the window's first row.
#[cfg(all(target_arch = "arm", target_feature = "dsp"))]
#[inline(always)]
fn rows_fused_asm<
    const KH: usize,
    const KW: usize,
    const C: usize,
    const OW: usize,
    const SW: usize,
    const RW: usize,
>(
    phase: usize,
    ring: &[i16],
    stream: &[u32],
    out: &mut [[i8; C]],
) {
    macro_rules! phases {
        ($($p:literal)*) => {
            match phase {
                $($p if $p < KH => rows_fused_phase::<$p, KH, KW, C, OW, SW, RW>(ring, stream, out),)*
                _ => unreachable!("the phase is below KH <= 5"),
            }
        };
    }
    phases!(0 1 2 3 4)
}

/// [`rows_fused_asm`] for one phase (the slots' order is in the
/// immediate offsets).
#[cfg(all(target_arch = "arm", target_feature = "dsp"))]
#[inline(always)]
fn rows_fused_phase<
    const PHASE: usize,
    const KH: usize,
    const KW: usize,
    const C: usize,
    const OW: usize,
    const SW: usize,
    const RW: usize,
>(
    ring: &[i16],
    stream: &[u32],
    out: &mut [[i8; C]],
) {
    use super::layout::DEPTHWISE_ROWS_HEADER as HEADER;
    // Constants (folded): the caller checks `rows_fast`, the rest holds by
    // the layouts.
    let kp = KW.div_ceil(2);
    assert!(super::layout::rows_fast(KH, KW, SW, RW, C) && OW > 0 && C > 0 && RW % 2 == 0 && HEADER == 6);
    assert!(ring.len() >= C * KH * RW && stream.len() >= C * (HEADER + KH * kp) && out.len() >= OW);
    // SAFETY: per channel `c` the loop reads the ring words at `c * KH *
    // RW` halfwords plus slot offsets below `KH * RW` halfwords and column
    // offsets below `RW` (the outputs' windows, `depthwise_row_width`) and
    // the channel's `6 + KH * kp` stream words, and writes output byte `ox
    // * C + c` for `ox < OW`: all inside the slices (the asserts). Ring
    // loads are unaligned word loads (ARMv7-M allows them), `LDRD` reads
    // the 4-aligned `u32` stream. Register arithmetic of the DSP extension
    // otherwise; no stack.
    unsafe {
        core::arch::asm!(
            // Requantize `a` (the channel's short-form scale: `k` at
            // stream words 2-3, multiplier `m`, shift `sh`), store, step.
            ".macro tinyaot_requant a",
            "ldrd {x}, {y}, [{wp}, #8]",
            "smlal {x}, {y}, \\a, {m}",
            "asr {t}, \\a, #31",
            "adds {x}, {x}, {t}, lsl #31",
            "adc {y}, {y}, {t}",
            "asr {y}, {y}, {sh}",
            "ssat {y}, #8, {y}",
            "strb {y}, [{out}], #{c}",
            ".endm",
            // Tap pair `pp` of a filter row (`row`: the slot's byte
            // offset; weights in `w`) for output `a0`, and with `two` for
            // the next one in `a1`; an odd last tap multiplies the low
            // half only (with stride 1 the next output's tap is the high
            // half of the same word).
            ".macro tinyaot_pair row, pp, w, two",
            "ldr {t}, [{p}, #(\\row + 4 * \\pp)]",
            ".if 2 * \\pp + 1 < {kw}",
            "smlad {a0}, {t}, \\w, {a0}",
            ".if \\two",
            "ldr {t}, [{p}, #(\\row + 4 * \\pp + 2 * {sw})]",
            "smlad {a1}, {t}, \\w, {a1}",
            ".endif",
            ".else",
            "smlabb {a0}, {t}, \\w, {a0}",
            ".if \\two",
            ".if {sw} == 1",
            "smlatb {a1}, {t}, \\w, {a1}",
            ".else",
            "ldr {t}, [{p}, #(\\row + 4 * \\pp + 2 * {sw})]",
            "smlabb {a1}, {t}, \\w, {a1}",
            ".endif",
            ".endif",
            ".endif",
            ".endm",
            // One filter row: its weight pairs two at a time (`LDRD`).
            ".macro tinyaot_taps ky, row, two",
            ".set tinyaot_pp, 0",
            ".rept ({kp} + 1) / 2",
            ".if tinyaot_pp + 1 < {kp}",
            "ldrd {x}, {y}, [{wp}, #(24 + 4 * (\\ky * {kp} + tinyaot_pp))]",
            "tinyaot_pair \\row, tinyaot_pp, {x}, \\two",
            "tinyaot_pair \\row, (tinyaot_pp+1), {y}, \\two",
            ".else",
            "ldr {x}, [{wp}, #(24 + 4 * (\\ky * {kp} + tinyaot_pp))]",
            "tinyaot_pair \\row, tinyaot_pp, {x}, \\two",
            ".endif",
            ".set tinyaot_pp, tinyaot_pp + 2",
            ".endr",
            ".endm",
            "1:",
            "ldrd {m}, {sh}, [{wp}, #16]",
            ".if {pairs}",
            "movw {cnt}, #{pairs}",
            "2:",
            "ldrd {a0}, {a1}, [{wp}]",
            ".set tinyaot_ky, 0",
            ".rept {kh}",
            "tinyaot_taps tinyaot_ky, (((({phase} + tinyaot_ky) % {kh}) * {rb})), 1",
            ".set tinyaot_ky, tinyaot_ky + 1",
            ".endr",
            "add {p}, {p}, #(4 * {sw})",
            "tinyaot_requant {a0}",
            "tinyaot_requant {a1}",
            "subs {cnt}, {cnt}, #1",
            "bne 2b",
            ".endif",
            ".if {odd}",
            "ldr {a0}, [{wp}]",
            ".set tinyaot_ky, 0",
            ".rept {kh}",
            "tinyaot_taps tinyaot_ky, (((({phase} + tinyaot_ky) % {kh}) * {rb})), 0",
            ".set tinyaot_ky, tinyaot_ky + 1",
            ".endr",
            "tinyaot_requant {a0}",
            ".endif",
            // Next channel: its ring rows, stream words, first output.
            "add {p}, {p}, #({kh} * {rb} - {pairs} * 4 * {sw})",
            "add {wp}, {wp}, #(4 * (6 + {kh} * {kp}))",
            ".if {ow} * {c} - 1 < 4096",
            "sub {out}, {out}, #({ow} * {c} - 1)",
            ".else",
            "movw {t}, #(({ow} * {c} - 1) & 0xffff)",
            "movt {t}, #(({ow} * {c} - 1) >> 16)",
            "sub {out}, {out}, {t}",
            ".endif",
            "subs {ch}, {ch}, #1",
            "bne 1b",
            ".purgem tinyaot_requant",
            ".purgem tinyaot_pair",
            ".purgem tinyaot_taps",
            p = inout(reg) ring.as_ptr() => _,
            wp = inout(reg) stream.as_ptr() => _,
            out = inout(reg) out.as_mut_ptr() => _,
            ch = inout(reg) C => _,
            cnt = out(reg) _,
            t = out(reg) _,
            x = out(reg) _,
            y = out(reg) _,
            a0 = out(reg) _,
            a1 = out(reg) _,
            m = out(reg) _,
            sh = out(reg) _,
            pairs = const OW / 2,
            odd = const OW % 2,
            kh = const KH,
            kw = const KW,
            kp = const KW.div_ceil(2),
            rb = const RW * 2,
            sw = const SW,
            c = const C,
            ow = const OW,
            phase = const PHASE,
            options(nostack),
        );
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
    for ox in 0..OW {
        let mut a = bias;
        for (row, w) in rows.iter().zip(weights.chunks_exact(kp)) {
            for (p, &w) in w.iter().enumerate() {
                // An odd last tap's pair has a zero high half.
                a = crate::arch::smlad(pair(row, ox * SW + 2 * p), w, a);
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

/// Every tap's input pixel (all `C` channels): taps in rows `ys` and
/// columns `xs` from `input` (which starts at the first of them, `steps`
/// apart), the others the row of zero points.
#[inline(always)]
fn tap_table<'a, const C: usize, const KW: usize, const KH: usize>(
    input: &'a [i8],
    zp_row: &'a [i8; C],
    (ys, xs): (&core::ops::Range<usize>, &core::ops::Range<usize>),
    (row_step, tap_step): (usize, usize),
) -> [[&'a [i8; C]; KW]; KH] {
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

/// float32 depthwise (multiplier 1) of 8 channels over a `kh x kw` block
/// of a `KH x KW` window (all of it, or the part inside the image) in one
/// assembly block, on hard-float Arm: per tap one `VLDM` of the 8 inputs,
/// one of the 8 weights and eight `VMLA.F32` (the bits of a separate
/// multiply and add), taps in TFLite's order. `window` starts at the
/// block's first tap, channel `c0`; `steps` are the bytes from one window
/// row to the next and from one tap to the next; `filter` starts at the
/// first tap's weight for channel `c0` (a tap's weights are `C` floats
/// apart; a row's clipped taps are skipped).
#[cfg(all(target_arch = "arm", target_abi = "eabihf"))]
#[inline(always)]
fn depthwise_window8<const KW: usize, const C: usize>(
    window: &[f32],
    filter: &[f32],
    (row_step, tap_step): (usize, usize),
    (kh, kw): (usize, usize),
    sums: &mut [f32; 8],
) {
    if kh == 0 || kw == 0 {
        return;
    }
    assert!(row_step % 4 == 0 && tap_step % 4 == 0 && C >= 8 && kw <= KW);
    assert!(((kh - 1) * row_step + (kw - 1) * tap_step) / 4 + 8 <= window.len());
    assert!(((kh - 1) * KW + kw - 1) * C + 8 <= filter.len());
    // SAFETY: reads inside `window` and `filter` (the asserts bound every
    // address the loops form) and the 8 floats of `sums`, all 4-aligned;
    // the FP registers used are saved and restored.
    unsafe {
        vfp_rows_loop!(
            save: "s8-s31", window: window.as_ptr(), weights: filter.as_ptr(), rows: kh, passes: kw,
            skip: (KW - kw) * 4 * C, row: row_step, sums: sums.as_mut_ptr(),
            inner: [
                "vldmia {r}, {{s8-s15}}",
                "vldmia {w}, {{s16-s23}}",
                "add {w}, {w}, #{fstep}",
                "vmla.f32 s24, s16, s8",
                "vmla.f32 s25, s17, s9",
                "vmla.f32 s26, s18, s10",
                "vmla.f32 s27, s19, s11",
                "vmla.f32 s28, s20, s12",
                "vmla.f32 s29, s21, s13",
                "vmla.f32 s30, s22, s14",
                "vmla.f32 s31, s23, s15",
                "add {r}, {r}, {tap}"
            ],
            tap = in(reg) tap_step,
            fstep = const 4 * C,
        );
    }
}

/// Four channels' sums over all taps: channels `c0..c0 + 4` of every row
/// in `rows` (one per tap, in the packed weights' order) against the
/// group's packed weights (two words per tap).
#[inline(always)]
fn taps4<const C: usize, const KW: usize, const KH: usize>(
    rows: &[[&[i8; C]; KW]; KH],
    c0: usize,
    weights: &[u32],
    acc: [i32; 4],
) -> [i32; 4] {
    let weights = &weights[..2 * KH * KW];
    assert!(c0 + 4 <= C);
    #[cfg(all(target_arch = "arm", target_feature = "dsp"))]
    {
        if KH * KW == 0 {
            return acc;
        }
        let [mut a0, mut a1, mut a2, mut a3] = acc;
        // SAFETY: `rows` is KH * KW thin pointers (references to arrays),
        // each to C >= c0 + 4 readable bytes (the assert), whose word at c0
        // is read unaligned (ARMv7-M's `LDR` allows it); `weights` holds
        // 2 * KH * KW words (the slicing above), read by `LDRD` at 4-byte
        // alignment (a `u32` slice). Nothing is written to memory; register
        // arithmetic of the DSP extension otherwise.
        unsafe {
            core::arch::asm!(
                ".rept {taps}",
                "ldr {p}, [{tbl}], #4",
                "ldr {x}, [{p}, {c0}]",
                "ldrd {w02}, {w13}, [{w}], #8",
                "sxtb16 {p}, {x}",
                "sxtb16 {x}, {x}, ror #8",
                "smlabb {a0}, {p}, {w02}, {a0}",
                "smlabb {a1}, {x}, {w13}, {a1}",
                "smlatt {a2}, {p}, {w02}, {a2}",
                "smlatt {a3}, {x}, {w13}, {a3}",
                ".endr",
                taps = const KH * KW,
                tbl = inout(reg) rows.as_ptr() as *const *const i8 => _,
                w = inout(reg) weights.as_ptr() => _,
                c0 = in(reg) c0,
                p = out(reg) _,
                x = out(reg) _,
                w02 = out(reg) _,
                w13 = out(reg) _,
                a0 = inout(reg) a0,
                a1 = inout(reg) a1,
                a2 = inout(reg) a2,
                a3 = inout(reg) a3,
                options(nostack, preserves_flags, readonly),
            );
        }
        [a0, a1, a2, a3]
    }
    #[cfg(not(all(target_arch = "arm", target_feature = "dsp")))]
    {
        let mut acc = acc;
        for (row, w) in rows.iter().flatten().zip(weights.chunks_exact(2)) {
            let x = &row[c0..c0 + 4];
            let x = u32::from_le_bytes([x[0] as u8, x[1] as u8, x[2] as u8, x[3] as u8]);
            acc = mac4(acc, x, w[0], w[1]);
        }
        acc
    }
}

/// Four channels' products of one tap: the input word widened to
/// 16-bit pairs (channels 0, 2 and 1, 3) against the packed weights.
#[inline(always)]
fn mac4(acc: [i32; 4], x: u32, w02: u32, w13: u32) -> [i32; 4] {
    #[cfg(all(target_arch = "arm", target_feature = "dsp"))]
    {
        // One block per tap, declared as touching memory (it does not) so
        // the next tap's loads stay after it: left to itself the compiler
        // hoists every tap's loads to the top and runs out of registers.
        let [mut a0, mut a1, mut a2, mut a3] = acc;
        // SAFETY: register arithmetic of the DSP extension (this cfg); it
        // reads and writes no memory.
        unsafe {
            core::arch::asm!(
                "sxtb16 {x02}, {x}",
                "sxtb16 {x13}, {x}, ror #8",
                "smlabb {a0}, {x02}, {w02}, {a0}",
                "smlabb {a1}, {x13}, {w13}, {a1}",
                "smlatt {a2}, {x02}, {w02}, {a2}",
                "smlatt {a3}, {x13}, {w13}, {a3}",
                x = in(reg) x,
                w02 = in(reg) w02,
                w13 = in(reg) w13,
                x02 = out(reg) _,
                x13 = out(reg) _,
                a0 = inout(reg) a0,
                a1 = inout(reg) a1,
                a2 = inout(reg) a2,
                a3 = inout(reg) a3,
                options(nostack, preserves_flags),
            )
        };
        [a0, a1, a2, a3]
    }
    #[cfg(not(all(target_arch = "arm", target_feature = "dsp")))]
    {
        use crate::arch::{smlabb, smlatt, sxtb16};
        let (x02, x13) = (sxtb16(x), sxtb16(x.rotate_right(8)));
        [smlabb(x02, w02, acc[0]), smlabb(x13, w13, acc[1]), smlatt(x02, w02, acc[2]), smlatt(x13, w13, acc[3])]
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
    win.for_each_pixel::<N, IH, IW, OH, OW, KH, KW>(|Pixel { b, y0, x0, ys, xs, index, .. }| {
        let out_base = index * oc_total;
        if M == 1 {
            // Multiplier 1: 8 channels side by side, each summing its taps
            // in TFLite's order, from contiguous runs of input and filter.
            for c0 in (0..IC).step_by(8) {
                let n = (IC - c0).min(8);
                let mut sums = [0.0f32; 8];
                let bias = bias.map(|b| &b[c0..c0 + n]);
                #[cfg(all(target_arch = "arm", target_abi = "eabihf"))]
                if n == 8 && !ys.is_empty() && !xs.is_empty() {
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
                    depthwise_window8::<KW, IC>(window, taps, steps, (kh, kw), &mut sums);
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
            return;
        }
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
    });
}
