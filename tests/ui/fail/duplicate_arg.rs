tinyaot::include_model!(Model = "../../models/fc_chain_int8.tflite", arena_limit = 1024, arena_limit = 2048);

fn main() {}
