//! The int8 depthwise convolution's inner loops with the 16-bit lane
//! multiply-accumulates.

use tinyaot_common::layout;

/// `portable::depthwise_rows_fused` in one assembly loop (the caller
/// checks `layout::rows_fast`): per channel, outputs
/// four at a time (each weight pair loaded once for four), then a pair and
/// an odd last one as the row needs; each output's sum requantized in
/// registers (`SMLAL`, the sign nudge as a 64-bit add, `ASR`, `SSAT`; a
/// doubled stream's sums with one `SMMLAR`, the nudge in its addend) and
/// stored `C` bytes after the previous one. `phase` is which ring slot
/// holds the window's first row.
#[inline(always)]
pub(crate) fn depthwise_rows_fused<
    const KH: usize,
    const KW: usize,
    const C: usize,
    const OW: usize,
    const SW: usize,
    const RW: usize,
    const NUDGE: bool,
    const DOUBLED: bool,
>(
    phase: usize,
    ring: &[i16],
    stream: &[u32],
    out: &mut [[i8; C]],
) -> bool {
    macro_rules! phases {
        ($($p:literal)*) => {
            match phase {
                $($p if $p < KH => rows_fused_phase::<$p, KH, KW, C, OW, SW, RW, NUDGE, DOUBLED>(ring, stream, out),)*
                _ => unreachable!("the phase is below KH <= 5"),
            }
        };
    }
    phases!(0 1 2 3 4);
    true
}

/// [`depthwise_rows_fused`] for one phase (the slots' order is in the
/// immediate offsets).
#[inline(always)]
fn rows_fused_phase<
    const PHASE: usize,
    const KH: usize,
    const KW: usize,
    const C: usize,
    const OW: usize,
    const SW: usize,
    const RW: usize,
    const NUDGE: bool,
    const DOUBLED: bool,
>(
    ring: &[i16],
    stream: &[u32],
    out: &mut [[i8; C]],
) {
    use layout::DEPTHWISE_ROWS_HEADER as HEADER;
    // Constants (folded): the caller checks `rows_fast`, the rest holds by
    // the layouts.
    let kp = KW.div_ceil(2);
    assert!(layout::rows_fast(KH, KW, SW, RW, C) && OW > 0 && C > 0 && RW % 2 == 0 && HEADER == 6);

    assert!(ring.len() >= C * KH * RW && stream.len() >= C * (HEADER + KH * kp) && out.len() >= OW);
    // SAFETY: per channel `c` the loop reads the ring words at `c * KH *
    // RW` halfwords plus slot offsets below `KH * RW` halfwords and column
    // offsets below `RW` (the outputs' windows, `depthwise_row_width`) and
    // the channel's `6 + KH * kp` stream words, and writes output byte `ox
    // * C + c` for `ox < OW`: all inside the slices (the asserts). Ring
    // loads are unaligned word loads (ARMv7-M allows them), `LDRD` reads
    // the 4-aligned `u32` stream. Register arithmetic of the DSP extension
    // otherwise. Registers are named: ring r0, stream r1, output r2,
    // channels left r3, passes left r4, loaded pair r5, weights r8/r9, sums
    // r10/r11 (and r6/r7), multiplier r12, shift lr; r6 and r7 (not
    // nameable as operands: LLVM's base and frame pointers) are pushed first
    // and popped last, so they and the stack pointer are restored.
    unsafe {
        core::arch::asm!(
            // Requantize `a` (the channel's short-form scale: `k` at
            // stream words 2-3, multiplier r12, shift lr; the nudge of a
            // negative sum unless `{nudge}` is 0), store, step. Doubled:
            // twice K's high word in r8 (`tinyaot_doubled` loads it), one
            // `SMMLAR` (`fixedpoint::rescale_down_doubled`).
            ".macro tinyaot_requant a",
            ".if {doubled}",
            ".if {nudge}",
            "add r9, r8, \\a, asr #31",
            "smmlar r9, \\a, r12, r9",
            ".else",
            "smmlar r9, \\a, r12, r8",
            ".endif",
            ".else",
            "ldrd r8, r9, [r1, #8]",
            "smlal r8, r9, \\a, r12",
            ".if {nudge}",
            "asr r5, \\a, #31",
            "adds r8, r8, r5, lsl #31",
            "adc r9, r9, r5",
            ".endif",
            ".endif",
            "asr r9, r9, lr",
            "ssat r9, #8, r9",
            // (A post-index step is 8 bits: a wider one is its own add.)
            ".if {c} < 256",
            "strb r9, [r2], #{c}",
            ".else",
            "strb r9, [r2]",
            "addw r2, r2, #{c}",
            ".endif",
            ".endm",
            // Tap pair `pp` of a filter row (`row`: the slot's byte
            // offset; weights in `w`) for output `a0`, and with `two` for
            // the next one in `a1`; an odd last tap is its weight word's
            // high half (`pack_depthwise_rows`) times the input word's low
            // half (with stride 1 the next output's tap is the high half
            // of the same word).
            // A doubled stream's requantization constant (twice K's high
            // word) into r8, free after the window's sums.
            ".macro tinyaot_doubled",
            ".if {doubled}",
            "ldr r8, [r1, #8]",
            ".endif",
            ".endm",
            ".macro tinyaot_pair row, pp, w, n",
            "ldr r5, [r0, #(\\row + 4 * \\pp)]",
            ".if 2 * \\pp + 1 < {kw}",
            "smlad r10, r5, \\w, r10",
            ".if \\n >= 2",
            "ldr r5, [r0, #(\\row + 4 * \\pp + 2 * {sw})]",
            "smlad r11, r5, \\w, r11",
            ".endif",
            ".if \\n == 4",
            "ldr r5, [r0, #(\\row + 4 * \\pp + 4 * {sw})]",
            "smlad r6, r5, \\w, r6",
            "ldr r5, [r0, #(\\row + 4 * \\pp + 6 * {sw})]",
            "smlad r7, r5, \\w, r7",
            ".endif",
            ".else",
            "smlabt r10, r5, \\w, r10",
            ".if \\n >= 2",
            ".if {sw} == 1",
            "smlatt r11, r5, \\w, r11",
            ".else",
            "ldr r5, [r0, #(\\row + 4 * \\pp + 2 * {sw})]",
            "smlabt r11, r5, \\w, r11",
            ".endif",
            ".endif",
            ".if \\n == 4",
            "ldr r5, [r0, #(\\row + 4 * \\pp + 4 * {sw})]",
            "smlabt r6, r5, \\w, r6",
            ".if {sw} == 1",
            "smlatt r7, r5, \\w, r7",
            ".else",
            "ldr r5, [r0, #(\\row + 4 * \\pp + 6 * {sw})]",
            "smlabt r7, r5, \\w, r7",
            ".endif",
            ".endif",
            ".endif",
            ".endm",
            // One filter row: its weight pairs two at a time (`LDRD`).
            ".macro tinyaot_taps ky, row, n",
            ".set tinyaot_pp, 0",
            ".rept ({kp} + 1) / 2",
            ".if tinyaot_pp + 1 < {kp}",
            "ldrd r8, r9, [r1, #(24 + 4 * (\\ky * {kp} + tinyaot_pp))]",
            "tinyaot_pair \\row, tinyaot_pp, r8, \\n",
            "tinyaot_pair \\row, (tinyaot_pp+1), r9, \\n",
            ".else",
            "ldr r8, [r1, #(24 + 4 * (\\ky * {kp} + tinyaot_pp))]",
            "tinyaot_pair \\row, tinyaot_pp, r8, \\n",
            ".endif",
            ".set tinyaot_pp, tinyaot_pp + 2",
            ".endr",
            ".endm",
            // A 3-tap filter row at stride 1 or 2 (`{row3}`): r8 holds
            // taps (0, 1), r9 taps (1, 2) (`pack_depthwise_rows`); the
            // window's inputs as aligned words (the pass starts at an even
            // column), each loaded once for all the outputs it feeds. At
            // stride 1 an output starting at an odd column takes its first
            // tap from a word's high half and the pair (1, 2) from the
            // next word: two multiplies per output and row, as at an even
            // column. r5, r12 and lr hold the words.
            ".macro tinyaot_row3 ky, row, n",
            "ldrd r8, r9, [r1, #(24 + 8 * \\ky)]",
            "ldr r5, [r0, #\\row]",
            "ldr r12, [r0, #(\\row + 4)]",
            ".if {sw} == 1",
            ".if \\n >= 3",
            "ldr lr, [r0, #(\\row + 8)]",
            ".endif",
            "smlad r10, r5, r8, r10",
            "smlabt r10, r12, r9, r10",
            ".if \\n >= 2",
            "smlatb r11, r5, r8, r11",
            "smlad r11, r12, r9, r11",
            ".endif",
            ".if \\n >= 3",
            "smlad r6, r12, r8, r6",
            "smlabt r6, lr, r9, r6",
            ".endif",
            ".if \\n >= 4",
            "smlatb r7, r12, r8, r7",
            "smlad r7, lr, r9, r7",
            ".endif",
            ".if \\n == 5",
            "ldr r5, [r0, #(\\row + 12)]",
            "smlad r4, lr, r8, r4",
            "smlabt r4, r5, r9, r4",
            ".endif",
            ".else",
            ".if \\n >= 2",
            "ldr lr, [r0, #(\\row + 8)]",
            ".endif",
            "smlad r10, r5, r8, r10",
            "smlabt r10, r12, r9, r10",
            ".if \\n >= 2",
            "smlad r11, r12, r8, r11",
            "smlabt r11, lr, r9, r11",
            ".endif",
            ".if \\n >= 4",
            "ldr r5, [r0, #(\\row + 12)]",
            "ldr r12, [r0, #(\\row + 16)]",
            ".elseif \\n == 3",
            "ldr r5, [r0, #(\\row + 12)]",
            ".endif",
            ".if \\n >= 3",
            "smlad r6, lr, r8, r6",
            "smlabt r6, r5, r9, r6",
            ".endif",
            ".if \\n >= 4",
            "smlad r7, r5, r8, r7",
            "smlabt r7, r12, r9, r7",
            ".endif",
            ".if \\n == 5",
            "ldr r5, [r0, #(\\row + 20)]",
            "smlad r4, r12, r8, r4",
            "smlabt r4, r5, r9, r4",
            ".endif",
            ".endif",
            ".endm",
            // Every filter row of the window (the ring slots in phase
            // order) for `n` outputs.
            ".macro tinyaot_window n",
            ".set tinyaot_ky, 0",
            ".rept {kh}",
            ".if {row3}",
            "tinyaot_row3 tinyaot_ky, (((({phase} + tinyaot_ky) % {kh}) * {rb})), \\n",
            ".else",
            "tinyaot_taps tinyaot_ky, (((({phase} + tinyaot_ky) % {kh}) * {rb})), \\n",
            ".endif",
            ".set tinyaot_ky, tinyaot_ky + 1",
            ".endr",
            ".endm",
            "push {{r6, r7}}",
            "1:",
            // The multiplier and shift, kept for the channel unless the
            // 3-tap rows need r12 and lr (then loaded per pass).
            ".if {row3} == 0",
            "ldrd r12, lr, [r1, #16]",
            ".endif",
            // Four outputs per pass (r6 and r7, saved above, hold the third
            // and fourth sums): each weight pair loaded once for four.
            ".if {quads}",
            "movw r4, #{quads}",
            "3:",
            "ldrd r10, r11, [r1]",
            "mov r6, r10",
            "mov r7, r10",
            "tinyaot_window 4",
            "add r0, r0, #(8 * {sw})",
            ".if {row3}",
            "ldrd r12, lr, [r1, #16]",
            ".endif",
            "tinyaot_doubled",
            "tinyaot_requant r10",
            "tinyaot_requant r11",
            "tinyaot_requant r6",
            "tinyaot_requant r7",
            "subs r4, r4, #1",
            "bne 3b",
            ".endif",
            ".if {pairs}",
            "ldrd r10, r11, [r1]",
            "tinyaot_window 2",
            "add r0, r0, #(4 * {sw})",
            ".if {row3}",
            "ldrd r12, lr, [r1, #16]",
            ".endif",
            "tinyaot_doubled",
            "tinyaot_requant r10",
            "tinyaot_requant r11",
            ".endif",
            ".if {odd}",
            "ldr r10, [r1]",
            "tinyaot_window 1",
            ".if {row3}",
            "ldrd r12, lr, [r1, #16]",
            ".endif",
            "tinyaot_doubled",
            "tinyaot_requant r10",
            ".endif",
            // 3-tap rows: the row's last 1, 2, 3 or 5 outputs in one pass
            // (a fifth sum in r4, the pass count's register, free after the
            // loop), r0 left where it is.
            ".if {tail}",
            "ldrd r10, r11, [r1]",
            ".if {tail} >= 3",
            "mov r6, r10",
            ".endif",
            ".if {tail} >= 4",
            "mov r7, r10",
            "mov r4, r10",
            ".endif",
            "tinyaot_window {tail}",
            "ldrd r12, lr, [r1, #16]",
            "tinyaot_doubled",
            "tinyaot_requant r10",
            ".if {tail} >= 2",
            "tinyaot_requant r11",
            ".endif",
            ".if {tail} >= 3",
            "tinyaot_requant r6",
            ".endif",
            ".if {tail} >= 4",
            "tinyaot_requant r7",
            "tinyaot_requant r4",
            ".endif",
            ".endif",
            // Next channel: its ring rows, stream words, first output.
            "add r0, r0, #({kh} * {rb} - ({quads} * 8 + {pairs} * 4) * {sw})",
            "add r1, r1, #(4 * (6 + {kh} * {kp}))",
            ".if {ow} * {c} - 1 < 4096",
            "sub r2, r2, #({ow} * {c} - 1)",
            ".else",
            "movw r5, #(({ow} * {c} - 1) & 0xffff)",
            "movt r5, #(({ow} * {c} - 1) >> 16)",
            "sub r2, r2, r5",
            ".endif",
            "subs r3, r3, #1",
            "bne 1b",
            "pop {{r6, r7}}",
            ".purgem tinyaot_requant",
            ".purgem tinyaot_doubled",
            ".purgem tinyaot_pair",
            ".purgem tinyaot_taps",
            ".purgem tinyaot_window",
            ".purgem tinyaot_row3",
            inout("r0") ring.as_ptr() => _,
            inout("r1") stream.as_ptr() => _,
            inout("r2") out.as_mut_ptr() => _,
            inout("r3") C => _,
            out("r4") _,
            out("r5") _,
            out("r8") _,
            out("r9") _,
            out("r10") _,
            out("r11") _,
            out("r12") _,
            out("lr") _,
            // 3-tap rows at stride 1 or 2 (`tinyaot_row3`): passes of 4,
            // then one pass of the row's last 1, 2, 3 or 5 outputs (5: the
            // last 4 with the odd one). Other rows: passes of 4, 2, 1.
            quads = const OW / 4 - (KW == 3 && SW <= 2 && OW % 4 == 1 && OW >= 5) as usize,
            pairs = const if KW == 3 && SW <= 2 { 0 } else { OW % 4 / 2 },
            odd = const if KW == 3 && SW <= 2 { 0 } else { OW % 2 },
            tail = const match (KW == 3 && SW <= 2, OW % 4 == 1 && OW >= 5) {
                (false, _) => 0,
                (true, true) => 5,
                (true, false) => OW % 4,
            },
            kh = const KH,
            kw = const KW,
            kp = const KW.div_ceil(2),
            rb = const RW * 2,
            sw = const SW,
            c = const C,
            ow = const OW,
            phase = const PHASE,
            row3 = const (KW == 3 && SW <= 2) as usize,
            nudge = const NUDGE as usize,
            doubled = const DOUBLED as usize,
        );
    }
}

/// `portable::taps4`: per tap two `LDR`, one `LDRD`, two `SXTB16` and four
/// multiply-accumulates. Channels `c0..c0 + 4` of every row
/// in `rows` (one per tap, in the packed weights' order) against the
/// group's packed weights (two words per tap).
#[inline(always)]
pub(crate) fn taps4<const C: usize, const KW: usize, const KH: usize>(
    rows: &[[&[i8; C]; KW]; KH],
    c0: usize,
    weights: &[u32],
    acc: [i32; 4],
) -> [i32; 4] {
    let weights = &weights[..2 * KH * KW];
    assert!(c0 + 4 <= C);
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

/// `portable::taps4_int4`: per tap two `LDR` (table, input), half an
/// `LDR` of weights, one or two instructions to mask a tap's nibbles into
/// the high halves of its bytes, four `SXTB16` and four multiply-
/// accumulates. The masked weights are 16 times the values, so the
/// products sum to 16 times the group's sums, scaled back (exactly) at
/// the end: the bias is added after, as `portable` adds it first.
#[inline(always)]
pub(crate) fn taps4_int4<const C: usize, const KW: usize, const KH: usize>(
    rows: &[[&[i8; C]; KW]; KH],
    c0: usize,
    weights: &[u32],
    bias: [i32; 4],
) -> [i32; 4] {
    let weights = &weights[..(KH * KW).div_ceil(2)];
    assert!(c0 + 4 <= C);
    // 16 times a sum of at most 2^13 taps of |x * w| <= 1024 fits an i32.
    const { assert!(KH * KW <= 1 << 13) };
    if KH * KW == 0 {
        return bias;
    }
    let [mut a0, mut a1, mut a2, mut a3] = [0i32; 4];
    // SAFETY: `rows` is KH * KW thin pointers (references to arrays),
    // each to C >= c0 + 4 readable bytes (the assert), whose word at c0
    // is read unaligned (ARMv7-M's `LDR` allows it); `weights` holds
    // (KH * KW).div_ceil(2) words (the slicing above), read by `LDR` at
    // 4-byte alignment (a `u32` slice). Nothing is written to memory;
    // register arithmetic of the DSP extension otherwise.
    unsafe {
        core::arch::asm!(
            ".macro tinyaot_int4_tap",
            "ldr {p}, [{tbl}], #4",
            "ldr {x}, [{p}, {c0}]",
            "sxtb16 {w13}, {w02}, ror #8",
            "sxtb16 {w02}, {w02}",
            "sxtb16 {p}, {x}",
            "sxtb16 {x}, {x}, ror #8",
            "smlabb {a0}, {p}, {w02}, {a0}",
            "smlabb {a1}, {x}, {w13}, {a1}",
            "smlatt {a2}, {p}, {w02}, {a2}",
            "smlatt {a3}, {x}, {w13}, {a3}",
            ".endm",
            ".rept {pairs}",
            "ldr {word}, [{w}], #4",
            "and {w02}, {word}, #0xF0F0F0F0",
            "tinyaot_int4_tap",
            "lsl {w02}, {word}, #4",
            "and {w02}, {w02}, #0xF0F0F0F0",
            "tinyaot_int4_tap",
            ".endr",
            ".if {odd}",
            "ldr {word}, [{w}], #4",
            "and {w02}, {word}, #0xF0F0F0F0",
            "tinyaot_int4_tap",
            ".endif",
            ".purgem tinyaot_int4_tap",
            pairs = const KH * KW / 2,
            odd = const KH * KW % 2,
            tbl = inout(reg) rows.as_ptr() as *const *const i8 => _,
            w = inout(reg) weights.as_ptr() => _,
            c0 = in(reg) c0,
            p = out(reg) _,
            x = out(reg) _,
            word = out(reg) _,
            w02 = out(reg) _,
            w13 = out(reg) _,
            a0 = inout(reg) a0,
            a1 = inout(reg) a1,
            a2 = inout(reg) a2,
            a3 = inout(reg) a3,
            options(nostack, preserves_flags, readonly),
        );
    }
    [
        bias[0].wrapping_add(a0 >> 4),
        bias[1].wrapping_add(a1 >> 4),
        bias[2].wrapping_add(a2 >> 4),
        bias[3].wrapping_add(a3 >> 4),
    ]
}

/// `portable::mac4` in one block.
#[inline(always)]
pub(crate) fn mac4(acc: [i32; 4], x: u32, w02: u32, w13: u32) -> [i32; 4] {
    // One block per tap, declared as touching memory (it does not) so
    // the next tap's loads stay after it: left to itself the compiler
    // hoists every tap's loads to the top and runs out of registers.
    let [mut a0, mut a1, mut a2, mut a3] = acc;
    // SAFETY: register arithmetic of the DSP extension; it
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
