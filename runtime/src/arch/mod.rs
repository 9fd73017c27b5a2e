//! Target-specific building blocks, the same names for every target family,
//! chosen here once by `cfg`: kernels call `crate::arch::...` and carry no
//! `cfg` for these. `dsp`: Arm cores with the DSP extension (Cortex-M4/M7/
//! M33), one instruction each; `portable`: the same results in plain Rust.
//!
//! So far this holds the 16-bit-lane multiply-accumulates and sign
//! extensions; the kernels' larger assembly loops still sit in their own
//! files (moving them here is the next step of the architecture issue).

#[cfg(all(target_arch = "arm", target_feature = "dsp"))]
mod dsp;
#[cfg(all(target_arch = "arm", target_feature = "dsp"))]
pub(crate) use dsp::*;

#[cfg(not(all(target_arch = "arm", target_feature = "dsp")))]
mod portable;
#[cfg(not(all(target_arch = "arm", target_feature = "dsp")))]
pub(crate) use portable::*;
