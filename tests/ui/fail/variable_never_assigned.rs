tinyaot::include_model!(Model = "../fixtures/variable_never_assigned.tflite");

fn main() {}
