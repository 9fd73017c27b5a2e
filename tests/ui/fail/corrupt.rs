tinyaot::include_model!(Model = "../fixtures/corrupt.tflite");

fn main() {}
