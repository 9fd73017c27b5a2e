//! # tinyaot-common
//!
//! What the tinyaot compiler (at `cargo build`) and the tinyaot runtime (on
//! the device) must agree on, in one copy both depend on:
//!
//! - [`fixedpoint`]: TFLite's integer rounding rules, which the kernels run
//!   and the compiler uses to fold constants and tabulate activations;
//! - [`layout`]: the arrangements of constant weights in flash, written by
//!   the compiler and read by the kernels;
//! - [`scratch`]: the scratch bytes of each kernel that needs some, planned
//!   by the compiler and taken by the kernel;
//! - [`requant`]: when a kernel requantizes its sums in registers (the fused
//!   form), decided by the compiler and relied on by the kernels.
//!
//! `#![no_std]`, no dependencies. Not meant to be used directly: depend on
//! `tinyaot`.
//!
//! ## Glossary
//!
//! - *layout*: an arrangement of constant weights in flash (never the PACK
//!   operator).
//! - *widened*: int8 values stored as 16-bit lanes, two to a word, so one
//!   `SMLAD` multiplies a pair.
//! - *short form* ([`fixedpoint::DownScale`]): a requantization multiplier
//!   and shift reduced to two 64-bit multiply-accumulates and a shift.
//! - *fused*: a requantization done on sums still in registers, straight to
//!   the int8 output.
//! - *packed rows*: weight rows in the [`layout::pack_rows`] layout (blocks
//!   of 4 rows, groups of 4 values); *widened rows* the same in 16-bit lanes.
//! - *requantization constants*: `Requant` (TFLite's multiplier and shift per
//!   channel, the compact form the reference kernels read; `Requant16` the
//!   16x8 ops' form, no zero points) and `Rescale` (the same precomputed as
//!   [`fixedpoint::Scale`] or short form, for the fast kernels); one name on
//!   both sides, compiler and runtime.
//! - *arithmetic* (`Arith` in the compiler): which dtype path an op computes
//!   in, with its constants.
#![no_std]
#![deny(missing_docs)]

pub mod fixedpoint;
pub mod gelu;
pub mod layout;
pub mod scratch;

/// Alignment of every arena offset and buffer footprint (as in TFLM), and
/// of the arena statics the generated code declares.
pub const ARENA_ALIGN: usize = 16;

/// `bytes` rounded up to [`ARENA_ALIGN`].
pub const fn arena_align(bytes: usize) -> usize {
    bytes.div_ceil(ARENA_ALIGN) * ARENA_ALIGN
}

/// Whether a clamp to `min..=max` (`i32`s) is the whole int8 range: the
/// condition under which a kernel requantizes its sums in registers (see
/// [`requant::fuses`]). A macro so the kernels' check expands to the plain
/// comparison in their own crate: calling this crate's function instead,
/// even `#[inline(always)]`, changed the fused depthwise kernel's code on
/// the Cortex-M4 (601 more instructions on a small model).
#[macro_export]
macro_rules! whole_int8_range {
    ($min:expr, $max:expr) => {
        ($min <= i8::MIN as i32 && $max >= i8::MAX as i32)
    };
}

/// The fused-requantization rule, the one place it is written.
pub mod requant {
    /// Whether a layer whose output clamps to `act_min..=act_max` and whose
    /// every channel has a short-form scale (`short_form`) requantizes its
    /// sums in registers: only when the clamp is the whole int8 range (the
    /// saturating store does the clamping). The compiler chooses the kernel
    /// variant by it; the kernels take the fused path exactly then (through
    /// [`whole_int8_range!`](crate::whole_int8_range)).
    pub const fn fuses(act_min: i32, act_max: i32, short_form: bool) -> bool {
        short_form && crate::whole_int8_range!(act_min, act_max)
    }
}
