tinyaot::include_model!(Model = "../fixtures/no_subgraph.tflite");

fn main() {}
