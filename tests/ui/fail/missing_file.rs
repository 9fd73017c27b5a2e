tinyaot::include_model!(Model = "no/such/model.tflite");

fn main() {}
