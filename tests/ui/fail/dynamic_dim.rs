tinyaot::include_model!(Model = "../fixtures/dynamic_dim.tflite");

fn main() {}
