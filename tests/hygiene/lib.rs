//! Hygiene of `include_model!`'s generated code: a `no_std` library that
//! denies every warning, undocumented item and `unsafe` of its own, holding
//! models whose names are the ones people type first (`M`, `N`, `T`, `Model`)
//! or the runtime's own (`Arena`), one in a nested module, one among items
//! that shadow the prelude, two taking turns on one buffer. Built as two
//! crates, editions 2021 and 2024 (`edition2021/`, `edition2024/`), and
//! linted with `cargo clippy -- -D warnings` like the rest of the workspace.
#![no_std]
#![deny(warnings, missing_docs, missing_debug_implementations, unsafe_code)]
#![warn(clippy::pedantic)]

tinyaot::include_model!(pub M = "../../models/fc_chain_int8.tflite");
tinyaot::include_model!(pub N = "../../models/fc_keep_dims_int8.tflite");
tinyaot::include_model!(pub T = "../../models/fc_chain_float.tflite", keep_inputs = true);
tinyaot::include_model!(pub Arena = "../../models/fc_chain_int8.tflite", in_place = false);
tinyaot::include_model!(Model = "../../models/fc_keep_dims_int8.tflite");
// Control flow and state in the generated code: CALL_ONCE with resource
// variables, IF, WHILE.
tinyaot::include_model!(pub Streaming = "../../models/streaming_kws_int8.tflite");
tinyaot::include_model!(pub Branches = "../../models/control_if_int8.tflite");
tinyaot::include_model!(pub Loop = "../../models/control_while_int8.tflite");
// Two memory regions (a link section, `unsafe(link_section)` in either
// edition; a name that is not snake case), the weights copied into the
// first, beside `M` on one arena.
tinyaot::include_model!(
    pub Split = "../../models/fc_chain_int8.tflite",
    regions = [DTCM(".tinyaot_hygiene_fast", 1056), sram(1K)],
    copy_weights = DTCM(1K)
);

/// Models in a nested module, among items that shadow what generated code
/// might otherwise name by its short path.
pub mod nested {
    #![allow(non_camel_case_types, clippy::module_name_repetitions)]

    ::tinyaot::include_model!(pub M = "../../models/fc_chain_int8.tflite");

    /// Shadows the prelude's `Option`.
    #[derive(Debug)]
    pub struct Option;
    /// Shadows the prelude's `Some`.
    #[derive(Debug)]
    pub struct Some;
    /// Shadows the prelude's `None`.
    #[derive(Debug)]
    pub struct None;
    /// Shadows the primitive `usize`.
    #[derive(Debug)]
    pub struct usize;
    /// Shadows the primitive `u8`.
    #[derive(Debug)]
    pub struct u8;
    /// Shadows the primitive `i8`.
    #[derive(Debug)]
    pub struct i8;
    /// Shadows the primitive `f32`.
    #[derive(Debug)]
    pub struct f32;
    /// A module named like the core library.
    pub mod core {}
    /// A module named like the runtime crate.
    pub mod tinyaot {}

    #[allow(unused_macros)]
    macro_rules! assert {
        ($($t:tt)*) => {
            compile_error!("generated code used the user's `assert!`")
        };
    }
    #[allow(unused_macros)]
    macro_rules! include_bytes {
        ($($t:tt)*) => {
            compile_error!("generated code used the user's `include_bytes!`")
        };
    }

    ::tinyaot::include_model!(pub Shadowed = "../../models/fc_chain_float.tflite");

    /// Runs `Shadowed` on an input, for the test.
    #[must_use]
    pub fn shadowed(x: &[::core::primitive::f32; 8]) -> [::core::primitive::f32; 4] {
        let mut arena = ::tinyaot::Arena::<{ Shadowed::ARENA_SIZE }>::new();
        let mut model = Shadowed::new(&mut arena);
        model.input_mut().copy_from_slice(x);
        model.invoke();
        *model.output()
    }
}

/// The one buffer `M` and `N` take turns on.
pub type Shared = tinyaot::Arena<1024>;

/// Runs `M`, then `N`, then `M` again on one buffer; returns both of `M`'s
/// outputs (equal: `N` in between must not disturb what `M` computes) and
/// `N`'s.
#[must_use]
pub fn take_turns(buffer: &mut Shared, x: &[i8; 8], y: &[i8; 24]) -> ([i8; 4], [i8; 15], [i8; 4]) {
    let first = run_m(buffer, *x);
    let mut n = N::new_in(buffer);
    n.input_mut().copy_from_slice(y);
    n.invoke();
    let second = *n.output();
    (first, second, run_m(buffer, *x))
}

fn run_m(buffer: &mut Shared, x: [i8; 8]) -> [i8; 4] {
    let mut m = M::new_in(buffer);
    m.input_mut().copy_from_slice(&x);
    m.invoke();
    *m.output()
}

/// The model named `Model` on its static arena (`None` after the first call).
#[must_use]
pub fn private_model_output(x: &[i8; 24]) -> Option<[i8; 15]> {
    let mut model = Model::take()?;
    model.input_mut().copy_from_slice(x);
    model.invoke();
    Some(*model.output())
}

#[cfg(test)]
mod runs;
