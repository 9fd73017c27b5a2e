tinyaot::include_model!(Model = "../fixtures/buffer_oob.tflite");

fn main() {}
