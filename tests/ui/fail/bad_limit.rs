tinyaot::include_model!(Model = "../../models/fc_chain_int8.tflite", arena_limit = "lots");

fn main() {}
