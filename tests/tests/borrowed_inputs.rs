//! `borrowed_inputs = true`: `invoke` takes the inputs by reference and the
//! ops read them in the caller's memory, so the arena holds none of their
//! bytes; the outputs are TFLM's, byte for byte, as with inputs in the
//! arena (single and several inputs, bool and float inputs, a RESHAPE of an
//! input, and a tiled first stage reading the borrowed input band by band).

use tinyaot_tests::harness::vectors;

mod kws {
    tinyaot::include_model!(pub Model = "models/ds_cnn_kws_int8.tflite", borrowed_inputs = true);
}
mod kws_in_arena {
    tinyaot::include_model!(pub Model = "models/ds_cnn_kws_int8.tflite");
}
mod kws_tiled {
    tinyaot::include_model!(pub Model = "models/ds_cnn_kws_int8.tflite", borrowed_inputs = true, arena_limit = 2208);
}
mod three_inputs {
    tinyaot::include_model!(pub Model = "models/add_broadcast_int8.tflite", borrowed_inputs = true);
}
mod masks {
    tinyaot::include_model!(pub Model = "models/masks_float.tflite", borrowed_inputs = true);
}

/// The single reference pair of a project model.
fn pair(name: &str) -> (Vec<u8>, Vec<u8>) {
    let mut vs = vectors(tinyaot_tests::own::DIR, name);
    assert_eq!(vs.len(), 1, "{name}: one reference pair expected");
    let (_, input, output) = vs.remove(0);
    (input, output)
}

fn i8s<const N: usize>(bytes: &[u8]) -> [i8; N] {
    core::array::from_fn(|i| bytes[i] as i8)
}

fn f32s<const N: usize>(bytes: &[u8]) -> [f32; N] {
    core::array::from_fn(|i| f32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap()))
}

fn outputs<'a>(mut output: impl FnMut(usize) -> Option<&'a [u8]>) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(b) = output(i) {
        out.extend_from_slice(b);
        i += 1;
    }
    out
}

#[test]
fn a_borrowed_input_gives_tflms_bytes_and_takes_no_arena() {
    let (input, want) = pair("ds_cnn_kws_int8");
    let frame: [i8; 490] = i8s(&input);
    let mut arena = Box::new(tinyaot::Arena::<{ kws::Model::ARENA_SIZE }>::new());
    let mut model = kws::Model::new(&mut arena);
    model.invoke(&frame);
    assert_eq!(model.output().map(|v| v as u8).to_vec(), want);
    // Twice in a row on the same frame: nothing wrote over it.
    model.invoke(&frame);
    assert_eq!(model.output().map(|v| v as u8).to_vec(), want);
    assert_eq!(kws::Model::INPUTS[0].offset, usize::MAX, "a borrowed input has no arena offset");
    assert!(!model.write_input(0, &input), "a borrowed input is passed to invoke, not written");
    assert!(model.input_bytes_mut(0).is_none());
    // The in-arena plan has a buffer for the input, the borrowed one none.
    let input_buffer = |plan: &tinyaot::MemoryPlan| plan.buffers.iter().any(|b| b.name == kws::Model::INPUTS[0].name);
    assert!(input_buffer(&kws_in_arena::Model::PLAN));
    assert!(!input_buffer(&kws::Model::PLAN));
    const { assert!(kws::Model::ARENA_SIZE <= kws_in_arena::Model::ARENA_SIZE) };
}

#[test]
fn a_tiled_stage_reads_the_borrowed_input_band_by_band() {
    let (input, want) = pair("ds_cnn_kws_int8");
    let frame: [i8; 490] = i8s(&input);
    let plan = kws_tiled::Model::PLAN;
    assert!(!plan.tiled.is_empty(), "arena_limit = 2208 runs the first layers tiled");
    const { assert!(kws_tiled::Model::ARENA_SIZE <= 2208) };
    let mut arena = Box::new(tinyaot::Arena::<{ kws_tiled::Model::ARENA_SIZE }>::new());
    let mut model = kws_tiled::Model::new(&mut arena);
    model.invoke(&frame);
    assert_eq!(model.output().map(|v| v as u8).to_vec(), want);
}

/// Three inputs, the first read through a RESHAPE (a view of the borrowed
/// bytes, in the caller's memory too).
#[test]
fn several_borrowed_inputs_in_order() {
    let (input, want) = pair("add_broadcast_int8");
    let (a, rest) = input.split_at(25);
    let (b, c) = rest.split_at(100);
    let (a, b, c): ([i8; 25], [i8; 100], [i8; 4]) = (i8s(a), i8s(b), i8s(c));
    let mut arena = Box::new(tinyaot::Arena::<{ three_inputs::Model::ARENA_SIZE }>::new());
    let mut model = three_inputs::Model::new(&mut arena);
    model.invoke(&a, &b, &c);
    assert_eq!(outputs(|i| model.output_bytes(i)), want);
}

#[test]
fn borrowed_bool_and_float_inputs() {
    let (input, want) = pair("masks_float");
    let mask: [bool; 5] = core::array::from_fn(|i| input[i] != 0);
    let (x, y): ([f32; 8], [f32; 40]) = (f32s(&input[5..37]), f32s(&input[37..]));
    let mut arena = Box::new(tinyaot::Arena::<{ masks::Model::ARENA_SIZE }>::new());
    let mut model = masks::Model::new(&mut arena);
    model.invoke(&mask, &x, &y);
    tinyaot_tests::harness::compare(&masks::Model::OUTPUTS, &outputs(|i| model.output_bytes(i)), &want).unwrap();
}
