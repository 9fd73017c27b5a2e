tinyaot::include_model!(Model = "../fixtures/shape_mismatch.tflite");

fn main() {}
