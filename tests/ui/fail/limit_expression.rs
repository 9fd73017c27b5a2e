tinyaot::include_model!(Model = "../../models/fc_chain_int8.tflite", arena_limit = 1 << 10);

fn main() {}
