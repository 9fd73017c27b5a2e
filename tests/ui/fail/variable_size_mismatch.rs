tinyaot::include_model!(Model = "../fixtures/variable_size_mismatch.tflite");

fn main() {}
