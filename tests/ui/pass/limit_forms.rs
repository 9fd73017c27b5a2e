// Every accepted form of arena_limit, and the generated API around them.
tinyaot::include_model!(pub A = "../../models/fc_chain_int8.tflite", arena_limit = 49152);
tinyaot::include_model!(B = "../../models/fc_chain_int8.tflite", arena_limit = 48 * 1024);
tinyaot::include_model!(C = "../../models/fc_chain_int8.tflite", arena_limit = 48_000);
tinyaot::include_model!(D = "../../models/fc_chain_int8.tflite", arena_limit = "48K");
tinyaot::include_model!(E = "../../models/fc_chain_int8.tflite", arena_limit = "48KiB");
tinyaot::include_model!(F = "../../models/fc_chain_int8.tflite", arena_limit = "1M");
tinyaot::include_model!(pub(crate) G = "../../models/fc_chain_int8.tflite", arena_limit = (2 * 16), print_plan = false);

fn main() {
    assert_eq!(G::ARENA_SIZE, 32);
    let mut a = A::take().unwrap();
    assert!(A::take().is_none());
    a.input_mut().copy_from_slice(&[0; 8]);
    a.invoke();
    let _: &[i8; 4] = a.output();
    let mut arena = tinyaot::Arena::<{ B::ARENA_SIZE }>::new();
    B::new(&mut arena).invoke();
    let mut big = tinyaot::Arena::<1024>::new();
    C::new_in(&mut big).invoke();
    D::new_in(&mut big).invoke();
    let _ = (E::PLAN, F::INPUT_SHAPE, F::OUTPUT_QUANT);
}
