tinyaot::include_model!(Model = "../fixtures/two_subgraphs.tflite");

fn main() {}
