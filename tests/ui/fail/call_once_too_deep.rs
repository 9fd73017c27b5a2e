tinyaot::include_model!(Model = "../fixtures/call_once_too_deep.tflite");

fn main() {}
