tinyaot::include_model!(Model = "../fixtures/truncated.tflite");

fn main() {}
