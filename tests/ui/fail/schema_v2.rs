tinyaot::include_model!(Model = "../fixtures/schema_v2.tflite");

fn main() {}
