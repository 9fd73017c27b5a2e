tinyaot::include_model!(Model = "../fixtures/call_once_recursion.tflite");

fn main() {}
