tinyaot::include_model!(Model = "../fixtures/call_once_missing_subgraph.tflite");

fn main() {}
