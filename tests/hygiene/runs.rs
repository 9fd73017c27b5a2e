//! The hygiene crate's models run, and give the same bytes however they
//! are reached: by name, nested, shadowed, or taking turns on one buffer.

#![allow(clippy::pedantic)] // test code; the library itself is linted pedantic

extern crate std;

use crate::{nested, take_turns, Arena, Split, M, N, T};
use std::format;

const X: [i8; 8] = [-128, -77, -3, 0, 5, 64, 100, 127];

fn m_alone(x: &[i8; 8]) -> [i8; 4] {
    let mut arena = tinyaot::Arena::<{ M::ARENA_SIZE }>::new();
    let mut m = M::new(&mut arena);
    m.input_mut().copy_from_slice(x);
    m.invoke();
    *m.output()
}

#[test]
fn models_named_like_the_runtime_and_generics_run() {
    let want = m_alone(&X);
    let mut arena = Arena::take().expect("the static arena is handed out once");
    assert!(Arena::take().is_none());
    arena.input_mut().copy_from_slice(&X);
    arena.invoke();
    assert_eq!(*arena.output(), want, "`Arena` (in_place = false) and `M` are the same model");
    let mut nested = tinyaot::Arena::<{ nested::M::ARENA_SIZE }>::new();
    let mut m = nested::M::new(&mut nested);
    m.input_mut().copy_from_slice(&X);
    m.invoke();
    assert_eq!(*m.output(), want);
    assert!(format!("{m:?}").starts_with("M {"), "Debug names the model: {m:?}");
}

#[test]
fn two_models_take_turns_on_one_buffer() {
    let y: [i8; 24] = core::array::from_fn(|i| (i as i8).wrapping_mul(37));
    let mut buffer = tinyaot::Arena::<1024>::new();
    let (first, n_out, again) = take_turns(&mut buffer, &X, &y);
    assert_eq!(first, again);
    assert_eq!(first, m_alone(&X));
    let mut own = tinyaot::Arena::<{ N::ARENA_SIZE }>::new();
    let mut n = N::new(&mut own);
    n.input_mut().copy_from_slice(&y);
    n.invoke();
    assert_eq!(*n.output(), n_out);
    assert_eq!(crate::private_model_output(&y), Some(n_out));
    assert_eq!(crate::private_model_output(&y), None);
}

#[test]
fn shadowed_prelude_and_float_model_agree() {
    let x: [f32; 8] = core::array::from_fn(|i| i as f32 / 4.0 - 1.0);
    let mut arena = tinyaot::Arena::<{ T::ARENA_SIZE }>::new();
    let mut t = T::new(&mut arena);
    t.input_mut().copy_from_slice(&x);
    t.invoke();
    let first = *t.output();
    assert_eq!(first, nested::shadowed(&x));
    // keep_inputs: the input reads back as written, and invoking again on it
    // gives the same output.
    assert_eq!(*t.input(), x);
    t.invoke();
    assert_eq!(*t.output(), first);
}

#[test]
fn a_model_over_two_regions_gives_the_one_arena_bytes() {
    const {
        assert!(Split::ARENA_SIZE == Split::DTCM_SIZE + Split::SRAM_SIZE);
        // The fast region holds the hottest buffers that fit in 32 bytes,
        // and the weights.
        assert!(Split::DTCM_SIZE > 32 && Split::DTCM_SIZE <= 1056);
    }
    let mut split = Split::take().expect("the static arenas are handed out once");
    split.input_mut().copy_from_slice(&X);
    split.invoke();
    assert_eq!(*split.output(), m_alone(&X));
}
