//! Target-specific building blocks, chosen here once by `cfg`: kernels
//! call `crate::arch::...` and carry no `cfg` of their own.
//!
//! `portable` defines every block in plain Rust; it is the interface and
//! the code of every target that has nothing faster. Each target family
//! module replaces the blocks it does faster, under the same names (the
//! `use` lists below: a named import shadows the glob), with the same
//! results bit for bit. Where a fast form exists only on some targets, a
//! `const` of the family says so (`LANES16`, `WIDEN_INPUT`,
//! `DOT_PAIRS`, `F32_WINDOW_LOOPS`, `REQUANTIZE_LOOP`) and the kernel's `if` on it folds away elsewhere.
//!
//! - `armv7m`: Cortex-M3 and up (Thumb-2): requantization loops; the int8
//!   dot loops (one input, two inputs) where there is no DSP extension.
//! - `armv6m`: Cortex-M0/M0+ (Thumb-1): the int8 dot loop; `portable`'s
//!   16-bit-halves requantization.
//! - `dsp`: Cortex-M4/M7/M33 (the DSP extension): the int8 inner loops.
//! - `helium`: Cortex-M55/M85 (MVE, the `helium` feature): the int8 dot
//!   products over the vector layout and their requantization; the DSP
//!   extension's loops elsewhere.
//! - `vfp`: hard-float Arm: the float32 window loops.
//! - `x86`: the host (SSE2): int8 dot products, saturation.
//!
//! A new fast path: its plain-Rust form in `portable/` (the kernel family's file), its target form
//! in the family's file (the kernel family's file under `dsp/`), one name
//! added to the family's `use` line here.

mod portable;
pub(crate) use portable::*;

#[cfg(all(target_arch = "arm", target_feature = "thumb2"))]
mod armv7m;
#[cfg(all(target_arch = "arm", target_feature = "thumb2"))]
pub(crate) use armv7m::{REQUANTIZE_LOOP, requantize_block, requantize_pixels_down, rescale_down};

#[cfg(all(target_arch = "arm", target_feature = "thumb2", not(target_feature = "dsp")))]
pub(crate) use armv7m::{dot_groups, dot_two_quads};

#[cfg(all(target_arch = "arm", not(target_feature = "thumb2")))]
mod armv6m;
#[cfg(all(target_arch = "arm", not(target_feature = "thumb2")))]
pub(crate) use armv6m::{dot_groups, doubled_k_low};
// ARMv6-M has no 32x32 -> 64-bit multiply: the halves form, whose nudge
// costs little beside the products, serves the unnudged uses too (the
// same int8 outputs where those apply).
#[cfg(all(target_arch = "arm", not(target_feature = "thumb2")))]
pub(crate) use portable::{rescale_down_halves as rescale_down, rescale_down_halves as rescale_down_unnudged};
/// `portable::ELEMENTWISE_RUN` and `ELEMENTWISE_GATHER` on ARMv6-M: runs of
/// 4 gathered into one word (its 8 low registers).
#[cfg(all(target_arch = "arm", not(target_feature = "thumb2")))]
pub(crate) const ELEMENTWISE_RUN: usize = 4;
#[cfg(all(target_arch = "arm", not(target_feature = "thumb2")))]
pub(crate) const ELEMENTWISE_GATHER: bool = true;

#[cfg(all(target_arch = "arm", target_feature = "dsp"))]
mod dsp;
#[cfg(all(target_arch = "arm", target_feature = "dsp"))]
pub(crate) use dsp::dot_groups;
#[cfg(all(target_arch = "arm", target_feature = "dsp", not(feature = "helium")))]
pub(crate) use dsp::{DOT_PAIRS, WIDEN_INPUT, dot16_rows};
#[cfg(all(target_arch = "arm", target_feature = "dsp"))]
pub(crate) use dsp::{
    LANES16, add_byte_lanes, depthwise_rows_fused, dot_groups_widened, dot_int4_rows, dot_lane_quads,
    dot_pair_blocks_down, dot_pair_lane_blocks_down, dot_pair_rows, dot_quads_widened_input, mac4,
    rescale_down_doubled, smlad, taps4, taps4_int4, widen_input, widen_input_sum, widen_pair_lane,
};

// Helium (MVE) has the DSP extension too: it replaces the dot products.
#[cfg(all(target_arch = "arm", target_feature = "dsp", feature = "helium"))]
mod helium;
#[cfg(all(target_arch = "arm", target_feature = "dsp", feature = "helium"))]
pub(crate) use helium::{
    BYTE_VECTORS, DOT_PAIRS, VECTOR_LANES, WIDEN_INPUT, add_sub_lanes, add_widened_s8, depthwise_vector_groups,
    depthwise16_group, dot_vector_blocks_down, dot_vector_rows, dot_vector_window_blocks_down, dot16_rows, max_s8,
    max_s16, mul_lanes, requantize_vector4,
};
/// `portable::DOUBLED_RESCALE`: no `SMMLAR` without the DSP extension.
#[cfg(all(target_arch = "arm", not(target_feature = "dsp")))]
pub(crate) const DOUBLED_RESCALE: bool = false;

#[cfg(all(target_arch = "arm", target_abi = "eabihf"))]
mod vfp;
#[cfg(all(target_arch = "arm", target_abi = "eabihf"))]
pub(crate) use vfp::{F32_WINDOW_LOOPS, depthwise_window8, mac_lanes8, mac_window8};

#[cfg(all(target_arch = "arm", target_feature = "thumb2"))]
mod dwt;
#[cfg(all(target_arch = "arm", target_feature = "thumb2"))]
pub use dwt::DwtCycles;

#[cfg(target_arch = "x86_64")]
mod x86;
#[cfg(target_arch = "x86_64")]
pub(crate) use x86::{DOT_PAIRS, dot_groups, dot_groups_widened, saturate_i8};

// The selection point for what the compiler emits per target. The macro
// cannot see the user's build target, so it emits every target's weight
// layout and calls these macros (as `__private::pair_rows!` and
// `__private::widened_rows!`), which keep the one this target's kernels
// read fastest: generated code holds no `cfg`, and the decision is the
// one `DOT_PAIRS` records above (the DSP extension and x86 have the
// fused pixel-pair and widened-row dot products). Helium reads the rows in
// the vector layout (`__private::vector_rows!`, around the others).
#[cfg(any(all(target_feature = "dsp", not(feature = "helium")), target_arch = "x86_64"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __tinyaot_pair_rows {
    ($lanes:expr, $bytes:expr $(,)?) => {
        $crate::__private::kernels::dot::PairRows($lanes)
    };
}
#[cfg(not(any(all(target_feature = "dsp", not(feature = "helium")), target_arch = "x86_64")))]
#[doc(hidden)]
#[macro_export]
macro_rules! __tinyaot_pair_rows {
    ($lanes:expr, $bytes:expr $(,)?) => {
        $bytes
    };
}
#[cfg(any(all(target_feature = "dsp", not(feature = "helium")), target_arch = "x86_64"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __tinyaot_widened_rows {
    ($widened:expr, $bytes:expr $(,)?) => {
        $widened
    };
}
#[cfg(not(any(all(target_feature = "dsp", not(feature = "helium")), target_arch = "x86_64")))]
#[doc(hidden)]
#[macro_export]
macro_rules! __tinyaot_widened_rows {
    ($widened:expr, $bytes:expr $(,)?) => {
        $bytes
    };
}
#[cfg(all(target_arch = "arm", target_feature = "dsp", feature = "helium"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __tinyaot_vector_rows {
    ($vector:expr, $other:expr $(,)?) => {
        $crate::__private::kernels::dot_vector::VectorRows($vector)
    };
}
#[cfg(not(all(target_arch = "arm", target_feature = "dsp", feature = "helium")))]
#[doc(hidden)]
#[macro_export]
macro_rules! __tinyaot_vector_rows {
    ($vector:expr, $other:expr $(,)?) => {
        $other
    };
}
/// Helium's kernel call where the target has it, the other elsewhere
/// (`__private::helium_or!({ ... }, { ... })`: two blocks of statements,
/// one kept): the compiler emits both where a Helium kernel reads a
/// layout of its own (the vector depthwise), so the plan covers both.
#[cfg(all(target_arch = "arm", target_feature = "dsp", feature = "helium"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __tinyaot_helium_or {
    ({ $($helium:tt)* }, { $($other:tt)* } $(,)?) => {
        $($helium)*
    };
}
#[cfg(not(all(target_arch = "arm", target_feature = "dsp", feature = "helium")))]
#[doc(hidden)]
#[macro_export]
macro_rules! __tinyaot_helium_or {
    ({ $($helium:tt)* }, { $($other:tt)* } $(,)?) => {
        $($other)*
    };
}
/// One kernel call per target family, the user's build keeping its own
/// (`__private::by_family!({ vector }, { pairs }, { byte_pairs }, { plain
/// })`: four blocks of statements): Helium's vector kernels; the
/// pixel-pair dot products over 16-bit lanes (cores with the DSP
/// extension, x86-64); the pixel pairs over byte rows (Thumb-2 without the
/// DSP extension: Cortex-M3); the plain loops. The compiler emits it where
/// the families run an op with different functions
/// (`compiler/src/lowering/targets.rs`), each call one function that takes
/// one path, so no kernel decides again.
#[cfg(all(target_arch = "arm", target_feature = "dsp", feature = "helium"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __tinyaot_by_family {
    ({ $($vector:tt)* }, { $($pairs:tt)* }, { $($byte_pairs:tt)* }, { $($plain:tt)* } $(,)?) => {
        $($vector)*
    };
}
#[cfg(any(all(target_feature = "dsp", not(feature = "helium")), target_arch = "x86_64"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __tinyaot_by_family {
    ({ $($vector:tt)* }, { $($pairs:tt)* }, { $($byte_pairs:tt)* }, { $($plain:tt)* } $(,)?) => {
        $($pairs)*
    };
}
#[cfg(all(target_arch = "arm", target_feature = "thumb2", not(target_feature = "dsp")))]
#[doc(hidden)]
#[macro_export]
macro_rules! __tinyaot_by_family {
    ({ $($vector:tt)* }, { $($pairs:tt)* }, { $($byte_pairs:tt)* }, { $($plain:tt)* } $(,)?) => {
        $($byte_pairs)*
    };
}
#[cfg(not(any(
    all(target_arch = "arm", target_feature = "dsp", feature = "helium"),
    all(target_feature = "dsp", not(feature = "helium")),
    target_arch = "x86_64",
    all(target_arch = "arm", target_feature = "thumb2", not(target_feature = "dsp"))
)))]
#[doc(hidden)]
#[macro_export]
macro_rules! __tinyaot_by_family {
    ({ $($vector:tt)* }, { $($pairs:tt)* }, { $($byte_pairs:tt)* }, { $($plain:tt)* } $(,)?) => {
        $($plain)*
    };
}
// The macros above and the dot kernels agree on the layout.
const _: () =
    assert!(DOT_PAIRS == cfg!(any(all(target_feature = "dsp", not(feature = "helium")), target_arch = "x86_64")));
