//! The int8 dot products over byte rows (`layout::pack_rows`) with
//! `SXTB16` and `SMLAD`.

use super::super::portable::WIDENED_INPUT_WORDS;
use tinyaot_common::fixedpoint::DownScale;

/// Assembly: load the next input word and widen it to the 16-bit pairs
/// `x02` (values 0, 2) and `x13` (values 1, 3).
macro_rules! load_x {
    () => {
        concat!("ldr {x02}, [{p}], #4\n", widen_x!())
    };
}

/// Assembly: widen the input word in `x02` to the pairs `x02` and `x13`.
macro_rules! widen_x {
    () => {
        concat!("sxtb16 {x13}, {x02}, ror #8\n", "sxtb16 {x02}, {x02}\n")
    };
}

/// Assembly: widen the weight word in register `$w` to pairs and add its
/// four products with the input pairs to accumulator `$acc`.
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

/// Assembly: one group of 4 input values (loaded by `$load`, then widened
/// by `$widen`) against a block of 4 rows. The first two weight words are
/// single `LDR`s right after the input's: the M4 pipelines neighbouring
/// loads (one cycle each after the first, where an `LDRD` takes three).
macro_rules! quad {
    ([$($load:tt)*], [$($widen:tt)*]) => {
        concat!(
            $($load)*,
            "ldr {wa}, [{w}], #4\n",
            "ldr {wb}, [{w}], #4\n",
            $($widen)*,
            mac_row!("wa", "a0"),
            mac_row!("wb", "a1"),
            "ldrd {wa}, {wb}, [{w}], #8\n",
            mac_row!("wa", "a2"),
            mac_row!("wb", "a3")
        )
    };
}

/// `portable::WIDEN_INPUT`: here, per 16 MACs, 2 instructions fewer.
#[cfg_attr(feature = "helium", allow(dead_code))] // Helium has its own (`arch::helium`).
pub(crate) const WIDEN_INPUT: bool = true;

/// `portable::widen_input`: per group one `LDR`, two `SXTB16`, one `STRD`.
pub(crate) fn widen_input<'b>(x: &[i8], buf: &'b mut core::mem::MaybeUninit<[u32; WIDENED_INPUT_WORDS]>) -> &'b [u32] {
    widen_input_with::<false>(x, buf).0
}

/// `portable::widen_input_sum`: [`widen_input`]'s loop with two `SMLAD`s
/// more per group, which add the group's values up.
pub(crate) fn widen_input_sum<'b>(
    x: &[i8],
    buf: &'b mut core::mem::MaybeUninit<[u32; WIDENED_INPUT_WORDS]>,
) -> (&'b [u32], i32) {
    widen_input_with::<true>(x, buf)
}

/// [`widen_input`], and with `SUM` the sum of the values widened (else 0).
#[inline(always)]
fn widen_input_with<'b, const SUM: bool>(
    x: &[i8],
    buf: &'b mut core::mem::MaybeUninit<[u32; WIDENED_INPUT_WORDS]>,
) -> (&'b [u32], i32) {
    let groups = x.len() / 4;
    assert!(groups > 0 && 2 * groups <= WIDENED_INPUT_WORDS);
    let q = buf.as_mut_ptr() as *mut u32;
    let mut sum = 0i32;
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
            ".if {sum}",
            "smlad {s}, {lo}, {ones}, {s}",
            "smlad {s}, {hi}, {ones}, {s}",
            ".endif",
            "subs {n}, {n}, #1",
            "bne 2b",
            p = inout(reg) x.as_ptr() => _,
            q = inout(reg) q => _,
            n = inout(reg) groups => _,
            s = inout(reg) sum,
            ones = in(reg) 0x0001_0001u32,
            t = out(reg) _,
            lo = out(reg) _,
            hi = out(reg) _,
            sum = const SUM as usize,
            options(nostack),
        );
    }
    // SAFETY: the loop above initialized exactly these `2 * groups` words.
    (unsafe { core::slice::from_raw_parts(q, 2 * groups) }, sum)
}

/// Assembly loop over `groups` groups of 4 inputs against a block of 4
/// rows, the input of each group loaded by `$load` and widened by `$widen`
/// (bytes and `SXTB16`, or pre-widened pairs and nothing); the groups
/// beyond a multiple of 4 first, then four per pass (a taken branch is 3
/// cycles): returns the 4 sums added to `$acc`. Unsafe:
/// the caller vouches for the reads (each group reads from `$x` and `$w`
/// and advances them).
macro_rules! quads {
    ([$($load:tt)*], [$($widen:tt)*], $x:expr, $w:expr, $groups:expr, $acc:expr) => {{
        let [mut a0, mut a1, mut a2, mut a3]: [i32; 4] = $acc;
        core::arch::asm!(
            "tst {n}, #1",
            "beq 3f",
            quad!([$($load)*], [$($widen)*]),
            "3:",
            "tst {n}, #2",
            "beq 5f",
            quad!([$($load)*], [$($widen)*]),
            quad!([$($load)*], [$($widen)*]),
            "5:",
            "lsrs {n}, {n}, #2",
            "beq 4f",
            "2:",
            quad!([$($load)*], [$($widen)*]),
            quad!([$($load)*], [$($widen)*]),
            quad!([$($load)*], [$($widen)*]),
            quad!([$($load)*], [$($widen)*]),
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

/// `portable::dot_quads_widened_input`: per 16 MACs one `LDRD` of input pairs, two `LDRD`s of
/// weights, eight `SXTB16` and eight `SMLAD`.
#[inline(always)]
pub(crate) fn dot_quads_widened_input(widened: &[u32], block: &[i8], acc: [i32; 4]) -> [i32; 4] {
    let groups = widened.len() / 2;
    assert!(groups > 0 && block.len() >= 16 * groups);
    debug_assert!(block.as_ptr() as usize % 4 == 0);
    // SAFETY: reads `2 * groups` words of `widened` and `4 * groups` words of
    // `block` (lengths checked above), LDRD on 4-aligned addresses.
    unsafe {
        quads!(
            ["ldr {x02}, [{p}], #4\n", "ldr {x13}, [{p}], #4\n"],
            [""],
            widened.as_ptr(),
            block.as_ptr(),
            groups,
            acc
        )
    }
}

/// `portable::dot_groups`, one assembly loop per block height: per 16
/// MACs (4 rows) one input load, two `LDRD`s, ten `SXTB16` and eight
/// `SMLAD`.
#[inline(always)]
pub(crate) fn dot_groups<const R: usize>(x: &[i8], block: &[i8], acc: [i32; R]) -> [i32; R] {
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
            let sums = unsafe {
                quads!(
                    ["ldr {x02}, [{p}], #4\n"],
                    [widen_x!()],
                    x.as_ptr(),
                    block.as_ptr(),
                    groups,
                    [acc[0], acc[1], acc[2], acc[3]]
                )
            };
            out[..4].copy_from_slice(&sums);
        }
        2 => {
            let [mut a0, mut a1] = [acc[0], acc[1]];
            // SAFETY: as above, for blocks of 2 rows.
            unsafe {
                core::arch::asm!(
                    "2:",
                    "ldr {x02}, [{p}], #4",
                    "ldr {wa}, [{w}], #4",
                    "ldr {wb}, [{w}], #4",
                    widen_x!(),
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

/// `portable::DOT_PAIRS`: per 16 MACs (two pixels, two rows) one `LDM` of
/// the two pixels' pairs, two `LDR`s, four `SXTB16` and eight `SMLAD` (21
/// cycles on a Cortex-M4, against 25 for one pixel and four rows).
#[cfg_attr(feature = "helium", allow(dead_code))] // Helium has its own (`arch::helium`).
pub(crate) const DOT_PAIRS: bool = true;

/// Assembly: one group of both pixels (`LDM` into r0-r3: a02, a13, b02,
/// b13) against the group's two row words at `{pw}` and `{pw} + 4`; the
/// weights pointer then steps `{step}` bytes to the next group.
macro_rules! pair_group {
    () => {
        concat!(
            "ldr r0, [{px}], #16\n",
            "ldr r1, [{px}, #-12]\n",
            "ldr r2, [{px}, #-8]\n",
            "ldr r3, [{px}, #-4]\n",
            "ldr {w}, [{pw}, #4]\n",
            "sxtb16 {t}, {w}, ror #8\n",
            "sxtb16 {w}, {w}\n",
            "smlad {a1}, r0, {w}, {a1}\n",
            "smlad {a1}, r1, {t}, {a1}\n",
            "smlad {b1}, r2, {w}, {b1}\n",
            "smlad {b1}, r3, {t}, {b1}\n",
            "ldr {w}, [{pw}], #{step}\n",
            "sxtb16 {t}, {w}, ror #8\n",
            "sxtb16 {w}, {w}\n",
            "smlad {a0}, r0, {w}, {a0}\n",
            "smlad {a0}, r1, {t}, {a0}\n",
            "smlad {b0}, r2, {w}, {b0}\n",
            "smlad {b0}, r3, {t}, {b0}\n"
        )
    };
}

/// `portable::dot_pair_rows`: the groups beyond a
/// multiple of 8 straight, then a loop of 8 groups per pass whose count
/// lives on the stack (the twelve registers the Thumb code may use are
/// all taken: four sums, four input pairs, the weight word and its odd
/// half, two pointers).
#[inline(always)]
pub(crate) fn dot_pair_rows<const STRIDE: usize, const DEPTH: usize>(
    pair: &[u32],
    rows: &[i8],
    acc: [i32; 4],
) -> [i32; 4] {
    let groups = const { DEPTH.div_ceil(4) };
    assert!(groups > 0 && pair.len() >= 4 * groups && rows.len() >= 4 * STRIDE * (groups - 1) + 8);
    let [mut a0, mut a1, mut b0, mut b1] = acc;
    // SAFETY: reads `4 * groups` words of `pair` (a u32 slice: LDM aligned)
    // and, per group, the two words at `rows + 4 * STRIDE * g` (plain LDR,
    // unaligned allowed), all inside the slices by the assert above. The
    // loop count is pushed and popped: the stack pointer is restored.
    unsafe {
        core::arch::asm!(
            ".rept {rem}",
            pair_group!(),
            ".endr",
            ".if {loops}",
            "mov {w}, #{loops}",
            "push {{{w}}}",
            "2:",
            ".rept 8",
            pair_group!(),
            ".endr",
            "ldr {w}, [sp]",
            "subs {w}, {w}, #1",
            "str {w}, [sp]",
            "bne 2b",
            "add sp, sp, #4",
            ".endif",
            px = inout(reg) pair.as_ptr() => _,
            pw = inout(reg) rows.as_ptr() => _,
            a0 = inout(reg) a0,
            a1 = inout(reg) a1,
            b0 = inout(reg) b0,
            b1 = inout(reg) b1,
            w = out(reg) _,
            t = out(reg) _,
            out("r0") _,
            out("r1") _,
            out("r2") _,
            out("r3") _,
            step = const 4 * STRIDE,
            rem = const DEPTH.div_ceil(4) % 8,
            loops = const DEPTH.div_ceil(4) / 8,
            options(readonly),
        );
    }
    [a0, a1, b0, b1]
}

/// Assembly: one group of both pixels in [`dot_pair_blocks_down`] (r12 at
/// the pair words `a02, a13, b02, b13`, lr at the group's row-0 word):
/// six pipelined loads (the two rows' words into r6 and r4), then per row
/// two `SXTB16` and four `SMLAD`: 19 cycles per 16 MACs on a Cortex-M4.
/// Sums: rows 0, 1 of pixel a in r8, r9, of pixel b in r10, r11.
macro_rules! pair_group_wide {
    () => {
        concat!(
            "ldr r0, [r12], #16\n",
            "ldr r1, [r12, #-12]\n",
            "ldr r2, [r12, #-8]\n",
            "ldr r3, [r12, #-4]\n",
            "ldr r4, [lr, #4]\n",
            "ldr r6, [lr], #16\n",
            "sxtb16 r5, r4, ror #8\n",
            "sxtb16 r4, r4\n",
            "smlad r9, r0, r4, r9\n",
            "smlad r9, r1, r5, r9\n",
            "smlad r11, r2, r4, r11\n",
            "smlad r11, r3, r5, r11\n",
            "sxtb16 r7, r6, ror #8\n",
            "sxtb16 r6, r6\n",
            "smlad r8, r0, r6, r8\n",
            "smlad r8, r1, r7, r8\n",
            "smlad r10, r2, r6, r10\n",
            "smlad r10, r3, r7, r10\n"
        )
    };
}

/// Assembly: the requantization of one row's two sums (`$a` of pixel a,
/// `$b` of pixel b) with the scale `m, s, lo, hi` in `$m, $s, $lo, $hi`;
/// `$lo2, $hi2` are a copy of the rounding term for pixel b, r7 holds
/// `i32::MIN` for the nudge of negative sums (left out where `{nudge}` is
/// 0: `fixedpoint::rescale_down_unnudged`). The int8 results are left in
/// `$hi` and `$hi2`.
#[rustfmt::skip]
macro_rules! down_two {
    ($a:literal, $b:literal, $m:literal, $s:literal, $lo:literal, $hi:literal, $lo2:literal, $hi2:literal) => {
        concat!(
            "mov ", $lo2, ", ", $lo, "\n",
            "mov ", $hi2, ", ", $hi, "\n",
            down_in!($a, $m, $s, $lo, $hi),
            down_in!($b, $m, $s, $lo2, $hi2)
        )
    };
}

/// Assembly: one sum `$a` requantized in [`down_two!`] with the rounding
/// term in `$lo, $hi` (the result left in `$hi`).
#[rustfmt::skip]
macro_rules! down_in {
    ($a:literal, $m:literal, $s:literal, $lo:literal, $hi:literal) => {
        concat!(
            "smlal ", $lo, ", ", $hi, ", ", $a, ", ", $m, "\n",
            ".if {nudge}\n",
            "lsr ", $a, ", ", $a, ", #31\n",
            "smlal ", $lo, ", ", $hi, ", ", $a, ", r7\n",
            ".endif\n",
            "asr ", $hi, ", ", $hi, ", ", $s, "\n",
            "ssat ", $hi, ", #8, ", $hi, "\n"
        )
    };
}

/// Assembly: the requantization of a row pair's four sums (r8, r10 row
/// 0's of pixels a and b, r9, r11 row 1's) with the scales at the frame's
/// pointer (r12 loaded), and the stores of two outputs per pixel (r4, r5
/// take row 0's rounding term for pixel b, r6 row 1's scale word and
/// result).
#[rustfmt::skip]
macro_rules! pair_rows_down {
    () => {
        concat!(
            "ldm r12!, {{r0, r1, r2, r3}}\n",
            down_two!("r8", "r10", "r0", "r1", "r2", "r3", "r4", "r5"),
            "ldm r12!, {{r0, r1, r2, r6}}\n",
            down_two!("r9", "r11", "r0", "r1", "r2", "r6", "r8", "r10"),
            "str r12, [sp]\n",
            "ldrd r0, r1, [sp, #8]\n",
            "bfi r3, r6, #8, #8\n",
            "bfi r5, r10, #8, #8\n",
            "strh r3, [r0], #2\n",
            "strh r5, [r1], #2\n",
            "strd r0, r1, [sp, #8]\n"
        )
    };
}

/// Assembly: rows 0 and 1 (or 2 and 3) of a block against both pixels,
/// from their biases to their int8 outputs. Stack frame (after the
/// pushes of [`dot_pair_blocks_down`]): scales, bias, out a, out b (the
/// next row's), the group-loop count, blocks left, the pair buffer.
macro_rules! pair_half_down {
    () => {
        concat!(
            "ldr r12, [sp, #24]\n",
            "ldr r4, [sp, #4]\n",
            "ldrd r8, r9, [r4], #8\n",
            "str r4, [sp, #4]\n",
            "mov r10, r8\n",
            "mov r11, r9\n",
            ".rept {rem}\n",
            pair_group_wide!(),
            ".endr\n",
            ".if {loops}\n",
            "mov r4, #{loops}\n",
            "str r4, [sp, #16]\n",
            "2:\n",
            ".rept 8\n",
            pair_group_wide!(),
            ".endr\n",
            "ldr r4, [sp, #16]\n",
            "subs r4, r4, #1\n",
            "str r4, [sp, #16]\n",
            "bne 2b\n",
            ".endif\n",
            "ldr r12, [sp]\n",
            ".if {nudge}\n",
            "mov r7, #0x80000000\n",
            ".endif\n",
            pair_rows_down!()
        )
    };
}

/// `portable::dot_pair_blocks_down` as one assembly loop over the blocks
/// (no bounds checks, pointers and counts kept on the stack between the
/// halves), with all 14 general registers (r6 and r7, which inline
/// assembly may not name as operands, saved and restored here): 19
/// cycles per group of 16 MACs and about 17 per output for the
/// requantization and the loop bookkeeping. (Rows in the pair-row layout:
/// `pair_lanes::lane_blocks_down`.)
#[inline(always)]
pub(crate) fn dot_pair_blocks_down<const DEPTH: usize, const NUDGE: bool>(
    pair: &[u32],
    rows: &[i8],
    bias: &[i32],
    scales: &[DownScale],
    out_a: &mut [i8],
    out_b: &mut [i8],
) {
    let groups = const { DEPTH.div_ceil(4) };
    // The step back from a block's rows 0, 1 to its rows 2, 3 is an
    // immediate (`SUBW`, 12 bits).
    const { assert!(DEPTH > 0 && 16 * DEPTH.div_ceil(4) <= 4095 + 8) };
    // Rows of up to 64 values run straight (no group loop, whose count
    // lives on the stack: 14 cycles per 4 outputs), longer ones in loops of
    // 8 groups (about 1 KB of code per 16 groups).
    let blocks = out_a.len() / 4;
    if blocks == 0 {
        return;
    }
    let n = 4 * blocks;
    assert!(
        pair.len() >= 4 * groups
            && rows.len() >= n * groups * 4
            && bias.len() >= n
            && scales.len() >= n
            && out_b.len() >= n
    );
    // SAFETY: per block reads `16 * groups` bytes of `rows` (plain LDR,
    // unaligned allowed) and `4 * groups` words of `pair`, two biases and
    // two scales per half, and writes 2 bytes per half to each output,
    // `blocks` times: all inside the slices by the assert above. r6 and r7
    // (not nameable as operands: LLVM's base and frame pointers) are pushed
    // first and popped last; the frame of the 7 words below is dropped
    // before them, so they and the stack pointer are restored.
    unsafe {
        core::arch::asm!(
            "push {{r6, r7}}",
            "push {{r0, r1, r2, r3, r4, r5, r12}}",
            "1:",
            pair_half_down!(),
            "subw lr, lr, #{back}",
            pair_half_down!(),
            "sub lr, lr, #8",
            "ldr r4, [sp, #20]",
            "subs r4, r4, #1",
            "str r4, [sp, #20]",
            "bne 1b",
            "add sp, sp, #28",
            "pop {{r6, r7}}",
            inout("r0") scales.as_ptr() => _,
            inout("r1") bias.as_ptr() => _,
            inout("r2") out_a.as_mut_ptr() => _,
            inout("r3") out_b.as_mut_ptr() => _,
            out("r4") _,
            inout("r5") blocks => _,
            inout("r12") pair.as_ptr() => _,
            inout("lr") rows.as_ptr() => _,
            out("r8") _,
            out("r9") _,
            out("r10") _,
            out("r11") _,
            nudge = const NUDGE as usize,
            rem = const if DEPTH <= 64 { DEPTH.div_ceil(4) } else { DEPTH.div_ceil(4) % 8 },
            loops = const if DEPTH <= 64 { 0 } else { DEPTH.div_ceil(4) / 8 },
            back = const 16 * DEPTH.div_ceil(4) - 8,
        );
    }
}

/// Assembly: the input words in `{$a}` and `{$b}` widened into the
/// lane's words of two groups, stored at `{q}` plus the offsets `$o0`-`$o3`
/// (`{lo0}`, `{lo1}` scratch); with `{sum}` their values' sum times 128
/// added to `{s}` (`{c}`: 128 in both lanes).
macro_rules! widen_two {
    ($a:literal, $b:literal, $o0:literal, $o1:literal, $o2:literal, $o3:literal) => {
        concat!(
            "sxtb16 {lo0}, {",
            $a,
            "}\n",
            "sxtb16 {",
            $a,
            "}, {",
            $a,
            "}, ror #8\n",
            "sxtb16 {lo1}, {",
            $b,
            "}\n",
            "sxtb16 {",
            $b,
            "}, {",
            $b,
            "}, ror #8\n",
            ".if {sum}\n",
            "smlad {s}, {lo0}, {c}, {s}\n",
            "smlad {s}, {",
            $a,
            "}, {c}, {s}\n",
            "smlad {s}, {lo1}, {c}, {s}\n",
            "smlad {s}, {",
            $b,
            "}, {c}, {s}\n",
            ".endif\n",
            "str {lo0}, [{q}, #",
            $o0,
            "]\n",
            "str {",
            $a,
            "}, [{q}, #",
            $o1,
            "]\n",
            "str {lo1}, [{q}, #",
            $o2,
            "]\n",
            "str {",
            $b,
            "}, [{q}, #",
            $o3,
            "]\n"
        )
    };
}

/// `portable::widen_pair_lane`: per group one `LDR`, two `SXTB16` (with
/// `SUM` two `SMLAD` by 128) and two `STR` into the lane's two words, four
/// groups per pass (their loads pipelined); a last partial group from its
/// bytes.
pub(crate) fn widen_pair_lane<const SUM: bool>(x: &[i8], lane: usize, buf: &mut [u32]) -> i32 {
    let (full, rest) = (x.len() / 4, x.len() % 4);
    let groups = x.len().div_ceil(4);
    assert!(lane < 2 && 4 * groups <= buf.len().min(super::super::portable::WIDENED_PAIR_WORDS));
    // 128 times the sum of the values (`SUM`), by `SMLAD` with 128 in both
    // lanes.
    let mut sum = 0i32;
    if full > 0 {
        // SAFETY: reads `full` words of `x` (plain LDR, unaligned allowed)
        // and writes two words of each of the first `full` groups of 4
        // words of `buf` (u32-aligned, STR), within bounds by the assert:
        // one group if `full` is odd, two if its bit 1 is set, then four
        // per pass (`full / 4` passes, the loop entered only past the
        // check).
        unsafe {
            core::arch::asm!(
                "tst {n}, #1",
                "beq 2f",
                "ldr {t0}, [{p}], #4",
                "sxtb16 {lo0}, {t0}",
                "sxtb16 {t0}, {t0}, ror #8",
                ".if {sum}",
                "smlad {s}, {lo0}, {c}, {s}",
                "smlad {s}, {t0}, {c}, {s}",
                ".endif",
                "str {lo0}, [{q}]",
                "str {t0}, [{q}, #4]",
                "add {q}, {q}, #16",
                "2:",
                "tst {n}, #2",
                "beq 3f",
                "ldr {t0}, [{p}], #8",
                "ldr {t1}, [{p}, #-4]",
                widen_two!("t0", "t1", "0", "4", "16", "20"),
                "add {q}, {q}, #32",
                "3:",
                "lsrs {n}, {n}, #2",
                "beq 4f",
                "5:",
                "ldr {t0}, [{p}], #16",
                "ldr {t1}, [{p}, #-12]",
                "ldr {t2}, [{p}, #-8]",
                "ldr {t3}, [{p}, #-4]",
                widen_two!("t0", "t1", "0", "4", "16", "20"),
                widen_two!("t2", "t3", "32", "36", "48", "52"),
                "add {q}, {q}, #64",
                "subs {n}, {n}, #1",
                "bne 5b",
                "4:",
                p = inout(reg) x.as_ptr() => _,
                q = inout(reg) buf.as_mut_ptr().add(2 * lane) => _,
                n = inout(reg) full => _,
                s = inout(reg) sum,
                c = in(reg) 0x0080_0080u32,
                sum = const SUM as usize,
                t0 = out(reg) _,
                t1 = out(reg) _,
                t2 = out(reg) _,
                t3 = out(reg) _,
                lo0 = out(reg) _,
                lo1 = out(reg) _,
                options(nostack),
            );
        }
    }
    if rest > 0 {
        let mut b = [0u8; 4];
        for (d, &v) in b.iter_mut().zip(&x[4 * full..]) {
            *d = v as u8;
        }
        let word = u32::from_le_bytes(b);
        let g = &mut buf[4 * full + 2 * lane..4 * full + 2 * lane + 2];
        g[0] = super::super::portable::sxtb16(word);
        g[1] = super::super::portable::sxtb16(word.rotate_right(8));
        sum = super::super::portable::smlad(g[1], 0x0080_0080, super::super::portable::smlad(g[0], 0x0080_0080, sum));
    }
    sum
}
