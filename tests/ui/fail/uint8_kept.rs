tinyaot::include_model!(Model = "../fixtures/uint8_kept.tflite");

fn main() {}
