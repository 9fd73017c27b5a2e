//! Bool graph inputs and outputs (`masks_float`: a bool mask input, three
//! bool outputs): typed as `&[bool; N]`, always valid bools whatever the
//! arena held before, written from raw bytes by `write_input` (any nonzero
//! byte is `true`) and never through `input_bytes_mut`.

mod masks {
    tinyaot::include_model!(pub Model = "models/masks_float.tflite");
}

use masks::Model;

/// An arena big enough for the model, first filled with bytes that are not
/// bools (as another model sharing the buffer would leave it).
fn dirty_arena() -> Box<tinyaot::Arena<{ Model::ARENA_SIZE }>> {
    let mut arena = Box::new(tinyaot::Arena::<{ Model::ARENA_SIZE }>::new());
    arena.0.fill(0xA5);
    arena
}

#[test]
fn bool_inputs_and_outputs_start_false_on_a_dirty_arena() {
    let mut arena = dirty_arena();
    let model = Model::new(&mut arena);
    assert_eq!(Model::INPUTS[0].dtype, tinyaot::DType::Bool);
    assert_eq!(*model.input(), [false; 5]);
    assert_eq!(*model.output1(), [false; 40]);
    assert_eq!(*model.output4(), [false; 5]);
}

#[test]
fn write_input_stores_any_nonzero_byte_as_true() {
    let mut arena = dirty_arena();
    let mut model = Model::new(&mut arena);
    assert!(model.input_bytes_mut(0).is_none(), "no raw bytes of a bool input");
    assert!(model.input_bytes_mut(1).is_some());
    assert!(model.write_input(0, &[0, 2, 255, 1, 0]));
    assert_eq!(*model.input(), [false, true, true, true, false]);
    assert!(!model.write_input(0, &[1; 4]), "wrong length");
    assert!(!model.write_input(3, &[]), "no input 3");
}

#[test]
fn bool_input_survives_invoke_and_outputs_read_as_their_bytes() {
    let mut arena = dirty_arena();
    let mut model = Model::new(&mut arena);
    let mask = [true, false, false, true, true];
    *model.input_mut() = mask;
    for (i, x) in model.input1_mut().iter_mut().enumerate() {
        *x = i as f32 / 8.0 - 0.4;
    }
    for (i, x) in model.input2_mut().iter_mut().enumerate() {
        *x = ((i * 37) % 19) as f32 / 9.5 - 1.0;
    }
    model.invoke();
    assert_eq!(*model.input(), mask, "a bool input is never reused");
    let bytes: Vec<bool> = model.output_bytes(1).unwrap().iter().map(|&b| b == 1).collect();
    assert_eq!(model.output1().as_slice(), bytes.as_slice());
    assert!(model.output_bytes(1).unwrap().iter().all(|&b| b <= 1));
    // Both values occur: the comparisons did not collapse to a constant.
    assert!(model.output1().contains(&true) && model.output1().contains(&false));
}
