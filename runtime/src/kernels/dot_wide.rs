//! int8 dot products over weights widened at compile time
//! (`layout::pack_rows_wide`: the blocks of `layout::pack_rows`, each row's
//! group of 4 values stored as two words of 16-bit pairs). The compiler
//! chooses this layout for small layers, where twice the weight bytes
//! cost little flash: on DSP cores the inner loop then only loads the
//! weights, per 16 MACs one input load, two `SXTB16`, four `LDRD` and
//! eight `SMLAD` (0.94 instructions per MAC, against 1.31 for bytes).
//! Elsewhere plain Rust (SSE2 on x86-64) computes the same wrapping sums.

use super::DownScale;
use super::layout::depth4;

/// Weight rows packed for the blocked dot products, in either layout:
/// bytes (`layout::pack_rows`) or widened words (`layout::pack_rows_wide`).
pub trait PackedRows: Copy {
    /// `acc[k] = bias[k] + row_(first + k) . x` for the `acc.len()` rows
    /// from `first` (a multiple of 4, so the blocks line up).
    fn dots<const DEPTH: usize>(self, x: &[i8], first: usize, bias: &[i32], acc: &mut [i32]);
    /// The same rows requantized straight into `out` (one per row from
    /// `first`), for the short-form scales and the whole int8 range
    /// (`dot::fused_scales`); `scales` and `bias` start at row `first`.
    fn dots_down<const DEPTH: usize>(self, x: &[i8], first: usize, bias: &[i32], scales: &[DownScale], out: &mut [i8]);
}

impl PackedRows for &[i8] {
    #[inline(always)]
    fn dots<const DEPTH: usize>(self, x: &[i8], first: usize, bias: &[i32], acc: &mut [i32]) {
        let d4 = depth4(DEPTH);
        super::dot::dots::<DEPTH>(x, &self[first * d4..(first + acc.len()) * d4], bias, acc);
    }
    #[inline(always)]
    fn dots_down<const DEPTH: usize>(self, x: &[i8], first: usize, bias: &[i32], scales: &[DownScale], out: &mut [i8]) {
        let d4 = depth4(DEPTH);
        super::dot::dots_down::<DEPTH>(x, &self[first * d4..(first + out.len()) * d4], bias, scales, out);
    }
}

impl PackedRows for &[u32] {
    #[inline(always)]
    fn dots<const DEPTH: usize>(self, x: &[i8], first: usize, bias: &[i32], acc: &mut [i32]) {
        let w = depth4(DEPTH) / 2;
        dots_wide::<DEPTH>(x, &self[first * w..(first + acc.len()) * w], bias, acc);
    }
    #[inline(always)]
    fn dots_down<const DEPTH: usize>(self, x: &[i8], first: usize, bias: &[i32], scales: &[DownScale], out: &mut [i8]) {
        let w = depth4(DEPTH) / 2;
        dots_wide_down::<DEPTH>(x, &self[first * w..(first + out.len()) * w], bias, scales, out);
    }
}

/// `acc[c] = bias[c] + row_c . x` over widened rows (`DEPTH` values each,
/// the first `DEPTH` of `x`). One instance per depth, never inlined.
#[inline(never)]
pub fn dots_wide<const DEPTH: usize>(x: &[i8], packed: &[u32], bias: &[i32], acc: &mut [i32]) {
    wide_blocks::<DEPTH>(x, packed, bias, acc.len(), |c, a| acc[c..c + a.len()].copy_from_slice(a));
}

/// [`dots_wide`] with each block requantized straight into `out`
/// (`dot::dots_down`'s twin).
#[inline(never)]
pub fn dots_wide_down<const DEPTH: usize>(
    x: &[i8],
    packed: &[u32],
    bias: &[i32],
    scales: &[DownScale],
    out: &mut [i8],
) {
    let scales = &scales[..out.len()];
    wide_blocks::<DEPTH>(x, packed, bias, out.len(), |c, a| {
        super::dot::requantize_block(a, &scales[c..], &mut out[c..])
    });
}

/// The walk of [`dots_wide`]: blocks of 4 rows, then 2, then 1, each
/// block's sums (from the bias) handed to `sink` with its first row.
#[inline(always)]
fn wide_blocks<const DEPTH: usize>(
    x: &[i8],
    packed: &[u32],
    bias: &[i32],
    channels: usize,
    mut sink: impl FnMut(usize, &[i32]),
) {
    let x = &x[..DEPTH];
    let w = depth4(DEPTH) / 2;
    let bias = &bias[..channels];
    let mut c = 0;
    while channels - c >= 4 {
        let a = [bias[c], bias[c + 1], bias[c + 2], bias[c + 3]];
        sink(c, &block::<4>(x, &packed[c * w..(c + 4) * w], a));
        c += 4;
    }
    if channels - c >= 2 {
        sink(c, &block::<2>(x, &packed[c * w..(c + 2) * w], [bias[c], bias[c + 1]]));
        c += 2;
    }
    if channels - c == 1 {
        sink(c, &block::<1>(x, &packed[c * w..(c + 1) * w], [bias[c]]));
    }
}

/// `acc[r] += row_r . x` for the `R` rows of one widened block.
#[inline(always)]
fn block<const R: usize>(x: &[i8], block: &[u32], mut acc: [i32; R]) -> [i32; R] {
    let full = x.len() / 4;
    let block = &block[..R * depth4(x.len()) / 2];
    if full > 0 {
        acc = groups::<R>(&x[..4 * full], &block[..2 * R * full], acc);
    }
    // The last partial group: value j of a group is in word j % 2, half
    // j / 2 (weights zero-padded past the row).
    for (j, &xv) in x[4 * full..].iter().enumerate() {
        for (r, a) in acc.iter_mut().enumerate() {
            let word = block[(full * R + r) * 2 + j % 2];
            *a = a.wrapping_add(xv as i32 * (word >> (16 * (j / 2))) as u16 as i16 as i32);
        }
    }
    acc
}

/// Whole groups (portable).
#[cfg(not(any(all(target_arch = "arm", target_feature = "dsp"), target_arch = "x86_64")))]
#[inline(always)]
fn groups<const R: usize>(x: &[i8], block: &[u32], acc: [i32; R]) -> [i32; R] {
    groups_scalar(x, block, acc)
}

/// Whole groups in plain Rust, the halves read with one halfword load
/// each: a u32 slice is its 16-bit halves, low half first (tinyaot builds
/// for little-endian targets only: `lib.rs` refuses the others).
#[cfg_attr(all(target_arch = "arm", target_feature = "dsp"), allow(dead_code))]
#[inline(always)]
fn groups_scalar<const R: usize>(x: &[i8], block: &[u32], mut acc: [i32; R]) -> [i32; R] {
    // SAFETY: a u32 slice is 4-aligned and holds exactly twice as many
    // i16, any bit pattern of which is valid; the borrow is kept.
    let halves = unsafe { core::slice::from_raw_parts(block.as_ptr().cast::<i16>(), 2 * block.len()) };
    for (xg, wg) in x.chunks_exact(4).zip(halves.chunks_exact(4 * R)) {
        for (r, a) in acc.iter_mut().enumerate() {
            let w = &wg[4 * r..4 * r + 4];
            let s = xg[0] as i32 * w[0] as i32
                + xg[2] as i32 * w[1] as i32
                + xg[1] as i32 * w[2] as i32
                + xg[3] as i32 * w[3] as i32;
            *a = a.wrapping_add(s);
        }
    }
    acc
}

/// Whole groups on x86-64 (SSE2): the group's inputs widened and ordered
/// as the weight pairs (0, 2, 1, 3), repeated for two rows; one 128-bit
/// load holds two rows' words, `pmaddwd` sums pairs per row.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn groups<const R: usize>(x: &[i8], block: &[u32], acc: [i32; R]) -> [i32; R] {
    use core::arch::x86_64::*;
    if R != 4 && R != 2 {
        return groups_scalar(x, block, acc);
    }
    let n = x.len() / 4;
    let (x, block) = (&x[..4 * n], &block[..2 * R * n]);
    let mut out = acc;
    // SAFETY: SSE2 is part of the x86-64 baseline; every load reads within
    // `block` (2R words per group, length sliced above), unaligned loads.
    unsafe {
        let (mut lo, mut hi) = (_mm_setzero_si128(), _mm_setzero_si128());
        for g in 0..n {
            let xw = i32::from_le_bytes([x[4 * g] as u8, x[4 * g + 1] as u8, x[4 * g + 2] as u8, x[4 * g + 3] as u8]);
            let xv = _mm_srai_epi16::<8>(_mm_unpacklo_epi8(_mm_set1_epi32(xw), _mm_set1_epi32(xw)));
            // (0, 1, 2, 3) -> (0, 2, 1, 3) in both halves.
            let xv = _mm_shufflehi_epi16::<0b11_01_10_00>(_mm_shufflelo_epi16::<0b11_01_10_00>(xv));
            let wp = block.as_ptr().add(2 * R * g).cast::<__m128i>();
            lo = _mm_add_epi32(lo, _mm_madd_epi16(_mm_loadu_si128(wp), xv));
            if R == 4 {
                hi = _mm_add_epi32(hi, _mm_madd_epi16(_mm_loadu_si128(wp.add(1)), xv));
            }
        }
        super::dot::add_lane_pairs(&mut out, lo, hi);
    }
    out
}

/// Assembly: one group of 4 inputs (loaded and widened) against the
/// widened words of the rows whose accumulators are named.
#[cfg(all(target_arch = "arm", target_feature = "dsp"))]
macro_rules! wide_group {
    ($($a:ident),+) => {
        concat!(
            "ldr {x02}, [{p}], #4\n",
            "sxtb16 {x13}, {x02}, ror #8\n",
            "sxtb16 {x02}, {x02}\n",
            $(
                "ldrd {wa}, {wb}, [{w}], #8\n",
                "smlad {", stringify!($a), "}, {x02}, {wa}, {", stringify!($a), "}\n",
                "smlad {", stringify!($a), "}, {x13}, {wb}, {", stringify!($a), "}\n",
            )+
        )
    };
}

/// Assembly over widened rows: `template`, with the input pointer `{p}`,
/// the weights pointer `{w}`, the named accumulators and the scratch
/// registers of [`wide_group`]; `extra` are further operands.
#[cfg(all(target_arch = "arm", target_feature = "dsp"))]
macro_rules! wide_asm {
    ($x:expr, $w:expr, [$($a:ident),+], [$($template:tt)*], $($extra:tt)*) => {
        core::arch::asm!(
            $($template)*,
            p = inout(reg) $x => _,
            w = inout(reg) $w => _,
            $($a = inout(reg) $a,)+
            x02 = out(reg) _,
            x13 = out(reg) _,
            wa = out(reg) _,
            wb = out(reg) _,
            $($extra)*
        )
    };
}

/// Assembly loop over `$n` groups for the named accumulators (an odd
/// group first, then two per pass). Unsafe: the caller vouches for the
/// reads from `$x` and `$w`.
#[cfg(all(target_arch = "arm", target_feature = "dsp"))]
macro_rules! wide_loop {
    ($x:expr, $w:expr, $n:expr, $($a:ident),+) => {
        wide_asm!(
            $x, $w, [$($a),+],
            [
                "tst {n}, #1",
                "beq 3f",
                wide_group!($($a),+),
                "3:",
                "lsrs {n}, {n}, #1",
                "beq 4f",
                "2:",
                wide_group!($($a),+),
                wide_group!($($a),+),
                "subs {n}, {n}, #1",
                "bne 2b",
                "4:"
            ],
            n = inout(reg) $n => _,
            options(nostack, readonly),
        )
    };
}

/// Assembly: `$k` groups (a literal) straight, no loop. Unsafe as
/// [`wide_loop`].
#[cfg(all(target_arch = "arm", target_feature = "dsp"))]
macro_rules! wide_straight {
    ($x:expr, $w:expr, $k:literal, $($a:ident),+) => {
        wide_asm!(
            $x, $w, [$($a),+],
            [".rept {k}", wide_group!($($a),+), ".endr"],
            k = const $k,
            options(nostack, readonly, preserves_flags),
        )
    };
}

/// The groups of one block: straight for up to 4 groups (short rows: the
/// loop's own steps would be a fifth of the work), else the loop.
#[cfg(all(target_arch = "arm", target_feature = "dsp"))]
macro_rules! wide_groups {
    ($x:expr, $w:expr, $n:expr, $($a:ident),+) => {
        match $n {
            1 => wide_straight!($x, $w, 1, $($a),+),
            2 => wide_straight!($x, $w, 2, $($a),+),
            3 => wide_straight!($x, $w, 3, $($a),+),
            4 => wide_straight!($x, $w, 4, $($a),+),
            _ => wide_loop!($x, $w, $n, $($a),+),
        }
    };
}

/// Whole groups (DSP assembly, one loop per block height).
#[cfg(all(target_arch = "arm", target_feature = "dsp"))]
#[inline(always)]
fn groups<const R: usize>(x: &[i8], block: &[u32], acc: [i32; R]) -> [i32; R] {
    let n = x.len() / 4;
    // The loops read `n` words of `x` (plain LDR, unaligned allowed) and
    // `2 R n` words of the block (a u32 slice: LDRD aligned).
    assert!(n > 0 && x.len() >= 4 * n && block.len() >= 2 * R * n);
    let (xp, wp) = (x.as_ptr(), block.as_ptr());
    let mut out = acc;
    match R {
        4 => {
            let [mut a0, mut a1, mut a2, mut a3] = [acc[0], acc[1], acc[2], acc[3]];
            // SAFETY: reads inside `x` and `block` (checked above).
            unsafe { wide_groups!(xp, wp, n, a0, a1, a2, a3) };
            out[..4].copy_from_slice(&[a0, a1, a2, a3]);
        }
        2 => {
            let [mut a0, mut a1] = [acc[0], acc[1]];
            // SAFETY: as above, blocks of 2 rows.
            unsafe { wide_groups!(xp, wp, n, a0, a1) };
            out[..2].copy_from_slice(&[a0, a1]);
        }
        _ => {
            let mut a0 = acc[0];
            // SAFETY: as above, single rows.
            unsafe { wide_groups!(xp, wp, n, a0) };
            out[0] = a0;
        }
    }
    out
}
