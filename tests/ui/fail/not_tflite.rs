tinyaot::include_model!(Model = "../fixtures/not_tflite.tflite");

fn main() {}
