// A real model over its budget: the error is the bottleneck analysis.
tinyaot::include_model!(Kws = "../../models/ds_cnn_kws_int8.tflite", arena_limit = 2 * 1024);

fn main() {}
