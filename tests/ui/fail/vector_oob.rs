tinyaot::include_model!(Model = "../fixtures/vector_oob.tflite");

fn main() {}
