//! The Arm DSP extension (Cortex-M4, M7, M33): the 16-bit lane
//! instructions, one each, and the int8 kernels' inner loops built from
//! them (`SXTB16`, `SMLAD`), one file per kernel family.

mod depthwise;
mod dot;
// Helium has its own (`arch::helium`).
#[cfg(not(feature = "helium"))]
mod dot_16x8;
mod dot_int4;
mod dot_widened;
mod pair_lanes;

pub(crate) use depthwise::{depthwise_rows_fused, mac4, taps4, taps4_int4};
// Helium has dot products of its own (`arch::helium`).
pub(crate) use dot::dot_groups;
#[cfg(not(feature = "helium"))]
pub(crate) use dot::{DOT_PAIRS, WIDEN_INPUT};
pub(crate) use dot::{
    dot_pair_blocks_down, dot_pair_rows, dot_quads_widened_input, widen_input, widen_input_sum, widen_pair_lane,
};
#[cfg(not(feature = "helium"))]
pub(crate) use dot_16x8::dot16_rows;
pub(crate) use dot_int4::dot_int4_rows;
pub(crate) use dot_widened::dot_groups_widened;
pub(crate) use pair_lanes::{dot_lane_quads, lane_blocks_down as dot_pair_lane_blocks_down};

/// `portable::LANES16`.
pub(crate) const LANES16: bool = true;

/// `SMLAD`: `acc + low(a) * low(b) + high(a) * high(b)`.
#[inline(always)]
pub(crate) fn smlad(a: u32, b: u32, acc: i32) -> i32 {
    let out;
    // SAFETY: register arithmetic of the DSP extension (this module is
    // compiled only for it); no memory, no stack.
    unsafe {
        core::arch::asm!(
            "smlad {out}, {a}, {b}, {acc}",
            out = lateout(reg) out,
            a = in(reg) a,
            b = in(reg) b,
            acc = in(reg) acc,
            options(pure, nomem, nostack),
        )
    };
    out
}

/// `portable::rescale_down_doubled`: `ADD` (the sign into the
/// accumulate word), `LSL`, `SMMLAR`, then the shift.
#[inline(always)]
pub(crate) fn rescale_down_doubled(acc: i32, multiplier: i32, k_high2: i32, shift1: i32) -> i32 {
    let high: i32;
    // SAFETY: register arithmetic of the DSP extension; no memory.
    unsafe {
        core::arch::asm!(
            "add {t}, {k}, {acc}, asr #31",
            "lsl {a2}, {acc}, #1",
            "smmlar {high}, {a2}, {m}, {t}",
            acc = in(reg) acc,
            k = in(reg) k_high2,
            m = in(reg) multiplier,
            t = out(reg) _,
            a2 = out(reg) _,
            high = lateout(reg) high,
            options(pure, nomem, nostack),
        );
    }
    // Outside the assembly, so a constant shift is an immediate.
    high >> (shift1 & 31)
}

/// `portable::add_byte_lanes`: two `SXTB16`, two `SADD16`.
#[inline(always)]
pub(crate) fn add_byte_lanes(word: u32, (mut even, mut odd): (u32, u32)) -> (u32, u32) {
    // SAFETY: register arithmetic of the DSP extension; no memory.
    unsafe {
        core::arch::asm!(
            "sxtb16 {t}, {w}",
            "sadd16 {even}, {even}, {t}",
            "sxtb16 {t}, {w}, ror #8",
            "sadd16 {odd}, {odd}, {t}",
            w = in(reg) word,
            t = out(reg) _,
            even = inout(reg) even,
            odd = inout(reg) odd,
            options(pure, nomem, nostack),
        );
    }
    (even, odd)
}
