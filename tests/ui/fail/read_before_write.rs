tinyaot::include_model!(Model = "../fixtures/read_before_write.tflite");

fn main() {}
