//! The int8 depthwise convolution's inner loops with the 16-bit lane
//! multiply-accumulates.

use tinyaot_common::layout;

/// `portable::depthwise_rows_fused` in one assembly loop (the caller
/// checks `layout::rows_fast`): per channel, pairs
/// of outputs, then an odd last one; each output's sum requantized in
/// registers (`SMLAL`, the sign nudge as a 64-bit add, `ASR`, `SSAT`) and
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
>(
    phase: usize,
    ring: &[i16],
    stream: &[u32],
    out: &mut [[i8; C]],
) -> bool {
    macro_rules! phases {
        ($($p:literal)*) => {
            match phase {
                $($p if $p < KH => rows_fused_phase::<$p, KH, KW, C, OW, SW, RW>(ring, stream, out),)*
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
