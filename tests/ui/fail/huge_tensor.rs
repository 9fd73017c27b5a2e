tinyaot::include_model!(Model = "../fixtures/huge_tensor.tflite");

fn main() {}
