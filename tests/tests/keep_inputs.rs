//! What the input buffers hold after `invoke()`: by default the planner
//! reuses an input's bytes once its last reader has run (as TFLM does), so
//! the input reads back changed; with `keep_inputs = true` it stays as
//! written and `invoke()` can run again on it.

mod reused {
    tinyaot::include_model!(pub Model = "models/ds_cnn_kws_int8.tflite");
}
mod kept {
    tinyaot::include_model!(pub Model = "models/ds_cnn_kws_int8.tflite", keep_inputs = true);
}

fn input() -> [i8; 490] {
    core::array::from_fn(|i| ((i * 73 + 11) % 256) as u8 as i8)
}

#[test]
fn kept_inputs_survive_invoke_and_give_the_same_output_again() {
    let x = input();
    let mut arena = Box::new(tinyaot::Arena::<{ kept::Model::ARENA_SIZE }>::new());
    let mut model = kept::Model::new(&mut arena);
    model.input_mut().copy_from_slice(&x);
    model.invoke();
    let first = *model.output();
    assert_eq!(*model.input(), x, "keep_inputs: the input reads back as written");
    model.invoke();
    assert_eq!(*model.output(), first, "a second invoke() on the kept input");

    // The same output as the default plan on a freshly written input.
    let mut arena = Box::new(tinyaot::Arena::<{ reused::Model::ARENA_SIZE }>::new());
    let mut model = reused::Model::new(&mut arena);
    model.input_mut().copy_from_slice(&x);
    model.invoke();
    assert_eq!(*model.output(), first);
}

#[test]
fn default_plan_reuses_the_input_and_the_contract_says_so() {
    let x = input();
    let mut arena = Box::new(tinyaot::Arena::<{ reused::Model::ARENA_SIZE }>::new());
    let mut model = reused::Model::new(&mut arena);
    model.input_mut().copy_from_slice(&x);
    model.invoke();
    // The input buffer dies at op 0 and its bytes hold later tensors.
    let input = &reused::Model::PLAN.buffers[0];
    assert_eq!(input.last_op, 0);
    assert!(reused::Model::PLAN.buffers[1..].iter().any(|b| b.offset < input.offset + input.size));
    assert_ne!(*model.input(), x, "the input is reused during invoke()");
    // Writing it again before each invoke() is the contract.
    let first = *model.output();
    model.input_mut().copy_from_slice(&x);
    model.invoke();
    assert_eq!(*model.output(), first);
    // Keeping the input costs arena: the plan says how much.
    const { assert!(kept::Model::ARENA_SIZE > reused::Model::ARENA_SIZE) };
    let kept_input = &kept::Model::PLAN.buffers[0];
    assert_eq!(kept_input.last_op, 7, "a kept input lives to the last op");
}
