tinyaot::include_model!(Model = "../fixtures/unsupported_dtype.tflite");

fn main() {}
