//! int8 dot products of one input vector with many weight rows, packed at
//! compile time by `layout::pack_rows`: blocks of 4 rows (then 2, then 1)
//! walked with one sequential pointer, and the requantization of their
//! sums. On cores with the DSP extension the inner loops are
//! `SXTB16`/`SMLAD` assembly: per 16 MACs one input load, two `LDRD`s,
//! ten `SXTB16` and eight `SMLAD` (1.31 instructions per MAC); with 16 or
//! more rows the input is widened to 16-bit pairs once per call instead,
//! which leaves one `LDRD` of input pairs and eight `SXTB16` (1.19).
//! Elsewhere plain Rust (SSE2 on x86-64) computes the same wrapping sums:
//! integer sums do not depend on the order, so all give TFLite's bits.

use super::layout::depth4;
use super::{DownScale, PackedRows, Rescale, Scales, clamp_i32, rescale, rescale_down};

/// Channels computed per pass (a stack buffer of accumulators; a multiple
/// of 4 so the packed blocks split evenly).
pub const CHUNK: usize = 64;

/// `out[c] = q.apply(bias[c] + row_c . x)` for every channel: the dot
/// products a chunk of channels at a time into a stack buffer, then one
/// tight requantization loop over it.
#[inline(always)]
pub fn rescaled_dots<const DEPTH: usize>(
    x: &[i8],
    packed: impl PackedRows,
    bias: &[i32],
    q: &Rescale<'_>,
    out: &mut [i8],
) {
    let mut acc = [0i32; CHUNK];
    for (k, out) in out.chunks_mut(CHUNK).enumerate() {
        let c0 = k * CHUNK;
        let n = out.len();
        let acc = &mut acc[..n];
        packed.dots::<DEPTH>(x, c0, &bias[c0..c0 + n], acc);
        requantize(acc, q, c0, out);
    }
}

/// `out[k] = clamp(rescale(acc[k], channel c0 + k) + output_offset)` for
/// a run of channels ([`requantize_pixels`] of one pixel).
#[inline(always)]
pub fn requantize(acc: &[i32], q: &Rescale<'_>, c0: usize, out: &mut [i8]) {
    requantize_pixels(acc, q, c0, out.len(), out);
}

/// [`requantize`] of consecutive pixels at once: `acc` and `out` hold
/// whole pixels of `channels` values (channels `c0..c0 + channels` each).
/// One instance for every kernel (never inlined); the scale form and
/// whether the activation range is the whole int8 range (a saturating
/// narrow, `SSAT`) are chosen once per call, so kernels with few channels
/// per pixel gather several pixels' sums before calling.
#[inline(never)]
pub fn requantize_pixels(acc: &[i32], q: &Rescale<'_>, c0: usize, channels: usize, out: &mut [i8]) {
    if channels == 0 {
        return;
    }
    let acc = &acc[..out.len()];
    let whole = q.act_min <= i8::MIN as i32 && q.act_max >= i8::MAX as i32;
    let pixels = acc.chunks_exact(channels).zip(out.chunks_exact_mut(channels));
    match q.scales {
        #[cfg(all(target_arch = "arm", target_feature = "thumb2"))]
        Scales::Down(s) if whole => {
            requantize_down_whole(acc, &s[c0..c0 + channels], out);
        }
        Scales::Down(s) => {
            let s = &s[c0..c0 + channels];
            pixels.for_each(|(acc, out)| requantize_with(acc, s, q, whole, out, rescale_down));
        }
        Scales::Any(s) => {
            let (s, offset) = (&s[c0..c0 + channels], q.output_offset);
            pixels.for_each(|(acc, out)| {
                requantize_with(acc, s, q, whole, out, |a, s| rescale(a, s).wrapping_add(offset))
            });
        }
    }
}

/// Assembly: one output of the short-form requantization, whole int8
/// range: its scale (`LDM` from `{ps}`, advanced), `SMLAL`, `LSR`,
/// `SMLAL`, `ASR`, `SSAT` and a byte store (to `{po}`, advanced); `$a`
/// names the accumulator's register (clobbered), `{min}` holds `i32::MIN`.
#[cfg(all(target_arch = "arm", target_feature = "thumb2"))]
#[rustfmt::skip]
macro_rules! down_one {
    ($a:literal) => {
        concat!(
            "ldm {ps}!, {{r2, r3, r4, r5}}\n",
            "smlal r4, r5, ", $a, ", r2\n",
            "lsr ", $a, ", ", $a, ", #31\n",
            "smlal r4, r5, ", $a, ", {min}\n",
            "asr r5, r5, r3\n",
            "ssat r5, #8, r5\n",
            "strb r5, [{po}], #1"
        )
    };
}

/// The common case of [`requantize_pixels`] on ARMv7-M as one assembly
/// loop per pixel: short-form scales, the whole int8 range. Per two
/// outputs: one `LDRD` of the accumulators, and for each one `LDM` of its
/// scale, `SMLAL`, `LSR`, `SMLAL`, `ASR`, `SSAT` and a byte store; then the
/// loop step (9 instructions per output; the compiler's own loop takes
/// 13). The accumulator and output pointers run on from pixel to pixel.
#[cfg(all(target_arch = "arm", target_feature = "thumb2"))]
#[inline(always)]
fn requantize_down_whole(acc: &[i32], scales: &[[i32; 4]], out: &mut [i8]) {
    let channels = scales.len();
    if channels == 0 {
        return;
    }
    let pixels = out.len() / channels;
    let (acc, out) = (&acc[..pixels * channels], &mut out[..pixels * channels]);
    let (mut pa, mut po) = (acc.as_ptr(), out.as_mut_ptr());
    for _ in 0..pixels {
        // SAFETY: per pixel the loops run `channels >= 1` times in all (one
        // single step when odd, then pairs), read that many accumulators
        // (4-aligned, as `LDRD` needs) from `pa` and scales, and write that
        // many bytes from `po`; `pa` and `po` advance by one pixel, and
        // `pixels * channels` values are in `acc` and `out` (the slicing
        // above). Register arithmetic otherwise (ARMv7-M base).
        unsafe { requantize_down_run(&mut pa, scales.as_ptr(), channels, &mut po) };
    }
}

/// The assembly of [`requantize_down_whole`]: `n` outputs from `*pa`,
/// scales from `ps`, to `*po`, both pointers left past the run.
///
/// # Safety
/// `n >= 1`; `n` accumulators (4-aligned) readable at `*pa`, `n` scales at
/// `ps`, `n` bytes writable at `*po`.
#[cfg(all(target_arch = "arm", target_feature = "thumb2"))]
#[inline(always)]
unsafe fn requantize_down_run(pa: &mut *const i32, ps: *const [i32; 4], n: usize, po: &mut *mut i8) {
    // SAFETY: the caller's contract; the loops read and write exactly `n`
    // values each.
    unsafe {
        core::arch::asm!(
            "tst {n}, #1",
            "beq 3f",
            "ldr {a}, [{pa}], #4",
            down_one!("{a}"),
            "subs {n}, {n}, #1",
            "beq 4f",
            "3:",
            "ldrd {a}, {b}, [{pa}], #8",
            down_one!("{a}"),
            down_one!("{b}"),
            "subs {n}, {n}, #2",
            "bne 3b",
            "4:",
            pa = inout(reg) *pa,
            ps = inout(reg) ps => _,
            po = inout(reg) *po,
            n = inout(reg) n => _,
            min = in(reg) i32::MIN,
            a = out(reg) _,
            b = out(reg) _,
            out("r2") _,
            out("r3") _,
            out("r4") _,
            out("r5") _,
            options(nostack),
        );
    }
}

/// `v` saturated to int8 without a branch (`SSAT` on Arm; on x86-64 the
/// SSE2 saturating packs, where the compiler would otherwise branch, and
/// mispredict on ReLU outputs).
#[inline(always)]
pub(crate) fn saturate_i8(v: i32) -> i8 {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::*;
        // SAFETY: SSE2 is part of the x86-64 baseline; register operations only.
        unsafe {
            let x = _mm_cvtsi32_si128(v);
            let x = _mm_packs_epi32(x, x);
            _mm_cvtsi128_si32(_mm_packs_epi16(x, x)) as i8
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        v.clamp(i8::MIN as i32, i8::MAX as i32) as i8
    }
}

#[inline(always)]
fn requantize_with(
    acc: &[i32],
    scales: &[[i32; 4]],
    q: &Rescale<'_>,
    whole: bool,
    out: &mut [i8],
    rescale: impl Fn(i32, &[i32; 4]) -> i32,
) {
    if whole {
        for ((o, &a), s) in out.iter_mut().zip(acc).zip(scales) {
            *o = saturate_i8(rescale(a, s));
        }
    } else {
        let (lo, hi) = (q.act_min, q.act_max);
        for ((o, &a), s) in out.iter_mut().zip(acc).zip(scales) {
            *o = clamp_i32(rescale(a, s), lo, hi) as i8;
        }
    }
}

/// `acc[c] = bias[c] + row_c . x` for the `acc.len()` packed rows of
/// `packed` (`DEPTH` values each, the first `DEPTH` of `x`; an `x` padded
/// with zeros to the packed row length gives the same sums, faster). One
/// instance per depth, never inlined: kernels whose rows have the same
/// length share one copy of the assembly loops (flash), and the depth is
/// still a constant inside it.
#[inline(never)]
pub fn dots<const DEPTH: usize>(x: &[i8], packed: &[i8], bias: &[i32], acc: &mut [i32]) {
    dot_blocks::<DEPTH>(x, packed, bias, acc.len(), |c, a| acc[c..c + a.len()].copy_from_slice(a));
}

/// [`dots`] with each block of sums requantized as soon as it is done
/// ([`requantize_block`]), straight into `out` (one output per row): the
/// sums never go through memory. For the short-form scales and the whole
/// int8 range ([`fused_scales`]).
#[inline(never)]
pub fn dots_down<const DEPTH: usize>(x: &[i8], packed: &[i8], bias: &[i32], scales: &[DownScale], out: &mut [i8]) {
    let scales = &scales[..out.len()];
    dot_blocks::<DEPTH>(x, packed, bias, out.len(), |c, a| requantize_block(a, &scales[c..], &mut out[c..]));
}

/// The walk of [`dots`]: blocks of 4 rows, then 2, then 1, each block's
/// sums (from the bias) handed to `sink` with its first row.
#[inline(always)]
fn dot_blocks<const DEPTH: usize>(
    x: &[i8],
    packed: &[i8],
    bias: &[i32],
    channels: usize,
    mut sink: impl FnMut(usize, &[i32]),
) {
    let x = &x[..DEPTH];
    let d4 = depth4(DEPTH);
    let bias = &bias[..channels];
    let mut c = 0;
    let mut off = 0;
    #[cfg(all(target_arch = "arm", target_feature = "dsp"))]
    if DEPTH >= 4 && DEPTH <= WIDE_DEPTH && channels >= 16 {
        // The input widened to 16-bit pairs once, on the stack, instead
        // of once per block of 4 rows (2 instructions fewer per 16 MACs).
        let full = DEPTH / 4;
        let mut buf = core::mem::MaybeUninit::<[u32; WIDE_DEPTH / 2]>::uninit();
        let wide = widen(&x[..4 * full], &mut buf);
        while channels - c >= 4 {
            let a = [bias[c], bias[c + 1], bias[c + 2], bias[c + 3]];
            let a = dot_block_with(x, &packed[off..off + 4 * d4], a, |_, block, a| dot_quads_wide(wide, block, a));
            sink(c, &a);
            c += 4;
            off += 4 * d4;
        }
    }
    while channels - c >= 4 {
        let a = [bias[c], bias[c + 1], bias[c + 2], bias[c + 3]];
        sink(c, &dot_block::<4>(x, &packed[off..off + 4 * d4], a));
        c += 4;
        off += 4 * d4;
    }
    if channels - c >= 2 {
        sink(c, &dot_block::<2>(x, &packed[off..off + 2 * d4], [bias[c], bias[c + 1]]));
        c += 2;
        off += 2 * d4;
    }
    if channels - c == 1 {
        sink(c, &dot_block::<1>(x, &packed[off..off + d4], [bias[c]]));
    }
}

/// The scales for fused requantization ([`dots_down`], the depthwise
/// kernel's): short-form scales and an activation range that is the whole
/// int8 range, the common case; `None` otherwise.
#[inline(always)]
pub fn fused_scales<'a>(q: &Rescale<'a>) -> Option<&'a [DownScale]> {
    match q.scales {
        Scales::Down(s) if tinyaot_common::whole_int8_range!(q.act_min, q.act_max) => Some(s),
        _ => None,
    }
}

/// `out[k] = saturate(rescale_down(sums[k], scales[k]))` for a block of
/// sums still in registers. On ARMv7-M per output: one `LDM` of its scale,
/// `SMLAL`, `LSR`, `SMLAL`, `ASR`, `SSAT` and a byte store (7).
#[inline(always)]
pub fn requantize_block(sums: &[i32], scales: &[DownScale], out: &mut [i8]) {
    let n = sums.len();
    let (scales, out) = (&scales[..n], &mut out[..n]);
    #[cfg(all(target_arch = "arm", target_feature = "thumb2"))]
    {
        let (mut ps, mut po) = (scales.as_ptr(), out.as_mut_ptr());
        for &a in sums {
            // SAFETY: `ps` and `po` step through `scales` and `out`, both
            // `n` long (sliced above), one element per sum; register
            // arithmetic otherwise (ARMv7-M base).
            unsafe {
                core::arch::asm!(
                    down_one!("{a}"),
                    ps = inout(reg) ps,
                    po = inout(reg) po,
                    a = inout(reg) a => _,
                    min = in(reg) i32::MIN,
                    out("r2") _,
                    out("r3") _,
                    out("r4") _,
                    out("r5") _,
                    options(nostack),
                );
            }
        }
    }
    #[cfg(not(all(target_arch = "arm", target_feature = "thumb2")))]
    for ((o, &a), s) in out.iter_mut().zip(sums).zip(scales) {
        *o = saturate_i8(rescale_down(a, s));
    }
}

/// `acc[r] += row_r . x` for the `R` rows of one packed block.
#[inline(always)]
fn dot_block<const R: usize>(x: &[i8], block: &[i8], acc: [i32; R]) -> [i32; R] {
    dot_block_with(x, block, acc, dot_groups::<R>)
}

/// [`dot_block`] with the whole groups of 4 summed by `groups` (given the
/// whole groups of `x` and of the block): the last partial group here.
#[inline(always)]
fn dot_block_with<const R: usize>(
    x: &[i8],
    block: &[i8],
    mut acc: [i32; R],
    groups: impl FnOnce(&[i8], &[i8], [i32; R]) -> [i32; R],
) -> [i32; R] {
    let full = x.len() / 4;
    let block = &block[..R * depth4(x.len())];
    if full > 0 {
        acc = groups(&x[..4 * full], &block[..R * 4 * full], acc);
    }
    // The last partial group (weights zero-padded past the row).
    for (j, &xv) in x[4 * full..].iter().enumerate() {
        for (r, a) in acc.iter_mut().enumerate() {
            *a = a.wrapping_add(xv as i32 * block[(full * R + r) * 4 + j] as i32);
        }
    }
    acc
}

/// Whole groups of 4 (portable): wrapping sums, so the total is the same
/// in any order.
#[cfg(not(any(all(target_arch = "arm", target_feature = "dsp"), target_arch = "x86_64")))]
#[inline(always)]
fn dot_groups<const R: usize>(x: &[i8], block: &[i8], acc: [i32; R]) -> [i32; R] {
    dot_groups_scalar(x, block, acc)
}

#[cfg_attr(all(target_arch = "arm", target_feature = "dsp"), allow(dead_code))]
#[inline(always)]
fn dot_groups_scalar<const R: usize>(x: &[i8], block: &[i8], mut acc: [i32; R]) -> [i32; R] {
    for (xg, wg) in x.chunks_exact(4).zip(block.chunks_exact(4 * R)) {
        for (r, a) in acc.iter_mut().enumerate() {
            let s: i32 = (0..4).map(|j| xg[j] as i32 * wg[4 * r + j] as i32).sum();
            *a = a.wrapping_add(s);
        }
    }
    acc
}

/// `out[r] += ` the sum of lane pair `r` of `lo` (rows 0, 1) and `hi`
/// (rows 2, 3): the per-row totals of `pmaddwd` accumulators.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn add_lane_pairs<const R: usize>(
    out: &mut [i32; R],
    lo: core::arch::x86_64::__m128i,
    hi: core::arch::x86_64::__m128i,
) {
    use core::arch::x86_64::_mm_storeu_si128;
    let (mut l, mut h) = ([0i32; 4], [0i32; 4]);
    // SAFETY: SSE2 (x86-64 baseline); unaligned stores into 16-byte arrays.
    unsafe {
        _mm_storeu_si128(l.as_mut_ptr().cast(), lo);
        _mm_storeu_si128(h.as_mut_ptr().cast(), hi);
    }
    let sums = [l[0].wrapping_add(l[1]), l[2].wrapping_add(l[3]), h[0].wrapping_add(h[1]), h[2].wrapping_add(h[3])];
    for (o, s) in out.iter_mut().zip(sums) {
        *o = o.wrapping_add(s);
    }
}

/// Whole groups of 4 on x86-64 (SSE2, part of the baseline): the group's
/// 4 input values repeated across a vector, the block's 16 (or 8) weights
/// widened to 16 bits, `pmaddwd` into per-row lane pairs.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn dot_groups<const R: usize>(x: &[i8], block: &[i8], acc: [i32; R]) -> [i32; R] {
    use core::arch::x86_64::*;
    if R != 4 && R != 2 {
        return dot_groups_scalar(x, block, acc);
    }
    let groups = x.len() / 4;
    let (x, block) = (&x[..4 * groups], &block[..4 * R * groups]);
    let mut out = acc;
    // SAFETY: SSE2 is part of the x86-64 baseline; every load reads within
    // `x` (4 bytes per group) or `block` (4R bytes per group), whose lengths
    // were sliced above; unaligned loads are used throughout.
    unsafe {
        let widen_lo = |v: __m128i| _mm_srai_epi16::<8>(_mm_unpacklo_epi8(v, v));
        let widen_hi = |v: __m128i| _mm_srai_epi16::<8>(_mm_unpackhi_epi8(v, v));
        let (mut lo, mut hi) = (_mm_setzero_si128(), _mm_setzero_si128());
        for g in 0..groups {
            let xw = i32::from_le_bytes([x[4 * g] as u8, x[4 * g + 1] as u8, x[4 * g + 2] as u8, x[4 * g + 3] as u8]);
            let xv = widen_lo(_mm_set1_epi32(xw));
            let wp = block.as_ptr().add(4 * R * g).cast::<__m128i>();
            if R == 4 {
                let w = _mm_loadu_si128(wp);
                lo = _mm_add_epi32(lo, _mm_madd_epi16(widen_lo(w), xv));
                hi = _mm_add_epi32(hi, _mm_madd_epi16(widen_hi(w), xv));
            } else {
                let w = _mm_loadl_epi64(wp);
                lo = _mm_add_epi32(lo, _mm_madd_epi16(widen_lo(w), xv));
            }
        }
        add_lane_pairs(&mut out, lo, hi);
    }
    out
}

/// Assembly: load the next input word and widen it to the 16-bit pairs
/// `x02` (values 0, 2) and `x13` (values 1, 3).
#[cfg(all(target_arch = "arm", target_feature = "dsp"))]
macro_rules! load_x {
    () => {
        concat!("ldr {x02}, [{p}], #4\n", "sxtb16 {x13}, {x02}, ror #8\n", "sxtb16 {x02}, {x02}\n")
    };
}

/// Assembly: widen the weight word in register `$w` to pairs and add its
/// four products with the input pairs to accumulator `$acc`.
#[cfg(all(target_arch = "arm", target_feature = "dsp"))]
macro_rules! mac_row {
    ($w:literal, $acc:literal) => {
        concat!(
            "sxtb16 {t}, {",
            $w,
            "}, ror #8\n",
            "sxtb16 {",
            $w,
            "}, {",
            $w,
            "}\n",
            "smlad {",
            $acc,
            "}, {x02}, {",
            $w,
            "}, {",
            $acc,
            "}\n",
            "smlad {",
            $acc,
            "}, {x13}, {t}, {",
            $acc,
            "}\n"
        )
    };
}

/// Assembly: one group of 4 input values (loaded by `$load`) against a block of 4 rows.
#[cfg(all(target_arch = "arm", target_feature = "dsp"))]
macro_rules! quad {
    ($($load:tt)*) => {
        concat!(
            $($load)*,
            "ldrd {wa}, {wb}, [{w}], #8\n",
            mac_row!("wa", "a0"),
            mac_row!("wb", "a1"),
            "ldrd {wa}, {wb}, [{w}], #8\n",
            mac_row!("wa", "a2"),
            mac_row!("wb", "a3")
        )
    };
}

/// Deepest row whose input [`dots`] widens once on the stack (`2 *
/// WIDE_DEPTH` bytes) on DSP cores.
#[cfg(all(target_arch = "arm", target_feature = "dsp"))]
pub const WIDE_DEPTH: usize = 256;

/// The 16-bit pairs of `x` (bytes 0, 2 and 1, 3 of each group of 4),
/// written into `buf` (not zeroed first: every word returned is written).
#[cfg(all(target_arch = "arm", target_feature = "dsp"))]
fn widen<'b>(x: &[i8], buf: &'b mut core::mem::MaybeUninit<[u32; WIDE_DEPTH / 2]>) -> &'b [u32] {
    let groups = x.len() / 4;
    assert!(groups > 0 && 2 * groups <= WIDE_DEPTH / 2);
    let q = buf.as_mut_ptr() as *mut u32;
    // SAFETY: reads `groups` words of `x` (plain LDR, unaligned allowed)
    // and writes the first `2 * groups` words of `buf` (u32-aligned, STRD),
    // both within bounds by the assert above.
    unsafe {
        core::arch::asm!(
            "2:",
            "ldr {t}, [{p}], #4",
            "sxtb16 {lo}, {t}",
            "sxtb16 {hi}, {t}, ror #8",
            "strd {lo}, {hi}, [{q}], #8",
            "subs {n}, {n}, #1",
            "bne 2b",
            p = inout(reg) x.as_ptr() => _,
            q = inout(reg) q => _,
            n = inout(reg) groups => _,
            t = out(reg) _,
            lo = out(reg) _,
            hi = out(reg) _,
            options(nostack),
        );
    }
    // SAFETY: the loop above initialized exactly these `2 * groups` words.
    unsafe { core::slice::from_raw_parts(q, 2 * groups) }
}

/// Assembly loop over `groups` groups of 4 inputs against a block of 4
/// rows, the input of each group loaded by `$load` (bytes and `SXTB16`, or
/// pre-widened pairs); an odd group first, then two per pass:
/// returns the 4 sums added to `$acc`. Unsafe: the caller vouches for the
/// reads (each group reads from `$x` and `$w` and advances them).
#[cfg(all(target_arch = "arm", target_feature = "dsp"))]
macro_rules! quads {
    ([$($load:tt)*], $x:expr, $w:expr, $groups:expr, $acc:expr) => {{
        let [mut a0, mut a1, mut a2, mut a3]: [i32; 4] = $acc;
        core::arch::asm!(
            "tst {n}, #1",
            "beq 3f",
            quad!($($load)*),
            "3:",
            "lsrs {n}, {n}, #1",
            "beq 4f",
            "2:",
            quad!($($load)*),
            quad!($($load)*),
            "subs {n}, {n}, #1",
            "bne 2b",
            "4:",
            p = inout(reg) $x => _,
            w = inout(reg) $w => _,
            n = inout(reg) $groups => _,
            a0 = inout(reg) a0,
            a1 = inout(reg) a1,
            a2 = inout(reg) a2,
            a3 = inout(reg) a3,
            x02 = out(reg) _,
            x13 = out(reg) _,
            wa = out(reg) _,
            wb = out(reg) _,
            t = out(reg) _,
            options(nostack, readonly),
        );
        [a0, a1, a2, a3]
    }};
}

/// Whole groups of 4 against a block of 4 rows, the input already widened
/// ([`widen`]): per 16 MACs one `LDRD` of input pairs, two `LDRD`s of
/// weights, eight `SXTB16` and eight `SMLAD`.
#[cfg(all(target_arch = "arm", target_feature = "dsp"))]
#[inline(always)]
fn dot_quads_wide(wide: &[u32], block: &[i8], acc: [i32; 4]) -> [i32; 4] {
    let groups = wide.len() / 2;
    assert!(groups > 0 && block.len() >= 16 * groups);
    debug_assert!(block.as_ptr() as usize % 4 == 0);
    // SAFETY: reads `2 * groups` words of `wide` and `4 * groups` words of
    // `block` (lengths checked above), LDRD on 4-aligned addresses.
    unsafe { quads!(["ldrd {x02}, {x13}, [{p}], #8\n"], wide.as_ptr(), block.as_ptr(), groups, acc) }
}

/// Whole groups of 4 (DSP assembly, one loop per block height).
#[cfg(all(target_arch = "arm", target_feature = "dsp"))]
#[inline(always)]
fn dot_groups<const R: usize>(x: &[i8], block: &[i8], acc: [i32; R]) -> [i32; R] {
    let groups = x.len() / 4;
    // The loops read `groups` words of `x` and `groups * R` words of the
    // block; the block starts 4-aligned (16-aligned flash, blocks of
    // multiples of 4 bytes), as LDRD needs; `x` loads are plain LDR, which
    // the M4/M7 allow unaligned.
    assert!(groups > 0 && x.len() >= 4 * groups && block.len() >= 4 * R * groups);
    debug_assert!(block.as_ptr() as usize % 4 == 0);
    let mut out = acc;
    match R {
        4 => {
            // SAFETY: reads only inside `x` and `block` (lengths checked
            // above), LDRD on 4-aligned addresses; registers otherwise.
            let sums =
                unsafe { quads!([load_x!()], x.as_ptr(), block.as_ptr(), groups, [acc[0], acc[1], acc[2], acc[3]]) };
            out[..4].copy_from_slice(&sums);
        }
        2 => {
            let [mut a0, mut a1] = [acc[0], acc[1]];
            // SAFETY: as above, for blocks of 2 rows.
            unsafe {
                core::arch::asm!(
                    "2:",
                    load_x!(),
                    "ldrd {wa}, {wb}, [{w}], #8",
                    mac_row!("wa", "a0"),
                    mac_row!("wb", "a1"),
                    "subs {n}, {n}, #1",
                    "bne 2b",
                    p = inout(reg) x.as_ptr() => _,
                    w = inout(reg) block.as_ptr() => _,
                    n = inout(reg) groups => _,
                    a0 = inout(reg) a0,
                    a1 = inout(reg) a1,
                    x02 = out(reg) _,
                    x13 = out(reg) _,
                    wa = out(reg) _,
                    wb = out(reg) _,
                    t = out(reg) _,
                    options(nostack, readonly),
                );
            }
            out[..2].copy_from_slice(&[a0, a1]);
        }
        _ => {
            let mut a0 = acc[0];
            // SAFETY: as above, for single rows (plain LDR for the weights).
            unsafe {
                core::arch::asm!(
                    "2:",
                    load_x!(),
                    "ldr {wa}, [{w}], #4",
                    mac_row!("wa", "a0"),
                    "subs {n}, {n}, #1",
                    "bne 2b",
                    p = inout(reg) x.as_ptr() => _,
                    w = inout(reg) block.as_ptr() => _,
                    n = inout(reg) groups => _,
                    a0 = inout(reg) a0,
                    x02 = out(reg) _,
                    x13 = out(reg) _,
                    wa = out(reg) _,
                    t = out(reg) _,
                    options(nostack, readonly),
                );
            }
            out[0] = a0;
        }
    }
    out
}
