//! Every building block in plain Rust: the interface each target family
//! implements (in part), and the code of every target that has no faster
//! form of a block. Results are bit for bit those of the target forms
//! (integer sums wrap, as the instructions do; the kernels' sums never reach
//! the limits; float sums keep TFLite's order). One file per kernel
//! family, as `dsp/` (the 16-bit lane instructions here): `depthwise`,
//! `dot` (byte rows, the widened input, pixel pairs), `dot_16x8`, `dot_int4`,
//! `dot_widened`, `pair_lanes`, `dot_vector` (Helium's layout),
//! `elementwise`, `requant`, `float`.
#![allow(dead_code)] // a target family replaces some of these (`arch/mod.rs`)

mod depthwise;
mod dot;
mod dot_16x8;
mod dot_int4;
mod dot_vector;
mod dot_widened;
mod elementwise;
mod float;
mod pair_lanes;
mod requant;

// A target family replaces some of these: on some targets all of a file's.
#[allow(unused_imports)]
pub(crate) use self::{
    depthwise::*, dot::*, dot_16x8::*, dot_int4::*, dot_vector::*, dot_widened::*, elementwise::*, float::*,
    pair_lanes::*, requant::*,
};

/// Whether the 16-bit lane instructions below are single instructions
/// (`SMLAD`, `SXTB16`, `SADD16`): kernels whose fast form is built from
/// them take it only where they are.
pub(crate) const LANES16: bool = false;

/// The low (`false`) or high (`true`) signed half of a word.
#[inline(always)]
fn half(x: u32, high: bool) -> i32 {
    (if high { x >> 16 } else { x }) as u16 as i16 as i32
}

/// `SMLAD`: `acc + low(a) * low(b) + high(a) * high(b)`.
#[inline(always)]
pub(crate) fn smlad(a: u32, b: u32, acc: i32) -> i32 {
    acc.wrapping_add((half(a, false) * half(b, false)).wrapping_add(half(a, true) * half(b, true)))
}

/// `SMLABB`: `acc + low(a) * low(b)`.
#[inline(always)]
pub(crate) fn smlabb(a: u32, b: u32, acc: i32) -> i32 {
    acc.wrapping_add(half(a, false) * half(b, false))
}

/// `SMLATT`: `acc + high(a) * high(b)`.
#[inline(always)]
pub(crate) fn smlatt(a: u32, b: u32, acc: i32) -> i32 {
    acc.wrapping_add(half(a, true) * half(b, true))
}

/// `SXTB16`: bytes 0 and 2 sign-extended into two 16-bit halves.
#[inline(always)]
pub(crate) fn sxtb16(x: u32) -> u32 {
    (x as u8 as i8 as i16 as u16 as u32) | (((x >> 16) as u8 as i8 as i16 as u16 as u32) << 16)
}

/// `SADD16`: the two 16-bit halves added separately (wrapping).
#[inline(always)]
fn sadd16(a: u32, b: u32) -> u32 {
    let low = (a as u16).wrapping_add(b as u16) as u32;
    let high = ((a >> 16) as u16).wrapping_add((b >> 16) as u16) as u32;
    low | (high << 16)
}

/// The four bytes of `word` added to two words of 16-bit lanes: bytes 0
/// and 2 to `even`, 1 and 3 to `odd` (the average pool's sums).
#[inline(always)]
pub(crate) fn add_byte_lanes(word: u32, (even, odd): (u32, u32)) -> (u32, u32) {
    (sadd16(even, sxtb16(word)), sadd16(odd, sxtb16(word.rotate_right(8))))
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    /// `n` pseudo-random bytes, the extremes first.
    fn bytes(n: usize, mut seed: u32) -> Vec<i8> {
        let mut v: Vec<i8> = (0..n)
            .map(|_| {
                seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (seed >> 24) as i8
            })
            .collect();
        v[0] = i8::MIN;
        v[1] = i8::MAX;
        v
    }

    #[test]
    fn widened_input_gives_the_same_sums() {
        let (x, block) = (bytes(40, 1), bytes(160, 2));
        let mut buf = core::mem::MaybeUninit::uninit();
        let widened = widen_input(&x, &mut buf);
        let acc = [1, -2, 3, i32::MAX - 70_000];
        assert_eq!(dot_quads_widened_input(widened, &block, acc), dot_groups::<4>(&x, &block, acc));
    }

    #[test]
    fn byte_lanes_hold_the_sums() {
        let (mut even, mut odd) = (0u32, 0u32);
        let mut expect = [0i32; 4];
        for word in [0x80_7f_01_ffu32, 0x80_80_80_80, 0x7f_7f_7f_7f, 0x12_34_56_78] {
            (even, odd) = add_byte_lanes(word, (even, odd));
            for (k, e) in expect.iter_mut().enumerate() {
                *e += (word >> (8 * k)) as u8 as i8 as i32;
            }
        }
        assert_eq!([half(even, false), half(odd, false), half(even, true), half(odd, true)], expect);
    }

    #[test]
    fn halves_requantize_as_the_64_bit_product() {
        use tinyaot_common::fixedpoint::down_scale_of;
        let mut seed = 7u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            seed
        };
        let edges = [i32::MIN, i32::MIN + 1, -65_536, -65_535, -1, 0, 1, 65_535, 65_536, i32::MAX];
        for case in 0..20_000 {
            let multiplier = match case % 4 {
                0 => i32::MAX,
                1 => 1 << 30,
                _ => (next() >> 1) as i32,
            };
            let shift = -1 - (next() % 23) as i32;
            let offset = (next() % 257) as i32 - 128;
            let s = down_scale_of(multiplier, shift, offset).expect("in the short form's range");
            let acc = if case < edges.len() { edges[case] } else { next() as i32 >> (next() % 24) };
            assert_eq!(rescale_down_halves(acc, &s), rescale_down(acc, &s), "acc {acc} scale {s:?}");
        }
    }
}
