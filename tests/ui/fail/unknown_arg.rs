tinyaot::include_model!(Model = "../../models/fc_chain_int8.tflite", arena = 1024);

fn main() {}
