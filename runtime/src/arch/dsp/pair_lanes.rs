//! The fused int8 pair kernel over rows in the pair-row layout
//! (`layout::pack_pair_rows`): a whole block of 4 rows against both
//! pixels of a pair at once, from the biases to the int8 outputs.

use tinyaot_common::fixedpoint::DownScale;

/// Assembly: half a group, after its four loads (the pixels' pair words
/// for two of the values into r0 and r1, the lane words of rows 0, 1 and
/// 2, 3 for the same values into r2 and r3): per lane word two `SMLAD` of
/// the word itself (row 0 or 2 plus 128 and 256 times row 1 or 3) and,
/// after one `SXTB16` of it rotated, two of the odd row alone.
macro_rules! lane_half {
    () => {
        concat!(
            "smlad r4, r0, r2, r4\n",
            "smlad r5, r1, r2, r5\n",
            "smlad r8, r0, r3, r8\n",
            "smlad r9, r1, r3, r9\n",
            "sxtb16 r2, r2, ror #8\n",
            "sxtb16 r3, r3, ror #8\n",
            "smlad r6, r0, r2, r6\n",
            "smlad r7, r1, r2, r7\n",
            "smlad r10, r0, r3, r10\n",
            "smlad r11, r1, r3, r11\n"
        )
    };
}

/// Assembly: one group of 4 input values (r12 at the pair words `a02,
/// a13, b02, b13`, lr at the block's 16 bytes for the group: the lane
/// words of rows 0, 1 for values 0, 2 and 1, 3, then those of rows 2, 3),
/// both pointers stepped past it by the first loads: two runs of four
/// pipelined loads and two halves, 30 cycles per 32 MACs on a Cortex-M4.
macro_rules! lane_group {
    () => {
        concat!(
            "ldr r0, [r12], #16\n",
            "ldr r1, [r12, #-8]\n",
            "ldr r2, [lr], #16\n",
            "ldr r3, [lr, #-8]\n",
            lane_half!(),
            "ldr r0, [r12, #-12]\n",
            "ldr r1, [r12, #-4]\n",
            "ldr r2, [lr, #-12]\n",
            "ldr r3, [lr, #-4]\n",
            lane_half!()
        )
    };
}

/// Assembly: one row's two sums (`$a` of pixel a, `$b` of pixel b)
/// requantized into themselves, with the row's scale `m, s, K` loaded from
/// r12 (stepped to the next row's) into r0-r3; K is loaded again for the
/// second sum. With `{nudge}`, negative sums take the rounding nudge
/// (`fixedpoint::rescale_down`: 2^31 less, added as `lr << 31` in the low
/// word and `lr` in the high, `lr` the sum's sign), else not
/// (`rescale_down_unnudged`).
macro_rules! lane_row_down {
    ($a:literal, $b:literal) => {
        concat!("ldm r12!, {{r0, r1, r2, r3}}\n", lane_down_one!($a), "ldrd r2, r3, [r12, #-8]\n", lane_down_one!($b))
    };
}

/// Assembly: one sum `$a` of [`lane_row_down!`] from the multiplier in
/// r0, the shift in r1 and K in r2, r3 (consumed); the int8 result is
/// left in `$a`.
#[rustfmt::skip]
macro_rules! lane_down_one {
    ($a:literal) => {
        concat!(
            ".if {nudge}\n",
            "asr lr, ", $a, ", #31\n",
            "smlal r2, r3, ", $a, ", r0\n",
            "adds r2, r2, lr, lsl #31\n",
            "adc r3, r3, lr\n",
            ".else\n",
            "smlal r2, r3, ", $a, ", r0\n",
            ".endif\n",
            "asr ", $a, ", r3, r1\n",
            "ssat ", $a, ", #8, ", $a, "\n"
        )
    };
}

/// Groups that run straight in [`lane_blocks_down`] (rows of up to 144
/// values, about 4 KB of code): longer rows take a loop whose count lives
/// on the stack (about 8 cycles per pass).
const STRAIGHT_GROUPS: usize = 36;

/// Groups per pass of [`lane_blocks_down`]'s group loop: the largest of
/// 36, 32, 24, 16, 12 and 8 that divides `groups`, else 8 and a remainder
/// first (a group's code is about 110 bytes).
const fn unroll_of(groups: usize) -> usize {
    let by = [36, 32, 24, 16, 12];
    let mut k = 0;
    while k < by.len() {
        if groups % by[k] == 0 {
            return by[k];
        }
        k += 1;
    }
    8
}

/// `portable::dot_pair_lane_blocks_down` as one assembly loop over the
/// blocks of 4 rows: per group 8 pipelined loads, 16 `SMLAD` and 4
/// `SXTB16` for 32 MACs (30 cycles on a Cortex-M4, where two rows at a
/// time took 34), the 8 sums in r4-r11, all 14 general registers in use
/// (r6 and r7, which inline assembly may not name as operands, saved and
/// restored here); then the four rows' requantization and one word store
/// per pixel: about 100 cycles per block of 8 outputs besides the groups.
#[inline(always)]
pub(crate) fn lane_blocks_down<const DEPTH: usize, const NUDGE: bool>(
    pair: &[u32],
    rows: &[i8],
    bias: &[i32],
    scales: &[DownScale],
    out: &mut [i8],
    second: usize,
    channels: usize,
) {
    const { assert!(DEPTH > 0) };
    let groups = const { DEPTH.div_ceil(4) };
    let blocks = channels / 4;
    if blocks == 0 {
        return;
    }
    let n = 4 * blocks;
    // The pixels' input sums (times 128) after the groups; pixel b's
    // outputs apart from pixel a's, or on them (the same pixel twice).
    assert!(
        pair.len() >= 4 * groups + 2
            && rows.len() >= n * groups * 4
            && bias.len() >= n
            && scales.len() >= n
            && (second == 0 || second >= n)
            && out.len() >= second + n
    );
    let (sum_a, sum_b) = (pair[4 * groups], pair[4 * groups + 1]);
    let out_a = out.as_mut_ptr();
    // SAFETY: per block reads `16 * groups` bytes of `rows` (plain LDR,
    // unaligned allowed) and `4 * groups` words of `pair` (aligned), four
    // biases and four scales, and writes one word (4 bytes, STR, unaligned
    // allowed) at `out_a + 4k` and at `out_a + second + 4k` for block `k <
    // blocks`: all inside the slices by the assert above. r6 and r7 (not
    // nameable as operands: LLVM's base and frame pointers) are pushed
    // first and popped last; the frame of 10 words (scales, out a, the
    // step to out b, out a's end, bias, the pair buffer, the two input
    // sums, the group-loop count, the saved row pointer) is dropped before
    // them, so they and the stack pointer are restored.
    unsafe {
        core::arch::asm!(
            "push {{r6, r7}}",
            "push {{r0, r1, r2, r3, r4, r5, r8, r9, r10, r11}}",
            "1:",
            // The lane sums start from row 0's (2's) bias plus 256 times
            // row 1's (3's), less 128 times each pixel's input sum, so
            // that the lane sum less 256 times row 1's (3's) is row 0's
            // (2's); the odd rows' sums from their biases.
            "ldr r12, [sp, #16]",
            "ldm r12!, {{r4, r6, r8, r10}}",
            "str r12, [sp, #16]",
            "ldrd r0, r1, [sp, #24]",
            "add r4, r4, r6, lsl #8",
            "mov r7, r6",
            "sub r5, r4, r1",
            "sub r4, r4, r0",
            "add r8, r8, r10, lsl #8",
            "mov r11, r10",
            "sub r9, r8, r1",
            "sub r8, r8, r0",
            "ldr r12, [sp, #20]",
            ".rept {rem}",
            lane_group!(),
            ".endr",
            ".if {loops}",
            "mov r0, #{loops}",
            "str r0, [sp, #32]",
            "2:",
            ".rept {unroll}",
            lane_group!(),
            ".endr",
            "ldr r0, [sp, #32]",
            "subs r0, r0, #1",
            "str r0, [sp, #32]",
            "bne 2b",
            ".endif",
            "sub r4, r4, r6, lsl #8",
            "sub r5, r5, r7, lsl #8",
            "sub r8, r8, r10, lsl #8",
            "sub r9, r9, r11, lsl #8",
            ".if {nudge}",
            "str lr, [sp, #36]",
            ".endif",
            "ldr r12, [sp]",
            lane_row_down!("r4", "r5"),
            lane_row_down!("r6", "r7"),
            "bfi r4, r6, #8, #8",
            "bfi r5, r7, #8, #8",
            lane_row_down!("r8", "r9"),
            "bfi r4, r8, #16, #8",
            "bfi r5, r9, #16, #8",
            lane_row_down!("r10", "r11"),
            "bfi r4, r10, #24, #8",
            "bfi r5, r11, #24, #8",
            ".if {nudge}",
            "ldr lr, [sp, #36]",
            ".endif",
            // Pixel b's word (first: on pixel a's when they are the same
            // pixel), pixel a's, the pointers kept, until out a's end.
            "ldrd r0, r1, [sp, #4]",
            "str r5, [r0, r1]",
            "str r4, [r0], #4",
            "strd r12, r0, [sp]",
            "ldr r1, [sp, #12]",
            "cmp r0, r1",
            "bne 1b",
            "add sp, sp, #40",
            "pop {{r6, r7}}",
            inout("r0") scales.as_ptr() => _,
            inout("r1") out_a => _,
            inout("r2") second => _,
            inout("r3") out_a.wrapping_add(n) => _,
            inout("r4") bias.as_ptr() => _,
            inout("r5") pair.as_ptr() => _,
            inout("r8") sum_a => _,
            inout("r9") sum_b => _,
            out("r10") _,
            out("r11") _,
            out("r12") _,
            inout("lr") rows.as_ptr() => _,
            nudge = const NUDGE as usize,
            unroll = const unroll_of(DEPTH.div_ceil(4)),
            rem = const if DEPTH.div_ceil(4) <= STRAIGHT_GROUPS {
                DEPTH.div_ceil(4)
            } else {
                DEPTH.div_ceil(4) % unroll_of(DEPTH.div_ceil(4))
            },
            loops = const if DEPTH.div_ceil(4) <= STRAIGHT_GROUPS { 0 } else { DEPTH.div_ceil(4) / unroll_of(DEPTH.div_ceil(4)) },
        );
    }
}

/// Assembly: one group of [`dot_lane_quads`] (r0 at the input's pairs
/// `x02, x13`, r1 at the group's four lane words), both pointers stepped
/// past it by the first loads: six pipelined loads, twelve lane
/// instructions: 19 cycles per 16 MACs on a Cortex-M4, where byte rows
/// take 25. Sums: rows 0/1 in r9 (the lane sum) and r10 (row 1 alone),
/// rows 2/3 in r11 and r12.
macro_rules! single_lane_group {
    () => {
        concat!(
            "ldr r3, [r0], #8\n",
            "ldr r4, [r0, #-4]\n",
            "ldr r5, [r1], #16\n",
            "ldr r6, [r1, #-12]\n",
            "ldr r7, [r1, #-8]\n",
            "ldr r8, [r1, #-4]\n",
            "smlad r9, r3, r5, r9\n",
            "sxtb16 r5, r5, ror #8\n",
            "smlad r10, r3, r5, r10\n",
            "smlad r9, r4, r6, r9\n",
            "sxtb16 r6, r6, ror #8\n",
            "smlad r10, r4, r6, r10\n",
            "smlad r11, r3, r7, r11\n",
            "sxtb16 r7, r7, ror #8\n",
            "smlad r12, r3, r7, r12\n",
            "smlad r11, r4, r8, r11\n",
            "sxtb16 r8, r8, ror #8\n",
            "smlad r12, r4, r8, r12\n"
        )
    };
}

/// Whole groups [`dot_lane_quads`] runs straight (rows of up to 128
/// values, about 2.3 KB of code): longer rows take a loop of
/// `unroll_of(groups)` groups per pass (a taken branch is 3 cycles).
const LANE_STRAIGHT_GROUPS: usize = 32;

/// `portable::dot_lane_quads` in assembly (one pixel against a block of 4
/// rows in the pair-row layout: FULLY_CONNECTED's rows, `DEPTH` values
/// each, its `DEPTH / 4` whole groups here): straight for short rows,
/// else a remainder and then a loop.
#[inline(always)]
pub(crate) fn dot_lane_quads<const DEPTH: usize>(
    widened: &[u32],
    block: &[i8],
    sum128: i32,
    acc: [i32; 4],
) -> [i32; 4] {
    let groups = const { DEPTH / 4 };
    assert!(groups > 0 && widened.len() >= 2 * groups && block.len() >= 16 * groups);
    let [mut e0, mut e1] = super::super::portable::lane_starts(acc, sum128);
    let (mut o0, mut o1) = (0i32, 0i32);
    // SAFETY: reads `2 * groups` words of `widened` and `4 * groups` words
    // of `block` (lengths checked above; plain LDR, unaligned allowed);
    // register arithmetic of the DSP extension otherwise. r6 and r7 (not
    // nameable as operands: LLVM's base and frame pointers) are pushed
    // first and popped last, so they and the stack pointer are restored.
    unsafe {
        core::arch::asm!(
            "push {{r6, r7}}",
            ".rept {rem}",
            single_lane_group!(),
            ".endr",
            ".if {loops}",
            "mov r2, #{loops}",
            "2:",
            ".rept {unroll}",
            single_lane_group!(),
            ".endr",
            "subs r2, r2, #1",
            "bne 2b",
            ".endif",
            "pop {{r6, r7}}",
            inout("r0") widened.as_ptr() => _,
            inout("r1") block.as_ptr() => _,
            out("r2") _,
            out("r3") _,
            out("r4") _,
            out("r5") _,
            out("r8") _,
            inout("r9") e0,
            inout("r10") o0,
            inout("r11") e1,
            inout("r12") o1,
            rem = const if DEPTH / 4 <= LANE_STRAIGHT_GROUPS { DEPTH / 4 } else { DEPTH / 4 % unroll_of(DEPTH / 4) },
            loops = const if DEPTH / 4 <= LANE_STRAIGHT_GROUPS { 0 } else { DEPTH / 4 / unroll_of(DEPTH / 4) },
            unroll = const unroll_of(DEPTH / 4),
            options(readonly),
        );
    }
    super::super::portable::lane_sums(acc, [e0, e1], [o0, o1])
}
