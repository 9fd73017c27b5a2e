tinyaot::include_model!(123 = "../../models/fc_chain_int8.tflite");

fn main() {}
