//! The target families the generated code selects among. The macro cannot
//! see the user's build target, so where the families run an op with
//! different kernel functions or weight layouts the compiler emits one call
//! per family and `__private::by_family!` (`runtime/src/arch/mod.rs`, the
//! one selection point) keeps the user's; the plan covers every family (the
//! largest scratch and the counted weight layout). What each family offers
//! the lowerings decide here, so the kernel each call names takes one path.

use proc_macro2::TokenStream;
use quote::quote;

/// A family of targets that share their kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Helium (MVE) cores built with the runtime's `helium` feature: vector
    /// dot products over the vector layout.
    Vector,
    /// Cores with the DSP extension (Cortex-M4, M7, M33) and x86-64: the
    /// pixel-pair dot products over 16-bit lanes.
    Pairs,
    /// Thumb-2 cores without the DSP extension (Cortex-M3): pixel pairs
    /// over plain byte rows, each weight byte loaded once for both
    /// (`conv2d_two_s8`).
    BytePairs,
    /// Every other target (Cortex-M0/M0+, RISC-V, ...): the portable loops.
    Plain,
}

impl Family {
    /// Every family, in the order `by_family!` takes their blocks.
    pub const ALL: [Family; 4] = [Family::Vector, Family::Pairs, Family::BytePairs, Family::Plain];
}

/// The call each family makes.
#[derive(Clone, Debug)]
pub struct ByFamily {
    calls: [TokenStream; 4],
}

impl ByFamily {
    /// One call per family (`call(family)`).
    pub fn of(mut call: impl FnMut(Family) -> TokenStream) -> ByFamily {
        ByFamily { calls: Family::ALL.map(&mut call) }
    }

    /// The statements: one call where every family makes the same one,
    /// else the selection among them.
    pub fn emit(&self) -> TokenStream {
        let [vector, pairs, byte_pairs, plain] = &self.calls;
        let same = vector.to_string();
        if [pairs, byte_pairs, plain].iter().all(|call| call.to_string() == same) {
            return vector.clone();
        }
        quote!(::tinyaot::__private::by_family!({ #vector }, { #pairs }, { #byte_pairs }, { #plain });)
    }
}
