tinyaot::include_model!(Model = "../fixtures/if_arity.tflite");

fn main() {}
