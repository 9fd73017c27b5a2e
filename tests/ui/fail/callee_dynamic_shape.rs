tinyaot::include_model!(Model = "../fixtures/callee_dynamic_shape.tflite");

fn main() {}
