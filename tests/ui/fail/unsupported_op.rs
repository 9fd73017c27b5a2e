tinyaot::include_model!(Model = "../fixtures/unsupported_op.tflite");

fn main() {}
